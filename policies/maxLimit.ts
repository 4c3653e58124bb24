/**
 * The shape shared by the per-resource limit policies (`workflow-max-parallelism`,
 * `workflow-max-retries`, `workflow-max-delay`): every checked value of every checked resource
 * must not exceed one account limit.
 *
 * @packageDocumentation
 */
import type { PolicyConfigSchema, StackValidationPolicy } from "@pulumi/policy";
import { formatDuration } from "../core/duration";
import { bindingOf } from "./accounts";
import type { LimitPolicyConfig, LimitsContext } from "./context";
import { describeLimit, type LimitSpec } from "./limits";
import type { ResourceKind } from "../core/typeTokens";
import { UnknownValues, isOfKind, label, type Read } from "./resources";

/** One value a limit policy checks on one kind of resource. */
export interface LimitTarget {
  /** The kind of resource (each of its type tokens, `TYPES_OF_KIND` in `core/typeTokens.ts`). */
  readonly kind: ResourceKind;
  /** The value's name in messages, e.g. `retries`, `flowControl.parallelism`. */
  readonly property: string;
  /** The verb in messages: a Workflow "set"s a value, a DlqRecovery "override"s it. */
  readonly verb: "set" | "override";
  /** Reads the value from the resource's props. */
  read(props: unknown): Read;
}

/** What a limit policy is made of. */
export interface MaxLimitPolicyOptions {
  readonly name: string;
  readonly description: string;
  readonly spec: LimitSpec;
  readonly configSchema: PolicyConfigSchema;
  readonly targets: readonly LimitTarget[];
}

/** Writes a value of a limit's unit for messages: `25`, `1209600 seconds (14d)`. */
export function formatValue(spec: LimitSpec, value: number): string {
  if (spec.unit === "seconds") {
    const d = formatDuration(value);
    return d.endsWith("s") ? `${value} seconds` : `${value} seconds (${d})`;
  }
  if (spec.unit === "milliseconds") {
    const d = Number.isSafeInteger(value) && value % 1000 === 0 ? formatDuration(value / 1000) : "";
    return d && !d.endsWith("s") ? `${value} ms (${d})` : `${value} ms`;
  }
  return String(value);
}

/**
 * Builds a mandatory stack policy that checks each target value against one limit of the
 * resource's own account.
 *
 * Messages: "Workflow `orders` must not set retries above 20 (account max_retries, from the
 * live account record); it sets 25." A Workflow's value (or limit) unknown during preview is
 * reported in one advisory "can't run ... during preview" note after the violations; a check
 * that cannot run otherwise is noted for `account-limits-source`, which fails the preview.
 */
export function maxLimitPolicy(ctx: LimitsContext, o: MaxLimitPolicyOptions): StackValidationPolicy {
  return {
    name: o.name,
    description: o.description,
    enforcementLevel: "mandatory",
    configSchema: o.configSchema,
    validateStack: async (args, reportViolation) => {
      const config = args.getConfig<LimitPolicyConfig>();
      const unknowns = new UnknownValues();
      for (const resource of args.resources) {
        for (const target of o.targets) {
          if (!isOfKind(resource, target.kind)) continue;
          const value = target.read(resource.props);
          if (value.kind === "absent") continue;
          const res = await ctx.resolve(o.spec, config, args.resources, bindingOf(resource));
          ctx.settle(o.spec, resource, res);
          if (res.kind !== "ok") continue;
          if (value.kind === "unknown") {
            ctx.settleUnknownValue(o.spec, resource, target.property, unknowns);
          } else if ((value.value as number) > res.limit.value) {
            reportViolation(
              `${label(resource)} must not ${target.verb} ${target.property} above ` +
                `${formatValue(o.spec, res.limit.value)} (${describeLimit(res.limit)}); ` +
                `it sets ${formatValue(o.spec, value.value as number)}.`,
              resource.urn,
            );
          }
        }
      }
      unknowns.throwIfAny(o.spec.field);
    },
  };
}
