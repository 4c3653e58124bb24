/**
 * A clustered drain for the planner's unit tests (`test/unit/drain/window-plan*.test.ts`, rules 5
 * and 8 of docs/design/drain.md): a saved state past 5,000 runs whose first window runs out
 * (empty) and whose second, bounded, comes back full, so it is narrowed.
 */
import { strict as assert } from "node:assert";
import { WindowPlan, type PlanContext, type PlannedWindow, type PlanSettings } from "../../drain/windowPlan";
import { NARROW_PIECES } from "../../drain/planKnobs";

/** A saved state of a window running out (empty) and a bounded one of 4,000,000 ms, past 5,000 runs. */
export const CLUSTER_STATE = {
  version: 1 as const,
  windows: [{ to: 999 }, { from: 1_000, to: 4_000_999 }],
  runs: 5_000,
  shortfall: 0,
};

/** The plan of {@link CLUSTER_STATE} with its empty window answered at `at`, and `b`, the bounded one, taken. */
export function clusterStart(
  settings: PlanSettings,
  at: PlanContext,
): { plan: WindowPlan; b: PlannedWindow } {
  const plan = WindowPlan.start({}, CLUSTER_STATE, undefined, settings);
  const [a, b] = [plan.take()!, plan.take()!];
  plan.answer(a, 0, undefined, at);
  return { plan, b };
}

/**
 * The cluster of {@link CLUSTER_STATE} located at `at`: b quartered into p (p0 empty), p1 full and
 * quartered into q, p2 full on its first page (the gate busy: not split yet), every piece taken.
 */
export function locatedCluster(
  settings: PlanSettings,
  at: PlanContext,
): { plan: WindowPlan; p: readonly PlannedWindow[]; q: readonly PlannedWindow[] } {
  const { plan, b } = clusterStart(settings, at);
  const d = plan.answer(b, 50, "b", at);
  const p = d.kind === "split" ? d.into : [];
  assert.equal(p.length, NARROW_PIECES);
  p.forEach(() => plan.take());
  plan.answer(p[0], 0, undefined, at);
  const dq = plan.answer(p[1], 50, "p1", at);
  const q = dq.kind === "split" ? dq.into : [];
  assert.equal(q.length, NARROW_PIECES, "the first full piece is narrowed in turn");
  q.forEach(() => plan.take());
  assert.equal(plan.answer(p[2], 50, "p2", { ...at, gateWaiting: 1_000 }).kind, "continue");
  assert.equal(p[2].group?.located, true);
  plan.take();
  return { plan, p, q };
}
