import { strict as assert } from "node:assert";
import { SvcError } from "../../../client";
import {
  effectiveRange,
  splitOpenBelow,
  cutOpenBelow,
  mayOpenWindow,
  rootWindow,
  splitWindow,
  splitWindowInto,
  requestAllowance,
  windowAllowance,
  windowCredit,
  parallelCredit,
  windowRoom,
  validateWindowState,
  windowSelection,
} from "../../../drain/windows";
import type { DrainWindow } from "../../../drain/types";
import { DAY, NOW } from "../../../bench/lib/windowSim";
import {
  DAILY_LIMIT_SHARE,
  DEFAULT_HORIZON_MS,
  DEFAULT_WINDOW_ALLOWANCE,
  LADDER_FIRST_MS,
  LADDER_OLDER_RATIO,
  LADDER_RATIO,
  LARGE_DRAIN_CREDIT,
  SMALL_DRAIN_RUNS,
  WINDOW_OVERHEAD,
} from "../../../drain/planKnobs";

function invalidArgument(fn: () => unknown, field: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof SvcError);
    assert.equal(e.code, "SVC_INVALID_ARGUMENT");
    assert.match(e.message, field);
    return true;
  });
}

describe("drain/windows (planner)", () => {
  it("the root window is the selection's own time range, open where the selection is", () => {
    assert.deepEqual(rootWindow({}), {});
    assert.deepEqual(rootWindow({ workflowUrl: "u", fromDate: 5 }), { from: 5 });
    assert.deepEqual(rootWindow({ toDate: 9 }), { to: 9 });
    assert.deepEqual(rootWindow({ fromDate: 5, toDate: 9 }), { from: 5, to: 9 });
  });

  it("a window's selection keeps the other filters and replaces the time range", () => {
    const s = { workflowUrl: "u", workflowRunId: "wfr_", fromDate: 1, toDate: 100 };
    assert.deepEqual(windowSelection(s, { from: 10, to: 20 }), {
      workflowUrl: "u",
      workflowRunId: "wfr_",
      fromDate: 10,
      toDate: 20,
    });
    assert.deepEqual(windowSelection({ workflowUrl: "u" }, {}), { workflowUrl: "u" });
    assert.deepEqual(windowSelection({}, { to: 7 }), { toDate: 7 });
  });

  it("a window's run-ID prefix is sent as workflowRunId", () => {
    assert.deepEqual(
      windowSelection(
        { workflowUrl: "u", workflowRunId: "wfr_a" },
        { from: 10, to: 20, runIdPrefix: "wfr_a3" },
      ),
      { workflowUrl: "u", workflowRunId: "wfr_a3", fromDate: 10, toDate: 20 },
    );
  });

  describe("effectiveRange", () => {
    it("closes an open top at now and an open bottom one horizon before now", () => {
      assert.deepEqual(effectiveRange({}, NOW, 3 * DAY), [NOW - 3 * DAY, NOW]);
      assert.deepEqual(effectiveRange({}, NOW), [NOW - DEFAULT_HORIZON_MS, NOW]);
      assert.deepEqual(effectiveRange({ from: NOW - DAY }, NOW), [NOW - DAY, NOW]);
      assert.deepEqual(effectiveRange({ to: NOW - DAY }, NOW, 3 * DAY), [NOW - 3 * DAY, NOW - DAY]);
    });

    it("looks one more horizon back for an open-bottom window that ends before the horizon", () => {
      assert.deepEqual(effectiveRange({ to: NOW - 10 * DAY }, NOW, 3 * DAY), [
        NOW - 13 * DAY,
        NOW - 10 * DAY,
      ]);
    });

    it("is undefined for a single millisecond and for an open top that starts after now", () => {
      assert.equal(effectiveRange({ from: 7, to: 7 }, NOW), undefined);
      assert.equal(effectiveRange({ from: NOW + 5 }, NOW), undefined);
      assert.deepEqual(effectiveRange({ from: 7, to: 8 }, NOW), [7, 8]);
    });
  });

  describe("splitWindow", () => {
    it("splits at the middle into disjoint, adjacent, inclusive halves", () => {
      assert.deepEqual(splitWindow({ from: 0, to: 9 }, NOW), [
        { from: 0, to: 4 },
        { from: 5, to: 9 },
      ]);
      assert.deepEqual(splitWindow({ from: 0, to: 1 }, NOW), [
        { from: 0, to: 0 },
        { from: 1, to: 1 },
      ]);
    });

    it("keeps the first window open below and the last open above", () => {
      const [first, last] = splitWindow({}, NOW, 2 * DAY)!;
      assert.deepEqual(first, { to: NOW - DAY });
      assert.deepEqual(last, { from: NOW - DAY + 1 });
      const [a, b] = splitWindow({ from: 100 }, 300)!;
      assert.deepEqual([a, b], [{ from: 100, to: 200 }, { from: 201 }]);
    });

    it("cannot split a single millisecond", () => {
      assert.equal(splitWindow({ from: 5, to: 5 }, NOW), undefined);
    });

    it("covers every millisecond of the window exactly once, down to single milliseconds", () => {
      // Split [0, 999] recursively until no window splits; the leaves must tile it exactly.
      const leaves: { from: number; to: number }[] = [];
      const stack = [{ from: 0, to: 999 }];
      while (stack.length > 0) {
        const w = stack.pop()!;
        const halves = splitWindow(w, NOW);
        if (halves === undefined) leaves.push(w);
        else stack.push(...(halves as { from: number; to: number }[]));
      }
      leaves.sort((a, b) => a.from - b.from);
      assert.equal(leaves.length, 1000);
      leaves.forEach((w, i) => assert.deepEqual(w, { from: i, to: i }));
    });
  });

  describe("mayOpenWindow (the request bound)", () => {
    it("allows the allowance before anything is resumed, then 10 % of the ideal requests", () => {
      const none = { runs: 0, shortfall: 0 };
      assert.equal(mayOpenWindow(none, DEFAULT_WINDOW_ALLOWANCE - 1), true);
      assert.equal(mayOpenWindow(none, DEFAULT_WINDOW_ALLOWANCE), false);
      // 1000 full pages earn 20 + 100 more windows.
      const seen = { runs: 50_000, shortfall: 0 };
      assert.equal(mayOpenWindow(seen, DEFAULT_WINDOW_ALLOWANCE + 119), true);
      assert.equal(mayOpenWindow(seen, DEFAULT_WINDOW_ALLOWANCE + 120), false);
    });

    it("charges what finished windows cost: 50 runs short is one request", () => {
      assert.equal(mayOpenWindow({ runs: 0, shortfall: 50 * 3 }, 0, { allowance: 4 }), true);
      assert.equal(mayOpenWindow({ runs: 0, shortfall: 50 * 3 + 1 }, 0, { allowance: 4 }), false);
      // Above 500 runs: 51 pages earn 20 + 5.1 more windows.
      assert.equal(
        mayOpenWindow({ runs: 2_550, shortfall: 50 * 29 }, 0, { allowance: 4, overhead: 0.1 }),
        false,
      );
      assert.equal(
        mayOpenWindow({ runs: 2_550, shortfall: 50 * 28 }, 0, { allowance: 4, overhead: 0.1 }),
        true,
      );
    });

    it("rounds the runs of the pages that were not full up together: two windows of 60 cost one request", () => {
      // Pages 50, 10, 50, 10: 4 requests for 120 runs, ceil(120/50) + 1.
      const state = { runs: 120, shortfall: 80 };
      assert.equal(windowRoom(state, 0, { allowance: 4 }), 3);
      // Counting each short page whole (80/50 = 1.6) would leave 2.
      assert.equal(windowRoom({ runs: 120, shortfall: 80 }, 1, { allowance: 4 }), 2);
    });

    it("lets one last page go free while a window known to hold entries is open and every page was full or empty", () => {
      // The outage: 3 pieces came back empty, one holds the entries (pages full so far).
      const state = { runs: 150, shortfall: 150 };
      assert.equal(windowRoom(state, 1, { allowance: 4 }), 0);
      assert.equal(windowRoom(state, 1, { allowance: 4 }, true), 1);
      // Once a page was partial, its round-up is counted instead.
      assert.equal(windowRoom({ runs: 170, shortfall: 180 }, 1, { allowance: 4 }, true), 0);
    });

    it("earns no credit up to 500 runs (at most ceil(N/50) + 4), 20 + 10 % of the pages above (1.10 × ceil(N/50) + 24)", () => {
      assert.equal(SMALL_DRAIN_RUNS, 500);
      assert.equal(windowCredit(0), 0);
      assert.equal(windowCredit(SMALL_DRAIN_RUNS), 0);
      assert.ok(Math.abs(windowCredit(SMALL_DRAIN_RUNS + 1) - (LARGE_DRAIN_CREDIT + 1.1)) < 1e-9);
      assert.equal(windowCredit(100_000), LARGE_DRAIN_CREDIT + 200);
      assert.equal(windowRoom({ runs: 500, shortfall: 0 }, 1), DEFAULT_WINDOW_ALLOWANCE - 1);
      assert.equal(windowRoom({ runs: 550, shortfall: 0 }, 1), DEFAULT_WINDOW_ALLOWANCE + 20 + 1 - 1);
      assert.equal(
        windowRoom({ runs: 20_000, shortfall: 50 * 10 }, 8),
        DEFAULT_WINDOW_ALLOWANCE + LARGE_DRAIN_CREDIT + 40 - 18,
      );
      assert.equal(windowRoom({ runs: 0, shortfall: 50 * 9 }, 1), 0, "never negative");
    });

    it("states the request allowance: ceil(N/50) + 4 up to 500 entries, 1.10 × ceil(N/50) + 24 above", () => {
      const cases: [number, number][] = [
        [0, 5],
        [1, 5],
        [237, 9],
        [500, 14],
        [501, 36],
        [1_200, 50],
        [2_500, 79],
        [20_000, 464],
        [100_000, 2_224],
      ];
      for (const [n, most] of cases) assert.equal(requestAllowance(n), most, `N = ${n}`);
    });

    it("adds min(⌈rate × round trip⌉, ceil(N/50)) above 500 entries, earned page by page; none up to 500 or unmeasured", () => {
      const paid = { ratePerSecond: 500, roundTripMs: 150 }; // 75 in flight
      const free = { ratePerSecond: 100, roundTripMs: 150 }; // 15 in flight
      const cases: [number, typeof paid, number][] = [
        [237, paid, 9],
        [500, paid, 14],
        [501, paid, 36 + 11], // ceil(501/50) = 11 < 75: never beyond the work
        [1_200, paid, 50 + 24],
        [1_200, free, 50 + 15],
        [20_000, paid, 464 + 75],
        [20_000, free, 464 + 15],
        [100_000, paid, 2_224 + 75],
        [100_000, { ratePerSecond: 100, roundTripMs: 50 }, 2_224 + 5],
      ];
      for (const [n, net, most] of cases)
        assert.equal(requestAllowance(n, net), most, `N = ${n} at ${net.ratePerSecond}/s`);
      assert.equal(
        requestAllowance(20_000, { ratePerSecond: 500 }),
        464,
        "no round trip measured: no credit",
      );
      assert.equal(requestAllowance(20_000, { roundTripMs: 150 }), 464, "no rate known: no credit");
      // What the drain has resumed is all it knows of N: 600 runs earned 12 of the 75.
      assert.equal(parallelCredit(600, paid), 12);
      assert.equal(parallelCredit(500, paid), 0);
      assert.equal(windowCredit(600, WINDOW_OVERHEAD, paid), LARGE_DRAIN_CREDIT + 1.2 + 12);
      assert.equal(
        windowRoom({ runs: 20_000, shortfall: 50 * 10 }, 8, paid),
        DEFAULT_WINDOW_ALLOWANCE + LARGE_DRAIN_CREDIT + 40 + 75 - 18,
      );
    });

    it("still holds the requests beyond ceil(N/50) to 2 % of a known daily limit with the rate's credit", () => {
      const paid = { ratePerSecond: 500, roundTripMs: 150, dailyLimit: 1_000 };
      assert.equal(requestAllowance(20_000, paid), 420);
      assert.equal(
        requestAllowance(100_000, { ...paid, dailyLimit: 1_000_000 }),
        2_299,
        "1.10 × ceil(N/50) + 24 + 75 is smaller",
      );
      assert.equal(
        requestAllowance(100_000, { ...paid, dailyLimit: 10_000 }),
        2_200,
        "2 % of 10,000 is smaller",
      );
    });

    it("holds the requests beyond ceil(N/50) to 2 % of a known daily limit, the smaller allowance winning", () => {
      assert.equal(DAILY_LIMIT_SHARE, 0.02);
      // The free plan's 1,000 a day: 20 beyond ceil(N/50), whatever N.
      assert.equal(windowAllowance(20_000, { dailyLimit: 1_000 }), 20);
      assert.equal(requestAllowance(20_000, { dailyLimit: 1_000 }), 420);
      assert.equal(requestAllowance(237, { dailyLimit: 1_000 }), 9, "ceil(N/50) + 4 is smaller");
      assert.equal(
        requestAllowance(20_000, { dailyLimit: 1_000_000 }),
        464,
        "1.10 × ceil(N/50) + 24 is smaller",
      );
      assert.equal(windowRoom({ runs: 20_000, shortfall: 50 * 10 }, 8, { dailyLimit: 1_000 }), 2);
      assert.equal(windowRoom({ runs: 20_000, shortfall: 50 * 12 }, 8, { dailyLimit: 1_000 }), 0);
      assert.equal(windowAllowance(0, { dailyLimit: 49 }), 0, "0.98 rounds down: no window beyond the first");
    });
  });

  describe("splitOpenBelow (the ladder: where failures start is not known)", () => {
    const MIN = 60_000;
    it("splits a window that ends now at 15 minutes, 90 minutes and 9 hours back, the oldest piece open below", () => {
      const pieces = splitOpenBelow({}, 4, NOW, 90 * DAY) as DrainWindow[];
      assert.deepEqual(pieces, [
        { to: NOW - 540 * MIN },
        { from: NOW - 540 * MIN + 1, to: NOW - 90 * MIN },
        { from: NOW - 90 * MIN + 1, to: NOW - 15 * MIN },
        { from: NOW - 15 * MIN + 1 },
      ]);
      assert.equal(LADDER_FIRST_MS * LADDER_RATIO, 90 * MIN);
    });

    it("splits a window that ends d before now at 3d, 9d, 27d back, within the horizon", () => {
      const d = 9 * 3_600_000;
      assert.deepEqual(splitOpenBelow({ to: NOW - d }, 4, NOW, 7 * DAY), [
        { to: NOW - 3 * 3 * d },
        { from: NOW - 3 * 3 * d + 1, to: NOW - 3 * d },
        { from: NOW - 3 * d + 1, to: NOW - d },
      ]);
      assert.equal(LADDER_OLDER_RATIO, 3);
    });

    it("does not ladder a window with a lower bound, and tiles what it splits", () => {
      assert.equal(splitOpenBelow({ from: NOW - DAY }, 4, NOW), undefined);
      const pieces = splitOpenBelow({ to: NOW - 1_000 }, 3, NOW, DAY) as DrainWindow[];
      assert.equal(pieces[0].from, undefined);
      assert.equal(pieces[pieces.length - 1].to, NOW - 1_000);
      for (let i = 1; i < pieces.length; i++) assert.equal(pieces[i].from, (pieces[i - 1].to as number) + 1);
    });
  });

  it("cutOpenBelow: cuts a window open below at its ends, the oldest piece open below", () => {
    const d = 3_600_000;
    assert.deepEqual(cutOpenBelow({ to: NOW - d }, [NOW - 3 * d, NOW - 2 * d]), [
      { to: NOW - 3 * d },
      { from: NOW - 3 * d + 1, to: NOW - 2 * d },
      { from: NOW - 2 * d + 1, to: NOW - d },
    ]);
    assert.deepEqual(cutOpenBelow({}, [NOW - d]), [{ to: NOW - d }, { from: NOW - d + 1 }], "open above");
  });

  describe("splitWindowInto", () => {
    it("splits into k adjacent pieces that tile the window, the outer ones keeping open bounds", () => {
      assert.deepEqual(splitWindowInto({ from: 0, to: 99 }, 4, NOW), [
        { from: 0, to: 24 },
        { from: 25, to: 49 },
        { from: 50, to: 74 },
        { from: 75, to: 99 },
      ]);
      const pieces = splitWindowInto({}, 3, NOW, 3 * DAY)!;
      assert.equal(pieces.length, 3);
      assert.deepEqual(pieces[0], { to: NOW - 2 * DAY });
      assert.deepEqual(pieces[2], { from: NOW - DAY + 1 });
    });

    it("makes at most one piece per millisecond, and none of a single millisecond", () => {
      assert.deepEqual(splitWindowInto({ from: 5, to: 7 }, 4, NOW), [
        { from: 5, to: 5 },
        { from: 6, to: 6 },
        { from: 7, to: 7 },
      ]);
      assert.equal(splitWindowInto({ from: 5, to: 5 }, 4, NOW), undefined);
    });
  });

  describe("validateWindowState", () => {
    const ok = {
      version: 1,
      windows: [{ to: 10, cursor: "c1" }, { from: 11, to: 20 }, { from: 30 }],
      runs: 100,
      shortfall: 10,
    };

    it("accepts a state and returns a clean copy", () => {
      assert.deepEqual(validateWindowState(ok, {}), ok);
      assert.deepEqual(validateWindowState({ version: 1, windows: [], runs: 0, shortfall: 0 }, {}), {
        version: 1,
        windows: [],
        runs: 0,
        shortfall: 0,
      });
    });

    it("names the field and the value of what it refuses", () => {
      invalidArgument(() => validateWindowState(null, {}), /windowState/);
      invalidArgument(() => validateWindowState({ ...ok, version: 2 }, {}), /windowState\.version.*2/);
      invalidArgument(() => validateWindowState({ ...ok, runs: -1 }, {}), /windowState\.runs.*-1/);
      invalidArgument(() => validateWindowState({ ...ok, shortfall: 1.5 }, {}), /windowState\.shortfall/);
      invalidArgument(() => validateWindowState({ ...ok, windows: {} }, {}), /windowState\.windows/);
      invalidArgument(
        () => validateWindowState({ ...ok, windows: [{ from: "x" }] }, {}),
        /windows\[0\]\.from.*"x"/,
      );
      invalidArgument(
        () => validateWindowState({ ...ok, windows: [{ cursor: "" }] }, {}),
        /windows\[0\]\.cursor/,
      );
      invalidArgument(() => validateWindowState({ ...ok, windows: [{ size: 1 }] }, {}), /windows\[0\]\.size/);
      invalidArgument(
        () => validateWindowState({ ...ok, windows: [{ from: 9, to: 3 }] }, {}),
        /windows\[0\]` ends \(3\) before it starts \(9\)/,
      );
      invalidArgument(
        () => validateWindowState({ ...ok, windows: [{ to: 10 }, { from: 10 }] }, {}),
        /windows\[1\]` overlaps/,
      );
      invalidArgument(
        () =>
          validateWindowState(
            { ...ok, windows: Array.from({ length: 65 }, (_, i) => ({ from: i, to: i })) },
            {},
          ),
        /at most 64/,
      );
    });

    it("refuses windows outside the selection's time range", () => {
      invalidArgument(
        () => validateWindowState(ok, { fromDate: 5 }),
        /windows\[0\]` starts before the selection's fromDate/,
      );
      invalidArgument(
        () => validateWindowState(ok, { toDate: 100 }),
        /windows\[2\]` ends after the selection's toDate/,
      );
      assert.ok(validateWindowState({ ...ok, windows: [{ from: 5, to: 10 }] }, { fromDate: 5, toDate: 10 }));
    });
  });
});
