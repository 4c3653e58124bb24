/**
 * The bulk-resume operation on the state: select entries (by DLQ IDs, or by filters after a
 * cursor), create a new run for each, remove them from the DLQ and record them in the ledger.
 *
 * All-or-nothing: an unknown DLQ ID or a bad cursor changes nothing, unless the emulator is told
 * to resume the known IDs of a batch that mixes known and unknown ones ({@link UnknownDlqIds}).
 */
import { decodeCursor, encodeCursor, filterHash } from "./cursor";
import type { DlqEntry } from "./dlq-entry";
import type { ResumedRun } from "./ledger";
import { createResumedRun } from "./new-run";
import type { Overrides } from "./overrides";
import type { ResumeRequest } from "./resume-request";
import type { EmulatorState } from "./state";
import type { UnknownDlqIds } from "./unknown-dlq-ids";

/** Outcome of {@link resume}. */
export type ResumeOutcome =
  | {
      readonly kind: "resumed";
      /** New runs, in selection order. */
      readonly runs: readonly ResumedRun[];
      /** "" when everything matching was processed, otherwise the cursor to continue with. */
      readonly cursor: string;
      /** Requested DLQ IDs not in the DLQ, left out (`"resume-known"`). */
      readonly missing?: readonly string[];
    }
  | {
      readonly kind: "not-found";
      /** The requested DLQ IDs that are not in the DLQ. */
      readonly missing: readonly string[];
    };

/** Options of one resume call. */
export interface ResumeOptions {
  /** Index of the request in the request log (recorded on the runs). */
  readonly requestIndex: number;
  /** Never return an empty cursor (fault `endlessCursor`). */
  readonly endlessCursor?: boolean;
  /** What a batch with IDs not in the DLQ gets (default `"refuse"`). */
  readonly unknownDlqIds?: UnknownDlqIds;
}

/**
 * Resume the entries a request selects.
 *
 * @param state - the emulator state.
 * @param request - the validated request.
 * @param overrides - the validated override headers.
 * @param options - request index and cursor fault.
 * @throws HttpError 400 for a bad cursor (nothing committed).
 */
export function resume(
  state: EmulatorState,
  request: ResumeRequest,
  overrides: Overrides,
  options: ResumeOptions,
): ResumeOutcome {
  const { dlq } = state;
  if (request.dlqIds !== undefined) {
    const entries: DlqEntry[] = [];
    const missing: string[] = [];
    for (const id of request.dlqIds) {
      const entry = dlq.get(id);
      if (entry === undefined) missing.push(id);
      else entries.push(entry);
    }
    const resumeKnown = options.unknownDlqIds === "resume-known" && entries.length > 0;
    if (missing.length > 0 && !resumeKnown) return { kind: "not-found", missing };
    const runs = commit(state, entries, overrides, options.requestIndex);
    const cursor = options.endlessCursor
      ? encodeCursor({ epoch: dlq.epoch, afterSeq: 0, filter: filterHash({}) })
      : "";
    return { kind: "resumed", runs, cursor, ...(missing.length > 0 ? { missing } : {}) };
  }

  const hash = filterHash(request.filter);
  const afterSeq = request.cursor === undefined ? 0 : decodeCursor(request.cursor, dlq.epoch, hash);
  const selection = dlq.select(request.filter, afterSeq, request.count);
  const lastSeq =
    selection.entries.length > 0 ? selection.entries[selection.entries.length - 1].seq : afterSeq;
  const runs = commit(state, selection.entries, overrides, options.requestIndex);
  const more = selection.more || options.endlessCursor === true;
  const cursor = more ? encodeCursor({ epoch: dlq.epoch, afterSeq: lastSeq, filter: hash }) : "";
  return { kind: "resumed", runs, cursor };
}

/**
 * Create the new runs, remove the entries and record the runs.
 *
 * @param state - the emulator state.
 * @param entries - selected live entries.
 * @param overrides - the request's overrides.
 * @param requestIndex - index of the request in the log.
 */
function commit(
  state: EmulatorState,
  entries: readonly DlqEntry[],
  overrides: Overrides,
  requestIndex: number,
): ResumedRun[] {
  const now = state.now();
  const runs = entries.map((entry) => {
    const run = createResumedRun(entry, overrides, now, requestIndex);
    state.dlq.remove(entry.dlqId);
    state.ledger.record(run);
    return run;
  });
  state.dlq.maybeCompact();
  return runs;
}
