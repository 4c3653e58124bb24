/**
 * The window planner of a parallel drain: disjoint failure-time windows that partition a filter
 * (or `all`) selection, how a window is split, how many windows a drain may open, and the saved
 * state from which a cut-off drain continues.
 *
 * Why windows partition a selection exactly: resumed entries leave the DLQ, and `fromDate`/`toDate`
 * are inclusive integer milliseconds, so windows `[a, m]` and `[m + 1, b]` select disjoint sets
 * whose union is `[a, b]`. A request for a window without a cursor returns that window's next
 * remaining entries, so a window can be split or restarted without its cursor: no entry is lost
 * or resumed twice.
 *
 * Why the number of windows is bounded: every window ends with one page that is not full (a
 * partial or empty page), so each window opened costs up to one request beyond ceil(N/50). The
 * planner lets a drain open a window only while the requests beyond ceil(runs/50) so far, plus one
 * per window open after it, stay within the allowance (see {@link windowRoom}): `allowance` (4)
 * until more than {@link SMALL_DRAIN_RUNS} (500) runs were resumed, and
 * `allowance + LARGE_DRAIN_CREDIT + overhead × ceil(runs / 50) + min(⌈rate × round trip⌉,
 * ceil(runs / 50))` after (the last term: one window for each request the account's rate and the
 * round trip need in flight, earned page by page like the rest); and, when the account's daily
 * limit is known, never more than {@link DAILY_LIMIT_SHARE} (2 %) of it. That keeps the requests
 * of a whole drain of N entries within `ceil(N/50) + 4` for N ≤ 500 and `1.10 × ceil(N/50) + 24 +
 * min(⌈rate × round trip⌉, ceil(N/50))` above (or `ceil(N/50) + 2 % of the daily limit` when that
 * is smaller), for any distribution of failure times: the drain does not know N in advance, so
 * the larger allowance is only spent once more than 500 runs came back.
 *
 * @packageDocumentation
 */
import { SvcError } from "../client/errors";
import { MAX_RUNS_PER_REQUEST, type DlqSelection } from "../client/contract";
import type { DrainWindow, OpenWindow, WindowDrainState } from "./types";
import {
  WINDOW_OVERHEAD,
  DEFAULT_WINDOW_ALLOWANCE,
  SMALL_DRAIN_RUNS,
  LARGE_DRAIN_CREDIT,
  DAILY_LIMIT_SHARE,
  DEFAULT_HORIZON_MS,
  MAX_SAVED_WINDOWS,
  LOG_SPLIT_AFTER,
  LADDER_FIRST_MS,
  LADDER_RATIO,
  LADDER_OLDER_RATIO,
} from "./planKnobs";

function invalid(message: string): SvcError {
  return new SvcError("SVC_INVALID_ARGUMENT", message);
}

/** The one window that covers the whole selection: the drain before any split. */
export function rootWindow(selection: DlqSelection): DrainWindow {
  const w: DrainWindow = {};
  if (selection.fromDate !== undefined) w.from = selection.fromDate;
  if (selection.toDate !== undefined) w.to = selection.toDate;
  return w;
}

/** The selection of one window: the selection with the window's bounds as `fromDate`/`toDate`. */
export function windowSelection(selection: DlqSelection, window: DrainWindow): DlqSelection {
  const { fromDate: _from, toDate: _to, ...rest } = selection;
  const s: DlqSelection = { ...rest };
  if (window.from !== undefined) s.fromDate = window.from;
  if (window.to !== undefined) s.toDate = window.to;
  if (window.runIdPrefix !== undefined) s.workflowRunId = window.runIdPrefix;
  return s;
}

/**
 * The part of a window where failures can lie, as closed bounds `[lo, hi]`: an open upper bound
 * ends at `now` (nothing failed later, up to clock skew), an open lower bound starts `horizonMs`
 * before that (further back when the window ends before it). `undefined` when that part is a
 * single millisecond or empty.
 */
export function effectiveRange(
  window: DrainWindow,
  now: number,
  horizonMs: number = DEFAULT_HORIZON_MS,
): [number, number] | undefined {
  const hi = window.to ?? Math.max(now, window.from ?? 0);
  const lo = window.from ?? Math.max(0, hi > now - horizonMs ? now - horizonMs : hi - horizonMs);
  return hi > lo ? [lo, hi] : undefined;
}

/**
 * Splits a window at the middle of its {@link effectiveRange}: `[from, m]` and `[m + 1, to]`,
 * each keeping the open bound of its side. `undefined` when the window cannot be split (a
 * single millisecond, or an open-above window that starts at or after `now`).
 */
