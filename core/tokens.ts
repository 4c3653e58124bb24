/**
 * Deprecated module name, kept for one minor version (0.3.x) so that code written against 0.2.0's
 * internal layout still builds: the type tokens are in `core/typeTokens.ts`, the unknown-value
 * sentinel in `core/unknownValue.ts` ("token" elsewhere means the credential).
 *
 * @deprecated Import from `./typeTokens` or `./unknownValue`.
 * @packageDocumentation
 */
export { ACCOUNT_TYPE, DLQ_RECOVERY_TYPE, WORKFLOW_TYPE } from "./typeTokens";
export { UNKNOWN, containsUnknown, isUnknown } from "./unknownValue";
