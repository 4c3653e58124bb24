/**
 * `dlq-recovery-retention-window` (advisory by default): a DlqRecovery's time window
 * (`fromDate`, `toDate`) should not reach further back than the DLQ keeps entries, the
 * account's `max_dlq_retention_time_milis`: runs that failed before "now minus the retention"
 * are no longer in the DLQ, so that part of the window resumes nothing.
 *
 * A DlqRecovery that has already run to completion (`complete` is true) is not checked: its
 * window ages with time, and warning about it on every later preview would only be noise.
 *
 * @packageDocumentation
 */
import type { PolicyConfigSchema, PolicyResource, StackValidationPolicy } from "@pulumi/policy";
import { bindingOf } from "./accounts";
import type { LimitPolicyConfig, LimitsContext } from "./context";
import { LIMITS, accountsOptionSchema, describeLimit, type ResolvedLimit } from "./limits";
import { formatValue } from "./maxLimit";
import { UnknownValues, isCompletedRecovery, label, ofKind, readNumber, type Read } from "./resources";

/** The config schema of `dlq-recovery-retention-window`. */
export const dlqRecoveryRetentionWindowConfigSchema: PolicyConfigSchema = {
  properties: {
    maxDlqRetentionTimeMilis: {
      type: "integer",
      minimum: 1,
      description:
        "Static max_dlq_retention_time_milis (how long the DLQ keeps an entry, in milliseconds). When " +
        "set, the live account record and Account resources are not consulted for it. Default: unset.",
    },
    accounts: accountsOptionSchema("max_dlq_retention_time_milis"),
  },
};

/** An ISO time for messages, or the raw number when it is out of range. */
function iso(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toISOString();
}

/** The violation of a window that reaches past the retention, or `undefined`. */
function windowProblem(
  resource: PolicyResource,
  limit: ResolvedLimit,
  now: number,
  fromDate: Read,
  toDate: Read,
): string | undefined {
  const cutoff = now - limit.value;
  const keeps = `the DLQ keeps entries for ${formatValue(limit.spec, limit.value)} (${describeLimit(limit)})`;
  if (toDate.kind === "known" && (toDate.value as number) < cutoff) {
    return (
      `${label(resource)} selects runs that failed up to ${iso(toDate.value as number)} ` +
      `(toDate ${toDate.value as number}), but ${keeps}: every entry of that window left the DLQ ` +
      `before ${iso(cutoff)}, so it resumes nothing.`
    );
  }
  if (fromDate.kind === "known" && (fromDate.value as number) < cutoff) {
    return (
      `${label(resource)} selects runs that failed from ${iso(fromDate.value as number)} ` +
      `(fromDate ${fromDate.value as number}), but ${keeps}: runs that failed before ` +
      `${iso(cutoff)} are no longer in the DLQ and will not be resumed.`
    );
  }
  return undefined;
}

/** Builds the `dlq-recovery-retention-window` policy. */
export function dlqRecoveryRetentionWindow(ctx: LimitsContext): StackValidationPolicy {
  const spec = LIMITS.max_dlq_retention_time_milis;
  return {
    name: spec.policy,
    description:
      "A DlqRecovery time window should not start before the DLQ's retention (max_dlq_retention_time_milis).",
    enforcementLevel: "advisory",
    configSchema: dlqRecoveryRetentionWindowConfigSchema,
    validateStack: async (args, reportViolation) => {
      const config = args.getConfig<LimitPolicyConfig>();
      const unknowns = new UnknownValues();
      for (const resource of ofKind(args.resources, "DlqRecovery")) {
        if (isCompletedRecovery(resource.props)) continue;
        const fromDate = readNumber(resource.props, ["fromDate"]);
        const toDate = readNumber(resource.props, ["toDate"]);
        if (fromDate.kind === "absent" && toDate.kind === "absent") continue;
        const res = await ctx.resolve(spec, config, args.resources, bindingOf(resource));
        ctx.settle(spec, resource, res);
        if (res.kind !== "ok") continue;
        const message = windowProblem(resource, res.limit, ctx.now(), fromDate, toDate);
        if (message !== undefined) reportViolation(message, resource.urn);
        else if (fromDate.kind === "unknown" || toDate.kind === "unknown") {
          ctx.settleUnknownValue(
            spec,
            resource,
            fromDate.kind === "unknown" ? "fromDate" : "toDate",
            unknowns,
          );
        }
      }
      unknowns.throwIfAny(spec.field);
    },
  };
}
