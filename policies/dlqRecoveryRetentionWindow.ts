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
import type { PolicyConfigSchema, StackValidationPolicy } from "@pulumi/policy";
import type { LimitsContext } from "./context";
import { LIMITS, describeLimit } from "./limits";
import { formatValue } from "./maxLimit";
import { DLQ_RECOVERY_TYPE } from "../core/tokens";
import { UnknownValues, isCompletedRecovery, label, ofType, readNumber } from "./resources";

/** The config of `dlq-recovery-retention-window` (besides `enforcementLevel`). */
export interface DlqRecoveryRetentionWindowArgs {
  /**
   * A static `max_dlq_retention_time_milis` (milliseconds). When set, the live account record and
   * `Account` resources are not consulted for it. Default: unset.
   */
  maxDlqRetentionTimeMilis?: number;
}

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
  },
};

/** An ISO time for messages, or the raw number when it is out of range. */
function iso(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toISOString();
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
      const checks = ofType(args.resources, DLQ_RECOVERY_TYPE)
        .filter((r) => !isCompletedRecovery(r.props))
        .map((resource) => ({
          resource,
          fromDate: readNumber(resource.props, ["fromDate"]),
          toDate: readNumber(resource.props, ["toDate"]),
        }))
        .filter((c) => c.fromDate.kind !== "absent" || c.toDate.kind !== "absent");
      if (checks.length === 0) return;
      const config = args.getConfig<DlqRecoveryRetentionWindowArgs & Record<string, unknown>>();
      const limit = await ctx.resolve(
        spec,
        config[spec.configKey],
        args.resources,
        checks.map((c) => c.resource),
      );
      if (limit === undefined) return;
      const cutoff = ctx.now() - limit.value;
      const keeps = `the DLQ keeps entries for ${formatValue(spec, limit.value)} (${describeLimit(limit)})`;
      const unknowns = new UnknownValues();
      for (const { resource, fromDate, toDate } of checks) {
        if (toDate.kind === "known" && (toDate.value as number) < cutoff) {
          reportViolation(
            `${label(resource)} selects runs that failed up to ${iso(toDate.value as number)} ` +
              `(toDate ${toDate.value as number}), but ${keeps}: every entry of that window left the DLQ ` +
              `before ${iso(cutoff)}, so it resumes nothing.`,
            resource.urn,
          );
          continue;
        }
        if (fromDate.kind === "known" && (fromDate.value as number) < cutoff) {
          reportViolation(
            `${label(resource)} selects runs that failed from ${iso(fromDate.value as number)} ` +
              `(fromDate ${fromDate.value as number}), but ${keeps}: runs that failed before ` +
              `${iso(cutoff)} are no longer in the DLQ and will not be resumed.`,
            resource.urn,
          );
          continue;
        }
        if (fromDate.kind === "unknown") unknowns.add(resource, "fromDate");
        if (toDate.kind === "unknown") unknowns.add(resource, "toDate");
      }
      unknowns.throwIfAny(spec.field);
    },
  };
}
