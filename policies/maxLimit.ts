/**
 * The shape shared by the per-resource limit policies (`workflow-max-parallelism`,
 * `workflow-max-retries`, `workflow-max-delay`): every checked value of every checked resource
 * must not exceed one account limit.
 *
 * @packageDocumentation
 */
import type { PolicyConfigSchema, PolicyResource, StackValidationPolicy } from "@pulumi/policy";
import { formatDuration } from "../core/duration";
import type { LimitsContext } from "./context";
import { describeLimit, type LimitSpec } from "./limits";
import { UnknownValues, label, type Read } from "./resources";

/** One value a limit policy checks on one kind of resource. */
export interface LimitTarget {
  /** The resource type, e.g. `svc:index:Workflow`. */
  readonly type: string;
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
 * Builds a mandatory stack policy that checks each target value against one limit.
 *
 * Messages: "Workflow `orders` must not set retries above 20 (account max_retries, from the
 * live account record); it sets 25." Values unknown during preview are reported together as one
 * advisory "can't run ... during preview" note after the violations.
 */
export function maxLimitPolicy(ctx: LimitsContext, o: MaxLimitPolicyOptions): StackValidationPolicy {
  return {
    name: o.name,
    description: o.description,
    enforcementLevel: "mandatory",
    configSchema: o.configSchema,
    validateStack: async (args, reportViolation) => {
      const checks: { resource: PolicyResource; target: LimitTarget; value: Read }[] = [];
      for (const resource of args.resources) {
        for (const target of o.targets) {
          if (resource.type !== target.type) continue;
          const value = target.read(resource.props);
          if (value.kind !== "absent") checks.push({ resource, target, value });
        }
      }
      if (checks.length === 0) return;
      const config = args.getConfig<Record<string, unknown>>();
      const limit = await ctx.resolve(
        o.spec,
        config[o.spec.configKey],
        args.resources,
        checks.map((c) => c.resource),
      );
      if (limit === undefined) return; // noted for `account-limits-source`
      const unknowns = new UnknownValues();
      for (const { resource, target, value } of checks) {
        if (value.kind === "unknown") {
          unknowns.add(resource, target.property);
        } else if (value.kind === "known" && (value.value as number) > limit.value) {
          reportViolation(
            `${label(resource)} must not ${target.verb} ${target.property} above ` +
              `${formatValue(o.spec, limit.value)} (${describeLimit(limit)}); ` +
              `it sets ${formatValue(o.spec, value.value as number)}.`,
            resource.urn,
          );
        }
      }
      unknowns.throwIfAny(o.spec.field);
    },
  };
}
