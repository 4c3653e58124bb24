/**
 * `account-limits-strictest` (advisory): says which resources were checked against the strictest
 * of several Accounts. A resource without `account`, in a stack without `svc:` account settings
 * and with more than one `Account`, cannot be told apart: the limit policies check it against the
 * lowest limit of them all, which may refuse what its own account allows. This policy makes that
 * visible on a preview that passes, and names the way to be precise: bind the resource with
 * `account`.
 *
 * It runs after the limit policies and before `account-limits-source` (which takes the notes).
 *
 * @packageDocumentation
 */
import type { PolicyConfigSchema, StackValidationPolicy } from "@pulumi/policy";
import type { LimitsContext, RunNotes } from "./context";

/** The name of the policy. */
export const ACCOUNT_LIMITS_STRICTEST = "account-limits-strictest";

/** The config schema of `account-limits-strictest`: no options besides `enforcementLevel`. */
export const accountLimitsStrictestConfigSchema: PolicyConfigSchema = { properties: {} };

/** The one message of a run, or `undefined` when no check took the strictest of several Accounts. */
export function describeStrictest(notes: RunNotes): string | undefined {
  if (notes.strictest.size === 0) return undefined;
  const lines = [...notes.strictest.values()].map(
    (s) => `  - ${s.spec.field} (${s.spec.policy}): ${[...s.resources].sort().join(", ")}: ${s.source}.`,
  );
  return [
    "These resources have no `account`, and were checked against the strictest limit of the stack's Accounts:",
    ...lines,
    "Set `account` on each (an Account resource or an account ID) to check it against its own account's limits.",
  ].join("\n");
}

/** Builds the `account-limits-strictest` policy. */
export function accountLimitsStrictest(ctx: LimitsContext): StackValidationPolicy {
  return {
    name: ACCOUNT_LIMITS_STRICTEST,
    description:
      "Says which resources without `account` were checked against the strictest of several Account resources.",
    enforcementLevel: "advisory",
    configSchema: accountLimitsStrictestConfigSchema,
    validateStack: (_args, reportViolation) => {
      const message = describeStrictest(ctx.peekNotes());
      if (message !== undefined) reportViolation(message);
    },
  };
}
