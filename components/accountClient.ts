/**
 * From account settings to the account record: the one path that resolves the account API's
 * settings (input, stack config, environment), opens a client and reads
 * `GET {accountApiUrl}/v2/svc/user`. The `Account` provider, `DlqRecovery`'s default request
 * rate and the policy pack's live account source all read the record through it.
 *
 * @packageDocumentation
 */
import { SvcClient, type AccountRecord, type SvcClientOptions } from "../client";
import { ACCOUNT_SETTINGS, type Settings } from "./connection";
import { describeOrigins, explainServiceError } from "./messages";

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
