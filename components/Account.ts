import * as pulumi from "@pulumi/pulumi";
import { lazyProvider } from "./lazyProvider";
import { ACCOUNT_FIELDS, SECRET_ACCOUNT_OUTPUTS } from "../core/accountFields";
import { ACCOUNT_TYPE } from "../core/tokens";

/**
 * The arguments of {@link Account}. Every one is optional: each falls back to stack
 * config, then to the environment (see `components/connection.ts`):
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

/**
 * The svc account record (plan, limits, credentials) as outputs, read from
 * `GET {accountApiUrl}/v2/svc/user`.
 *
 * Every field of the record is an output in camelCase; the record's `id` is `accountId`.
 * `password` and `token` are secrets in outputs and in state. The record is read on
 * every preview and up (a change shows as an update), and on refresh. Deleting the
 * resource leaves the account untouched.
 *
 * @example
 * ```ts
 * const account = new Account("account");
 * export const maxParallelism = account.maxParallelism;
 * export const token = account.token; // a secret
 * ```
 */
export class Account extends pulumi.dynamic.Resource {
  /** The type token, for policies (`validateResourceOfType`). */
  public static readonly __pulumiType = ACCOUNT_TYPE;

  declare public readonly customerId: pulumi.Output<string>;
  declare public readonly accountId: pulumi.Output<string>;
  declare public readonly password: pulumi.Output<string>;
  declare public readonly token: pulumi.Output<string>;
  declare public readonly active: pulumi.Output<boolean>;
  declare public readonly state: pulumi.Output<"active" | "passive">;
  declare public readonly lastPlanUpgradeTime: pulumi.Output<number>;
  declare public readonly maxMessageSize: pulumi.Output<number>;
  declare public readonly maxRequestsPerDay: pulumi.Output<number>;
  declare public readonly maxRequestsPerDayHard: pulumi.Output<number>;
  declare public readonly maxEndpointsPerTopic: pulumi.Output<number>;
  declare public readonly maxRequestsPerSecond: pulumi.Output<number>;
  declare public readonly maxDlqSize: pulumi.Output<number>;
  declare public readonly maxRetries: pulumi.Output<number>;
  declare public readonly maxTopics: pulumi.Output<number>;
  declare public readonly maxSchedules: pulumi.Output<number>;
  declare public readonly maxEventsSize: pulumi.Output<number>;
  declare public readonly maxDlqRetentionTimeMilis: pulumi.Output<number>;
  declare public readonly maxDelay: pulumi.Output<number>;
  declare public readonly maxParallelism: pulumi.Output<number>;
  declare public readonly maxGlobalParallelism: pulumi.Output<number>;
  declare public readonly maxQueues: pulumi.Output<number>;
  declare public readonly prodPackEnabled: pulumi.Output<boolean>;
  declare public readonly timeout: pulumi.Output<number>;
  declare public readonly type: pulumi.Output<"free" | "paid">;
  declare public readonly reservedType: pulumi.Output<string>;
  declare public readonly reservedPrice: pulumi.Output<number>;
  declare public readonly createdBy: pulumi.Output<string>;
  declare public readonly creationTime: pulumi.Output<number>;

  constructor(name: string, args: AccountArgs = {}, opts: pulumi.CustomResourceOptions = {}) {
    const props: Record<string, unknown> = {};
    for (const output of Object.values(ACCOUNT_FIELDS)) props[output] = undefined;
    props.accountApiUrl = args.accountApiUrl;
    props.username = args.username;
    props.allowInsecureHttp = args.allowInsecureHttp;
    props.accountName = name; // for the provider's messages: "Account `account`"
    props.password = args.password === undefined ? undefined : pulumi.secret(args.password);
    super(
      lazyProvider("pulumi-svc/providers/account"),
      name,
      props,
      {
        ...opts,
        additionalSecretOutputs: [...(opts.additionalSecretOutputs ?? []), ...SECRET_ACCOUNT_OUTPUTS],
      },
      "svc",
      "Account",
    );
  }
}
