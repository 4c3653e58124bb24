/**
 * Reading the live account record for the policies, with the same settings as the `Account`
 * resource: the stack config `svc:accountApiUrl`, `svc:username`, `svc:password` (decrypted),
 * else the environment variables `SVC_ACCOUNT_API_URL`, `SVC_USERNAME`, `SVC_PASSWORD`.
 *
 * Every outcome is a value, never a throw: the pack reports a failure once, in words, instead
 * of crashing with a stack trace. No outcome carries a credential.
 *
 * @packageDocumentation
 */
import * as pulumi from "@pulumi/pulumi";
import type { AccountRecord } from "../client";
import { readAccount, type AccountClientOptions } from "../core/accountClient";
import {
  ACCOUNT_SETTINGS,
  MissingSettingError,
  configKeyHint,
  configKeysOf,
  unknownConfigKeys,
  SETTINGS,
  Settings,
  type SettingName,
  type StackConfigReader,
} from "../core/connection";
import { ServiceError } from "../core/messages";

/** The outcome of reading the live account record. */
export type LiveAccountResult =
  | {
      /** The record was read. */
      readonly status: "ok";
      readonly record: AccountRecord;
      /** The account API URL it was read from. */
      readonly url: string;
    }
  | {
      /** None of the three settings is set anywhere: the live source is simply not used. */
      readonly status: "not-configured";
    }
  | {
      /** Some settings are set, others are missing. */
      readonly status: "incomplete";
      /** The missing settings. */
      readonly missing: readonly SettingName[];
      /** What to set, in words. */
      readonly message: string;
    }
  | {
      /** The service could not be reached, refused the credentials or answered badly. */
      readonly status: "failed";
      /** What happened and what to check, without credentials. */
      readonly message: string;
    };

/** Reads the live account record; called at most once per run of the pack (see `LimitsContext`). */
export type LiveAccountSource = () => Promise<LiveAccountResult>;

/**
 * Reads stack config keys such as `svc:password` through `new pulumi.Config("svc")`: the
 * Node.js language host starts a policy pack with the stack's config (secrets decrypted), as
 * it does a program.
 */
export const pulumiStackConfig: StackConfigReader = {
  get(key: string): string | undefined {
    const i = key.indexOf(":");
    if (i <= 0) return undefined;
    return new pulumi.Config(key.slice(0, i)).get(key.slice(i + 1));
  },
  keys(): readonly string[] {
    return Object.keys(pulumi.runtime.allConfig());
  },
};

/** Options of {@link liveAccountFromSettings}. */
export interface LiveAccountOptions {
  /** The environment; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** The stack config; default {@link pulumiStackConfig}. */
  config?: StackConfigReader;
  /**
   * Client options (timeouts, retry policy, test hooks). Default: a 5 s connect timeout, a 15 s
   * request timeout and at most 2 retries within 5 s, so an unreachable service costs a preview
   * seconds, not minutes.
   */
  client?: AccountClientOptions;
}

/**
 * The live source from the stack config and the environment. The settings are looked up when
 * the source is called, after the engine has handed the pack the stack's config.
 */
export function liveAccountFromSettings(options: LiveAccountOptions = {}): LiveAccountSource {
  return async () => {
    const settings = new Settings(options.env ?? process.env, options.config ?? pulumiStackConfig);
    const clientOptions: AccountClientOptions = {
      connectTimeoutMs: 5_000,
      requestTimeoutMs: 15_000,
      retry: { maxRetries: 2, maxTotalDelayMs: 5_000 },
      ...options.client,
    };
    try {
      const { record, url } = await readAccount(
        settings,
        {},
        "Reading the live account record",
        clientOptions,
      );
      return { status: "ok", record, url };
    } catch (e) {
      if (e instanceof MissingSettingError) {
        const missing = e.missing;
        if (missing.length === ACCOUNT_SETTINGS.length) return { status: "not-configured" };
        return {
          status: "incomplete",
          missing,
          message:
            `${missing.map((m) => `\`${m}\``).join(" and ")} ${missing.length > 1 ? "are" : "is"} missing: ` +
            missing.map(describeSourceWithoutInput).join("; ") +
            unknownConfigKeys(configKeysOf(settings.config))
              .map((u) => `. ${configKeyHint(u)}`)
              .join(""),
        };
      }
      if (e instanceof ServiceError) return { status: "failed", message: e.detail };
      throw e;
    }
  };
}

/** "set the stack config `svc:password` or the environment variable `SVC_PASSWORD`". */
function describeSourceWithoutInput(name: SettingName): string {
  return `set the stack config \`${SETTINGS[name].config}\` or the environment variable \`${SETTINGS[name].env}\``;
}
