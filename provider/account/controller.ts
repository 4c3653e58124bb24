/**
 * The Account's logic (`AccountController`), served by the svc provider through `adapter.ts` and
 * to a stack written by 0.2 through `dynamic/account.ts`: it reads
 * `GET {accountApiUrl}/v2/svc/user` (spec 4.2).
 *
 * When the record is read:
 * - `check` (every preview and up) validates inputs and that the URL and credentials are
 *   configured somewhere. Of an existing Account it also reads the live record (for `diff`): a
 *   refusal (401, 403, a wrong URL) is reported there as a check failure, printed once and
 *   without a stack trace (a 0.2 stack's dynamic-provider server prints one for an error thrown by
 *   `diff`).
 *   A new Account's record is read by the preview of `create` instead ({@link AccountController.previewOutputs}).
 * - `diff` (every preview and up of an existing Account) compares the record `check` read with
 *   the stack's outputs and reports a change when any field differs (for instance a plan
 *   upgrade), printing which fields changed; secrets are shown as "(secret)".
 * - `create` and `update` read it and store it as outputs; their previews (`previewOutputs`, the
 *   svc provider's) read it too when every input is known, so the outputs are known at preview.
 * - `read` (`pulumi refresh`) reads it again; with no stored outputs (`pulumi import`, a program's
 *   `get`) it reads the record of the configured credentials, and its messages name the ID asked.
 *   The engine (v3.259) decides whether a refresh changed a resource by calling `diff` right
 *   after `read`, with the refreshed outputs as the olds: `diff` then compares them with the
 *   outputs `read` replaced (kept for that call), so a plan upgrade shows as an update in
 *   `pulumi refresh`, not as "unchanged".
 * - `delete` leaves the service untouched (the account is not managed, only read).
 *
 * @packageDocumentation
 */
import "../../client/requireNode"; // first: one clear error on a Node.js older than 22.19
import type * as pulumi from "@pulumi/pulumi";
import { SvcError, usernameProblem, type AccountRecord } from "../../client";
import { resolveEndpoint } from "../../client/transport";
import { PREVIEW_READ_OPTIONS, readAccount, type AccountConnectionInputs } from "../../core/accountClient";
import { ACCOUNT_FIELD_LIST, isSecretAccountOutput } from "../../core/accountFields";
import {
  ACCOUNT_SETTINGS,
  MissingSettingError,
  Settings,
  type StackConfigReader,
} from "../../core/connection";
import { Failures, checkBoolean, checkString, checkUrl } from "../../core/inputChecks";
import { ServiceError } from "../../core/serviceErrors";
import { UNKNOWN, containsUnknown, isUnknown } from "../../core/unknownValue";
import { unknownInputsProblem } from "../../core/inputNames";
import { ACCOUNT_ARGUMENTS } from "../../core/resources/account";
import type { Operation } from "../resource";

/** Inputs of the Account provider, resolved (no Outputs): the connection and the resource's name. */
export type AccountInputs = AccountConnectionInputs & {
  /** The resource's name, for messages ("Account `account`"). */
  accountName?: string;
};

/** "Account `account`", or "Account" when the name is not known (state of an earlier version). */
export function accountLabel(inputs: { accountName?: unknown }): string {
  return typeof inputs.accountName === "string" ? `Account \`${inputs.accountName}\`` : "Account";
}

/** Outputs of the Account provider: the record in camelCase, plus the connection inputs that are not secret. */
export type AccountOutputs = Record<string, unknown> & {
  accountApiUrl?: string;
  username?: string;
  allowInsecureHttp?: boolean;
};

/** Maps a record to outputs (unknown extra fields were already dropped by the client). */
export function recordToOutputs(record: AccountRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { wire, output } of ACCOUNT_FIELD_LIST) out[output] = record[wire as keyof AccountRecord];
  return out;
}

/** The fields whose value differs between the stored outputs and a fresh record, as `name: old → new`. */
export function changedFields(olds: Record<string, unknown>, fresh: Record<string, unknown>): string[] {
  const changes: string[] = [];
  for (const { output } of ACCOUNT_FIELD_LIST) {
    if (JSON.stringify(olds[output]) !== JSON.stringify(fresh[output])) {
      changes.push(
        isSecretAccountOutput(output)
          ? `${output} (secret) changed`
          : `${output}: ${JSON.stringify(olds[output])} → ${JSON.stringify(fresh[output])}`,
      );
    }
  }
  return changes;
}

/**
 * The Account's logic: its operations on typed inputs and outputs. The svc provider serves it
 * through `AccountAdapter` (`adapter.ts`), a 0.2 stack through `dynamic/account.ts`; tests call
 * its methods directly.
 */
export class AccountController {
  /** Stack config and environment; replaced by `configure`. */
  private settings: Settings;
  /** Records `check` read for the `diff` that follows, by {@link diffKey}. */
  private readonly checked = new Map<string, AccountRecord>();
  /** The outputs each `read` replaced, for the refresh's `diff` that follows, by {@link refreshKey}. */
  private readonly refreshed = new Map<string, AccountOutputs>();

