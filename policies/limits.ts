/**
 * The account limits the policies check, and where each value comes from.
 *
 * Each resource is checked against the limits of its own account (its `account` input, see
 * `core/accountRef.ts`); a limit is taken from the first source that has it:
 *
 * 1. the policy pack config: the checking policy's own option, e.g.
 *    `{"workflow-max-retries": {"maxRetries": 20}}` (every account), then its `accounts` option
 *    keyed by the record's `id`, e.g. `{"workflow-max-retries": {"accounts": {"<id>": 20}}}`;
 * 2. the live account record (`GET {accountApiUrl}/v2/svc/user`), read at most once per account
 *    and run of the pack: with a bound `Account` resource's own settings, else with the stack
 *    config `svc:accountApiUrl`, `svc:username`, `svc:password`, or the environment variables
 *    `SVC_ACCOUNT_API_URL`, `SVC_USERNAME`, `SVC_PASSWORD` (for an account ID: only when that
 *    record has that `id`);
 * 3. an `Account` resource's outputs (unknown in the first preview of a new stack). A resource
 *    without `account` in a stack without `svc:` settings takes the strictest of every Account.
 *
 * @packageDocumentation
 */
import { OUTPUT_OF_ACCOUNT_FIELD, type AccountOutputName } from "../core/accountFields";

/** The account-record fields the policies check. */
export type LimitField =
  "max_parallelism" | "max_retries" | "max_delay" | "max_global_parallelism" | "max_dlq_retention_time_milis";

/** One checked limit: its record field, the `Account` output and the policy config option. */
export interface LimitSpec {
  /** The account-record field, e.g. `max_retries`. */
  readonly field: LimitField;
  /** The `Account` output holding it, e.g. `maxRetries`. */
  readonly output: AccountOutputName;
  /** The policy that checks it, e.g. `workflow-max-retries`. */
  readonly policy: string;
  /** The option of that policy's config that sets it statically (same as `output`). */
  readonly configKey: string;
  /** The unit, for messages. */
  readonly unit: "" | "seconds" | "milliseconds";
}

function spec(field: LimitField, policy: string, unit: LimitSpec["unit"]): LimitSpec {
  const output = OUTPUT_OF_ACCOUNT_FIELD[field];
  return { field, output, policy, configKey: output, unit };
}

/** Every limit the policies check, by record field. */
export const LIMITS: Readonly<Record<LimitField, LimitSpec>> = {
  max_parallelism: spec("max_parallelism", "workflow-max-parallelism", ""),
  max_retries: spec("max_retries", "workflow-max-retries", ""),
  max_delay: spec("max_delay", "workflow-max-delay", "seconds"),
  max_global_parallelism: spec("max_global_parallelism", "workflow-max-global-parallelism", ""),
  max_dlq_retention_time_milis: spec(
    "max_dlq_retention_time_milis",
    "dlq-recovery-retention-window",
    "milliseconds",
  ),
};

/** Where a limit's value came from. */
export type LimitSource =
  | { readonly kind: "config"; readonly policy: string; readonly key: string }
  | { readonly kind: "accounts-config"; readonly policy: string; readonly id: string }
  | { readonly kind: "live" }
  | { readonly kind: "account-live"; readonly name: string }
  | { readonly kind: "account"; readonly name: string; readonly urn: string }
  | { readonly kind: "strictest"; readonly of: readonly { readonly name: string; readonly value: number }[] };

/** A limit with its value and source. */
export interface ResolvedLimit {
  readonly spec: LimitSpec;
  readonly value: number;
  readonly source: LimitSource;
}

/**
 * Says where a limit came from, for messages: "from the policy pack config
 * `workflow-max-retries.maxRetries`", "from the live account record", "from the Account resource
 * `account`".
 */
export function describeSource(source: LimitSource): string {
  switch (source.kind) {
    case "config":
      return `from the policy pack config \`${source.policy}.${source.key}\``;
    case "accounts-config":
      return `from the policy pack config \`${source.policy}.accounts\` for the account ${JSON.stringify(source.id)}`;
    case "live":
      return "from the live account record";
    case "account-live":
      return `from the live record of the Account \`${source.name}\``;
    case "account":
      return `from the Account resource \`${source.name}\``;
    case "strictest":
      return (
        `the strictest of the Accounts ${source.of.map((a) => `\`${a.name}\` (${a.value})`).join(", ")} ` +
        "(the stack has no `svc:` account settings)"
      );
  }
}

/** "account max_retries, from the live account record": what a limit is and where it came from. */
export function describeLimit(limit: ResolvedLimit): string {
  return `account ${limit.spec.field}, ${describeSource(limit.source)}`;
}

/** The `accounts` option of a limit policy: the limit per account ID. */
export type AccountLimitsConfig = Readonly<Record<string, number>>;

/** The JSON schema of the `accounts` option of a limit policy. */
export function accountsOptionSchema(field: LimitField): Record<string, unknown> {
  return {
    type: "object",
    additionalProperties: { type: "integer", minimum: 0 },
    description:
      `Static ${field} per account ID (the account record's \`id\`), for resources whose \`account\` is that ` +
      "ID or an Account resource with that accountId. Default: unset.",
  };
}

/** True for a usable limit value: a finite, non-negative number. */
export function isLimitValue(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v) && v >= 0;
}
