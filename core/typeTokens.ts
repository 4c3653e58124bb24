/**
 * The type tokens of the resources: the strings the Pulumi engine, `pulumi stack` and the policy
 * pack identify each resource type by. Existing stacks hold them: they never change. (A "token"
 * elsewhere in this code base is the credential.)
 *
 * @packageDocumentation
 */

/** The type token of `Account` (a dynamic resource). */
export const ACCOUNT_TYPE = "pulumi-nodejs:dynamic/svc:Account";
/** The type token of `DlqRecovery` (a dynamic resource). */
export const DLQ_RECOVERY_TYPE = "pulumi-nodejs:dynamic/svc:DlqRecovery";
/** The type token of `Workflow` (a component resource). */
export const WORKFLOW_TYPE = "svc:index:Workflow";
/** The type token of `Account` served by the svc provider (`provider/`), for YAML programs. */
export const ACCOUNT_PROVIDER_TYPE = "svc:index:Account";
/** The type token of `DlqRecovery` served by the svc provider (`provider/`), for YAML programs. */
export const DLQ_RECOVERY_PROVIDER_TYPE = "svc:index:DlqRecovery";