  /**
   * @param env - the environment (injectable for tests)
   * @param config - the stack config, until `configure` hands over the engine's
   */
  constructor(env: NodeJS.ProcessEnv = process.env, config?: StackConfigReader) {
    this.settings = new Settings(env, config);
  }

  /** Takes the provider's configuration (the engine's stack config, or an explicit provider's inputs). */
  async configure(config: StackConfigReader): Promise<void> {
    this.settings = new Settings(this.settings.env, config);
  }

  async check(olds: AccountInputs, news: AccountInputs): Promise<pulumi.dynamic.CheckResult<AccountInputs>> {
    const f = new Failures();
    // Names it does not take (a misspelled `userName`), in the new inputs only: one failure of the
    // resource. Its name and its outputs (set to none by the class and the SDKs) are no mistake.
    const added = ["accountName", ...ACCOUNT_FIELD_LIST.map((x) => x.output)];
    const unknown = unknownInputsProblem("Account", Object.keys(news), ACCOUNT_ARGUMENTS, added);
    if (unknown !== undefined) f.add("", `${accountLabel(news)}: ${unknown}`);
    checkUrl(f, "accountApiUrl", news.accountApiUrl);
    checkString(f, "username", news.username);
    const colon = usernameProblem(news.username);
    if (colon) f.add(colon.field, colon.message);
    checkString(f, "password", news.password, true);
    checkBoolean(f, "allowInsecureHttp", news.allowInsecureHttp);
    if (f.list.length === 0 && !containsUnknown(news)) {
      try {
        const s = this.settings.require(ACCOUNT_SETTINGS, news, accountLabel(news));
        // The same transport rule the client applies at up, reported at preview.
        resolveEndpoint(s.accountApiUrl.value, "accountApiUrl", news.allowInsecureHttp === true);
        const configured = usernameProblem(s.username.value, s.username.origin);
        if (configured) f.add(configured.field, configured.message);
      } catch (e) {
        // A setting in no source (or only empty): a failure of the resource, not of an input it did not set.
        if (e instanceof MissingSettingError) f.add("", e.message);
        else if (e instanceof SvcError) f.addForSetting("accountApiUrl", news.accountApiUrl, e.message);
        else throw e;
      }
    }
    // An existing Account: read the record now, so that a refusal is one check failure.
    if (f.list.length === 0 && !containsUnknown(news) && Object.keys(olds).length > 0) {
      await this.readForDiff(news, f);
    }
    return { inputs: news, failures: f.result() };
  }

  /**
   * Reads the record `diff` compares; a service error becomes a failure of the resource as a
   * whole (no property: the engine then prints "resource 'account' has a problem: ...").
   */
  private async readForDiff(news: AccountInputs, f: Failures): Promise<void> {
    try {
      this.checked.set(diffKey(news), await this.fetch(news, accountLabel(news)));
    } catch (e) {
      if (!(e instanceof ServiceError)) throw e;
      f.add("", e.message);
    }
  }

  /**
   * @param log - where the changed fields are printed (the svc provider passes the resource's row)
   */
  async diff(
    id: string,
    olds: AccountOutputs,
    news: AccountInputs,
    log: (line: string) => void = (line) => console.log(line),
  ): Promise<pulumi.dynamic.DiffResult> {
    const before = this.refreshed.get(refreshKey(id, olds));
    this.refreshed.delete(refreshKey(id, olds));
    // A refresh's diff: no `check` ran, and the olds are what `read` just returned.
    if (before !== undefined && !this.checked.has(diffKey(news))) return this.refreshDiff(before, olds, log);
    const inputsChanged = (["accountApiUrl", "username", "allowInsecureHttp"] as const).some(
      (k) => (olds[k] ?? undefined) !== (news[k] ?? undefined),
    );
    // An input unknown during preview cannot be "no change", and must not be sent.
    if (inputsChanged || containsUnknown(news)) return { changes: true };
    const key = diffKey(news);
    const record = this.checked.get(key) ?? (await this.fetch(news, accountLabel(news)));
    this.checked.delete(key);
    const changes = changedFields(olds, recordToOutputs(record));
    if (changes.length > 0) {
      log(
        `${accountLabel(news)}: the account record changed since the last deployment: ${changes.join("; ")}`,
      );
    }
    return { changes: changes.length > 0 };
  }

  /**
   * The diff the engine asks for right after `read` (`pulumi refresh`): what the refresh changed
   * in the stored outputs, printed like a preview's.
   *
   * @param before - the outputs `read` replaced
   * @param after - the outputs it returned
   * @param log - where the changed fields are printed
   */
  private refreshDiff(
    before: AccountOutputs,
    after: AccountOutputs,
    log: (line: string) => void,
  ): pulumi.dynamic.DiffResult {
    const changes = changedFields(before, after);
    if (changes.length > 0) {
      log(
        `${accountLabel({ accountName: after.accountName })}: the refresh read a changed account record: ${changes.join("; ")}`,
      );
    }
    return { changes: changes.length > 0 };
  }