export function splitWindow(
  window: DrainWindow,
  now: number,
  horizonMs: number = DEFAULT_HORIZON_MS,
): [DrainWindow, DrainWindow] | undefined {
  return splitWindowInto(window, 2, now, horizonMs) as [DrainWindow, DrainWindow] | undefined;
}

/**
 * Splits a window into `pieces` adjacent windows of (nearly) equal length over its
 * {@link effectiveRange}, fewer when the range has fewer milliseconds; the first keeps the
 * window's lower bound (open or not), the last its upper bound. `undefined` when the window
 * cannot be split.
 *
 * `drained` (0 to 1, default 0) is the share of the range, from its start, whose entries are
 * probably resumed already (a window followed by its cursor resumes its oldest failures first):
 * the first piece covers it and its equal share of the rest, so no piece is likely empty.
 */
export function splitWindowInto(
  window: DrainWindow,
  pieces: number,
  now: number,
  horizonMs: number = DEFAULT_HORIZON_MS,
  drained = 0,
): DrainWindow[] | undefined {
  const range = effectiveRange(window, now, horizonMs);
  if (range === undefined || pieces < 2) return undefined;
  const [lo, hi] = range;
  const k = Math.min(pieces, hi - lo + 1);
  const ends: number[] = [];
  const near = now - hi;
  const far = now - lo;
  const logSpaced = LOG_SPLIT_AFTER > 0 && drained === 0 && near > 0 && far / near > LOG_SPLIT_AFTER;
  for (let i = 1; i < k; i++) {
    // Far wider than its distance from now: pieces even in log(now − t), narrow at the recent end.
    if (logSpaced) ends.push(Math.floor(now - near * Math.pow(far / near, 1 - i / k)));
    else ends.push(lo + Math.floor((hi - lo) * (drained + ((1 - drained) * i) / k)));
  }
  const ordered = ends.every((e, i) => e < hi && (i === 0 ? e >= lo : e > ends[i - 1]));
  if (!ordered) return drained > 0 ? splitWindowInto(window, pieces, now, horizonMs) : undefined;
  const out: DrainWindow[] = [];
  let from = window.from;
  for (const end of ends) {
    out.push(from !== undefined ? { from, to: end } : { to: end });
    from = end + 1;
  }
  out.push(window.to !== undefined ? { from: from as number, to: window.to } : { from: from as number });
  return out;
}

/**
 * Splits a window that is open below (no `fromDate`: where failures start is not known) into
 * at most `pieces` pieces placed geometrically back from its upper end, narrow first: failures
 * are usually recent and clustered, and the horizon (90 days, or the retention) is far wider
 * than their span. A window that ends now is split at `now − LADDER_FIRST_MS × LADDER_RATIO^i`;
 * one that ends `d` before now at `now − d × LADDER_OLDER_RATIO^(i + 1)`. Points beyond the
 * horizon are dropped; the first piece stays open below. `undefined` when no point falls inside.
 */
export function splitOpenBelow(
  window: DrainWindow,
  pieces: number,
  now: number,
  horizonMs: number = DEFAULT_HORIZON_MS,
): DrainWindow[] | undefined {
  const range = effectiveRange(window, now, horizonMs);
  if (range === undefined || pieces < 2 || window.from !== undefined) return undefined;
  const [lo, hi] = range;
  const back = now - hi;
  const ends: number[] = [];
  let d = back > 0 ? back * LADDER_OLDER_RATIO : LADDER_FIRST_MS;
  for (let i = 0; i < pieces - 1; i++, d *= back > 0 ? LADDER_OLDER_RATIO : LADDER_RATIO) {
    const end = Math.floor(now - d);
    if (end <= lo) break;
    if (end < hi) ends.unshift(end);
  }
  if (ends.length === 0) return undefined;
  return cutOpenBelow(window, ends);
}

/** A window open below cut at `ends` (ascending, inside it): the first piece stays open below. */
export function cutOpenBelow(window: DrainWindow, ends: readonly number[]): DrainWindow[] {
  const out: DrainWindow[] = [];
  let from: number | undefined;
  for (const end of ends) {
    out.push(from !== undefined ? { from, to: end } : { to: end });
    from = end + 1;
  }
  out.push(window.to !== undefined ? { from: from as number, to: window.to } : { from: from as number });
  return out;
}

