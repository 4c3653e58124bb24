/**
 * The query string of a resume request. All request fields travel in the query (the request
 * has no body); arrays repeat the parameter (`?dlqIds=a&dlqIds=b`). The grammar of every field
 * is in `contract.ts`.
 *
 * @packageDocumentation
 */
import { SvcError } from "./errors";
import {
  SELECTION_FIELDS,
  SELECTION_FIELD_KINDS,
  isSet,
  selectionProblems,
  throwIfProblems,
  type DlqSelection,
} from "./contract";

/**
 * Validates a selection before anything is sent.
 *
 * @throws SvcError `SVC_INVALID_ARGUMENT` for an empty `dlqIds` array, more than 50 IDs, a
 * malformed ID, timestamp or text, or `fromDate > toDate` (every problem in one message)
 */
export function validateSelection(selection: DlqSelection): void {
  throwIfProblems(selectionProblems(selection));
}

/**
 * The query string of a selection that is already valid, with a cursor appended: the query
 * builders below validate once, then call this for every page.
 */
function encodeQuery(selection: DlqSelection, cursor: string | undefined): string {
  const q = new URLSearchParams();
  for (const field of SELECTION_FIELDS) {
    const value = selection[field];
    if (!isSet(value)) continue;
    if (SELECTION_FIELD_KINDS[field] === "ids") for (const id of value as string[]) q.append(field, id);
    else q.append(field, String(value));
  }
  if (cursor !== undefined && cursor !== "") q.append("cursor", cursor);
  const text = q.toString();
  return text === "" ? "" : `?${text}`;
}

function checkCursor(cursor: unknown): void {
  if (cursor !== undefined && typeof cursor !== "string") {
    throw new SvcError("SVC_INVALID_ARGUMENT", "`cursor` must be a string");
  }
}

/**
 * Validates a selection once and returns the builder of its query string for each page.
 *
 * @param selection - the selection
 * @param options - `trusted: true` for a selection built from values already validated (a
 * batch of a checked `dlqIds` list): it is not validated again
 * @throws SvcError `SVC_INVALID_ARGUMENT` as {@link validateSelection}
 */
export function selectionQuery(
  selection: DlqSelection,
  options: { trusted?: boolean } = {},
): (cursor?: string) => string {
  if (options.trusted !== true) validateSelection(selection);
  return (cursor) => {
    checkCursor(cursor);
    return encodeQuery(selection, cursor);
  };
}

/**
 * Builds the query string (with its leading `?`, or `""` when empty) of a resume request.
 * Validates the selection first; see {@link validateSelection}.
 *
 * @param cursor - cursor from the previous page; `undefined` or `""` starts from the beginning
 */
export function resumeQuery(selection: DlqSelection, cursor?: string): string {
  return selectionQuery(selection)(cursor);
}