  /** Reads the record and stores it; a preview reads it too when every input is known ({@link previewOutputs}). */
  async create(
    inputs: AccountInputs,
    op: Operation = {},
  ): Promise<pulumi.dynamic.CreateResult<AccountOutputs>> {
    if (op.preview === true) return { id: "", outs: await this.previewOutputs(inputs) };
    const record = await this.fetch(inputs, accountLabel(inputs));
    return { id: record.id, outs: this.outputs(inputs, record) };
  }

  async update(
    _id: string,
    _olds: AccountOutputs,
    news: AccountInputs,
    op: Operation = {},
  ): Promise<pulumi.dynamic.UpdateResult<AccountOutputs>> {
    if (op.preview === true) return { outs: await this.previewOutputs(news) };
    const record = await this.fetch(news, accountLabel(news));
    return { outs: this.outputs(news, record) };
  }

  /**
   * The outputs a preview of `create` or `update` shows. With every input and setting known: the
   * record read now, with the same GET as `create` (read-only; an existing Account's is read on
   * every preview by `check`) and the shorter timeouts of a preview, so that a new Account's
   * outputs are known at its first preview and the policy pack checks the resources bound to it
   * then. With one unknown (computed from another resource's output): the inputs, and every other
   * field of the record unknown; nothing is sent.
   *
   * @throws ServiceError when the service cannot be reached, refuses the credentials or answers
   * badly (the preview fails on the Account's row, as it does for an existing Account)
   */
  async previewOutputs(inputs: AccountInputs): Promise<AccountOutputs> {
    const label = accountLabel(inputs);
    if (!containsUnknown(inputs)) {
      const s = this.settings.require(ACCOUNT_SETTINGS, inputs, label);
      if (!Object.values(s).some((r) => isUnknown(r.value))) {
        const { record } = await readAccount(this.settings, inputs, label, PREVIEW_READ_OPTIONS);
        return this.outputs(inputs, record);
      }
    }
    const values: Record<string, unknown> = { ...inputs };
    for (const f of ACCOUNT_FIELD_LIST) if (values[f.output] === undefined) values[f.output] = UNKNOWN;
    return values as AccountOutputs;
  }

  async read(id: string, props: AccountOutputs): Promise<pulumi.dynamic.ReadResult<AccountOutputs>> {
    const inputs: AccountInputs = {
      accountName: typeof props.accountName === "string" ? props.accountName : undefined,
      accountApiUrl: props.accountApiUrl,
      username: props.username,
      allowInsecureHttp: props.allowInsecureHttp,
    };
    // A password given as a resource input is not kept apart in the state. When neither
    // stack config nor the environment has one, refresh authenticates with the record's
    // own `password` (the service's authentication password, spec 2.3), kept as a secret.
    if (!this.settings.get("password") && typeof props.password === "string" && !isUnknown(props.password)) {
      inputs.password = props.password;
    }
    // No stored record: an import or a program's `get`, which name the ID, not a refresh.
    const stored = ACCOUNT_FIELD_LIST.some(({ output }) => output in props);
    const what = stored ? "refresh" : `read of the ID \`${id}\``;
    const record = await this.fetch(inputs, `${accountLabel(inputs)} (${what})`);
    const outs = this.outputs(inputs, record);
    this.refreshed.set(refreshKey(record.id, outs), props);
    return { id: record.id, props: outs };
  }

  async delete(): Promise<void> {
    // The account is only read, never managed: nothing to delete at the service.
  }

  private outputs(inputs: AccountInputs, record: AccountRecord): AccountOutputs {
    const outs: AccountOutputs = recordToOutputs(record);
    // Connection inputs that are not secret are kept so that refresh can read again.
    if (inputs.accountApiUrl) outs.accountApiUrl = inputs.accountApiUrl;
    if (inputs.username) outs.username = inputs.username;
    if (inputs.allowInsecureHttp !== undefined) outs.allowInsecureHttp = inputs.allowInsecureHttp;
    if (inputs.accountName !== undefined) outs.accountName = inputs.accountName;
    return outs;
  }

  private async fetch(inputs: AccountInputs, what: string): Promise<AccountRecord> {
    return (await readAccount(this.settings, inputs, what)).record;
  }
}

/** Which Account and connection a record read by `check` belongs to. */
function diffKey(inputs: AccountInputs): string {
  return JSON.stringify([
    inputs.accountName,
    inputs.accountApiUrl,
    inputs.username,
    inputs.allowInsecureHttp,
  ]);
}

/** Which Account a refreshed record belongs to: its ID, name and the record's fields as read. */
function refreshKey(id: string, outputs: AccountOutputs): string {
  return JSON.stringify([
    id,
    outputs.accountName,
    ...ACCOUNT_FIELD_LIST.map(({ output }) => outputs[output]),
  ]);
}
