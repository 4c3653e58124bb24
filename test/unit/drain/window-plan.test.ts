// size: the planner fed answers group by group (splits, clusters, density, every distribution), each group on the helpers at the top
/**
 * The windowed drain's planner (`drain/windowPlan.ts`) on its own: no I/O, no timers. Each test
 * feeds it answers and reads its decisions; the last group drives it over whole failure-time
 * distributions with a synchronous in-memory DLQ, several requests "in flight" in turn.
 */
import { strict as assert } from "node:assert";
import { MAX_RUNS_PER_REQUEST } from "../../../client/contract";
import {
  WindowPlan,
  targetWindows,
  type PlanContext,
  type PlanSettings,
  type PlannedWindow,
} from "../../../drain/windowPlan";
import { requestAllowance, splitOpenBelow, windowRoom } from "../../../drain/windows";
import type { DrainWindow, OpenWindow } from "../../../drain/types";
import { DAY, DISTRIBUTIONS, FakeDlq, NOW } from "../../../bench/lib/windowSim";
import { CLUSTER_STATE, clusterStart, locatedCluster } from "../../helpers/clusterPlan";
import {
  DEFAULT_WINDOW_ALLOWANCE,
  DENSITY_SAMPLE,
  DRAINED_MAX,
  DRAINED_MIN,
  GATE_BACKLOG,
  LATER_PIECES,
  NARROW_PIECES,
  PROBE_SHARE,
  TAIL_SPLIT_RUNS,
  TAIL_WINDOWS,
  TILE_TAIL_SHARE,
  OPEN_BELOW_REACH,
  WIDE_WINDOWS,
} from "../../../drain/planKnobs";

const SETTINGS = { concurrency: 16, maxEmptyPages: 3, horizonMs: 3 * DAY };
/** 100 requests a second and 50 ms round trips: 7 windows keep the gate busy. */
const AT: PlanContext = { inFlight: 0, gateWaiting: 0, now: NOW, ratePerSecond: 100, roundTripMs: 50 };

function fresh(settings = SETTINGS): WindowPlan {
  return WindowPlan.start({}, undefined, undefined, settings);
}

/** A selection open below as the runner starts it (given `now`): its ladder, sent at once. */
function laddered(settings: PlanSettings = SETTINGS, most?: number): WindowPlan {
  return WindowPlan.start({}, undefined, undefined, settings, { now: NOW, most });
}

/** The windows `plan` sends now. */
function sent(plan: WindowPlan): PlannedWindow[] {
  const out: PlannedWindow[] = [];
  for (let w = plan.take(); w !== undefined; w = plan.take()) out.push(w);
  return out;
}

/** The two starts of a selection open below: whole (continued from a cursor) and its ladder. */
const STARTS = { whole: fresh, ladder: laddered };

/** A selection with both dates (the last 7 days): splits are even, not a ladder from now. */
const BOUNDED = { fromDate: NOW - 7 * DAY, toDate: NOW };

function bounded(settings = SETTINGS): WindowPlan {
  return WindowPlan.start(BOUNDED, undefined, undefined, settings);
}

/** Answers `w` from the in-memory DLQ (synchronously) and returns the planner's decision. */
function answerFrom(dlq: FakeDlq, plan: WindowPlan, w: PlannedWindow, at: PlanContext) {
  const page = dlq.resumeNow(w.window, w.cursor);
  dlq.requests.push({
    window: w.window,
    cursor: w.cursor,
    runs: page.workflowRuns.length,
    cursorOut: page.cursor,
  });
  return plan.answer(w, page.workflowRuns.length, page.cursor, at);
}

/**
 * Drains `dlq` with the planner alone: up to `inFlight` windows taken, answered oldest first,
 * as a runner with that many requests in flight would. Returns the requests sent.
 */
function drive(dlq: FakeDlq, plan: WindowPlan, inFlight: number, at: Partial<PlanContext> = {}): number {
  const flying: PlannedWindow[] = [];
  for (let guard = 0; guard < 1_000_000; guard++) {
    while (flying.length < inFlight) {
      const w = plan.take();
      if (w === undefined) break;
      flying.push(w);
    }
    const w = flying.shift();
    if (w === undefined) return dlq.requests.length;
    const d = answerFrom(dlq, plan, w, { ...AT, ...at, inFlight: flying.length });
    assert.notEqual(d.kind, "loop");
  }
  throw new Error("the plan did not finish");
}

