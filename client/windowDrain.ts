/**
 * The scheduler of a windowed drain: it keeps up to `concurrency` failure-time windows of a
 * filter (or `all`) selection in flight and splits a window that keeps returning a cursor while
 * slots sit idle, so failures clustered in one burst drain as fast as evenly spread ones.
 *
 * Guarantees, per window the same as {@link drainPages} for a whole drain:
 * - the windows partition the selection (see `windows.ts`); requests in flight at any moment
 *   target pairwise disjoint windows, and a window is split only between its pages;
 * - a cursor is followed within its window only, with the same loop checks ({@link CursorChain});
 * - `requestCount`, `resumedCount`, `ambiguousRequests` count exactly as in `drainPages`
 *   (ambiguous: a request with a lost attempt, answered or not);
 * - on a failure no request is started any more, the requests in flight finish and are
 *   recorded, and a {@link PartialFailure} carries the progress and the state to continue from;
 * - requests answered stay within `1.10 × ceil(N/50) + windowAllowance` (see `mayOpenWindow`),
 *   and `concurrency: 1` is the sequential drain: one window, one cursor, ceil(N/50) requests.
 *
 * Where the range starts when the selection has no `fromDate`: the drain starts with ONE window,
 * the whole selection (so N ≤ 50 costs one request and concurrency 1 is unchanged). Only when that
 * window returns a full page with a cursor and slots are idle is it split, at the middle of
 * `[now − horizon, now]` (`effectiveRange`), halving again where the entries turn out to be. The
 * first and last windows stay open-ended, so nothing older than the horizon or newer than now
 * is missed; the horizon only decides where splits fall.
 *
 * @packageDocumentation
 */
import { CursorChain, DEFAULT_MAX_EMPTY_PAGES, PartialFailure, checkCount } from "./drain";
import { SvcError, isSvcError } from "./errors";
import { MAX_RUNS_PER_REQUEST, type DlqSelection } from "./contract";
import type { CallState } from "./request";
import type {
  DrainProgress,
  DrainWindow,
  GateStatus,
  OpenWindow,
  ResumedRun,
  ResumePage,
  WindowDrainOptions,
  WindowDrainState,
} from "./types";
import { DEFAULT_HORIZON_MS, mayOpenWindow, rootWindow, splitWindow, validateWindowState } from "./windows";

/** Windows in flight at once by default. */
export const DEFAULT_WINDOW_CONCURRENCY = 16;
/**
 * Requests waiting at the rate gate from which the rate, not latency, bounds the drain: no more
 * windows are opened then. Two rather than one, so jitter in latency does not leave the gate idle.
 */
export const GATE_BACKLOG = 2;

/**
 * Sends one resume request for `window`, continuing after `cursor`. Updates `state` as attempts
 * are made (so an ambiguous attempt is known even when it throws). The provider builds it from
 * `SvcClient`; tests use an in-memory DLQ.
 */
export type WindowStep = (
  window: DrainWindow,
  cursor: string | undefined,
  state: CallState,
) => Promise<ResumePage>;

/** Progress of a windowed drain, with the state to continue from and how the windows went. */
export interface WindowDrainProgress extends DrainProgress {
  /** Windows still open (none when complete) and the budget counters. */
  windowState: WindowDrainState;
  /** Windows this call opened by splitting. */
  splits: number;
  /** Most windows in flight at once. */
  maxInFlight: number;
}

/** A window the scheduler works on. */
interface Slot {
  window: DrainWindow;
  cursor: string | undefined;
  chain: CursorChain;
  /** The cursor came from saved state and was not accepted yet (a 400 restarts the window). */
  restored: boolean;
  /** Full pages since the window was opened: the longest-running window is split first. */
  pages: number;
  /** The window cannot be split (a single millisecond). */
  atomic: boolean;
}

/** A finished request. */
type Settled =
  { slot: Slot; state: CallState; page: ResumePage } | { slot: Slot; state: CallState; error: unknown };

function sameWindow(a: DrainWindow, b: DrainWindow): boolean {
  return a.from === b.from && a.to === b.to;
}

/**
 * Resumes every entry of `selection` through `step`, in parallel failure-time windows.
 *
 * @param selection - a filter (or empty, `all`) selection; `dlqIds` is refused
 * @param step - sends one request for a window
 * @param gate - the rate gate's status, read to split only while latency (not the rate) bounds
 * the drain; the step itself passes every attempt through the gate
 * @throws PartialFailure wrapping the failure and the progress (with `windowState`)
 */
