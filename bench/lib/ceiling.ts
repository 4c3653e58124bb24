/**
 * The simulator's ceiling: an oracle drain that knows where every entry is. It cuts the
 * selection into `windows` failure-time windows of equal whole pages (a window of exactly 50·k
 * entries ends on a full page with no cursor, so no request of the drain is not full, save where
 * entries of one millisecond straddle a cut) and follows each window's cursor, all at once,
 * through the same step (rate gate, per-second limit, latency) as the real drain. Its time is what
 * a planner with the same allowance and gate could reach at best, within a round trip: a target is
 * out of reach only where this ceiling is below it.
 *
 * The windows are as many as keep the gate busy (rate × round trip + 2, as the planner's
 * `targetWindows`): more only queue at the gate, fewer leave it idle.
 */
import type { CallState } from "../../client/request";
import type { ResumePage } from "../../client";
import type { DrainWindow } from "../../drain/types";
import { DEFAULT_WINDOW_CONCURRENCY } from "../../drain/windowDrain";
import { targetWindows } from "../../drain/windowPlan";

/** Sends one request for a window, continuing after a cursor (the simulator's step). */
export type CeilingStep = (
  window: DrainWindow,
  cursor: string | undefined,
  state: CallState,
) => Promise<ResumePage>;

/**
 * Cuts sorted failure times into at most `count` adjacent windows holding whole pages each, cut
 * only between two different milliseconds: the cut nearest an equal share of pages. Windows are
 * closed `[from, to]` over the entries' own times.
 */
export function oracleWindows(times: readonly number[], count: number): DrainWindow[] {
  const n = times.length;
  if (n === 0) return [];
  const pages = Math.ceil(n / 50);
  const k = Math.max(1, Math.min(count, pages));
  const cuts: number[] = [];
  for (let j = 1; j < k; j++) {
    let at = Math.round((pages * j) / k) * 50;
    // Move the cut to a millisecond boundary, the nearest one either way.
    let d = 0;
    while (at - d > 0 || at + d < n) {
      if (at - d > 0 && at - d < n && times[at - d - 1] < times[at - d]) {
        at -= d;
        break;
      }
      if (at + d > 0 && at + d < n && times[at + d - 1] < times[at + d]) {
        at += d;
        break;
      }
      d += 1;
    }
    if (at > (cuts[cuts.length - 1] ?? 0) && at < n) cuts.push(at);
  }
  const bounds = [0, ...cuts, n];
  const out: DrainWindow[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    out.push({ from: times[bounds[i]], to: times[bounds[i + 1] - 1] });
  }
  return out;
}

/** Drains `windows` at once, each by its cursor; the requests answered. */
export async function drainOracle(windows: readonly DrainWindow[], step: CeilingStep): Promise<number> {
  let requests = 0;
  await Promise.all(
    windows.map(async (w) => {
      let cursor: string | undefined;
      do {
        const page = await step(w, cursor, { attempts: 0, ambiguous: false });
        requests += 1;
        cursor = page.cursor;
      } while (cursor !== undefined && cursor !== "");
    }),
  );
  return requests;
}

/**
 * The oracle drain of one selection whose entries failed at `times`, beside `drains` drains of the
 * same account: the gate's target windows, shared among the drains, each draining by its cursor.
 */
export async function drainCeiling(
  times: readonly number[],
  at: { drains: number; rate: number; roundTripMs: number },
  step: CeilingStep,
): Promise<{ requestCount: number; splits: number }> {
  const count = Math.ceil(
    targetWindows(DEFAULT_WINDOW_CONCURRENCY, { ratePerSecond: at.rate, roundTripMs: at.roundTripMs }) /
      at.drains,
  );
  return { requestCount: await drainOracle(oracleWindows(times, count), step), splits: 0 };
}