/** Budget parameters of {@link mayOpenWindow}. */
export interface WindowBudget {
  /** Windows allowed before anything is resumed. Default {@link DEFAULT_WINDOW_ALLOWANCE}. */
  allowance?: number;
  /** Extra requests allowed per request of ideal work. Default {@link WINDOW_OVERHEAD}. */
  overhead?: number;
  /**
   * The account's daily request limit, when known: the requests beyond ceil(N/50) stay within
   * {@link DAILY_LIMIT_SHARE} of it.
   */
  dailyLimit?: number;
  /** The account's per-second limit as the rate gate knows it, when it does. */
  ratePerSecond?: number;
  /** The round trip of a request as the drain measures it, ms, when it has. */
  roundTripMs?: number;
}

/**
 * The requests the account's rate and the round trip need in flight, ⌈rate × round trip⌉, as
 * far as `runs` runs have earned them (one per full page's worth, past {@link SMALL_DRAIN_RUNS}):
 * a drain that keeps them in flight opens that many windows, each ending on one page that is not
 * full, and the credit never exceeds the work (ceil(runs/50)). 0 while the rate or the round trip
 * is unknown.
 */
export function parallelCredit(runs: number, budget: WindowBudget = {}): number {
  const { ratePerSecond: rate, roundTripMs: rtt } = budget;
  if (runs <= SMALL_DRAIN_RUNS || rate === undefined || rtt === undefined) return 0;
  const need = Math.ceil((rate * rtt) / 1000 - 1e-9);
  return Math.max(0, Math.min(need, Math.ceil(runs / MAX_RUNS_PER_REQUEST)));
}

/**
 * What the budget credits a drain that resumed `runs` runs, in requests: nothing up to
 * {@link SMALL_DRAIN_RUNS}, `LARGE_DRAIN_CREDIT + overhead × ceil(runs / 50)` above, plus the
 * {@link parallelCredit} of the rate and round trip in `budget`.
 */
export function windowCredit(
  runs: number,
  overhead: number = WINDOW_OVERHEAD,
  budget: WindowBudget = {},
): number {
  if (runs <= SMALL_DRAIN_RUNS) return 0;
  return (
    LARGE_DRAIN_CREDIT + overhead * Math.ceil(runs / MAX_RUNS_PER_REQUEST) + parallelCredit(runs, budget)
  );
}

/**
 * The requests beyond ceil(runs/50) a drain that resumed `runs` runs may have spent: `allowance +
 * credit(runs)`, at most {@link DAILY_LIMIT_SHARE} of the daily limit when it is known.
 */
export function windowAllowance(runs: number, budget: WindowBudget = {}): number {
  const own = (budget.allowance ?? DEFAULT_WINDOW_ALLOWANCE) + windowCredit(runs, budget.overhead, budget);
  if (budget.dailyLimit === undefined) return own;
  return Math.min(own, Math.floor(DAILY_LIMIT_SHARE * budget.dailyLimit + 1e-9));
}

/**
 * The most requests a drain of `n` entries sends, for any distribution of their failure times:
 * ceil(n/50) (at least 1) plus {@link windowAllowance}: `ceil(n/50) + 4` up to 500 entries,
 * `1.10 × ceil(n/50) + 24 + min(⌈rate × round trip⌉, ceil(n/50))` above (the last term with the
 * budget's `ratePerSecond` and `roundTripMs`; none without them), and at most `ceil(n/50) + 2 %`
 * of a known daily limit.
 */
export function requestAllowance(n: number, budget: WindowBudget = {}): number {
  const ideal = Math.max(1, Math.ceil(n / MAX_RUNS_PER_REQUEST));
  return Math.floor(ideal + windowAllowance(n, budget) + 1e-9);
}

/**
 * How many more windows may be opened now, so that the drain's requests stay within
 * `ceil(runs / 50) + windowAllowance(runs)` for any distribution of what is left.
 *
 * Why: a drain's requests are its full pages plus its pages that were not full, and the runs of
 * the latter (P) round up together, so requests − ceil(N/50) = (pages not full) − ceil(P/50)
 * exactly. From the counters that is `shortfall / 50 − (ceil(runs/50) − runs/50)` so far (P and
 * `runs` agree modulo 50). Each window still open ends with at most one page that is not full.
 * When `holding` (a window known to hold entries is open, e.g. one that just returned a cursor)
 * and every page so far was full or empty (`runs` a multiple of 50), one of those last pages is
 * free: either it holds runs, and ceil(P/50) grows by one with it, or the window ends on a full page.
 * The allowance grows with N, so it is that of `least` where the drain knows it resumes more than
 * its runs (each cursor says its window holds one more entry at least).
 *
 * @param state - the counters (`runs`, `shortfall`), and `least`, the entries the drain resumes at least
 * @param openWindows - windows open now
 * @param holding - whether an open window is known to hold entries
 */
