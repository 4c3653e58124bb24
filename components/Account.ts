import * as pulumi from "@pulumi/pulumi";
import {
  ACCOUNT_OUTPUT_NAMES,
  SECRET_ACCOUNT_OUTPUTS,
  type ACCOUNT_RECORD_FIELDS,
} from "../core/accountFields";
import type { AccountFieldValue } from "../client/accountRecord";
import { unknownInputsProblem } from "../core/inputNames";
import { ACCOUNT_PROVIDER_TYPE, ACCOUNT_DYNAMIC_TYPE } from "../core/typeTokens";
import { ACCOUNT_ARGUMENTS, type AccountArgumentName } from "../core/resources/account";

/**
 * The arguments of {@link Account}. Every one is optional: each falls back to stack
 * config, then to the environment (see `core/connection.ts`):
 * `accountApiUrl` → `svc:accountApiUrl` → `SVC_ACCOUNT_API_URL`,
 * `username` → `svc:username` → `SVC_USERNAME`,
 * `password` → `svc:password` (secret) → `SVC_PASSWORD`.
 */
export interface AccountArgs {
  /** Base URL of the account API, e.g. `http://127.0.0.1:8080`; the path `/v2/svc/user` is added. */
  accountApiUrl?: pulumi.Input<string>;
  /** HTTP Basic username: the account's e-mail address or team ID. */
  username?: pulumi.Input<string>;
  /** HTTP Basic password (API key). Always stored as a secret. */
  password?: pulumi.Input<string>;
  /** Allow credentials over plain `http://` to a non-loopback host. Default false. */
  allowInsecureHttp?: pulumi.Input<boolean>;
}

/** `ACCOUNT_ARGUMENTS` and `AccountArgs` name the same arguments: the compiler checks both ways. */
const SAME_ARGUMENTS: [
  Exclude<keyof AccountArgs, AccountArgumentName>,
  Exclude<AccountArgumentName, keyof AccountArgs>,
] extends [never, never]
  ? true
  : never = true;
void SAME_ARGUMENTS;

/**
 * The outputs of {@link Account}: every field of the account record, named and documented (with
 * its unit) by the record's one table, `ACCOUNT_RECORD_FIELDS` in `client/accountRecord.ts`.
 */
export type AccountRecordOutputs = {
  // `keyof typeof` written out: a mapped type over the table's own keys keeps each entry's TSDoc.
  readonly [O in keyof typeof ACCOUNT_RECORD_FIELDS]: pulumi.Output<
    AccountFieldValue<(typeof ACCOUNT_RECORD_FIELDS)[O]["kind"]>
  >;
};

// The class's outputs are the interface's members (declared, never assigned, as `declare` fields
// would be): one mapped type from the table instead of 29 hand-written fields.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface Account extends AccountRecordOutputs {}

/**
 * The svc account record (plan, limits, credentials) as outputs, read from
 * `GET {accountApiUrl}/v2/svc/user` by the svc provider (`svc:index:Account`; the program's
 * `Pulumi.yaml` names the provider's folder, see docs/own-program.md).
 *
 * Every field of the record is an output in camelCase; the record's `id` is `accountId`.
 * `password` and `token` are secrets in outputs and in state. The record is read on
 * every preview and up (a change shows as an update), and on refresh. Deleting the
 * resource leaves the account untouched. A stack of 0.2 (the dynamic resource
 * `pulumi-nodejs:dynamic/svc:Account`) moves to it with no replacement (an alias).
 *
 * @example
 * ```ts
 * const account = new Account("account");
 * export const maxParallelism = account.maxParallelism;
 * export const token = account.token; // a secret
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class Account extends pulumi.CustomResource {
  /** The type token, for policies (`validateResourceOfType`). */
  public static readonly __pulumiType = ACCOUNT_PROVIDER_TYPE;

  /**
   * Reads an existing account record into the program without managing it: `id` is the record's
   * `id` (the `accountId` output), and the provider's credentials must read that record.
   *
   * @param name - the resource's name in this program
   * @param id - the account ID
   * @param opts - options (`provider` for an explicit svc provider)
   */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts: pulumi.CustomResourceOptions = {}): Account {
    return new Account(name, {}, { ...opts, id });
  }

  /**
   * @param name - the resource name
   * @param args - the connection (each falls back to the stack config, then the environment)
   * @param opts - resource options (`provider` for an explicit svc provider)
   * @throws RunError naming each argument an Account does not take, before anything is
   * registered: "Account `a`: `userName` (did you mean `username`?) is not an input of Account; …"
   */
  constructor(name: string, args: AccountArgs = {}, opts: pulumi.CustomResourceOptions = {}) {
    // A misspelled argument (`userName` in a program that is not type-checked) would be dropped.
    const unknown = unknownInputsProblem("Account", Object.keys(args ?? {}), ACCOUNT_ARGUMENTS);
    if (unknown !== undefined) throw new pulumi.RunError(`Account \`${name}\`: ${unknown}`);
    const props: Record<string, unknown> = {};
    for (const output of ACCOUNT_OUTPUT_NAMES) props[output] = undefined;
    if (opts.id === undefined) {
      props.accountApiUrl = args.accountApiUrl;
      props.username = args.username;
      props.allowInsecureHttp = args.allowInsecureHttp;
      props.password = args.password === undefined ? undefined : pulumi.secret(args.password);
    }
    super(ACCOUNT_PROVIDER_TYPE, name, props, {
      ...opts,
      aliases: [...(opts.aliases ?? []), { type: ACCOUNT_DYNAMIC_TYPE }],
      additionalSecretOutputs: [...(opts.additionalSecretOutputs ?? []), ...SECRET_ACCOUNT_OUTPUTS],
    });
  }
}
