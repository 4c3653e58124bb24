/**
 * The account record's fields (spec 2.3) and the `Account` output each one becomes, for the
 * `Account` resource, its provider and the policy pack. Everything here follows from the one
 * table, `ACCOUNT_RECORD_FIELDS` in `client/accountRecord.ts` (the client validates the record
 * with it, and it lies below every other layer).
 *
 * @packageDocumentation
 */
import {
  ACCOUNT_FIELD_LIST,
  ACCOUNT_RECORD_FIELDS,
  SECRET_ACCOUNT_OUTPUTS,
  type AccountOutputName,
  type AccountRecordField,
} from "../client/accountRecord";

export { ACCOUNT_FIELD_LIST, ACCOUNT_RECORD_FIELDS, SECRET_ACCOUNT_OUTPUTS };
export type { AccountOutputName, AccountRecordField };

type Table = typeof ACCOUNT_RECORD_FIELDS;

/** The `Account` output of each record field, by wire name: `{ max_delay: "maxDelay", id: "accountId", ... }`. */
export const OUTPUT_OF_ACCOUNT_FIELD = Object.fromEntries(
  ACCOUNT_FIELD_LIST.map((f) => [f.wire, f.output]),
) as { readonly [O in AccountOutputName as Table[O]["wire"]]: O };

/**
 * The `Account` output of each record field, by wire name.
 *
 * @deprecated Use {@link OUTPUT_OF_ACCOUNT_FIELD} (same value; this name is also the name of the
 * client's field list it is not). Kept for one minor version.
 */
export const ACCOUNT_FIELDS = OUTPUT_OF_ACCOUNT_FIELD;

/** The `Account` output names, in spec order. */
export const ACCOUNT_OUTPUT_NAMES: readonly AccountOutputName[] = ACCOUNT_FIELD_LIST.map((f) => f.output);

/** True for the outputs that are secrets in outputs and in state (`password`, `token`). */
export function isSecretAccountOutput(name: string): boolean {
  return (SECRET_ACCOUNT_OUTPUTS as readonly string[]).includes(name);
}
