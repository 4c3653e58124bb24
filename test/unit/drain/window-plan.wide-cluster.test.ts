/**
 * The planner on a clustered incident in a drain whose rate and round trip need more windows than
 * 100 requests a second at 50 ms do (`drain/windowPlan.ts`, rules 5 and 8 of
 * docs/design/drain.md): how it narrows the cluster, and how it reaches the windows the gate
 * needs once the cluster is found. No I/O: each test feeds answers and reads the decisions.
 */
import { strict as assert } from "node:assert";
import { MAX_RUNS_PER_REQUEST } from "../../../client/contract";
import { WindowPlan, targetWindows, type PlanContext, type PlannedWindow } from "../../../drain/windowPlan";
import { windowRoom } from "../../../drain/windows";
import { BASE_WINDOWS, NARROW_PIECES, THIN_EDGE_RATIO, WIDE_WINDOWS } from "../../../drain/planKnobs";
import { DAY, NOW } from "../../../bench/lib/windowSim";
import { clusterStart, locatedCluster } from "../../helpers/clusterPlan";

const SETTINGS = { concurrency: 256, maxEmptyPages: 3, horizonMs: 3 * DAY };
/** 100 requests a second and 50 ms: 7 windows keep the gate busy. */
const BASE: PlanContext = { inFlight: 0, gateWaiting: 0, now: NOW, ratePerSecond: 100, roundTripMs: 50 };
/** 500 requests a second and 150 ms: the gate needs far more than WIDE_WINDOWS windows. */
const WIDE: PlanContext = { ...BASE, ratePerSecond: 500, roundTripMs: 150 };

/** The pieces the narrowing split of the full window makes, with `room` windows left to open. */
function narrowed(at: PlanContext, room: number): PlannedWindow[] {
  const budget = { ...SETTINGS, ratePerSecond: at.ratePerSecond, roundTripMs: at.roundTripMs };
  const base = windowRoom({ runs: 5_050, shortfall: 0 }, 1, budget, true);
  const { plan, b } = clusterStart(SETTINGS, at);
  plan.shortfall = MAX_RUNS_PER_REQUEST * (base - room);
  const d = plan.answer(b, 50, "b", at);
  return d.kind === "split" ? [...d.into] : [];
}

