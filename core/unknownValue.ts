/**
 * The value the Pulumi engine puts in place of an input that is unknown during preview, declared
 * once for the providers, the components' checks, the policy pack and the tests.
 *
 * @packageDocumentation
 */

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
