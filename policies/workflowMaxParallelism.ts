/**
 * `workflow-max-parallelism` (mandatory by default): a Workflow's `flowControl.parallelism` and
 * a DlqRecovery's `flowControl.parallelism` override must not exceed the account's
 * `max_parallelism`.
 *
 * @packageDocumentation
 */
import type { PolicyConfigSchema, StackValidationPolicy } from "@pulumi/policy";
import type { LimitsContext } from "./context";
import { LIMITS, accountsOptionSchema } from "./limits";
import { maxLimitPolicy } from "./maxLimit";
import { readNumber } from "./resources";

/** The config schema of `workflow-max-parallelism`. */
export const workflowMaxParallelismConfigSchema: PolicyConfigSchema = {
  properties: {
    maxParallelism: {
      type: "integer",
      minimum: 1,
      description:
        "Static max_parallelism (runs in parallel per flow-control key). When set, the live account " +
        "record and Account resources are not consulted for it. Default: unset.",
    },
    accounts: accountsOptionSchema("max_parallelism"),
  },
};

/** Builds the `workflow-max-parallelism` policy. */
export function workflowMaxParallelism(ctx: LimitsContext): StackValidationPolicy {
  return maxLimitPolicy(ctx, {
    name: LIMITS.max_parallelism.policy,
    description:
      "Flow-control parallelism of Workflows and DlqRecovery overrides must not exceed the account's max_parallelism.",
    spec: LIMITS.max_parallelism,
    configSchema: workflowMaxParallelismConfigSchema,
    targets: [
      {
        kind: "Workflow",
        property: "flowControl.parallelism",
        verb: "set",
        read: (props) => readNumber(props, ["flowControl", "parallelism"]),
      },
      {
        kind: "DlqRecovery",
        property: "flowControl.parallelism",
        verb: "override",
        read: (props) => readNumber(props, ["flowControl", "parallelism"]),
      },
    ],
  });
}
