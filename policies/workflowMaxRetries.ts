/**
 * `workflow-max-retries` (mandatory by default): a Workflow's `retries` and a DlqRecovery's
 * `retries` override must not exceed the account's `max_retries`.
 *
 * @packageDocumentation
 */
import type { PolicyConfigSchema, StackValidationPolicy } from "@pulumi/policy";
import type { LimitsContext } from "./context";
import { LIMITS, accountsOptionSchema } from "./limits";
import { maxLimitPolicy } from "./maxLimit";
import { readNumber } from "./resources";

/** The config schema of `workflow-max-retries`. */
export const workflowMaxRetriesConfigSchema: PolicyConfigSchema = {
  properties: {
    maxRetries: {
      type: "integer",
      minimum: 0,
      description:
        "Static max_retries. When set, the live account record and Account resources are not consulted " +
        "for it. Default: unset.",
    },
    accounts: accountsOptionSchema("max_retries"),
  },
};

/** Builds the `workflow-max-retries` policy. */
export function workflowMaxRetries(ctx: LimitsContext): StackValidationPolicy {
  return maxLimitPolicy(ctx, {
    name: LIMITS.max_retries.policy,
    description: "Retries of Workflows and DlqRecovery overrides must not exceed the account's max_retries.",
    spec: LIMITS.max_retries,
    configSchema: workflowMaxRetriesConfigSchema,
    targets: [
      {
        kind: "Workflow",
        property: "retries",
        verb: "set",
        read: (props) => readNumber(props, ["retries"]),
      },
      {
        kind: "DlqRecovery",
        property: "retries",
        verb: "override",
        read: (props) => readNumber(props, ["retries"]),
      },
    ],
  });
}