export async function drainWindows(
  selection: DlqSelection,
  step: WindowStep,
  gate: GateStatus | undefined,
  opts: WindowDrainOptions = {},
): Promise<WindowDrainProgress> {
  if (selection.dlqIds !== undefined) {
    throw new SvcError("SVC_INVALID_ARGUMENT", "`dlqIds` cannot be drained in windows; use resumeByIds");
  }
  checkCount(opts.concurrency, "concurrency", 1);
  checkCount(opts.maxRequests, "maxRequests", 1);
  checkCount(opts.maxEmptyPages, "maxEmptyPages", 1);
  checkCount(opts.windowAllowance, "windowAllowance", 1);
  checkCount(opts.horizonMs, "horizonMs", 1);
  if (opts.startCursor !== undefined && typeof opts.startCursor !== "string") {
    throw new SvcError("SVC_INVALID_ARGUMENT", "`startCursor` must be a string");
  }
  const saved = opts.state === undefined ? undefined : validateWindowState(opts.state, selection);
  const startCursor = opts.startCursor === "" ? undefined : opts.startCursor;
  if (saved !== undefined && startCursor !== undefined) {
    throw new SvcError("SVC_INVALID_ARGUMENT", "`state` and `startCursor` cannot both be given");
  }
  const concurrency = opts.concurrency ?? DEFAULT_WINDOW_CONCURRENCY;
  const maxEmptyPages = opts.maxEmptyPages ?? DEFAULT_MAX_EMPTY_PAGES;
  const horizonMs = opts.horizonMs ?? DEFAULT_HORIZON_MS;
  const now = opts.now ?? Date.now;
  const keepRuns = opts.keepRuns !== false;
  const started = now();
  const root = rootWindow(selection);

  const slot = (w: OpenWindow, restored: boolean): Slot => ({
    window: {
      ...(w.from !== undefined ? { from: w.from } : {}),
      ...(w.to !== undefined ? { to: w.to } : {}),
    },
    cursor: w.cursor,
    chain: new CursorChain(w.cursor, maxEmptyPages),
    restored: restored && w.cursor !== undefined,
    pages: 0,
    atomic: false,
  });
  /** Windows not finished, in failure-time order. */
  const open: Slot[] = saved
    ? saved.windows.map((w) => slot(w, true))
    : [slot({ ...root, ...(startCursor !== undefined ? { cursor: startCursor } : {}) }, true)];
  /** Open windows waiting for a request slot. */
  const runnable: Slot[] = [...open];
  const inFlight = new Set<Slot>();
  const settled: Settled[] = [];
  let wake: (() => void) | undefined;

  const budget = { runs: saved?.runs ?? 0, shortfall: saved?.shortfall ?? 0 };
  const runs: ResumedRun[] = [];
  let requestCount = 0;
  let resumedCount = 0;
  let ambiguousRequests = 0;
  let splits = 0;
  let maxInFlight = 0;
  let failure: { error: unknown } | undefined;

  const snapshot = (): WindowDrainState => ({
    version: 1,
    windows: open.map((s) => ({ ...s.window, ...(s.cursor !== undefined ? { cursor: s.cursor } : {}) })),
    runs: budget.runs,
    shortfall: budget.shortfall,
  });
  const progress = (): WindowDrainProgress => ({
    runs: [...runs],
    requestCount,
    resumedCount,
    ambiguousRequests,
    cursor: open.length === 1 && sameWindow(open[0].window, root) ? open[0].cursor : undefined,
    windowState: snapshot(),
    splits,
    maxInFlight,
  });
  const fail = (error: unknown): void => {
    failure ??= { error };
  };

  const launch = (s: Slot): void => {
    inFlight.add(s);
    maxInFlight = Math.max(maxInFlight, inFlight.size);
    const state: CallState = { attempts: 0, ambiguous: false };
    let pending: Promise<ResumePage>;
    try {
      pending = step(s.window, s.cursor, state);
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      (page) => {
        settled.push({ slot: s, state, page });
        wake?.();
      },
      (error: unknown) => {
        settled.push({ slot: s, state, error });
        wake?.();
      },
    );
  };

  const fill = (): void => {
    while (failure === undefined && inFlight.size < concurrency && runnable.length > 0) {
      if (opts.signal?.aborted) {
        fail(new SvcError("SVC_ABORTED", "The drain was aborted by its signal"));
        return;
      }
      if (opts.maxRequests !== undefined && requestCount + inFlight.size >= opts.maxRequests) return;
      launch(runnable.shift() as Slot);
    }
  };

  /**
   * Splits `s` (just answered with a full page and a cursor) when a slot would sit idle, the
   * gate is not the bottleneck (fewer than {@link GATE_BACKLOG} requests wait), the budget
   * allows one more window, and no other splittable window has run longer (the longest-running
   * window is likely the one with the most left).
   */
  const trySplit = (s: Slot): boolean => {
    const idle = concurrency - inFlight.size - runnable.length - 1;
    if (idle < 1 || failure !== undefined || (gate?.waiting ?? 0) >= GATE_BACKLOG) return false;
    if (!mayOpenWindow(budget, open.length, { allowance: opts.windowAllowance })) return false;
    if (open.some((o) => o !== s && !o.atomic && o.pages > s.pages)) return false;
    const pieces = splitWindow(s.window, now(), horizonMs);
    if (pieces === undefined) {
      s.atomic = true;
      return false;
    }
    const slots = pieces.map((w) => slot(w, false));
    open.splice(open.indexOf(s), 1, ...slots);
    runnable.push(...slots);
    splits += slots.length - 1;
    return true;
  };

  const onAnswer = async (s: Slot, state: CallState, page: ResumePage): Promise<void> => {
    requestCount += 1;
    if (page.ambiguous || state.ambiguous) ambiguousRequests += 1;
    const n = page.workflowRuns.length;
    if (keepRuns) runs.push(...page.workflowRuns);
    resumedCount += n;
    budget.runs += n;
    if (n < MAX_RUNS_PER_REQUEST) budget.shortfall += MAX_RUNS_PER_REQUEST - n;
    s.restored = false;
    const next = page.cursor;
    if (next === undefined) {
      open.splice(open.indexOf(s), 1);
    } else {
      const loop = s.chain.loopReason(next, n);
      s.cursor = next;
      if (n >= MAX_RUNS_PER_REQUEST) s.pages += 1;
      if (loop !== undefined) fail(new SvcError("SVC_CURSOR_LOOP", loop));
      else if (!(n >= MAX_RUNS_PER_REQUEST && trySplit(s))) runnable.push(s);
    }
    if (opts.onPage) {
      try {
        await opts.onPage({
          page,
          window: s.window,
          requestCount,
          resumedCount,
          windowsOpen: open.length,
          windowsInFlight: inFlight.size,
          requestsPerSecond: requestCount / Math.max((now() - started) / 1000, 0.001),
          gateRatePerSecond: gate?.ratePerSecond,
          state: snapshot(),
        });
      } catch (error) {
        fail(error);
      }
    }
  };

  const onError = (s: Slot, state: CallState, error: unknown): void => {
    if (state.ambiguous) ambiguousRequests += 1;
    if (
      s.restored &&
      !state.ambiguous &&
      failure === undefined &&
      isSvcError(error) &&
      error.code === "SVC_BAD_REQUEST"
    ) {
      // A saved cursor the service no longer accepts: restart the window without it. Resumed
      // entries have left the DLQ, so starting the window over cannot resume anything twice.
      s.cursor = undefined;
      s.restored = false;
      s.chain = new CursorChain(undefined, maxEmptyPages);
      runnable.unshift(s);
      opts.onCursorRefused?.(s.window);
      return;
    }
    fail(error);
  };

  for (;;) {
    // Every answer that arrived is recorded before anything new is sent, so no request starts
    // after a failure is known.
    while (settled.length > 0) {
      const done = settled.shift() as Settled;
      inFlight.delete(done.slot);
      if ("page" in done) await onAnswer(done.slot, done.state, done.page);
      else onError(done.slot, done.state, done.error);
    }
    fill();
    if (inFlight.size === 0) break;
    await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
  }

  if (failure !== undefined) throw new PartialFailure(failure.error, progress());
  if (open.length > 0) {
    throw new PartialFailure(
      new SvcError(
        "SVC_CURSOR_LOOP",
        `The drain did not finish within maxRequests=${opts.maxRequests}: ${open.length} window(s) still pending`,
      ),
      progress(),
    );
  }
  return progress();
}
