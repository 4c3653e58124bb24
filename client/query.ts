/**
 * The query string of a resume request. All request fields travel in the query (the request
 * has no body); arrays repeat the parameter (`?dlqIds=a&dlqIds=b`).
 *
 * @packageDocumentation
 */
import { SvcError } from "./errors";
import type { DlqSelection } from "./types";

/** The service resumes at most this many runs per request (spec section 8). */
export const MAX_RUNS_PER_REQUEST = 50;

/** Message used when `dlqIds` is an empty array. */
export const EMPTY_DLQ_IDS_MESSAGE =
  "`dlqIds` is empty: to target every entry, say so explicitly (omit `dlqIds` and the filters)";

function invalid(message: string): SvcError {
  return new SvcError("SVC_INVALID_ARGUMENT", message);
}

function checkTimestamp(value: unknown, field: string): void {
  if (value !== undefined && (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0)) {
    throw invalid(`\`${field}\` must be a non-negative integer (unix milliseconds); got ${typeof value}`);
  }
}

function checkText(value: unknown, field: string): void {
  if (value !== undefined && (typeof value !== "string" || value === "")) {
    throw invalid(`\`${field}\` must be a non-empty string`);
  }
}

/**
 * Validates a selection before anything is sent.
 *
 * @throws SvcError `SVC_INVALID_ARGUMENT` for an empty `dlqIds` array, more than
 * {@link MAX_RUNS_PER_REQUEST} IDs, a non-string ID, a bad timestamp, or `fromDate > toDate`
 */
export function validateSelection(selection: DlqSelection): void {
  if (selection === null || typeof selection !== "object") throw invalid("the selection must be an object");
  const { dlqIds, fromDate, toDate, workflowUrl, workflowRunId, workflowCreatedAt } = selection;
  if (dlqIds !== undefined) {
    if (!Array.isArray(dlqIds)) throw invalid("`dlqIds` must be an array of strings");
    if (dlqIds.length === 0) throw invalid(EMPTY_DLQ_IDS_MESSAGE);
    if (dlqIds.length > MAX_RUNS_PER_REQUEST) {
      throw invalid(
        `\`dlqIds\` has ${dlqIds.length} IDs; one request takes at most ${MAX_RUNS_PER_REQUEST} ` +
          "(use resumeByIds to send them in batches)",
      );
    }
    dlqIds.forEach((id, i) => {
      if (typeof id !== "string" || id === "") throw invalid(`\`dlqIds[${i}]\` must be a non-empty string`);
    });
  }
  checkTimestamp(fromDate, "fromDate");
  checkTimestamp(toDate, "toDate");
  checkTimestamp(workflowCreatedAt, "workflowCreatedAt");
  if (fromDate !== undefined && toDate !== undefined && fromDate > toDate) {
    throw invalid("`fromDate` is after `toDate`: the selection would match nothing");
  }
  checkText(workflowUrl, "workflowUrl");
  checkText(workflowRunId, "workflowRunId");
}

/**
 * Builds the query string (with its leading `?`, or `""` when empty) of a resume request.
 * Validates the selection first; see {@link validateSelection}.
 *
 * @param cursor - cursor from the previous page; `undefined` or `""` starts from the beginning
 */
export function resumeQuery(selection: DlqSelection, cursor?: string): string {
  validateSelection(selection);
  if (cursor !== undefined && typeof cursor !== "string") throw invalid("`cursor` must be a string");
  const q = new URLSearchParams();
  for (const id of selection.dlqIds ?? []) q.append("dlqIds", id);
  if (selection.fromDate !== undefined) q.append("fromDate", String(selection.fromDate));
  if (selection.toDate !== undefined) q.append("toDate", String(selection.toDate));
  if (selection.workflowUrl !== undefined) q.append("workflowUrl", selection.workflowUrl);
  if (selection.workflowRunId !== undefined) q.append("workflowRunId", selection.workflowRunId);
  if (selection.workflowCreatedAt !== undefined)
    q.append("workflowCreatedAt", String(selection.workflowCreatedAt));
  if (cursor !== undefined && cursor !== "") q.append("cursor", cursor);
  const text = q.toString();
  return text === "" ? "" : `?${text}`;
}
