/**
 * `account-limits-source` (mandatory by default): the gate of the pack. It fails the preview,
 * once, when a limit policy could not check a resource because no source had its account's
 * limit (settings missing, credentials rejected, the account API unreachable or timing out, a
 * malformed record, an unknown account ID, a DlqRecovery whose values are unknown in preview).
 * The message names the resources and policies left unchecked, the cause (an HTTP status or a
 * network error, never a credential) and the two ways out: fix the source, or opt out
 * explicitly by setting this policy to `advisory` in the pack's config.
 *
 * It must run after the limit policies (it is the last policy of the pack): it reports what
 * they noted in the shared {@link LimitsContext}.
 *
 * @packageDocumentation
 */
import type { PolicyConfigSchema, StackValidationPolicy } from "@pulumi/policy";
import type { LimitsContext, RunNotes } from "./context";

/** The name of the policy. */
export const ACCOUNT_LIMITS_SOURCE = "account-limits-source";

/** The config schema of `account-limits-source`: no options besides `enforcementLevel`. */
export const accountLimitsSourceConfigSchema: PolicyConfigSchema = { properties: {} };

/**
 * The one summary message of a run, or `undefined` when every check could run: each limit and
 * cause with the resources left unchecked, where limits come from, and the two ways out.
 */
export function summarize(notes: RunNotes): string | undefined {
  if (notes.unchecked.size === 0) return undefined;
  const groups = [...notes.unchecked.values()];
  const byCause = new Map<string, string[]>();
  for (const g of groups) {
    const lines = byCause.get(g.cause) ?? [];
    lines.push(`      ${g.spec.field} (${g.spec.policy}): ${[...g.resources].sort().join(", ")}`);
    byCause.set(g.cause, lines);
  }
  const example = groups[0].spec;
  return [
    "These checks could not run, because no source has the account limit they need:",
    ...[...byCause.entries()].flatMap(([cause, lines]) => [`  - ${cause}:`, ...lines]),
    "Limits come from, in this order:",
    `  1. the policy pack config, e.g. {"${example.policy}": {"${example.configKey}": <limit>}}, or per account ID ` +
      `{"${example.policy}": {"accounts": {"<id>": <limit>}}}, in --policy-pack-config;`,
    "  2. the live account record: a bound Account's own settings, else the stack config `svc:accountApiUrl`, " +
      "`svc:username`, `svc:password` or the `SVC_*` environment variables;",
    "  3. an Account resource's outputs (the strictest of them for a resource without `account`).",
    `Fix the source, or opt out explicitly: set "${ACCOUNT_LIMITS_SOURCE}" to "advisory" in the policy pack ` +
      `config (--policy-pack-config with {"${ACCOUNT_LIMITS_SOURCE}": "advisory"}) to let these checks pass unchecked ` +
      "with a warning.",
  ].join("\n");
}

/** Builds the `account-limits-source` policy. */
export function accountLimitsSource(ctx: LimitsContext): StackValidationPolicy {
  return {
    name: ACCOUNT_LIMITS_SOURCE,
    description:
      "Fails closed: a preview fails when an svc limit check could not run because no source had the account's limit.",
    enforcementLevel: "mandatory",
    configSchema: accountLimitsSourceConfigSchema,
    validateStack: (_args, reportViolation) => {
      const message = summarize(ctx.takeNotes());
      if (message !== undefined) reportViolation(message);
    },
  };
}