export function windowRoom(
  state: Pick<WindowDrainState, "runs" | "shortfall"> & { least?: number },
  openWindows: number,
  budget: WindowBudget = {},
  holding = false,
): number {
  const rest = state.runs % MAX_RUNS_PER_REQUEST;
  const roundUp = (MAX_RUNS_PER_REQUEST - rest) % MAX_RUNS_PER_REQUEST;
  const free = holding && rest === 0 ? 1 : 0;
  const cost = (state.shortfall - roundUp) / MAX_RUNS_PER_REQUEST + openWindows - free;
  const least = Math.max(state.runs, state.least ?? 0);
  return Math.max(0, Math.floor(windowAllowance(least, budget) - cost + 1e-9));
}

/**
 * Whether one more window may be opened ({@link windowRoom} is at least 1).
 *
 * @param state - the counters (`runs`, `shortfall`)
 * @param openWindows - windows open now
 */
export function mayOpenWindow(
  state: Pick<WindowDrainState, "runs" | "shortfall">,
  openWindows: number,
  budget: WindowBudget = {},
): boolean {
  return windowRoom(state, openWindows, budget) >= 1;
}

function isMs(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}

function isCount(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}

/**
 * Checks a saved state before a drain continues from it: the shape, each window's bounds and
 * cursor, that the windows are disjoint and in order, and that they lie inside the selection.
 *
 * @throws SvcError `SVC_INVALID_ARGUMENT` naming the field and the value
 */
export function validateWindowState(state: unknown, selection: DlqSelection): WindowDrainState {
  const where = "windowState";
  if (state === null || typeof state !== "object" || Array.isArray(state)) {
    throw invalid(`\`${where}\` must be an object { version, windows, runs, shortfall }`);
  }
  const s = state as Record<string, unknown>;
  if (s.version !== 1) throw invalid(`\`${where}.version\` must be 1; got ${JSON.stringify(s.version)}`);
  for (const k of ["runs", "shortfall"] as const) {
    if (!isCount(s[k])) {
      throw invalid(`\`${where}.${k}\` must be a non-negative integer; got ${JSON.stringify(s[k])}`);
    }
  }
  if (!Array.isArray(s.windows) || s.windows.length > MAX_SAVED_WINDOWS) {
    throw invalid(`\`${where}.windows\` must be an array of at most ${MAX_SAVED_WINDOWS} windows`);
  }
  const windows: OpenWindow[] = s.windows.map((raw: unknown, i) => {
    const at = `${where}.windows[${i}]`;
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
      throw invalid(`\`${at}\` must be an object { from?, to?, cursor? }`);
    }
    const { from, to, cursor, ...extra } = raw as Record<string, unknown>;
    const unknownKey = Object.keys(extra)[0];
    if (unknownKey !== undefined) throw invalid(`\`${at}.${unknownKey}\` is not a window field`);
    for (const [k, v] of [
      ["from", from],
      ["to", to],
    ] as const) {
      if (v !== undefined && !isMs(v)) {
        throw invalid(
          `\`${at}.${k}\` must be unix milliseconds (a non-negative integer); got ${JSON.stringify(v)}`,
        );
      }
    }
    if (cursor !== undefined && (typeof cursor !== "string" || cursor === "")) {
      throw invalid(`\`${at}.cursor\` must be a non-empty string`);
    }
    const w: OpenWindow = {};
    if (from !== undefined) w.from = from as number;
    if (to !== undefined) w.to = to as number;
    if (cursor !== undefined) w.cursor = cursor as string;
    if (w.from !== undefined && w.to !== undefined && w.from > w.to) {
      throw invalid(`\`${at}\` ends (${w.to}) before it starts (${w.from})`);
    }
    if (selection.fromDate !== undefined && (w.from === undefined || w.from < selection.fromDate)) {
      throw invalid(`\`${at}\` starts before the selection's fromDate (${selection.fromDate})`);
    }
    if (selection.toDate !== undefined && (w.to === undefined || w.to > selection.toDate)) {
      throw invalid(`\`${at}\` ends after the selection's toDate (${selection.toDate})`);
    }
    return w;
  });
  windows.forEach((w, i) => {
    if (i === 0) return;
    const prev = windows[i - 1];
    if (prev.to === undefined || w.from === undefined || w.from <= prev.to) {
      throw invalid(`\`${where}.windows[${i}]\` overlaps or precedes the window before it`);
    }
  });
  return { version: 1, windows, runs: s.runs as number, shortfall: s.shortfall as number };
}
