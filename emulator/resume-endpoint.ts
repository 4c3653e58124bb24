/**
 * `POST /v2/workflows/dlq/resume` after authentication: validate the request and the override
 * headers, apply the cursor faults, resume, and shape the response
 * `{"cursor": "…", "workflowRuns": [{"workflowRunId", "workflowCreatedAt"}]}`.
 */
import { encodeCursor, filterHash } from "./cursor";
import { HttpError, parseJsonBody } from "./http";
import { parseOverrides } from "./overrides";
import { resume } from "./resume";
import { parseResumeRequest } from "./resume-request";
import type { V2Context, V2Result } from "./endpoint";

/** The message of the 404 for unknown DLQ IDs, as the service words it. */
export const NOT_FOUND_MESSAGE = "Some DLQ messages were not found";

/**
 * Handle an authenticated resume request.
 *
 * @param ctx - the request context.
 * @throws HttpError 400 for invalid fields, headers or cursor; 404 for unknown DLQ IDs.
 */
export function handleResume(ctx: V2Context): V2Result {
  const { state, url, plan, logEntry } = ctx;
  const request = parseResumeRequest(url.searchParams, parseJsonBody(ctx.body));
  const overrides = parseOverrides(ctx.req);

  if (plan.repeatingCursor) {
    const cursor =
      request.cursor ??
      encodeCursor({ epoch: state.dlq.epoch, afterSeq: 0, filter: filterHash(request.filter) });
    logEntry.fault = "repeatingCursor";
    return { kind: "json", status: 200, body: { cursor, workflowRuns: [] } };
  }

  const outcome = resume(state, request, overrides, {
    requestIndex: logEntry.index,
    endlessCursor: plan.endlessCursor,
    unknownDlqIds: state.unknownDlqIds,
  });
  if (outcome.kind === "not-found") {
    logEntry.error = state.redact(
      `${NOT_FOUND_MESSAGE}: ${outcome.missing.map((id) => JSON.stringify(id)).join(", ")}`,
    );
    throw new HttpError(404, NOT_FOUND_MESSAGE);
  }
  logEntry.resumed = outcome.runs.length;
  if (outcome.missing !== undefined) {
    logEntry.error = state.redact(
      `resumed the known IDs; not in the DLQ: ${outcome.missing.map((id) => JSON.stringify(id)).join(", ")}`,
    );
  }
  if (plan.endlessCursor) logEntry.fault = "endlessCursor";
  if (plan.loseResponseAfterCommit) {
    state.ledger.markResponseLost(outcome.runs);
    return { kind: "lost" };
  }
  return {
    kind: "json",
    status: 200,
    body: {
      cursor: outcome.cursor,
      workflowRuns: outcome.runs.map((run) => ({
        workflowRunId: run.workflowRunId,
        workflowCreatedAt: run.workflowCreatedAt,
      })),
    },
  };
}
