/**
 * From account settings to the account record: the one path that resolves the account API's
 * settings (input, stack config, environment), opens a client and reads
 * `GET {accountApiUrl}/v2/svc/user`. The `Account` provider, `DlqRecovery`'s rate gate and
 * window horizon ({@link AccountLimitsCache}) and the policy pack's live account source all read
 * the record through it.
 *
 * @packageDocumentation
 */
import * as crypto from "node:crypto";
import type { AccountRecord, SvcClientOptions } from "../client";
import { SvcClient } from "../client/SvcClient";
import { ACCOUNT_SETTINGS, MissingSettingError, type Settings } from "./connection";
import { describeOrigins, explainServiceError } from "./serviceErrors";

/** The account connection a resource may give as inputs (each falls back to config and env). */
export interface AccountConnectionInputs {
  accountApiUrl?: string;
  username?: string;
  password?: string;
  allowInsecureHttp?: boolean;
}

/** Client options besides the endpoint and credentials (timeouts, retry policy, test hooks). */
export type AccountClientOptions = Omit<
  SvcClientOptions,
  "accountApiUrl" | "username" | "password" | "allowInsecureHttp" | "baseUrl" | "token"
>;

/**
 * The client options of a read made during a preview (the policy pack's live source, an
 * `Account`'s preview): a 5 s connect timeout, a 15 s request timeout and at most 2 retries within
 * 5 s, so an unreachable service costs a preview seconds, not minutes.
 */
export const PREVIEW_READ_OPTIONS: AccountClientOptions = {
  connectTimeoutMs: 5_000,
  requestTimeoutMs: 15_000,
  retry: { maxRetries: 2, maxTotalDelayMs: 5_000 },
};

/** The account record and where it was read. */
export interface AccountRead {
  readonly record: AccountRecord;
  /** The account API URL it was read from. */
  readonly url: string;
}

/**
 * Reads the account record with the account settings.
 *
 * @param settings - stack config and environment
 * @param inputs - the resource's connection inputs, if any
 * @param what - what is being done, for messages, e.g. "Account (refresh)"
 * @param clientOptions - timeouts, retry policy, test hooks
 * @throws MissingSettingError when a setting is in no source (nothing is sent)
 * @throws ServiceError when the service cannot be reached, refuses the credentials or answers
 * badly (the client's error is the cause)
 */
export async function readAccount(
  settings: Settings,
  inputs: AccountConnectionInputs,
  what: string,
  clientOptions: AccountClientOptions = {},
): Promise<AccountRead> {
  const s = settings.require(ACCOUNT_SETTINGS, inputs, what);
  const url = s.accountApiUrl.value;
  const client = new SvcClient({
    ...clientOptions,
    accountApiUrl: url,
    username: s.username.value,
    password: s.password.value,
    allowInsecureHttp: inputs.allowInsecureHttp === true,
  });
  try {
    return { record: await client.getAccount(), url };
  } catch (e) {
    throw explainServiceError(e, what, url, describeOrigins({ username: s.username, password: s.password }));
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** What a drain takes from the account record; a field is unset when it is not known. */
export interface AccountLimits {
  /** The record's `id`, to tell which account the limits are of. */
  readonly accountId?: string;
  /** `max_requests_per_second`: the limit of the account's rate gate. */
  readonly maxRequestsPerSecond?: number;
  /** `max_dlq_retention_time_milis`: how far back failures can lie (where windows split). */
  readonly dlqRetentionMs?: number;
  /** `max_requests_per_day`: a drain's requests beyond ceil(N/50) stay within 2 % of it. */
  readonly maxRequestsPerDay?: number;
}

/** A limit the record states: a positive integer, else not known. */
function positive(v: number): number | undefined {
  return Number.isSafeInteger(v) && v > 0 ? v : undefined;
}

/**
 * The account limits drains read, one read per account (API URL, username, hash of the
 * password): every `DlqRecovery` of an up asks (they share one provider process), the first read
 * is sent and the others wait for it. A read that fails is forgotten once it has answered the
 * callers that waited for it, so a later drain asks again (the drain that got `{}` learns the
 * rate from the rate-limit headers). One per provider process (`ProviderProcess`); tests build
 * their own.
 */
export class AccountLimitsCache {
  private readonly reads = new Map<string, Promise<AccountLimits>>();

  /**
   * The account's limits for a drain. Without account settings nothing is sent and nothing is
   * known (`{}`); a read that fails gives `{}` too.
   *
   * @param settings - stack config and environment
   * @param what - who asks, for messages
   */
  get(settings: Settings, what: string): Promise<AccountLimits> {
    let key: string;
    try {
      const s = settings.require(ACCOUNT_SETTINGS, {}, what);
      const secret = crypto.createHash("sha256").update(s.password.value, "utf8").digest("hex").slice(0, 16);
      key = `${s.accountApiUrl.value}\n${s.username.value}\n${secret}`;
    } catch (e) {
      if (e instanceof MissingSettingError) return Promise.resolve({});
      throw e;
    }
    const cached = this.reads.get(key);
    if (cached !== undefined) return cached;
    const read = readAccount(settings, {}, what).then(
      ({ record }): AccountLimits => ({
        accountId: record.id,
        maxRequestsPerSecond: positive(record.max_requests_per_second),
        dlqRetentionMs: positive(record.max_dlq_retention_time_milis),
        maxRequestsPerDay: positive(record.max_requests_per_day),
      }),
      (): AccountLimits => {
        this.reads.delete(key);
        return {};
      },
    );
    this.reads.set(key, read);
    return read;
  }
}
