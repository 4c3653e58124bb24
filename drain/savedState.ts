/**
 * The saved state of a windowed drain that has more windows open than a saved state holds.
 *
 * @packageDocumentation
 */
import type { OpenWindow, WindowDrainState } from "./types";
import { MAX_SAVED_WINDOWS } from "./planKnobs";

/**
 * The state to save of a drain with more windows open than {@link MAX_SAVED_WINDOWS}: neighbours
 * merged into one window without a cursor until `max` are left, those that drop fewest cursors
 * first, then the narrowest. Why nothing is lost or resumed twice: resumed entries have left the
 * DLQ, so a window restarted without its cursor returns its next remaining entries, and the union
 * of two neighbours (with the gap between them, whose entries were all resumed) selects what is
 * left of both. Fewer windows open only lower what the budget counts (`windowRoom`). A wide
 * drain's state thus stays a few kB, and earlier versions' states (at most 64 windows) still load.
 */
export function fitWindowState(state: WindowDrainState, max: number = MAX_SAVED_WINDOWS): WindowDrainState {
  if (state.windows.length <= max) return state;
  const ws: OpenWindow[] = state.windows.map((w) => ({ ...w }));
  const width = (a: OpenWindow, b: OpenWindow): number =>
    a.from === undefined || b.to === undefined ? Infinity : b.to - a.from;
  while (ws.length > Math.max(1, max)) {
    let at = 0;
    let best = [Infinity, Infinity];
    for (let i = 0; i + 1 < ws.length; i++) {
      const cost = [(ws[i].cursor ? 1 : 0) + (ws[i + 1].cursor ? 1 : 0), width(ws[i], ws[i + 1])];
      if (cost[0] < best[0] || (cost[0] === best[0] && cost[1] < best[1])) [at, best] = [i, cost];
    }
    const merged: OpenWindow = {};
    if (ws[at].from !== undefined) merged.from = ws[at].from;
    if (ws[at + 1].to !== undefined) merged.to = ws[at + 1].to;
    ws.splice(at, 2, merged);
  }
  return { ...state, windows: ws };
}
