/**
 * `workflow-max-global-parallelism` (advisory by default): the parallelism of all flow-control
 * keys of the stack together must not exceed the account's `max_global_parallelism`.
 *
 * Each key counts once, with the highest parallelism any Workflow or DlqRecovery override of the
 * stack gives it. A DlqRecovery override without a key (it keeps the runs' original keys) and
 * flow control with only a `rate` add nothing.
 *
 * @packageDocumentation
 */
import type { PolicyConfigSchema, PolicyResource, StackValidationPolicy } from "@pulumi/policy";
import type { LimitsContext } from "./context";
import { LIMITS, describeLimit } from "./limits";
import { DLQ_RECOVERY_TYPE, WORKFLOW_TYPE } from "../core/tokens";
import { UnknownValues, label, read, readNumber } from "./resources";

/** The config of `workflow-max-global-parallelism` (besides `enforcementLevel`). */
export interface WorkflowMaxGlobalParallelismArgs {
  /**
   * A static `max_global_parallelism`. When set, the live account record and `Account` resources
   * are not consulted for it. Default: unset.
   */
  maxGlobalParallelism?: number;
}

/** The config schema of `workflow-max-global-parallelism`. */
export const workflowMaxGlobalParallelismConfigSchema: PolicyConfigSchema = {
  properties: {
    maxGlobalParallelism: {
      type: "integer",
      minimum: 1,
      description:
        "Static max_global_parallelism (runs in parallel across all flow-control keys). When set, the " +
        "live account record and Account resources are not consulted for it. Default: unset.",
    },
  },
};

/** Builds the `workflow-max-global-parallelism` policy. */
export function workflowMaxGlobalParallelism(ctx: LimitsContext): StackValidationPolicy {
  const spec = LIMITS.max_global_parallelism;
  return {
    name: spec.policy,
    description:
      "The parallelism of all flow-control keys of the stack together must not exceed the account's max_global_parallelism.",
    enforcementLevel: "advisory",
    configSchema: workflowMaxGlobalParallelismConfigSchema,
    validateStack: async (args, reportViolation) => {
      const keys = new Map<string, { parallelism: number; users: string[] }>();
      const unknowns = new UnknownValues();
      const contributors: PolicyResource[] = [];
      for (const resource of args.resources) {
        if (resource.type !== WORKFLOW_TYPE && resource.type !== DLQ_RECOVERY_TYPE) continue;
        const key = read(resource.props, ["flowControl", "key"]);
        const parallelism = readNumber(resource.props, ["flowControl", "parallelism"]);
        if (key.kind === "absent" || parallelism.kind === "absent") continue;
        contributors.push(resource);
        if (key.kind === "unknown") {
          unknowns.add(resource, "flowControl.key");
          continue;
        }
        if (parallelism.kind === "unknown") {
          unknowns.add(resource, "flowControl.parallelism");
          continue;
        }
        const k = String(key.value);
        const entry = keys.get(k) ?? { parallelism: 0, users: [] };
        entry.parallelism = Math.max(entry.parallelism, parallelism.value as number);
        entry.users.push(label(resource));
        keys.set(k, entry);
      }
      if (contributors.length === 0) return;
      const config = args.getConfig<WorkflowMaxGlobalParallelismArgs & Record<string, unknown>>();
      const limit = await ctx.resolve(spec, config[spec.configKey], args.resources, contributors);
      if (limit === undefined) return;
      let total = 0;
      for (const entry of keys.values()) total += entry.parallelism;
      if (total > limit.value) {
        const breakdown = [...keys.entries()]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, e]) => `\`${k}\` ${e.parallelism} (${e.users.join(", ")})`)
          .join(", ");
        reportViolation(
          `The flow-control keys of this stack allow ${unknowns.list.length > 0 ? "at least " : ""}${total} runs ` +
            `in parallel in total, above ${limit.value} (${describeLimit(limit)}): ${breakdown}.`,
        );
      }
      unknowns.throwIfAny(spec.field);
    },
  };
}