describe("drain/windowPlan: a cluster in a drain that needs many windows", () => {
  it("narrows in quarters while room is left for BASE_WINDOWS windows, not for all the gate needs", () => {
    const need = targetWindows(SETTINGS.concurrency, WIDE);
    assert.ok(need > WIDE_WINDOWS && targetWindows(SETTINGS.concurrency, BASE) <= BASE_WINDOWS);
    const sizes = [BASE_WINDOWS + 2, BASE_WINDOWS + 1, BASE_WINDOWS, 1].map((room) => {
      const into = narrowed(WIDE, room);
      assert.ok(into.length <= 1 + room, `${into.length} pieces within a room of ${room}`);
      assert.ok(into.every((x) => !x.held && x.group?.narrowing === true));
      return into.length;
    });
    // Room for BASE_WINDOWS kept (two pieces at least); a room of 10 is far below the 85 needed.
    assert.deepEqual(sizes, [NARROW_PIECES, NARROW_PIECES - 1, 2, 2]);
  });

  it("shares the windows missing among the full pieces of a located cluster until a piece closes", () => {
    /** b quartered; p1 full, quartered in turn; p2 full: located. p2's next page, at `at`. */
    function located(at: PlanContext, q1ClosesWith?: number) {
      const { plan, p, q } = locatedCluster(SETTINGS, at);
      if (q1ClosesWith !== undefined) plan.answer(q[1], q1ClosesWith, undefined, at);
      const sent = plan.open.filter((o) => !o.held).length;
      const counters = { runs: plan.runs + MAX_RUNS_PER_REQUEST, shortfall: plan.shortfall };
      const budget = { ...SETTINGS, ratePerSecond: at.ratePerSecond, roundTripMs: at.roundTripMs };
      const room = windowRoom(counters, plan.open.length, budget, true);
      const next = plan.answer(p[2], 50, "p2b", at);
      return { pieces: next.kind === "split" ? next.into.length : 1, sent, room };
    }
    const need = targetWindows(SETTINGS.concurrency, WIDE);
    const wide = located(WIDE);
    const share = 1 + Math.ceil((need - wide.sent) / wide.sent);
    assert.equal(wide.pieces, Math.min(share, 1 + wide.room), `${wide.sent} sent, room ${wide.room}`);
    assert.ok(wide.pieces > 2, "more than a halving");
    // At 100 a second and 50 ms the full window is halved, as before the cluster's density is known.
    assert.equal(located(BASE).pieces, 2);
    // A piece that closed gives the cluster's density: its pieces then hold what it says (rule 8).
    assert.ok(located(WIDE, 40).pieces < wide.pieces);
  });

  it("tiles a located cluster by its own density once a piece closed, the median of its pieces", () => {
    /** The located cluster; q1 full, split into r; pieces of r close; p2's next page. */
    function tiled(closes: [number | "last", number][]) {
      const { plan, p, q } = locatedCluster(SETTINGS, WIDE);
      const dr = plan.answer(q[1], 50, "q1", WIDE);
      const r = dr.kind === "split" ? dr.into : [];
      assert.ok(r.length > 2, `q1 ramped into ${r.length} pieces`);
      r.forEach(() => plan.take());
      // An empty quarter: the drain's density is unknown, only the cluster's is known.
      plan.answer(q[2], 0, undefined, WIDE);
      assert.equal(plan.density(), undefined);
      // Pieces close whole: [index of r, entries held].
      for (const [i, runs] of closes) plan.answer(r[i === "last" ? r.length - 1 : i], runs, undefined, WIDE);
      const next = plan.answer(p[2], 50, "p2b", WIDE);
      const into = next.kind === "split" ? next.into : [];
      const msOf = (x: PlannedWindow) => (x.window.to as number) - (x.window.from as number) + 1;
      return { pieces: into.length, rMs: msOf(r[0]), pMs: msOf(p[2]) };
    }
    // r1 and r2 held 10 each; the edge piece at the top 2 (their pooled ratio is about a quarter lower).
    const t = tiled([
      [1, 10],
      [2, 10],
      ["last", 2],
    ]);
    const rho = 10 / t.rMs;
    const shares = Math.round((rho * t.pMs - 2 * MAX_RUNS_PER_REQUEST) / MAX_RUNS_PER_REQUEST);
    assert.ok(shares > 2, `${shares} pages left in p2`);
    assert.equal(t.pieces, shares, "p2 is cut into the pages its cluster's density says it holds");
  });

  it("takes a window of a located cluster that resumed over THIN_EDGE_RATIO times what its density says as half drained", () => {
    // The located cluster; q1 ramped into r; the pieces of r that close are its thin top edge.
    const { plan, p, q } = locatedCluster(SETTINGS, WIDE);
    const dr = plan.answer(q[1], 50, "q1", WIDE);
    const r = dr.kind === "split" ? dr.into : [];
    r.forEach(() => plan.take());
    plan.answer(q[2], 0, undefined, WIDE);
    plan.answer(r[r.length - 1], 6, undefined, WIDE);
    plan.answer(r[r.length - 2], 4, undefined, WIDE);
    const msOf = (x: PlannedWindow) => (x.window.to as number) - (x.window.from as number) + 1;
    const rho = 6 / msOf(r[r.length - 1]);
    // p2 pages on, full, past THIN_EDGE_RATIO times what that density says it held.
    const busy = { ...WIDE, gateWaiting: 1_000 };
    for (let page = 0; p[2].resumed <= THIN_EDGE_RATIO * rho * msOf(p[2]); page++) {
      assert.equal(plan.answer(p[2], 50, `p2-${page}`, busy).kind, "continue");
    }
    const next = plan.answer(p[2], 50, "p2-last", WIDE);
    const into = next.kind === "split" ? next.into : [];
    // As much again as it resumed is left, tiled a page a piece at least: more than the halving
    // that the last windows get (with the closed pieces' density it would hold one entry more).
    assert.ok(into.length > 2, `${into.length} pieces`);
    assert.ok(into.length <= 1 + p[2].resumed / MAX_RUNS_PER_REQUEST, `${into.length} pieces`);
  });

  it("locates a cluster found by halving beside other windows, and halves it on (no share split)", () => {
    /** An empty window, then two bounded ones sent; the first full, halved; both halves full. */
    function halved(at: PlanContext) {
      const saved = {
        version: 1 as const,
        windows: [{ to: 999 }, { from: 1_000, to: 2_000_999 }, { from: 3_000_000, to: 4_000_000 }],
        runs: 5_000,
        shortfall: 0,
      };
      const plan = WindowPlan.start({}, saved, undefined, SETTINGS);
      const [empty, a] = [plan.take()!, plan.take()!, plan.take()!];
      plan.answer(empty, 0, undefined, at);
      const d = plan.answer(a, 50, "a", { ...at, inFlight: 1 });
      const halves = d.kind === "split" ? d.into : [];
      assert.equal(halves.length, 2, "halved: another window is sent, so it is not narrowed");
      assert.notEqual(halves[0].group?.narrowing, true);
      halves.forEach(() => plan.take());
      const busy = { ...at, inFlight: 2, gateWaiting: 1_000 };
      plan.answer(halves[0], 50, "h0", busy);
      plan.answer(halves[1], 50, "h1", busy);
      const next = plan.answer(halves[1], 50, "h1b", { ...at, inFlight: 2 });
      return {
        located: halves[0].group?.located === true,
        pieces: next.kind === "split" ? next.into.length : 1,
      };
    }
    // Two halves full on their first page: the cluster is found at their scale.
    assert.deepEqual(halved(WIDE), { located: true, pieces: 2 });
    // At 100 a second and 50 ms such halves locate nothing: the halving goes on as before.
    assert.equal(halved(BASE).located, false);
  });
});
