/**
 * `workflow-max-delay` (mandatory by default): a Workflow's `delay` must not exceed the account's
 * `max_delay` (seconds). DlqRecovery has no delay override, so only Workflows are checked.
 *
 * @packageDocumentation
 */
import type { PolicyConfigSchema, StackValidationPolicy } from "@pulumi/policy";
import type { LimitsContext } from "./context";
import { LIMITS, accountsOptionSchema } from "./limits";
import { maxLimitPolicy } from "./maxLimit";
import { readWorkflowDelay } from "./resources";

/** The config schema of `workflow-max-delay`. */
export const workflowMaxDelayConfigSchema: PolicyConfigSchema = {
  properties: {
    maxDelay: {
      type: "integer",
      minimum: 0,
      description:
        "Static max_delay in seconds. When set, the live account record and Account resources are not " +
        "consulted for it. Default: unset.",
    },
    accounts: accountsOptionSchema("max_delay"),
  },
};

/** Builds the `workflow-max-delay` policy. */
export function workflowMaxDelay(ctx: LimitsContext): StackValidationPolicy {
  return maxLimitPolicy(ctx, {
    name: LIMITS.max_delay.policy,
    description: "The delay of Workflows must not exceed the account's max_delay.",
    spec: LIMITS.max_delay,
    configSchema: workflowMaxDelayConfigSchema,
    targets: [{ kind: "Workflow", property: "delay", verb: "set", read: readWorkflowDelay }],
  });
}
