/**
 * The state format of a cut-off `DlqRecovery` drain, as the provider stores it in the stack:
 * owned by the provider, not by the client. The client's `WindowDrainState` may change with any
 * refactor of the window drain; what is stored changes only with a new {@link StoredWindowState}
 * version, read beside the old ones. The two meet only in {@link toStoredWindowState} and
 * {@link fromStoredWindowState}, so a change on either side is a compile error here, not a
 * silent state migration.
 *
 * Version 1 is what every release so far wrote (the output `windowState`):
 *
 * ```json
 * { "version": 1, "runs": 600, "shortfall": 50,
 *   "windows": [{ "from": 1795153275864, "to": 1795191075869 },
 *               { "from": 1795191075870, "cursor": "WzEs…" }] }
 * ```
 *
 * Beside it the provider stores `cursor` (one cursor over the whole selection, a sequential
 * drain or a windowed drain with one window) and `remainingDlqIds` (a `dlqIds` drain): both plain
 * strings the service handed out, stored as received.
 */
import "../../client/requireNode"; // first: one clear error on a Node.js older than 22.19
import { SvcError, type DlqSelection } from "../../client";
import { validateWindowState, type WindowDrainState } from "../../drain";

function invalid(message: string): SvcError {
  return new SvcError("SVC_INVALID_ARGUMENT", message);
}

/** The stored format's version this code writes. */
export const STORED_WINDOW_STATE_VERSION = 1;

/** One window a cut-off drain left open, as stored (inclusive unix milliseconds). */
export interface StoredWindow {
  /** First failure time of the window; absent: open below. */
  from?: number;
  /** Last failure time of the window; absent: open above. */
  to?: number;
  /** The service's cursor of the window's last answered page; absent: from the window's start. */
  cursor?: string;
}

/** The output `windowState`, version 1: the windows still open and the window budget's counters. */
export interface StoredWindowStateV1 {
  /** Format version: `1`. */
  version: typeof STORED_WINDOW_STATE_VERSION;
  /** Windows not finished, pairwise disjoint, in failure-time order (at most 64). */
  windows: StoredWindow[];
  /** Runs reported by the drain so far, continuations included (the window budget's credit). */
  runs: number;
  /** Σ (50 − runs) over the pages that were not full (the window budget's debit). */
  shortfall: number;
}

/** Every stored format this provider reads (today one). */
export type StoredWindowState = StoredWindowStateV1;

/** The client's state as stored (version {@link STORED_WINDOW_STATE_VERSION}). */
export function toStoredWindowState(state: WindowDrainState): StoredWindowState {
  return {
    version: STORED_WINDOW_STATE_VERSION,
    windows: state.windows.map((w) => {
      const s: StoredWindow = {};
      if (w.from !== undefined) s.from = w.from;
      if (w.to !== undefined) s.to = w.to;
      if (w.cursor !== undefined) s.cursor = w.cursor;
      return s;
    }),
    runs: state.runs,
    shortfall: state.shortfall,
  };
}

/**
 * A stored `windowState` (of any version this provider reads) as the client's state, checked
 * against `selection` by the client's own rules (bounds, order, cursors, counters).
 *
 * @throws SvcError `SVC_INVALID_ARGUMENT` naming the field and the value
 */
export function fromStoredWindowState(stored: unknown, selection: DlqSelection): WindowDrainState {
  if (stored === null || typeof stored !== "object" || Array.isArray(stored)) {
    throw invalid("`windowState` must be an object { version, windows, runs, shortfall }");
  }
  const s = stored as Partial<Record<keyof StoredWindowStateV1, unknown>>;
  if (s.version !== STORED_WINDOW_STATE_VERSION) {
    throw invalid(
      `\`windowState.version\` must be ${STORED_WINDOW_STATE_VERSION}; got ${JSON.stringify(s.version)}`,
    );
  }
  // Version 1 has the client's field names: the client's check reads it as its own shape.
  const client: Record<keyof WindowDrainState, unknown> = {
    version: 1,
    windows: s.windows,
    runs: s.runs,
    shortfall: s.shortfall,
  };
  return validateWindowState(client, selection);
}
