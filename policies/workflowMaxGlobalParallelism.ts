/**
 * `workflow-max-global-parallelism` (advisory by default): the parallelism of all flow-control
 * keys of the stack together must not exceed the account's `max_global_parallelism`.
 *
 * Each account is summed apart (the resources bound to it, see `account`). Each key counts once,
 * with the highest parallelism any Workflow or DlqRecovery override of that account gives it. A DlqRecovery override without a key (it keeps the runs' original keys) and
 * flow control with only a `rate` add nothing.
 *
 * @packageDocumentation
 */
import type { PolicyConfigSchema, PolicyResource, StackValidationPolicy } from "@pulumi/policy";
import { describeAccountRef } from "../core/accountRef";
import { bindingKey, bindingOf, type Binding } from "./accounts";
import type { LimitPolicyConfig, LimitsContext } from "./context";
import { LIMITS, accountsOptionSchema, describeLimit } from "./limits";
import { UnknownValues, isOfKind, label, read, readNumber } from "./resources";

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
    accounts: accountsOptionSchema("max_global_parallelism"),
  },
};

/** The flow-control keys of one account's resources: each key's highest parallelism and its users. */
interface AccountKeys {
  readonly binding: Binding;
  readonly keys: Map<string, { parallelism: number; users: string[] }>;
  readonly contributors: PolicyResource[];
  unknown: boolean;
}

/** Groups the resources that set a flow-control key and parallelism by account. */
function keysByAccount(
  resources: readonly PolicyResource[],
  unknowns: UnknownValues,
): Map<string, AccountKeys> {
  const groups = new Map<string, AccountKeys>();
  for (const resource of resources) {
    if (!isOfKind(resource, "Workflow") && !isOfKind(resource, "DlqRecovery")) continue;
    const key = read(resource.props, ["flowControl", "key"]);
    const parallelism = readNumber(resource.props, ["flowControl", "parallelism"]);
    if (key.kind === "absent" || parallelism.kind === "absent") continue;
    const binding = bindingOf(resource);
    const group: AccountKeys = groups.get(bindingKey(binding)) ?? {
      binding,
      keys: new Map(),
      contributors: [],
      unknown: false,
    };
    groups.set(bindingKey(binding), group);
    group.contributors.push(resource);
    if (key.kind === "unknown" || parallelism.kind === "unknown") {
      unknowns.add(resource, key.kind === "unknown" ? "flowControl.key" : "flowControl.parallelism");
      group.unknown = true;
      continue;
    }
    const k = String(key.value);
    const entry = group.keys.get(k) ?? { parallelism: 0, users: [] };
    entry.parallelism = Math.max(entry.parallelism, parallelism.value as number);
    entry.users.push(label(resource));
    group.keys.set(k, entry);
  }
  return groups;
}

/** Builds the `workflow-max-global-parallelism` policy. */
export function workflowMaxGlobalParallelism(ctx: LimitsContext): StackValidationPolicy {
  const spec = LIMITS.max_global_parallelism;
  return {
    name: spec.policy,
    description:
      "The parallelism of all flow-control keys of one account's resources together must not exceed that account's max_global_parallelism.",
    enforcementLevel: "advisory",
    configSchema: workflowMaxGlobalParallelismConfigSchema,
    validateStack: async (args, reportViolation) => {
      const unknowns = new UnknownValues();
      const groups = keysByAccount(args.resources, unknowns);
      const config = args.getConfig<LimitPolicyConfig>();
      for (const group of groups.values()) {
        const res = await ctx.resolve(spec, config, args.resources, group.binding);
        for (const r of group.contributors) ctx.settle(spec, r, res);
        if (res.kind !== "ok") continue;
        let total = 0;
        for (const entry of group.keys.values()) total += entry.parallelism;
        if (total <= res.limit.value) continue;
        const breakdown = [...group.keys.entries()]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, e]) => `\`${k}\` ${e.parallelism} (${e.users.join(", ")})`)
          .join(", ");
        const whose =
          group.binding.kind === "known" && group.binding.ref.kind !== "stack"
            ? `this stack's resources of ${describeAccountRef(group.binding.ref)}`
            : "this stack";
        reportViolation(
          `The flow-control keys of ${whose} allow ${group.unknown ? "at least " : ""}${total} runs ` +
            `in parallel in total, above ${res.limit.value} (${describeLimit(res.limit)}): ${breakdown}.`,
        );
      }
      unknowns.throwIfAny(spec.field);
    },
  };
}