describe("drain/windowPlan (the planner, without I/O)", () => {
  it("starts with one window, the whole selection; up to 50 entries close it in one answer", () => {
    const plan = fresh();
    const w = plan.take()!;
    assert.deepEqual(w.window, {});
    assert.equal(plan.take(), undefined, "one window only");
    assert.deepEqual(plan.answer(w, 37, undefined, AT), { kind: "closed" });
    assert.equal(plan.done, true);
    assert.deepEqual(plan.snapshot(), { version: 1, windows: [], runs: 37, shortfall: 13 });
  });

  it("starts a selection open below as its ladder, sent at once; a bounded one or concurrency 1 whole", () => {
    const plan = laddered({ ...SETTINGS, horizonMs: 90 * DAY });
    const rungs = sent(plan);
    assert.deepEqual(
      rungs.map((w) => w.window),
      splitOpenBelow({}, DEFAULT_WINDOW_ALLOWANCE, NOW, 90 * DAY),
    );
    assert.ok(rungs.every((w) => w.cursor === undefined && w.group?.ladder === true));
    // Up to 50 entries in the newest rung: one request a rung.
    rungs.slice(0, 3).forEach((w) => plan.answer(w, 0, undefined, AT));
    assert.deepEqual(plan.answer(rungs[3], 37, undefined, AT), { kind: "closed" });
    assert.equal(plan.done, true);
    for (const one of [
      WindowPlan.start(BOUNDED, undefined, undefined, SETTINGS, { now: NOW }),
      laddered({ ...SETTINGS, concurrency: 1 }),
      laddered({ ...SETTINGS, allowance: 1 }),
      laddered(SETTINGS, 1),
      WindowPlan.start({}, undefined, "c0", SETTINGS, { now: NOW }),
    ]) {
      assert.equal(sent(one).length, 1, "one window");
    }
  });

  it("starts with no more rungs than concurrency, the window allowance, a daily limit's share or the caps allow", () => {
    // A daily limit of 100: 2 requests beyond ceil(N/50); 0 entries then cost at most 3.
    const cases: [PlanSettings, number | undefined, number][] = [
      [{ ...SETTINGS, concurrency: 3 }, undefined, 3],
      [{ ...SETTINGS, allowance: 2 }, undefined, 2],
      [{ ...SETTINGS, dailyLimit: 100 }, undefined, 2],
      [SETTINGS, 3, 3],
    ];
    for (const [settings, most, rungs] of cases) {
      const plan = laddered({ ...settings, horizonMs: 90 * DAY }, most);
      const first = sent(plan);
      assert.equal(first.length, rungs, JSON.stringify({ settings, most }));
      first.forEach((w) => plan.answer(w, 0, undefined, AT));
      assert.ok(first.length <= requestAllowance(0, settings), "an empty DLQ within its allowance");
    }
  });

  it("saves the whole selection before any answer, and a drain continued from it starts as its ladder", () => {
    const plan = laddered();
    const rungs = sent(plan);
    assert.deepEqual(plan.snapshot(), { version: 1, windows: [{}], runs: 0, shortfall: 0 });
    const again = WindowPlan.start({}, plan.snapshot(), undefined, SETTINGS, { now: NOW + 1_000 });
    assert.deepEqual(
      sent(again).map((w) => w.window),
      splitOpenBelow({}, 4, NOW + 1_000, SETTINGS.horizonMs),
    );
    // A state of no window is a finished drain, not an unanswered one.
    const none = { version: 1 as const, windows: [], runs: 0, shortfall: 0 };
    assert.equal(WindowPlan.start({}, none, undefined, SETTINGS, { now: NOW }).done, true);
    // Once one answered, the rungs are the state.
    plan.answer(rungs[0], 0, undefined, AT);
    assert.deepEqual(
      plan.snapshot().windows,
      rungs.slice(1).map((w) => w.window),
    );
  });

  it("splits a ladder's rungs oldest first: a newer full rung is followed while an older one is open", () => {
    const plan = laddered({ ...SETTINGS, horizonMs: 90 * DAY });
    const [below, older, recent, newest] = [plan.take()!, plan.take()!, plan.take()!, plan.take()!];
    plan.answer(below, 0, undefined, AT);
    // The newest rung answers first, the older one still in flight: it continues with its cursor.
    assert.deepEqual(plan.answer(newest, 50, "n1", { ...AT, inFlight: 2 }), { kind: "continue" });
    plan.answer(older, 0, undefined, AT);
    assert.equal(plan.answer(recent, 50, "r1", { ...AT, inFlight: 1 }).kind, "split", "the oldest open rung");
    assert.equal(plan.take()?.window, newest.window, "the newest rung's next page was queued first");
  });

  it("lets no more than two windows wait for each other: a rung held back by a third does not hold back a newer one", () => {
    // Pages 1, 2, 3 on the three older rungs, answering oldest first: the oldest waits for the one
    // that ran longest, so the middle one, a page ahead of it, must not wait for it.
    const plan = laddered({ ...SETTINGS, horizonMs: 90 * DAY });
    const [below, older, recent, newest] = sent(plan);
    const busy = { ...AT, gateWaiting: 99 }; // no split while the pages pile up
    plan.answer(newest, 0, undefined, busy);
    plan.answer(below, 50, "b1", busy);
    plan.answer(older, 50, "o1", busy);
    plan.answer(older, 50, "o2", busy);
    for (const c of ["r1", "r2", "r3"]) plan.answer(recent, 50, c, busy);
    sent(plan);
    assert.equal(
      plan.answer(below, 50, "b2", AT).kind,
      "continue",
      "the oldest waits for the longest-running",
    );
    assert.equal(plan.answer(older, 50, "o3", AT).kind, "split", "held back by a third window: no wait");
  });

  it("splits the first full page into as many pieces as the budget allows (4), tiling the selection", () => {
    const plan = fresh();
    const d = plan.answer(plan.take()!, MAX_RUNS_PER_REQUEST, "c1", AT);
    assert.equal(d.kind, "split");
    const pieces = d.kind === "split" ? d.into.map((p) => p.window) : [];
    assert.equal(pieces.length, DEFAULT_WINDOW_ALLOWANCE);
    assert.equal(pieces[0].from, undefined, "the first piece stays open below");
    assert.equal(pieces[pieces.length - 1].to, undefined, "the last piece stays open above");
    for (let i = 1; i < pieces.length; i++) assert.equal(pieces[i].from, (pieces[i - 1].to as number) + 1);
    assert.ok(
      d.kind === "split" && d.into.every((x) => x.cursor === undefined),
      "pieces start without a cursor",
    );
    assert.equal(windowRoom(plan, plan.open.length), 0, "the budget is used up before 2,500 runs");
  });

  it("does not split while requests wait at the rate gate, nor with concurrency 1", () => {
    const waiting = fresh();
    assert.deepEqual(waiting.answer(waiting.take()!, 50, "c", { ...AT, gateWaiting: 2 }), {
      kind: "continue",
    });
    const one = fresh({ ...SETTINGS, concurrency: 1 });
    assert.deepEqual(one.answer(one.take()!, 50, "c", AT), { kind: "continue" });
    assert.equal(one.take()?.cursor, "c", "the window continues with its cursor");
  });

  it("opens no more windows than keep the gate busy: rate × round trip + backlog", () => {
    assert.equal(targetWindows(16, { ratePerSecond: 100, roundTripMs: 50 }), 7);
    assert.equal(targetWindows(16, { ratePerSecond: 500, roundTripMs: 50 }), 16, "at most concurrency");
    assert.equal(targetWindows(16, {}), 16, "concurrency when the gate's rate is unknown");
    const dlq = new FakeDlq(DISTRIBUTIONS.uniform3d(30_000));
    const plan = fresh();
    let most = 0;
    const flying: PlannedWindow[] = [];
    while (!plan.done) {
      for (let w = plan.take(); w !== undefined; w = plan.take()) flying.push(w);
      answerFrom(dlq, plan, flying.shift()!, { ...AT, inFlight: flying.length });
      most = Math.max(most, plan.open.filter((o) => !o.held).length);
    }
    assert.equal(most, 7, "windows sent (not held aside)");
    assert.equal(dlq.remaining, 0);
  });

  it("halves once a piece came back empty (the failures are clustered), or narrows the cluster", () => {
    const dlq = new FakeDlq(DISTRIBUTIONS.burst20s(5_000));
    const plan = fresh();
    const first = answerFrom(dlq, plan, plan.take()!, AT);
    assert.equal(first.kind === "split" && first.into.length, 4);
    const decisions = [0, 1, 2, 3].map(() => answerFrom(dlq, plan, plan.take()!, AT));
    assert.ok(
      decisions.some((d) => d.kind === "closed"),
      "some pieces were empty",
    );
    // Past 2,500 runs the budget has room again; every later split halves.
    const sizes: number[] = [];
    const flying: PlannedWindow[] = [];
    while (!plan.done) {
      for (let w = plan.take(); w !== undefined; w = plan.take()) flying.push(w);
      const d = answerFrom(dlq, plan, flying.shift()!, { ...AT, inFlight: flying.length });
      // A split that narrows the cluster makes up to NARROW_PIECES pieces (rule 5); any other halves.
      if (d.kind === "split")
        sizes.push(d.into[0].group?.narrowing === true ? -d.into.length : d.into.length);
    }
    assert.ok(sizes.length > 0, "later splits happened");
    assert.ok(
      sizes.some((k) => k === 2),
      "some halve",
    );
    assert.ok(
      sizes.every((k) => k === 2 || (k <= -2 && k >= -NARROW_PIECES)),
      `${sizes.join(",")}`,
    );
    assert.equal(dlq.remaining, 0);
  });

  it("places the first split of a selection without fromDate as a ladder back from now; its empty pieces start no probing", () => {
    const plan = WindowPlan.start({}, undefined, undefined, { ...SETTINGS, horizonMs: 90 * DAY });
    const d = plan.answer(plan.take()!, MAX_RUNS_PER_REQUEST, "c0", AT);
    assert.equal(d.kind, "split");
    const pieces = d.kind === "split" ? d.into : [];
    assert.deepEqual(
      pieces.map((p) => p.window),
      splitOpenBelow({}, 4, NOW, 90 * DAY),
    );
    pieces.forEach(() => plan.take());
    // All failures in the last hour: the two older pieces come back empty.
    plan.answer(pieces[0], 0, undefined, AT);
    plan.answer(pieces[1], 0, undefined, AT);
    plan.runs = 600; // past 500 runs: room to split
    const next = plan.answer(pieces[2], MAX_RUNS_PER_REQUEST, "c1", AT);
    assert.equal(next.kind, "split");
    assert.ok(next.kind === "split" && next.into.every((p) => !p.held), "every piece is sent: no probe");
  });

  it("splits the oldest piece of a ladder, open below, into two: its older rungs are mostly empty", () => {
    const plan = fresh({ ...SETTINGS, horizonMs: 90 * DAY });
    plan.answer(plan.take()!, 50, "c0", AT);
    const oldest = plan.take()!;
    while (plan.take() !== undefined);
    assert.equal(oldest.window.from, undefined, "the ladder's oldest piece stays open below");
    plan.runs = 5_000; // past 500 runs the budget has room for more pieces
    const d = plan.answer(oldest, 50, "c1", { ...AT, inFlight: 3 });
    assert.equal(d.kind, "split");
    assert.equal(d.kind === "split" && d.into.length, 2);
    assert.equal(d.kind === "split" && d.into[0].window.from, undefined, "the older piece stays open below");
  });

  describe("clustered failures: a probe is sent, the rest held aside", () => {
    /** A plan whose first split came back with its first piece only (the others empty). */
    function clusteredPlan(runs = 2_550): { plan: WindowPlan; w: PlannedWindow } {
      const plan = bounded();
      plan.answer(plan.take()!, 50, "c0", AT);
      const pieces = Array.from({ length: LATER_PIECES }, () => plan.take()!);
      pieces.slice(1).forEach((p) => plan.answer(p, 0, undefined, AT));
      // Past 500 runs the budget has room again.
      plan.runs = runs;
      // Another window is sent (one after now), so the cluster is probed rather than halved
      // (a cluster is halved only while it is the one window sent: NARROW_WINDOWS).
      plan.open.push({
        ...plan.open[0],
        window: { from: NOW + 1 },
        held: false,
        rest: undefined,
        group: undefined,
      });
      return { plan, w: pieces[0] };
    }

    it("splits a clustered window into a probe (sent) and its rest (held, in the state)", () => {
      const { plan, w } = clusteredPlan();
      const d = plan.answer(w, 50, "c1", AT);
      assert.equal(d.kind, "split");
      const [probe, rest] = d.kind === "split" ? d.into : [];
      assert.equal(rest.held, true);
      assert.equal(probe.held, false);
      assert.equal(plan.take(), probe, "only the probe is sent");
      assert.equal(plan.take(), undefined);
      const [lo, hi] = [probe.window.to as number, rest.window.from as number];
      assert.equal(hi, lo + 1, "probe and rest tile the window");
      const share =
        (lo - (w.window.from as number)) / ((rest.window.to as number) - (w.window.from as number));
      assert.ok(Math.abs(share - PROBE_SHARE) < 0.01, `the probe covers ${share} of the window`);
      assert.deepEqual(
        plan
          .snapshot()
          .windows.slice(0, 2)
          .map((x) => [x.from, x.to]),
        [probe.window, rest.window].map((x) => [x.from, x.to]),
        "the held rest is saved with the open windows",
      );
    });

    it("an empty probe sends its rest first: the rest holds the entries", () => {
      const { plan, w } = clusteredPlan();
      const d = plan.answer(w, 50, "c1", AT);
      const [probe, rest] = d.kind === "split" ? d.into : [];
      plan.take();
      assert.deepEqual(plan.answer(probe, 0, undefined, AT), { kind: "closed" });
      assert.equal(rest.held, false);
      assert.equal(plan.take(), rest);
    });

    it("a probe with runs keeps its rest held, merged with the held window next to it", () => {
      const { plan, w } = clusteredPlan(5_000);
      const d1 = plan.answer(w, 50, "c1", AT);
      const [p1, r1] = d1.kind === "split" ? d1.into : [];
      plan.take();
      const d2 = plan.answer(p1, 50, "c2", AT);
      assert.equal(d2.kind, "split", "the probe with runs is narrowed in turn");
      const [p2, r2] = d2.kind === "split" ? d2.into : [];
      plan.take();
      assert.equal(plan.open.length, 4, "probe, its rest, the earlier rest, the other window");
      plan.answer(p2, 50, "c3", AT);
      // p2 is narrowed in turn: its own rest waits on its probe; the earlier two are one window.
      const held = plan.open.filter((o) => o.held && !plan.open.some((p) => p.rest === o));
      assert.equal(held.length, 1, "the rests are merged into one held window");
      assert.deepEqual(held[0].window, { from: r2.window.from, to: r1.window.to });
      assert.equal(held[0].cursor, undefined);
    });

    it("sends the rest of a probe that finished: no narrowing continues next to it", () => {
      const { plan, w } = clusteredPlan();
      // Another window stays open, so this is not the last-window release.
      plan.open.push({ ...plan.open[0], window: { from: NOW + 1 }, held: false, rest: undefined });
      const d = plan.answer(w, 50, "c1", AT);
      const [probe, rest] = d.kind === "split" ? d.into : [];
      plan.take();
      // The other window closes.
      plan.open.splice(
        plan.open.findIndex((o) => o.window.from === NOW + 1),
        1,
      );
      plan.answer(probe, 30, undefined, AT);
      assert.equal(rest.held, false);
      assert.equal(plan.take(), rest);
    });

    it("takes an empty half for a window running out, not for a cluster: no probe follows", () => {
      const saved = {
        version: 1 as const,
        windows: [{ to: 999 }, { from: 1_000, to: 2_000_000 }],
        runs: 5_000,
        shortfall: 0,
      };
      const plan = WindowPlan.start({}, saved, undefined, SETTINGS);
      const [a, b] = [plan.take()!, plan.take()!];
      plan.answer(a, 0, undefined, AT);
      const d = plan.answer(b, 50, "b", AT);
      const into = d.kind === "split" ? d.into : [];
      assert.equal(into.length, NARROW_PIECES, "narrows the one window sent once a window came back empty");
      into.forEach(() => plan.take());
      into.slice(0, -1).forEach((h) => plan.answer(h, 0, undefined, AT));
      const next = plan.answer(into[into.length - 1], 50, "h", AT);
      assert.equal(next.kind, "split");
      assert.ok(
        next.kind === "split" && next.into.every((x) => !x.held),
        "the other half is split into pieces all sent",
      );
    });

    it("narrows the full half of a halving while the other half is still in flight", () => {
      const saved = {
        version: 1 as const,
        windows: [{ to: 999 }, { from: 1_000, to: 2_000_000 }],
        runs: 5_000,
        shortfall: 0,
      };
      const plan = WindowPlan.start({}, saved, undefined, SETTINGS);
      const [a, b] = [plan.take()!, plan.take()!];
      plan.answer(a, 0, undefined, AT);
      const d = plan.answer(b, 50, "b", AT);
      const [h1, h2] = d.kind === "split" ? d.into : [];
      assert.equal(h1.group?.narrowing, true, "the one window sent is narrowed");
      plan.take();
      plan.take();
      // The upper half answers first, full; the lower half (most likely empty) is in flight.
      const next = plan.answer(h2, 50, "h", { ...AT, inFlight: 1 });
      assert.equal(next.kind, "split");
      const [k1, k2] = next.kind === "split" ? next.into : [];
      assert.equal(k1.group?.narrowing, true, "halved again as the window the cluster is in");
      const width = (x: PlannedWindow) => (x.window.to as number) - (x.window.from as number) + 1;
      assert.ok(Math.abs(width(k1) - width(k2)) <= 1, "at the middle");
    });

    const BUDGET = { ...SETTINGS, ratePerSecond: AT.ratePerSecond, roundTripMs: AT.roundTripMs };
    const msOf = (x: PlannedWindow) => (x.window.to as number) - (x.window.from as number) + 1;

    it("narrows a cluster into NARROW_PIECES even pieces, fewer as the room left nears the windows the gate needs", () => {
      const need = targetWindows(SETTINGS.concurrency, AT);
      // The room the split sees (after b's answer) with no shortfall; each empty answer is one less.
      const base = windowRoom({ runs: 5_050, shortfall: 0 }, 1, BUDGET, true);
      const sizes: number[] = [];
      for (const room of [need + 2, need + 1, need, 1]) {
        const { plan, b } = clusterStart(SETTINGS, AT);
        plan.shortfall = MAX_RUNS_PER_REQUEST * (base - room);
        const d = plan.answer(b, 50, "b", AT);
        const into = d.kind === "split" ? d.into : [];
        assert.ok(into.length <= 1 + room, `${into.length} pieces within a room of ${room}`);
        assert.ok(
          into.every((x) => !x.held && x.group?.narrowing === true),
          "all sent, narrowing",
        );
        assert.deepEqual([into[0].window.from, into[into.length - 1].window.to], [1_000, 4_000_999]);
        into.slice(1).forEach((x, i) => assert.equal(x.window.from, (into[i].window.to as number) + 1));
        assert.ok(
          into.every((x) => Math.abs(msOf(x) - 4_000_000 / into.length) <= 1),
          "even pieces",
        );
        sizes.push(into.length);
      }
      // The room kept is that of the windows the gate needs; two pieces at least.
      assert.deepEqual(sizes, [NARROW_PIECES, NARROW_PIECES - 1, 2, 2]);
    });

    it("narrows with the larger allowance once the cursor says the drain holds over 500 entries", () => {
      // 450 runs and 2 empty pages; a third (a); the window followed alone (b) answers full: 500
      // runs, and its cursor says more.
      const saved = { ...CLUSTER_STATE, runs: 450, shortfall: 100 };
      const plan = WindowPlan.start({}, saved, undefined, SETTINGS);
      const [a, b] = [plan.take()!, plan.take()!];
      plan.answer(a, 0, undefined, AT);
      const d = plan.answer(b, 50, "b", AT);
      assert.deepEqual([plan.runs, plan.least], [500, 501], "the cursor says one more");
      const into = d.kind === "split" ? d.into : [];
      assert.equal(into.length, NARROW_PIECES, "quartered: the room of 501 entries");
      assert.ok(into.every((x) => x.group?.narrowing === true && !x.held));
      // The room of 500 runs, 4 less the 3 empty pages (the window's last page is free while every
      // page was full or empty), would halve; that of 501 entries is 4 + 20 + 0.1 × ceil(501/50)
      // + min(rate × round trip, ceil(501/50)) = 30.1, less the same 3.
      assert.equal(plan.shortfall, 150);
      const room = (least: number) => windowRoom({ runs: 500, shortfall: 150, least }, 1, BUDGET, true);
      assert.deepEqual([room(400), room(500), room(501)], [1, 1, 27]);
    });

    it("probes nothing below a narrowing split: a piece split by the other rules sends every piece", () => {
      const { plan, b } = clusterStart(SETTINGS, AT);
      const d = plan.answer(b, 50, "b", AT);
      const into = d.kind === "split" ? d.into : [];
      into.forEach(() => plan.take());
      // One piece empty, one full: a split of more than two pieces found a cluster (rule 6 would
      // probe it); another window is sent, so the full piece is not narrowed but halved.
      plan.answer(into[0], 0, undefined, AT);
      plan.open.push({ ...plan.open[0], window: { from: NOW + 1 }, held: false, group: undefined });
      const next = plan.answer(into[1], 50, "p", { ...AT, inFlight: 2 });
      assert.equal(next.kind, "split");
      const halves = next.kind === "split" ? next.into : [];
      assert.equal(halves.length, 2);
      assert.ok(
        halves.every((x) => !x.held),
        "no probe and held rest: both halves sent",
      );
      assert.equal(plan.take(), halves[0]);
      assert.equal(plan.take(), halves[1]);
    });

    it("splits a window of a located cluster by the cluster's own density, its empty edges left out", () => {
      /** b narrowed into p0..p3; p1 full, narrowed into q0..q3; p2 full: located. p2's next page. */
      function located(qClosesWith: number | undefined): string {
        const { plan, p, q } = locatedCluster(SETTINGS, AT);
        plan.answer(p[3], 0, undefined, AT);
        // A quarter of p1 closes whole: the cluster holds that many entries per 1,000,000 ms.
        if (qClosesWith !== undefined) plan.answer(q[1], qClosesWith, undefined, AT);
        return plan.answer(p[2], 50, "p2b", AT).kind;
      }
      assert.ok(DENSITY_SAMPLE <= 30);
      // Unknown density (the narrowing's pieces came back empty): the full window is halved.
      assert.equal(located(undefined), "split");
      // 30 entries a 250,000 ms quarter: p2 (1,000,000 ms, 100 resumed) holds 20 more, under a page.
      assert.equal(located(30), "continue");
    });

    it("halves a window at its middle once a split found its entries below an empty piece", () => {
      const saved = {
        version: 1 as const,
        windows: [
          { from: 0, to: 999_999 },
          { from: 1_000_000, to: 2_000_000 },
          { from: 3_000_000, to: 4_000_000 },
        ],
        runs: 5_000,
        shortfall: 0,
      };
      const plan = WindowPlan.start({}, saved, undefined, SETTINGS);
      const [a, b] = [plan.take()!, plan.take()!];
      plan.take(); // the third window stays in flight: more than one window is sent
      const at = { ...AT, inFlight: 1 };
      plan.answer(a, 0, undefined, at);
      // Followed for two pages (the gate is busy, so no split), then split past what its cursor
      // is guessed to have resumed.
      for (const cursor of ["b1", "b2"]) {
        assert.equal(plan.answer(b, 50, cursor, { ...at, gateWaiting: GATE_BACKLOG }).kind, "continue");
        plan.take();
      }
      const d = plan.answer(b, 50, "b3", at);
      const [lower, upper] = d.kind === "split" ? d.into : [];
      const width = (x: PlannedWindow) => (x.window.to as number) - (x.window.from as number) + 1;
      assert.ok(width(lower) > 2 * width(upper), "the first split places its pieces past the cursor's guess");
      plan.take();
      plan.take();
      // The upper piece is empty, the lower full: what is left lies low, in a cluster.
      plan.answer(upper, 0, undefined, at);
      const next = plan.answer(lower, 50, "l", at);
      assert.equal(next.kind, "split");
      const [k1, k2] = next.kind === "split" ? next.into : [];
      assert.ok(Math.abs(width(k1) - width(k2)) <= 1, `halved at the middle: ${width(k1)} and ${width(k2)}`);
    });

    it("sends what is held once no other window is open", () => {
      const { plan, w } = clusteredPlan();
      const d = plan.answer(w, 50, "c1", AT);
      const [probe, rest] = d.kind === "split" ? d.into : [];
      plan.take();
      // The other window closes.
      plan.open.splice(
        plan.open.findIndex((o) => o.window.from === NOW + 1),
        1,
      );
      plan.answer(probe, 30, undefined, AT);
      assert.equal(rest.held, false);
      assert.equal(plan.take(), rest);
      assert.equal(plan.answer(rest, 0, undefined, AT).kind, "closed");
      assert.equal(plan.done, true);
    });
  });

  it("a state saved while windows are held aside continues: each entry once, within the bound", () => {
    // (One burst is narrowed, not probed: rule 5. Three bursts and the sprinkled clusters are probed.)
    for (const name of ["bursts3", "clusters"]) {
      const n = 20_000;
      const dlq = new FakeDlq(DISTRIBUTIONS[name](n));
      const plan = bounded();
      const flying: PlannedWindow[] = [];
      let saved: ReturnType<WindowPlan["snapshot"]> | undefined;
      // Drive until a window is held aside (and a few pages more), then stop as a cut-off would.
      for (let i = 0; i < 5_000 && saved === undefined && !plan.done; i++) {
        for (let w = flying.length < 6 ? plan.take() : undefined; w !== undefined;) {
          flying.push(w);
          w = flying.length < 6 ? plan.take() : undefined;
        }
        answerFrom(dlq, plan, flying.shift()!, { ...AT, inFlight: flying.length });
        if (plan.open.some((o) => o.held) && i > 20) {
          // The requests in flight finish and are recorded, as the runner does on a failure.
          for (const w of flying.splice(0)) answerFrom(dlq, plan, w, { ...AT, gateWaiting: Infinity });
          saved = plan.snapshot();
        }
      }
      assert.ok(saved !== undefined, `${name}: some window was held aside`);
      const again = WindowPlan.start(BOUNDED, saved, undefined, SETTINGS);
      const requests = drive(dlq, again, 6);
      assert.equal(dlq.duplicates, 0, name);
      assert.equal(dlq.remaining, 0, name);
      const bound = requestAllowance(n, AT);
      assert.ok(requests <= bound, `${name}: ${requests} requests > ${bound}`);
    }
  });

  it("cannot split a single millisecond: the window continues sequentially", () => {
    const plan = new WindowPlan([{ from: 5, to: 5 }], { runs: 0, shortfall: 0 }, SETTINGS);
    const w = plan.take()!;
    assert.deepEqual(plan.answer(w, 50, "c", AT), { kind: "continue" });
    assert.equal(w.atomic, true);
  });

  it("continues saved windows with their cursors; a refused saved cursor restarts its window first", () => {
    const saved = {
      version: 1 as const,
      windows: [{ to: 10, cursor: "a" }, { from: 11 }],
      runs: 5,
      shortfall: 0,
    };
    const plan = WindowPlan.start({}, saved, undefined, SETTINGS);
    const a = plan.take()!;
    assert.equal(a.cursor, "a");
    assert.equal(plan.refused(a), true);
    assert.equal(plan.take(), a, "first in line again");
    assert.equal(a.cursor, undefined);
    assert.equal(plan.refused(a), false, "a cursor of this drain is not restarted");
    assert.deepEqual(plan.snapshot().windows, [{ to: 10 }, { from: 11 }]);
  });

  it("stops a window whose cursor repeats", () => {
    const plan = fresh({ ...SETTINGS, concurrency: 1 });
    const w = plan.take()!;
    plan.answer(w, 50, "x", AT);
    assert.equal(plan.answer(plan.take()!, 50, "x", AT).kind, "loop");
  });

  describe("the density learnt from exact counts (past 500 runs, windows that pay for themselves)", () => {
    /** Sends `w` and closes it with `runs` (a page that is not full: the window's exact count). */
    const close = (plan: WindowPlan, w: PlannedWindow, runs: number) => plan.answer(w, runs, undefined, AT);

    it("learns entries per ms from a bounded piece that closed, not from one open below", () => {
      const plan = fresh({ ...SETTINGS, concurrency: 16 });
      const d = plan.answer(plan.take()!, MAX_RUNS_PER_REQUEST, "c1", AT);
      assert.equal(d.kind, "split");
      const pieces = d.kind === "split" ? d.into : [];
      // The ladder: [.., now − 9 h], (.., now − 90 min], (.., now − 15 min], (now − 15 min, ..).
      assert.equal(plan.density(), undefined, "nothing closed yet");
      close(plan, pieces[0], 7);
      assert.equal(plan.density(), undefined, "a window open below has no width to learn from");
      const newest = pieces[pieces.length - 1];
      close(plan, newest, 30);
      const width = NOW - (newest.window.from as number) + 1;
      assert.equal(plan.density(), 30 / width, "30 entries over the newest piece's width");
    });

    it("forgets the density once a bounded piece held nothing (clustered failures)", () => {
      const plan = bounded();
      const d = plan.answer(plan.take()!, MAX_RUNS_PER_REQUEST, "c1", AT);
      const pieces = d.kind === "split" ? d.into : [];
      close(plan, pieces[pieces.length - 1], 30);
      assert.notEqual(plan.density(), undefined);
      close(plan, pieces[pieces.length - 2], 0);
      assert.equal(plan.density(), undefined);
    });

    it("leaves an empty piece of a ladder out: it says where failures are not, not how dense they are", () => {
      const plan = fresh();
      const d = plan.answer(plan.take()!, MAX_RUNS_PER_REQUEST, "c1", AT);
      const pieces = d.kind === "split" ? d.into : [];
      const newest = pieces[pieces.length - 1];
      close(plan, newest, 30);
      // The ladder's bounded rung before the newest (15 to 90 minutes back) held nothing.
      close(plan, pieces[pieces.length - 2], 0);
      assert.equal(plan.density(), 30 / (NOW - (newest.window.from as number) + 1));
    });

    it("leaves a window with a run-ID prefix out: it holds a sixteenth of its width's entries", () => {
      const hour = 3_600_000;
      const plan = new WindowPlan(
        [{ from: NOW - hour, to: NOW, runIdPrefix: "wfr_3" }],
        { runs: 0, shortfall: 0 },
        SETTINGS,
      );
      close(plan, plan.take()!, 30);
      assert.equal(plan.density(), undefined);
    });

    it("takes the median density of the closed windows, each weighing what it held, not their pooled ratio", () => {
      const hour = 3_600_000;
      // One hour with 300 entries, and ten hours over where failures start with 30.
      const windows = [
        { from: NOW - 11 * hour, to: NOW - hour - 1 },
        { from: NOW - hour, to: NOW - 1 },
      ];
      const plan = new WindowPlan(windows, { runs: 0, shortfall: 0 }, SETTINGS);
      const [wide, dense] = [plan.take()!, plan.take()!];
      const busy = { ...AT, gateWaiting: GATE_BACKLOG };
      for (const c of ["d1", "d2", "d3", "d4", "d5", "d6"]) plan.answer(dense, MAX_RUNS_PER_REQUEST, c, busy);
      close(plan, dense, 0);
      close(plan, wide, 30);
      // Pooled, 330 over 11 hours would be 30 an hour: a tenth of what the last hour held.
      assert.equal(plan.density(), 300 / hour);
    });

    it("takes the piece above an empty oldest piece as drained below: the cursor had passed into it", () => {
      const hour = 3_600_000;
      const plan = new WindowPlan([{ from: NOW - 3 * hour, to: NOW }], { runs: 0, shortfall: 0 }, SETTINGS);
      const w = plan.take()!;
      const busy = { ...AT, gateWaiting: GATE_BACKLOG };
      for (const c of ["c1", "c2"]) plan.answer(w, MAX_RUNS_PER_REQUEST, c, busy);
      const d = plan.answer(w, MAX_RUNS_PER_REQUEST, "c3", AT);
      assert.equal(d.kind, "split");
      const [oldest, above] = d.kind === "split" ? d.into : [];
      assert.equal(oldest.drainedBelow, true);
      assert.equal(above.drainedBelow, undefined);
      plan.take();
      plan.take();
      close(plan, oldest, 0);
      assert.equal(above.drainedBelow, true, "where the window's cursor had resumed");
      assert.equal(above.resumed, 3 * MAX_RUNS_PER_REQUEST, "what that cursor resumed");
      // Its count, when it closes, is not all it held: it stays out of the density.
      close(plan, above, 40);
      assert.equal(plan.density(), undefined);
    });

    it("trusts no density from fewer than DENSITY_SAMPLE entries", () => {
      const plan = fresh();
      const d = plan.answer(plan.take()!, MAX_RUNS_PER_REQUEST, "c1", AT);
      const pieces = d.kind === "split" ? d.into : [];
      close(plan, pieces[pieces.length - 1], DENSITY_SAMPLE - 1);
      assert.equal(plan.density(), undefined);
    });

    it("takes as resumed what the density says a followed window resumed, from DRAINED_MIN up to DRAINED_MAX", () => {
      const hour = 3_600_000;
      /**
       * The first piece's share of the newer hour, when it is split after `pages` full pages; the
       * older hour held 200 entries, or 400 with `dense`.
       */
      const firstPiece = (pages: number, dense = false) => {
        const windows = [
          { from: NOW - 2 * hour, to: NOW - hour - 1 },
          { from: NOW - hour, to: NOW },
        ];
        const plan = new WindowPlan(windows, { runs: 0, shortfall: 0 }, SETTINGS);
        const [older, newer] = [plan.take()!, plan.take()!];
        const busy = { ...AT, gateWaiting: GATE_BACKLOG };
        // The older hour held exactly 200 (four full pages and an empty one), or 400.
        const full = dense ? ["a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8"] : ["a1", "a2", "a3", "a4"];
        for (const c of full) plan.answer(older, MAX_RUNS_PER_REQUEST, c, busy);
        close(plan, older, 0);
        for (let i = 1; i < pages; i++) plan.answer(newer, MAX_RUNS_PER_REQUEST, `c${i}`, busy);
        const d = plan.answer(newer, MAX_RUNS_PER_REQUEST, "last", AT);
        assert.equal(d.kind, "split");
        const first = d.kind === "split" ? d.into[0].window : {};
        return {
          share: ((first.to as number) - (NOW - hour)) / hour,
          pieces: d.kind === "split" ? d.into.length : 0,
        };
      };
      // 150 of the 200 expected resumed: 0.75 taken as resumed, then a third of the rest.
      const k = LATER_PIECES;
      const three = firstPiece(3);
      assert.equal(three.pieces, k);
      assert.ok(Math.abs(three.share - (0.75 + 0.25 / k)) < 1e-6, `first piece ${three.share}`);
      // 100 of 200: the median guess, half.
      assert.ok(Math.abs(firstPiece(2).share - (0.5 + 0.5 / k)) < 1e-6);
      // 200 of 200: at most DRAINED_MAX, so the first piece still starts where entries may be left.
      assert.ok(Math.abs(firstPiece(4).share - (DRAINED_MAX + (1 - DRAINED_MAX) / k)) < 1e-6);
      // 100 of 400: at least DRAINED_MIN, as the first piece placed under the cursor comes back empty.
      assert.ok(Math.abs(firstPiece(2, true).share - (DRAINED_MIN + (1 - DRAINED_MIN) / k)) < 1e-6);
    });

    it("takes the density of the closed pieces of a window's own split over the drain's average", () => {
      const hour = 3_600_000;
      // An older quarter hour dense with 100 entries, then three hours split into three pieces.
      const windows = [
        { from: NOW - 3 * hour - hour / 4, to: NOW - 3 * hour - 1 },
        { from: NOW - 3 * hour, to: NOW },
      ];
      const plan = new WindowPlan(windows, { runs: 0, shortfall: 0 }, { ...SETTINGS, allowance: 10 });
      const [older, w] = [plan.take()!, plan.take()!];
      const busy = { ...AT, gateWaiting: GATE_BACKLOG };
      for (const c of ["o1", "o2"]) plan.answer(older, MAX_RUNS_PER_REQUEST, c, busy);
      close(plan, older, 0);
      const d = plan.answer(w, MAX_RUNS_PER_REQUEST, "w1", AT);
      const [, middle, newest] = d.kind === "split" ? d.into : [];
      assert.equal(d.kind === "split" ? d.into.length : 0, 3);
      // The newest hour held 160: the split's own density, 160 an hour.
      for (const c of ["n1", "n2", "n3"]) plan.answer(newest, MAX_RUNS_PER_REQUEST, c, busy);
      close(plan, newest, 10);
      plan.answer(middle, MAX_RUNS_PER_REQUEST, "m1", busy);
      const split = plan.answer(middle, MAX_RUNS_PER_REQUEST, "m2", AT);
      assert.equal(split.kind, "split");
      const into = split.kind === "split" ? split.into : [];
      const share = ((into[0].window.to as number) - (NOW - 2 * hour)) / hour;
      // 100 of the 160 the split's density says the middle hour held: 0.625 taken as resumed (the
      // drain's average, 260 over 1.25 hours, would say 100 of 208: half, the median guess).
      const k = into.length;
      assert.ok(Math.abs(share - (0.625 + 0.375 / k)) < 1e-3, `first piece ${share}, ${k} pieces`);
    });

    it("halves the last window left past TAIL_SPLIT_RUNS runs, though the density says it holds under two pages", () => {
      const hour = 3_600_000;
      const windows = [
        { from: NOW - 2 * hour, to: NOW - hour - 1 },
        { from: NOW - hour, to: NOW },
      ];
      const decide = (runs: number) => {
        const plan = new WindowPlan(windows, { runs, shortfall: 0 }, { ...SETTINGS, concurrency: 16 });
        const [older, newer] = [plan.take()!, plan.take()!];
        close(plan, older, 30);
        assert.equal(plan.density(), 30 / hour, "30 entries over an hour");
        // The newer hour is expected to hold 30 as well, less than the page it returns; the two
        // answers take the drain's runs from `runs` to `runs` + 80.
        return plan.answer(newer, MAX_RUNS_PER_REQUEST, "c1", AT);
      };
      const d = decide(TAIL_SPLIT_RUNS - 80);
      assert.equal(d.kind, "split");
      assert.equal(d.kind === "split" ? d.into.length : 0, 2);
      assert.equal(decide(TAIL_SPLIT_RUNS - 200).kind, "continue", "a smaller drain follows the density");
    });

    it("halves one of the last TAIL_WINDOWS windows sent past TAIL_SPLIT_RUNS runs, not one of more", () => {
      const hour = 3_600_000;
      /** `n` windows of an hour each, the oldest closed with 30 entries; the newest answers. */
      const decide = (n: number) => {
        const windows = Array.from({ length: n }, (_, i) => ({
          from: NOW - (n - i) * hour + 1,
          to: NOW - (n - i - 1) * hour,
        }));
        const plan = new WindowPlan(windows, { runs: TAIL_SPLIT_RUNS, shortfall: 0 }, SETTINGS);
        const sent = windows.map(() => plan.take()!);
        close(plan, sent[0], 30);
        return plan.answer(sent[n - 1], MAX_RUNS_PER_REQUEST, "c1", { ...AT, inFlight: n - 2 });
      };
      const d = decide(TAIL_WINDOWS + 1);
      assert.equal(d.kind === "split" ? d.into.length : 0, 2, `${TAIL_WINDOWS} sent: halved`);
      assert.equal(decide(TAIL_WINDOWS + 2).kind, "continue", "more sent: the density decides");
    });

    it("does not let a window the density says is nearly done hold back the split of another", () => {
      const hour = 3_600_000;
      /** A window followed for 3 pages (`olderHours` wide) and a 10-hour one after its first page. */
      const decide = (olderHours: number) => {
        const windows = [
          { from: NOW - 12 * hour - olderHours * hour + 1, to: NOW - 12 * hour },
          { from: NOW - 12 * hour + 1, to: NOW - 11 * hour },
          { from: NOW - 11 * hour + 1, to: NOW - hour },
        ];
        const plan = new WindowPlan(windows, { runs: 600, shortfall: 0 }, SETTINGS);
        const [followed, sample, wide] = [plan.take()!, plan.take()!, plan.take()!];
        const busy = { ...AT, gateWaiting: GATE_BACKLOG };
        for (const c of ["a1", "a2", "a3"]) plan.answer(followed, MAX_RUNS_PER_REQUEST, c, busy);
        close(plan, sample, 30); // 30 entries an hour
        return plan.answer(wide, MAX_RUNS_PER_REQUEST, "c1", { ...AT, inFlight: 1 });
      };
      // 3 hours (90 expected) of which 150 are resumed: it holds under two pages, so it is not split.
      assert.equal(decide(3).kind, "split");
      // 20 hours: 450 left, more pages than the wide window's first; it is split first.
      assert.equal(decide(20).kind, "continue");
    });

    it("keeps a window open below waiting for every window that ran longer: what it holds is a guess", () => {
      const hour = 3_600_000;
      const windows = [
        { to: NOW - 12 * hour },
        { from: NOW - 12 * hour + 1, to: NOW - 9 * hour },
        { from: NOW - 9 * hour + 1, to: NOW - 8 * hour },
      ];
      const plan = new WindowPlan(windows, { runs: 600, shortfall: 0 }, SETTINGS);
      const [below, followed, sample] = [plan.take()!, plan.take()!, plan.take()!];
      const busy = { ...AT, gateWaiting: GATE_BACKLOG };
      for (const c of ["a1", "a2", "a3"]) plan.answer(followed, MAX_RUNS_PER_REQUEST, c, busy);
      close(plan, sample, 30); // the followed window (90 expected, 150 resumed) is nearly done
      assert.equal(plan.answer(below, MAX_RUNS_PER_REQUEST, "c1", { ...AT, inFlight: 1 }).kind, "continue");
    });

    it("drains 1,200 evenly spread entries in at most ceil(N/50) + 6 = 30 requests; at 2,500 the gate still gets its windows", () => {
      // With the planner alone (answers in a fixed order); the 90-day horizon is bench 9's.
      for (const [start, make] of Object.entries(STARTS)) {
        for (const horizonMs of [3 * DAY, 7 * DAY]) {
          const dlq = new FakeDlq(DISTRIBUTIONS.uniform3d(1_200));
          const requests = drive(dlq, make({ ...SETTINGS, horizonMs }), 7);
          assert.equal(dlq.remaining, 0);
          assert.ok(requests <= 30, `${start}: ${requests} requests > 30 (horizon ${horizonMs / DAY} days)`);
        }
      }
      // Without the density rule, the same drain opened up to 7 windows past 500 runs: 36 to 38.
      const big = new FakeDlq(DISTRIBUTIONS.uniform3d(2_500));
      const plan = fresh({ ...SETTINGS, horizonMs: 7 * DAY });
      let most = 0;
      const flying: PlannedWindow[] = [];
      for (;;) {
        for (let w = plan.take(); w !== undefined; w = flying.length < 7 ? plan.take() : undefined)
          flying.push(w);
        most = Math.max(most, plan.open.filter((o) => !o.held).length);
        const w = flying.shift();
        if (w === undefined) break;
        answerFrom(big, plan, w, { ...AT, inFlight: flying.length });
      }
      assert.equal(big.remaining, 0);
      assert.ok(most >= targetWindows(16, AT), `at most ${most} windows open at 2,500 entries`);
    });
  });

  describe("a drain that needs more than WIDE_WINDOWS in flight, failures spread", () => {
    /** 500 requests a second and 150 ms: the gate needs far more than WIDE_WINDOWS windows. */
    const WIDE: PlanContext = { inFlight: 0, gateWaiting: 0, now: NOW, ratePerSecond: 500, roundTripMs: 150 };
    const WIDE_SETTINGS = { ...SETTINGS, concurrency: 256 };
    const hour = 3_600_000;

    /** A closed hour of 30 entries (the density) and `w`, which answers a full page at `at`. */
    const decide = (w: OpenWindow, at: PlanContext) => {
      const plan = new WindowPlan(
        [w, { from: NOW - 2 * hour + 1, to: NOW - hour }],
        { runs: 1_000, shortfall: 0 },
        WIDE_SETTINGS,
      );
      const [wide, closed] = [plan.take()!, plan.take()!];
      plan.answer(closed, 30, undefined, at);
      assert.equal(plan.density(), 30 / hour);
      // The room the answer leaves: its page counted, its window still open.
      const counters = { runs: plan.runs + MAX_RUNS_PER_REQUEST, shortfall: plan.shortfall };
      const room = windowRoom(counters, plan.open.length, { ...at }, true);
      const d = plan.answer(wide, MAX_RUNS_PER_REQUEST, "c1", at);
      return { into: d.kind === "split" ? d.into.map((p) => p.window) : [], room };
    };
    const tiles = (into: DrainWindow[], w: OpenWindow) => {
      assert.equal(into[0].from, w.from);
      assert.equal(into[into.length - 1].to, w.to);
      for (let i = 1; i < into.length; i++) assert.equal(into[i].from, (into[i - 1].to as number) + 1);
    };

    it("tiles: cuts a full window into the fair shares it holds (what is left over the windows needed), within the room", () => {
      const need = targetWindows(256, WIDE);
      assert.ok(need > WIDE_WINDOWS && targetWindows(256, AT) <= WIDE_WINDOWS);
      const w = { from: NOW - 102 * hour + 1, to: NOW - 2 * hour };
      const { into, room } = decide(w, WIDE);
      // 100 hours of 30 an hour, 50 resumed: 2,950 left, all in `w`, over `need` windows, a page at least.
      const share = Math.max(MAX_RUNS_PER_REQUEST, 2_950 / need);
      assert.equal(into.length, Math.min(1 + room, Math.round(2_950 / share)), `room ${room}`);
      assert.ok(into.length > LATER_PIECES);
      tiles(into, w);
      // The oldest piece holds what the cursor resumed (50 entries' width) and a share; the others a share each.
      const widths = into.map((x) => (x.to as number) - (x.from as number) + 1);
      const rest = widths.slice(1);
      assert.ok(Math.max(...rest) - Math.min(...rest) <= 1, "even pieces past the oldest");
      const resumedWidth = (MAX_RUNS_PER_REQUEST / 30) * hour;
      assert.ok(
        Math.abs(widths[0] - resumedWidth - rest[0]) <= into.length,
        `${widths[0]} vs ${resumedWidth} + ${rest[0]}`,
      );
      assert.equal(decide(w, AT).into.length, LATER_PIECES, "at 100 a second and 50 ms: the usual split");
    });

    it("ramps: before a window closed or came back empty among the failures, cuts a full one into a share of those missing", () => {
      const w = { from: NOW - 102 * hour + 1, to: NOW - 2 * hour };
      /** `w` alone past 1,000 runs (no density), answering a full page at `at`. */
      const ramp = (at: PlanContext) => {
        const plan = new WindowPlan([w], { runs: 1_000, shortfall: 0 }, WIDE_SETTINGS);
        const one = plan.take()!;
        const counters = { runs: plan.runs + MAX_RUNS_PER_REQUEST, shortfall: plan.shortfall };
        const room = windowRoom(counters, plan.open.length, { ...at }, true);
        const d = plan.answer(one, MAX_RUNS_PER_REQUEST, "c1", at);
        assert.equal(plan.density(), undefined);
        return { pieces: d.kind === "split" ? d.into.length : 1, room };
      };
      const { pieces, room } = ramp(WIDE);
      // One window sent: it is cut into all the windows the gate needs, within the room.
      assert.equal(pieces, Math.min(1 + room, targetWindows(256, WIDE)), `room ${room}`);
      assert.ok(pieces > LATER_PIECES);
      assert.equal(ramp(AT).pieces, LATER_PIECES, "at 100 a second and 50 ms: the usual split");
    });

    it("ramps past ladder rungs empty below the failures, halves after an empty rung above them or a piece", () => {
      /** A selection without fromDate past 600 runs, its first page split into a ladder of 4 rungs. */
      const ladder = () => {
        const plan = WindowPlan.start({}, undefined, undefined, { ...WIDE_SETTINGS, horizonMs: 90 * DAY });
        const d = plan.answer(plan.take()!, MAX_RUNS_PER_REQUEST, "c0", WIDE);
        const rungs = d.kind === "split" ? d.into : [];
        assert.equal(rungs.length, 4);
        while (plan.take() !== undefined);
        plan.runs = 600;
        return { plan, rungs };
      };
      /** How many pieces `w`'s full page cuts it into, and what the ramp would make of it. */
      const decide = (plan: WindowPlan, w: PlannedWindow) => {
        const counters = { runs: plan.runs + MAX_RUNS_PER_REQUEST, shortfall: plan.shortfall };
        const room = windowRoom(counters, plan.open.length, { ...WIDE }, true);
        const sent = plan.open.length;
        const missing = targetWindows(256, WIDE) - sent;
        const d = plan.answer(w, MAX_RUNS_PER_REQUEST, "c2", { ...WIDE, inFlight: 1 });
        assert.equal(plan.density(), undefined);
        const ramp = Math.min(1 + room, 1 + missing, 1 + Math.ceil(missing / sent));
        return { pieces: d.kind === "split" ? d.into.length : 1, ramp };
      };
      // All within the last hour: the two older rungs come back empty; the next one is ramped.
      const recent = ladder();
      recent.plan.answer(recent.rungs[0], 0, undefined, WIDE);
      recent.plan.answer(recent.rungs[1], 0, undefined, WIDE);
      const ramped = decide(recent.plan, recent.rungs[2]);
      assert.equal(ramped.pieces, ramped.ramp);
      assert.ok(ramped.pieces > 2, `${ramped.pieces} pieces`);
      // Bursts hours ago: the two newest rungs come back empty above the full one; it is halved
      // (once the rung open below it was split: a ladder's rungs split oldest first).
      const older = ladder();
      assert.equal(older.plan.answer(older.rungs[0], MAX_RUNS_PER_REQUEST, "c1", WIDE).kind, "split");
      while (older.plan.take() !== undefined);
      older.plan.answer(older.rungs[3], 0, undefined, WIDE);
      older.plan.answer(older.rungs[2], 0, undefined, WIDE);
      assert.equal(decide(older.plan, older.rungs[1]).pieces, 2, "an empty rung among the failures: halved");
      // The older rungs empty, then a piece off the ladder: clustered or running out, halved.
      const piece = ladder();
      piece.plan.answer(piece.rungs[0], 0, undefined, WIDE);
      piece.plan.answer(piece.rungs[1], 0, undefined, WIDE);
      const split = piece.plan.answer(piece.rungs[3], MAX_RUNS_PER_REQUEST, "c1", { ...WIDE, inFlight: 1 });
      assert.ok(split.kind === "split" && split.into.length > 2, "the newest rung ramped");
      while (piece.plan.take() !== undefined);
      piece.plan.answer(split.into[0], 0, undefined, { ...WIDE, inFlight: 2 });
      assert.equal(decide(piece.plan, piece.rungs[2]).pieces, 2, "an empty piece: halved");
    });

    it("tiles: splits a window into its fair shares rounded, so one of under one and a half stays whole", () => {
      // `hours` of 30 an hour ending now, 50 resumed, beside 200 hours (6,000 entries) and `others`
      // windows of a millisecond each (a tenth of the windows needed and more, holding nothing):
      // a share is what is left over the windows needed, about 72 entries.
      const split = (hours: number, others = 30) => {
        const plan = new WindowPlan(
          [
            { from: NOW - hours * hour + 1, to: NOW },
            { from: NOW - 206 * hour + 1, to: NOW - 6 * hour },
            { from: NOW - 6 * hour + 1, to: NOW - 5 * hour },
            ...Array.from({ length: others }, (_, i) => ({
              from: NOW - 300 * hour + i,
              to: NOW - 300 * hour + i,
            })),
          ],
          { runs: 1_000, shortfall: 0 },
          WIDE_SETTINGS,
        );
        const [small, , closed] = [plan.take()!, plan.take()!, plan.take()!];
        plan.answer(closed, 30, undefined, WIDE);
        const d = plan.answer(small, MAX_RUNS_PER_REQUEST, "c1", WIDE);
        return d.kind === "split" ? d.into.length : 1;
      };
      assert.ok(30 >= TILE_TAIL_SHARE * targetWindows(256, WIDE));
      assert.equal(split(5), 1, "100 entries left: 1.4 shares");
      assert.equal(split(6), 2, "130 entries left: 1.8 shares");
      // The last windows: fewer sent than TILE_TAIL_SHARE of those needed, a full window is halved.
      assert.equal(split(5, 0), 2, "2 windows sent");
    });

    it("tiles: cuts a window open below back from its upper end into pieces of a fair share each", () => {
      const w = { to: NOW - 10 * hour };
      const { into } = decide(w, WIDE);
      // Where failures start is a guess: OPEN_BELOW_REACH times as far back as the window ends
      // before now (10 hours), so it holds (OPEN_BELOW_REACH - 1) × 10 hours at 30 an hour.
      const left = 30 * 10 * (OPEN_BELOW_REACH - 1);
      const share = Math.max(MAX_RUNS_PER_REQUEST, left / targetWindows(256, WIDE));
      const width = Math.floor(share / (30 / hour));
      const k = Math.round(left / share);
      assert.equal(into.length, k);
      assert.deepEqual(into[0], { to: w.to - (k - 1) * width });
      for (let i = 1; i < k; i++) assert.equal((into[i].to as number) - (into[i].from as number) + 1, width);
      assert.deepEqual(decide(w, AT).into, splitOpenBelow(w, 2, NOW, SETTINGS.horizonMs), "else its ladder");
    });

    it("tiles: once it does, an empty window says where failures are not and the density stays known", () => {
      const plan = new WindowPlan(
        [
          { from: NOW - 102 * hour + 1, to: NOW - 2 * hour },
          { from: NOW - 2 * hour + 1, to: NOW - hour },
          { from: NOW - 200 * hour, to: NOW - 150 * hour },
        ],
        { runs: 1_000, shortfall: 0 },
        WIDE_SETTINGS,
      );
      const [wide, closed, beyond] = [plan.take()!, plan.take()!, plan.take()!];
      plan.answer(closed, 30, undefined, WIDE);
      assert.equal(plan.answer(wide, MAX_RUNS_PER_REQUEST, "c1", WIDE).kind, "split");
      plan.answer(beyond, 0, undefined, WIDE);
      assert.equal(plan.density(), 30 / hour);
      // Without tiling (100 a second and 50 ms), an empty window makes the density unknown.
      const usual = new WindowPlan(
        [
          { from: NOW - 2 * hour + 1, to: NOW - hour },
          { from: NOW - 200 * hour, to: NOW - 150 * hour },
        ],
        { runs: 1_000, shortfall: 0 },
        WIDE_SETTINGS,
      );
      const [c2, b2] = [usual.take()!, usual.take()!];
      usual.answer(c2, 30, undefined, AT);
      usual.answer(b2, 0, undefined, AT);
      assert.equal(usual.density(), undefined);
    });

    it("parks a full window while answers in flight may cross 500 runs, then splits it by the larger allowance", () => {
      /**
       * 400 runs in, 12 pages not full (the allowance up to 500 runs spent); `a` 100 hours, `c` 2
       * hours (a page and a fifth), `b` an hour that closes with 30 (the density).
       */
      const start = () => {
        const plan = new WindowPlan(
          [
            { from: NOW - 200 * hour, to: NOW - 198 * hour },
            { from: NOW - 102 * hour + 1, to: NOW - 2 * hour },
            { from: NOW - 2 * hour + 1, to: NOW - hour },
          ],
          { runs: 400, shortfall: 600 },
          WIDE_SETTINGS,
        );
        const [c, a, b] = [plan.take()!, plan.take()!, plan.take()!];
        plan.answer(b, 30, undefined, { ...WIDE, inFlight: 2 });
        assert.equal(plan.density(), 30 / hour);
        return { plan, a, c };
      };
      // 480 runs, `c` in flight: its page may take the drain past 500. `a` waits, open and saved.
      const crossed = start();
      assert.equal(
        crossed.plan.answer(crossed.a, MAX_RUNS_PER_REQUEST, "a1", { ...WIDE, inFlight: 1 }).kind,
        "continue",
      );
      assert.equal(crossed.plan.waiting, 0);
      assert.ok(crossed.plan.snapshot().windows.some((w) => w.cursor === "a1"));
      // `c`'s full page takes it to 530: `a` is cut into its shares by the larger allowance.
      crossed.plan.answer(crossed.c, MAX_RUNS_PER_REQUEST, "c1", WIDE);
      const pieces = sent(crossed.plan).filter((p) => p.window.from! > (crossed.c.window.to as number));
      assert.ok(!crossed.plan.open.includes(crossed.a), "a split");
      assert.ok(pieces.length > LATER_PIECES, `${pieces.length} pieces`);
      const cut = pieces.map((p) => p.window);
      tiles(cut, crossed.a.window);
      // `c` comes back short (490 runs): nothing in flight may cross, `a` continues with its cursor.
      const short = start();
      short.plan.answer(short.a, MAX_RUNS_PER_REQUEST, "a1", { ...WIDE, inFlight: 1 });
      short.plan.answer(short.c, 10, undefined, WIDE);
      assert.deepEqual(sent(short.plan), [short.a]);
      // Nothing else in flight, or at 100 a second and 50 ms: `a` continues at once.
      for (const at of [WIDE, { ...AT, inFlight: 1 }]) {
        const alone = start();
        alone.plan.answer(alone.a, MAX_RUNS_PER_REQUEST, "a1", at);
        assert.equal(alone.plan.waiting, 1);
      }
    });

    it("drains every distribution, each entry once, within the allowance at 500 a second and 150 ms", () => {
      for (const [start, make] of Object.entries(STARTS)) {
        for (const name of Object.keys(DISTRIBUTIONS)) {
          for (const n of [2_500, 20_000]) {
            const dlq = new FakeDlq(DISTRIBUTIONS[name](n));
            const requests = drive(dlq, make(WIDE_SETTINGS), 90, WIDE);
            assert.equal(dlq.duplicates, 0);
            assert.equal(dlq.remaining, 0);
            const most = requestAllowance(n, WIDE);
            assert.ok(requests <= most, `${start}, ${name}, N = ${n}: ${requests} requests > ${most}`);
          }
        }
      }
    });
  });

  describe("every distribution: each entry once, within the request bound", () => {
    const bound = (n: number) => requestAllowance(n, AT);
    for (const [start, make] of Object.entries(STARTS)) {
      for (const name of Object.keys(DISTRIBUTIONS)) {
        for (const n of [0, 1, 237, 500, 501, 1_200, 2_500, 20_000]) {
          it(`${start}: ${name}, N = ${n}`, () => {
            const dlq = new FakeDlq(DISTRIBUTIONS[name](n));
            const plan = make();
            const requests = drive(dlq, plan, 6);
            assert.equal(dlq.duplicates, 0);
            assert.equal(dlq.remaining, 0);
            assert.ok(requests <= bound(n), `${requests} requests > ${bound(n)}`);
            assert.deepEqual(plan.snapshot().windows, []);
          });
        }
      }
    }
    it("concurrency 1 is exactly ceil(N/50) requests for every distribution", () => {
      for (const name of Object.keys(DISTRIBUTIONS)) {
        const dlq = new FakeDlq(DISTRIBUTIONS[name](4_321));
        assert.equal(drive(dlq, fresh({ ...SETTINGS, concurrency: 1 }), 1), Math.ceil(4_321 / 50));
      }
    });
  });
});
