/**
 * Reading the live account record for the policies: with an Account's own URL, username and
 * password (all three, see `connectionOf` in `accounts.ts`), or with the stack's settings — the
 * stack config `svc:accountApiUrl`, `svc:username`, `svc:password` (decrypted), else the
 * environment variables `SVC_ACCOUNT_API_URL`, `SVC_USERNAME`, `SVC_PASSWORD`.
 *
 * Every outcome is a value, never a throw: the pack reports a failure once, in words, instead
 * of crashing with a stack trace. No outcome carries a credential.
 *
 * @packageDocumentation
 */
import * as crypto from "node:crypto";
import * as pulumi from "@pulumi/pulumi";
import type { AccountRecord } from "../client";
import type { AccountClientOptions, AccountConnectionInputs } from "../core/accountClient";
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
import { ServiceError } from "../core/serviceErrors";
import { sentences } from "../client/messageText";

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

/**
 * Reads the live account record with an account's settings: an `Account` resource's own URL,
 * username and password, or `{}` for the stack's `svc:` account. Called at most once per account per run of the pack (`LimitsContext`).
 */
export type LiveAccountSource = (inputs?: AccountConnectionInputs) => Promise<LiveAccountResult>;

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
  // One request per account (URL, username, hash of the password, transport rule) per process.
  const reads = new Map<string, Promise<LiveAccountResult>>();
  return async (inputs = {}) => {
    const settings = new Settings(options.env ?? process.env, options.config ?? pulumiStackConfig);
    let key: string;
    try {
      const s = settings.require(ACCOUNT_SETTINGS, inputs, "Reading the live account record");
      const secret = crypto.createHash("sha256").update(s.password.value, "utf8").digest("hex");
      key = [s.accountApiUrl.value, s.username.value, secret, inputs.allowInsecureHttp === true].join("\n");
    } catch (e) {
      if (e instanceof MissingSettingError) return missingSettings(e, settings);
      throw e;
    }
    let read = reads.get(key);
    if (read === undefined) {
      read = readLive(settings, inputs, options.client);
      reads.set(key, read);
    }
    return read;
  };
}

/** Reads the record once; every outcome is a value. */
async function readLive(
  settings: Settings,
  inputs: AccountConnectionInputs,
  client: AccountClientOptions | undefined,
): Promise<LiveAccountResult> {
  try {
    // Loaded on first use: the HTTP client is not on the path of the pack's start.
    const { readAccount, PREVIEW_READ_OPTIONS } = await import("../core/accountClient");
    const clientOptions: AccountClientOptions = { ...PREVIEW_READ_OPTIONS, ...client };
    const { record, url } = await readAccount(
      settings,
      inputs,
      "Reading the live account record",
      clientOptions,
    );
    return { status: "ok", record, url };
  } catch (e) {
    if (e instanceof ServiceError) return { status: "failed", message: e.detail };
    throw e;
  }
}

/** The outcome when some or all settings are in no source (or set but empty). */
function missingSettings(e: MissingSettingError, settings: Settings): LiveAccountResult {
  const { missing, empty } = e;
  if (missing.length === ACCOUNT_SETTINGS.length && Object.keys(empty).length === 0) {
    return { status: "not-configured" };
  }
  const unset = missing.filter((m) => empty[m] === undefined);
  const parts: string[] = [];
  if (unset.length > 0) {
    parts.push(
      `${unset.map((m) => `\`${m}\``).join(" and ")} ${unset.length > 1 ? "are" : "is"} missing: ` +
        unset.map(describeSourceWithoutInput).join("; "),
    );
  }
  for (const m of missing) {
    const origin = empty[m];
    if (origin !== undefined) parts.push(`\`${m}\` is set but empty in the ${origin}: give it a value`);
  }
  return {
    status: "incomplete",
    missing,
    message:
      parts.join("; ") +
      unknownConfigKeys(configKeysOf(settings.config))
        .map((u) => `. ${configKeyHint(u)}`)
        .join(""),
  };
}

/** "set the stack config `svc:password` or the environment variable `SVC_PASSWORD`". */
function describeSourceWithoutInput(name: SettingName): string {
  return `set the stack config \`${SETTINGS[name].config}\` or the environment variable \`${SETTINGS[name].env}\``;
}

/**
 * How a live source fared, to follow "the live account record": "is not configured: set ...",
 * "could not be read: ...", ending as a sentence ends (with the service's own "?" or a full
 * stop), so that what follows starts a new one (`sentences` in `client/messageText.ts`). Never
 * carries a credential.
 */
export function describeLive(live: LiveAccountResult | undefined): string {
  switch (live?.status) {
    case undefined:
    case "not-configured":
      return sentences(
        "is not configured: set the stack config " +
          ACCOUNT_SETTINGS.map((s) => `\`${SETTINGS[s].config}\``).join(", ") +
          " (the password as a secret), or the environment variables " +
          ACCOUNT_SETTINGS.map((s) => `\`${SETTINGS[s].env}\``).join(", "),
      );
    case "incomplete":
      return sentences(`is not fully configured: ${live.message}`);
    case "failed":
      return sentences(`could not be read: ${live.message}`);
    case "ok":
      return "was read, but has no usable value for it.";
  }
}
