/**
 * `svc:index:Account` served by the svc provider: an adapter from the provider protocol's
 * calls to the one implementation of the Account's logic, `AccountController`
 * (`controller.ts`). It supplies the resource's name (from its URN, as
 * `accountName`, which the logic names it by in messages; never stored) and says which
 * properties are secrets; values come and go unwrapped (`properties.ts` wraps them).
 *
 * @packageDocumentation
 */
import { AccountController, type AccountInputs, type AccountOutputs } from "./controller";
import type { StackConfigReader } from "../../core/connection";
import type { Engine } from "../engine";
import {
  RowLog,
  nameOfUrn,
  type CheckResult,
  type Props,
  type ReadResult,
  type ResourceAdapter,
} from "../resource";
import { accountInputs, secretAccountOutputs } from "../schema";

/** `values` with the resource's name as `accountName`. */
function named(urn: string, values: Record<string, unknown>): Record<string, unknown> {
  return { ...values, accountName: nameOfUrn(urn) };
}

/** `values` without `accountName` (the name is the URN's, never stored). */
function unnamed(values: Record<string, unknown>): Record<string, unknown> {
  const { accountName: _, ...rest } = values;
  return rest;
}

/** The secrets of the inputs: the schema's, and whatever arrived secret. */
function inputSecrets(news: Props): Set<string> {
  const schema = Object.entries(accountInputs()).filter(([, p]) => p.secret);
  return new Set([...news.secrets, ...schema.map(([n]) => n)]);
}

/** The secrets of the outputs: the schema's, and the inputs that arrived secret. */
function outputSecrets(news: Props): Set<string> {
  return new Set([...news.secrets, ...secretAccountOutputs()]);
}

/**
 * An import or a `get` asked for an account ID that the provider's credentials do not read: each
 * set of credentials reads one account record, so the ID must be that record's.
 */
export class AccountIdMismatchError extends Error {
  /** Stable code. */
  readonly code = "SVC_ACCOUNT_ID_MISMATCH";

  /**
   * @param name - the resource's name
   * @param asked - the ID asked for
   * @param found - the ID of the record the credentials read
   */
  constructor(
    name: string,
    readonly asked: string,
    readonly found: string,
  ) {
    super(
      `Account \`${name}\`: the ID \`${asked}\` is not the account its provider's credentials read ` +
        `(\`${found}\`); nothing was imported or read. Give the ID \`${found}\`, or read \`${asked}\` with ` +
        "that account's `accountApiUrl`, `username` and `password` (the `svc:` stack config, or an " +
        "explicit provider: `--provider` of `pulumi import`, `options: provider` in a program).",
    );
    this.name = "AccountIdMismatchError";
  }
}

/** The Account resource of the svc provider. */
export class AccountAdapter implements ResourceAdapter {
  /**
   * @param engine - the engine that started the provider (lines on the resource's row)
   * @param logic - the Account's logic (tests pass one with their own environment)
   */
  constructor(
    private readonly engine: Engine,
    private readonly logic: AccountController = new AccountController(),
  ) {}

  /** Hands the provider's configuration (the `svc:` stack config) to the logic. */
  async configure(config: StackConfigReader): Promise<void> {
    await this.logic.configure(config);
  }

  async check(urn: string, _olds: Props, news: Props): Promise<CheckResult> {
    // The logic reads the record at check for an existing Account only so that a dynamic
    // provider reports a refusal without a stack trace; here `diff` reports it as plainly, and a
    // check cannot tell a new Account from an existing one without inputs: the olds stay empty.
    const res = await this.logic.check({} as AccountInputs, named(urn, news.values) as AccountInputs);
    const failures = (res.failures ?? []).map((f) => ({ property: f.property, reason: f.reason }));
    const inputs = unnamed((res.inputs ?? news.values) as Record<string, unknown>);
    return { inputs: { values: inputs, secrets: inputSecrets(news) }, failures };
  }

  async diff(id: string, urn: string, olds: Props, news: Props): Promise<boolean> {
    const log = new RowLog(this.engine, urn);
    const res = await this.logic.diff(
      id,
      named(urn, olds.values) as AccountOutputs,
      named(urn, news.values) as AccountInputs,
      log.info,
    );
    await log.flushed();
    return res.changes === true;
  }

  async create(urn: string, news: Props, preview: boolean): Promise<{ id: string; outputs: Props }> {
    const res = await this.logic.create(named(urn, news.values) as AccountInputs, { preview });
    return { id: res.id, outputs: { values: unnamed(res.outs ?? {}), secrets: outputSecrets(news) } };
  }

  async update(id: string, urn: string, olds: Props, news: Props, preview: boolean): Promise<Props> {
    const res = await this.logic.update(
      id,
      named(urn, olds.values) as AccountOutputs,
      named(urn, news.values) as AccountInputs,
      { preview },
    );
    return { values: unnamed(res.outs ?? {}), secrets: outputSecrets(news) };
  }

  /**
   * `pulumi refresh` (and, with no properties, `pulumi import` and a program's `get`): the record
   * read again. The inputs are the request's, else the connection inputs kept in the outputs.
   *
   * @throws AccountIdMismatchError when an import or a `get` asks for another account than the
   * provider's credentials read (nothing is stored)
   */
  async read(id: string, urn: string, props: Props, inputs: Props): Promise<ReadResult> {
    const res = await this.logic.read(id, named(urn, props.values) as AccountOutputs);
    const adopted = Object.keys(props.values).length === 0;
    if (adopted && res.id !== id) throw new AccountIdMismatchError(nameOfUrn(urn), id, res.id ?? "");
    const outputs = unnamed(res.props ?? {});
    const given = Object.keys(inputs.values).length > 0;
    const kept = Object.fromEntries(
      Object.entries(accountInputs())
        .filter(([, p]) => !p.secret)
        .map(([k]) => [k, outputs[k]]),
    );
    return {
      id: res.id ?? id,
      outputs: { values: outputs, secrets: outputSecrets(inputs) },
      inputs: given ? inputs : { values: kept, secrets: inputSecrets(inputs) },
    };
  }

  /** Nothing of an Account runs between calls: a `Cancel` has nothing to stop. */
  async cancel(): Promise<void> {}

  /** Deletes the Account: the logic's `delete`, which leaves the account at the service untouched. */
  async delete(): Promise<void> {
    await this.logic.delete();
  }
}
