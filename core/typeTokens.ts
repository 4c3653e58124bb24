/**
 * The type tokens of the resources: the strings the Pulumi engine, `pulumi stack` and the policy
 * pack identify each resource type by. Existing stacks hold them: a token changes only with a
 * minor version, an alias from the old one on the class, and the old one kept here for the policy
 * pack (CONTRIBUTING, "State of existing stacks"). (A "token" elsewhere in this code base is the
 * credential.)
 *
 * @packageDocumentation
 */

/** The type token of `Account` up to 0.2 (a dynamic resource); the class aliases it. */
export const ACCOUNT_DYNAMIC_TYPE = "pulumi-nodejs:dynamic/svc:Account";
/** The type token of `DlqRecovery` up to 0.2 (a dynamic resource); the class aliases it. */
export const DLQ_RECOVERY_DYNAMIC_TYPE = "pulumi-nodejs:dynamic/svc:DlqRecovery";
/** The type token of `Workflow` (a component resource). */
export const WORKFLOW_TYPE = "svc:index:Workflow";
/** The type token of `Account`, served by the svc provider (`provider/`), since 0.3. */
export const ACCOUNT_PROVIDER_TYPE = "svc:index:Account";
/** The type token of `DlqRecovery`, served by the svc provider (`provider/`), since 0.3. */
export const DLQ_RECOVERY_PROVIDER_TYPE = "svc:index:DlqRecovery";

/**
 * Which type tokens are which kind of resource: the one place that says it (the policy pack and
 * the `account` rule read it). Each kind lists its provider's token first, then the 0.2 token
 * that stacks not yet upgraded still hold.
 */
export const TYPES_OF_KIND = {
  Workflow: [WORKFLOW_TYPE],
  DlqRecovery: [DLQ_RECOVERY_PROVIDER_TYPE, DLQ_RECOVERY_DYNAMIC_TYPE],
  Account: [ACCOUNT_PROVIDER_TYPE, ACCOUNT_DYNAMIC_TYPE],
} as const satisfies Record<string, readonly string[]>;

/** A kind of resource: `Workflow`, `DlqRecovery`, `Account`. */
export type ResourceKind = keyof typeof TYPES_OF_KIND;

/** The kind of a type token, or `undefined` for a type of no kind here. */
export function kindOfType(type: string): ResourceKind | undefined {
  for (const [kind, types] of Object.entries(TYPES_OF_KIND) as [ResourceKind, readonly string[]][]) {
    if (types.includes(type)) return kind;
  }
  return undefined;
}
