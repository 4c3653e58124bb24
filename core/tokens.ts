/**
 * The strings the Pulumi engine identifies things by, exported once for the components, their
 * providers and the policy pack: the type tokens of the resources, and the sentinel that stands
 * for a value unknown during preview.
 *
 * @packageDocumentation
 */

/** The type token of `Account` (a dynamic resource). */
export const ACCOUNT_TYPE = "pulumi-nodejs:dynamic/svc:Account";
/** The type token of `DlqRecovery` (a dynamic resource). */
export const DLQ_RECOVERY_TYPE = "pulumi-nodejs:dynamic/svc:DlqRecovery";
/** The type token of `Workflow` (a component resource). */
export const WORKFLOW_TYPE = "svc:index:Workflow";

/**
 * The value the engine puts in place of a string that is unknown during preview (in a dynamic
 * provider's inputs, and in `@pulumi/policy`'s unknown-value errors).
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** True for an input that is unknown during preview. */
export function isUnknown(v: unknown): boolean {
  return v === UNKNOWN;
}

/** True when the value or anything inside it is unknown. */
export function containsUnknown(v: unknown): boolean {
  if (isUnknown(v)) return true;
  if (Array.isArray(v)) return v.some(containsUnknown);
  if (v && typeof v === "object") return Object.values(v).some(containsUnknown);
  return false;
}
