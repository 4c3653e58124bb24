// size: the runner driven over whole drains by a fake clock, one group per behaviour (cursor, windows, cut-off, cancel); each group shares the fake service set up at the top
import { strict as assert } from "node:assert";
import { SvcError, type ResumePage } from "../../../client";
import { PartialFailure, drainPages } from "../../../drain/cursorDrain";
import type { CallState } from "../../../client/request";
import type { DrainWindow, GateStatus, WindowDrainOptions, WindowPageEvent } from "../../../drain/types";
import { drainWindows, type WindowDrainProgress } from "../../../drain/windowDrain";
import { requestAllowance, rootWindow, splitOpenBelow } from "../../../drain/windows";
import { mulberry32 } from "../../../emulator/prng";
import { RunIdMaker, type RunIdShape } from "../../../emulator/run-ids";
import { DAY, DISTRIBUTIONS, FakeDlq, NOW, VirtualClock, prng } from "../../../bench/lib/windowSim";

/** The request allowance: ceil(N/50) + 4 up to 500 entries, 1.10 × ceil(N/50) + 24 above. */
const bound = (n: number): number => requestAllowance(n);

/** A fake DLQ whose requests take 20–80 ms of virtual time, so completions interleave. */
function setup(times: number[], seed = 7): { dlq: FakeDlq; clock: VirtualClock } {
  const dlq = new FakeDlq(times);
  const clock = new VirtualClock();
  const r = prng(seed);
  dlq.delay = () => clock.sleep(20 + Math.floor(r() * 60));
  return { dlq, clock };
}

function run(
  dlq: FakeDlq,
  clock: VirtualClock,
  opts: WindowDrainOptions = {},
  gate?: GateStatus,
  selection = {},
): Promise<WindowDrainProgress> {
  return clock.run(
    drainWindows(selection, dlq.step, gate, { now: () => clock.now, horizonMs: 3 * DAY, ...opts }),
  );
}

async function partial(p: Promise<unknown>): Promise<PartialFailure> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof PartialFailure, `expected a PartialFailure, got ${String(e)}`);
    return e;
  }
  throw new Error("expected the drain to fail");
}

function key(w: DrainWindow): string {
  return `${w.from ?? "-"}..${w.to ?? "-"}${w.runIdPrefix !== undefined ? `#${w.runIdPrefix}` : ""}`;
}

/** Whether `inner` selects part of what `outer` selects: narrower bounds, or a longer run-ID prefix. */
function inside(inner: DrainWindow, outer: DrainWindow): boolean {
  return (
    (outer.from === undefined || (inner.from !== undefined && inner.from >= outer.from)) &&
    (outer.to === undefined || (inner.to !== undefined && inner.to <= outer.to)) &&
    (inner.runIdPrefix ?? "").startsWith(outer.runIdPrefix ?? "") &&
    key(inner) !== key(outer)
  );
}

/** Every entry resumed exactly once, and requests in flight never overlapped. */
function assertExactlyOnce(dlq: FakeDlq): void {
  assert.equal(dlq.duplicates, 0, "no entry resumed twice");
  assert.equal(dlq.remaining, 0, "every entry resumed");
  assert.equal(dlq.overlaps, 0, "requests in flight target disjoint windows");
}

describe("drain/windowDrain (scheduler)", () => {
  describe("partitions every distribution exactly, with windows split mid-drain", () => {
    for (const name of Object.keys(DISTRIBUTIONS)) {
      for (const concurrency of [4, 16]) {
        it(`${name}, 5,000 entries, concurrency ${concurrency}`, async () => {
          const n = 5_000;
          const { dlq, clock } = setup(DISTRIBUTIONS[name](n));
          const res = await run(dlq, clock, { concurrency });
          assertExactlyOnce(dlq);
          assert.equal(res.resumedCount, n);
          assert.equal(res.runs.length, n);
          assert.equal(new Set(res.runs.map((r) => r.workflowRunId)).size, n);
          assert.equal(res.requestCount, dlq.requests.length);
          assert.equal(res.ambiguousRequests, 0);
          assert.deepEqual(res.windowState.windows, [], "nothing left open");
          assert.ok(res.requestCount <= bound(n), `${res.requestCount} requests > ${bound(n)}`);
          assert.ok(res.splits > 0, "windows were split");
          // A window that was continued with a cursor was later split: split mid-drain.
          const continued = dlq.requests.filter((r) => r.cursor !== undefined).map((r) => r.window);
          const splitLater = continued.some((w) =>
            dlq.requests.some((r) => r.cursor === undefined && inside(r.window, w)),
          );
          assert.ok(splitLater, "some window was split after it had returned a cursor");
          assert.ok(res.maxInFlight > 1 && res.maxInFlight <= concurrency);
        });
      }
    }

    it("a single-millisecond selection cannot split and stays sequential", async () => {
      const n = 1_000;
      const times = DISTRIBUTIONS.singleMs(n);
      const { dlq, clock } = setup(times);
      const res = await run(dlq, clock, { concurrency: 8 }, undefined, {
        fromDate: times[0],
        toDate: times[0],
      });
      assertExactlyOnce(dlq);
      assert.equal(res.splits, 0);
      assert.equal(res.requestCount, n / 50);
      assert.ok(dlq.requests.slice(1).every((r) => r.cursor !== undefined));
    });
  });

  describe("request count", () => {
    for (const name of Object.keys(DISTRIBUTIONS)) {
      it(`stays within ceil(N/50) + 4 up to 500 and 1.10 × ceil(N/50) + 24 above for ${name}`, async () => {
        for (const n of [0, 1, 49, 50, 51, 237, 500, 501, 1_000, 1_200, 2_500, 2_501, 20_000]) {
          const { dlq, clock } = setup(DISTRIBUTIONS[name](n), n + 1);
          const res = await run(dlq, clock, { concurrency: 16, keepRuns: false });
          assertExactlyOnce(dlq);
          assert.equal(res.resumedCount, n);
          assert.ok(res.requestCount <= bound(n), `N=${n}: ${res.requestCount} requests > ${bound(n)}`);
        }
      });
    }

    it("holds the requests beyond ceil(N/50) to 2 % of the daily limit, given or read by the gate", async () => {
      const n = 20_000;
      for (const name of ["uniform3d", "bursts3", "singleMs"]) {
        const given = setup(DISTRIBUTIONS[name](n));
        const a = await run(given.dlq, given.clock, { concurrency: 16, keepRuns: false, dailyLimit: 1_000 });
        assertExactlyOnce(given.dlq);
        assert.ok(a.requestCount <= 400 + 20, `${name}, dailyLimit: ${a.requestCount} requests > 420`);
        // Only the gate knows it (RateLimit-Limit of an answer): the same cap.
        const read = setup(DISTRIBUTIONS[name](n));
        const gate: GateStatus = { waiting: 0, ratePerSecond: undefined, dailyRequests: { limit: 1_000 } };
        const b = await run(read.dlq, read.clock, { concurrency: 16, keepRuns: false }, gate);
        assertExactlyOnce(read.dlq);
        assert.ok(b.requestCount <= 400 + 20, `${name}, gate: ${b.requestCount} requests > 420`);
        const free = setup(DISTRIBUTIONS[name](n));
        const c = await run(free.dlq, free.clock, { concurrency: 16, keepRuns: false });
        assert.ok(c.requestCount > 420 || name === "uniform3d", `${name}: the cap is what held it`);
      }
    });

    it("starts within a daily limit the gate learnt before the drain began (another drain's answers)", async () => {
      // A daily limit of 100: 2 requests beyond ceil(N/50). An empty DLQ without a fromDate.
      const gate: GateStatus = { waiting: 0, ratePerSecond: undefined, dailyRequests: { limit: 100 } };
      const learnt = setup([]);
      const a = await run(learnt.dlq, learnt.clock, {}, gate, {});
      assert.ok(a.requestCount <= requestAllowance(0, { dailyLimit: 100 }), `${a.requestCount} requests`);
      const unknown = setup([]);
      const b = await run(unknown.dlq, unknown.clock, {}, undefined, {});
      assert.ok(b.requestCount > a.requestCount, "without it the start sends its whole ladder");
    });

    it("holds without a fromDate over the default 90-day horizon too", async () => {
      const n = 20_000;
      for (const name of ["uniform3d", "bursts3", "singleMs"]) {
        const { dlq, clock } = setup(DISTRIBUTIONS[name](n));
        const res = await run(dlq, clock, { concurrency: 16, keepRuns: false, horizonMs: undefined });
        assertExactlyOnce(dlq);
        assert.ok(res.requestCount <= bound(n), `${name}: ${res.requestCount} requests > ${bound(n)}`);
      }
    });

    it("starts a selection open below as its ladder's rungs, sent together: up to 50 entries in 4 requests", async () => {
      for (const n of [0, 1, 50]) {
        const { dlq, clock } = setup(DISTRIBUTIONS.uniform3d(n));
        const res = await run(dlq, clock, { concurrency: 16, horizonMs: 90 * DAY }, undefined, {});
        assertExactlyOnce(dlq);
        assert.equal(res.requestCount, 4);
        assert.ok(res.requestCount <= requestAllowance(n));
        assert.deepEqual(
          dlq.requests.map((r) => r.window),
          splitOpenBelow({}, 4, NOW, 90 * DAY),
        );
        assert.equal(res.maxInFlight, 4, "the rungs are in flight together");
      }
    });

    it("lets a ladder's rungs wait for each other only a page: one fallen behind does not stall it", async () => {
      // 6,000 entries over the 3-day horizon: the oldest rung, open below, and the one above it
      // answer in turn for many pages; each waiting for the other would leave one window in flight.
      const { dlq, clock } = setup(DISTRIBUTIONS.uniform3d(6_000));
      const inFlight: number[] = [];
      await run(dlq, clock, {
        concurrency: 8,
        onPage: (e) => void (e.requestCount > 30 && e.requestCount <= 60 && inFlight.push(e.windowsInFlight)),
      });
      assertExactlyOnce(dlq);
      const mean = inFlight.reduce((a, b) => a + b, 0) / inFlight.length;
      assert.ok(mean >= 4, `${mean.toFixed(1)} windows in flight on average, pages 31 to 60`);
    });

    it("starts whole when maxRuns or maxRequests allow one request in flight, as many rungs as they allow", async () => {
      for (const [opts, rungs] of [
        [{ maxRuns: 50 }, 1],
        [{ maxRequests: 1 }, 1],
        [{ maxRuns: 150 }, 3],
      ] as const) {
        const { dlq, clock } = setup(DISTRIBUTIONS.uniform3d(10));
        await run(dlq, clock, { concurrency: 16, horizonMs: 90 * DAY, ...opts }, undefined, {});
        assertExactlyOnce(dlq);
        assert.deepEqual(
          dlq.requests.slice(0, rungs).map((r) => r.window),
          rungs === 1 ? [{}] : splitOpenBelow({}, rungs, NOW, 90 * DAY),
          JSON.stringify(opts),
        );
      }
    });

    it("costs one request for up to 50 entries with a fromDate: the first window is the whole selection", async () => {
      for (const n of [0, 1, 50]) {
        const { dlq, clock } = setup(DISTRIBUTIONS.uniform3d(n));
        const selection = { fromDate: NOW - 4 * DAY };
        const res = await run(dlq, clock, { concurrency: 16 }, undefined, selection);
        assert.equal(res.requestCount, 1);
        assert.deepEqual(dlq.requests[0].window, rootWindow(selection));
      }
    });
  });

  describe("concurrency: 1 is the sequential drain", () => {
    for (const n of [0, 1, 50, 51, 237, 5_000]) {
      it(`N=${n}: exactly ceil(N/50) requests, one cursor, the same requests as drainPages`, async () => {
        const selection = { fromDate: NOW - 4 * DAY, workflowUrl: "u" };
        const times = DISTRIBUTIONS.bursts3(n);
        const { dlq, clock } = setup(times);
        const res = await run(dlq, clock, { concurrency: 1 }, undefined, selection);
        assertExactlyOnce(dlq);
        assert.equal(res.requestCount, Math.max(1, Math.ceil(n / 50)));
        assert.equal(res.splits, 0);
        assert.equal(res.maxInFlight, 1);
        const root = rootWindow(selection);
        assert.ok(dlq.requests.every((r) => key(r.window) === key(root)));

        const ref = new FakeDlq(times);
        const seq = await drainPages((cursor, state) => ref.step(root, cursor, state));
        assert.deepEqual(
          dlq.requests.map((r) => [key(r.window), r.cursor]),
          ref.requests.map((r) => [key(r.window), r.cursor]),
        );
        assert.equal(seq.requestCount, res.requestCount);
      });
    }

    it("drains saved windows one at a time, each with its own cursor", async () => {
      const { dlq, clock } = setup(DISTRIBUTIONS.uniform3d(1_000));
      const first = await partial(run(dlq, clock, { concurrency: 8, maxRequests: 6 }));
      const state = first.progress.windowState!;
      assert.ok(state.windows.length > 1);
      const before = dlq.requests.length;
      const res = await run(dlq, clock, { concurrency: 1, state });
      assertExactlyOnce(dlq);
      assert.equal(res.maxInFlight, 1);
      assert.equal(res.splits, 0);
      const later = dlq.requests.slice(before).map((r) => key(r.window));
      // Windows are worked in order and each is finished before the next starts.
      const order = [...new Set(later)];
      assert.deepEqual(order, state.windows.map(key));
    });
  });

  describe("failures keep exact counts and the state to continue from", () => {
    it("a failing request stops new requests; those in flight finish and are counted", async () => {
      const n = 10_000;
      const { dlq, clock } = setup(DISTRIBUTIONS.uniform3d(n));
      const failAt = 40;
      let startedBeforeFailure = -1;
      dlq.fault = (i, state) => {
        if (i === failAt) {
          startedBeforeFailure = dlq.requests.length;
          state.ambiguous = true;
          throw new SvcError("SVC_SERVER_ERROR", "injected 500 after retries", { ambiguous: true });
        }
      };
      const f = await partial(run(dlq, clock, { concurrency: 8 }));
      assert.ok(f.error instanceof SvcError && f.error.code === "SVC_SERVER_ERROR");
      const p = f.progress as WindowDrainProgress;
      assert.equal(dlq.requests.length, startedBeforeFailure, "no request started after the failure");
      assert.ok(startedBeforeFailure > failAt + 1, "other windows were in flight");
      assert.equal(p.requestCount, dlq.requests.length - 1, "every answered request counted");
      assert.equal(p.resumedCount, n - dlq.remaining, "every resumed run counted");
      assert.equal(p.ambiguousRequests, 1, "the failed request had an ambiguous attempt");
      assert.ok(p.windowState.windows.length > 1, "windows were in flight");
      assert.ok(JSON.stringify(p.windowState).length < 4096, "the state is a few kB at most");

      dlq.fault = undefined;
      const rest = await run(dlq, clock, { concurrency: 8, state: p.windowState });
      assertExactlyOnce(dlq);
      assert.equal(p.resumedCount + rest.resumedCount, n);
      assert.ok(p.requestCount + rest.requestCount <= bound(n));
    });

    it("a cut-off by onPage (a checkpoint that failed) continues from the state exactly once", async () => {
      const n = 8_000;
      const { dlq, clock } = setup(DISTRIBUTIONS.bursts3(n));
      const boom = new Error("checkpoint failed");
      const f = await partial(
        run(dlq, clock, {
          concurrency: 16,
          onPage: (e) => {
            if (e.requestCount === 60) throw boom;
          },
        }),
      );
      assert.equal(f.error, boom);
      const p = f.progress as WindowDrainProgress;
      assert.ok(p.requestCount >= 60);
      const rest = await run(dlq, clock, { concurrency: 16, state: p.windowState });
      assertExactlyOnce(dlq);
      assert.equal(p.resumedCount + rest.resumedCount, n);
      assert.ok(p.requestCount + rest.requestCount <= bound(n));
    });

    it("a killed drain continues from its last reported state: nothing lost or resumed twice", async () => {
      const n = 6_000;
      const { dlq, clock } = setup(DISTRIBUTIONS.uniform3d(n));
      let checkpoint: WindowPageEvent["state"] | undefined;
      let inFlightAtCheckpoint = 0;
      const killed = new Error("killed");
      await partial(
        run(dlq, clock, {
          concurrency: 8,
          onPage: (e) => {
            if (e.requestCount === 50) {
              checkpoint = e.state;
              inFlightAtCheckpoint = e.windowsInFlight;
            }
            // Everything after the checkpoint is lost with the process.
            if (e.requestCount > 50) throw killed;
          },
        }),
      );
      assert.ok(inFlightAtCheckpoint > 1, "windows were in flight at the cut-off");
      const reported = dlq.requests.slice(0, 50).reduce((s, r) => s + r.runs, 0);
      const rest = await run(dlq, clock, { concurrency: 8, state: checkpoint });
      assertExactlyOnce(dlq);
      assert.ok(reported + rest.resumedCount <= n);
    });

    it("an aborted drain (SIGINT) stops launching, records requests in flight, and continues", async () => {
      const n = 5_000;
      const { dlq, clock } = setup(DISTRIBUTIONS.burst20s(n));
      const abort = new AbortController();
      const f = await partial(
        run(dlq, clock, {
          concurrency: 8,
          signal: abort.signal,
          onPage: (e) => {
            if (e.requestCount === 30) abort.abort();
          },
        }),
      );
      assert.ok(f.error instanceof SvcError && f.error.code === "SVC_ABORTED");
      assert.equal(f.progress.requestCount, dlq.requests.length);
      const rest = await run(dlq, clock, { concurrency: 8, state: f.progress.windowState });
      assertExactlyOnce(dlq);
      assert.equal(f.progress.resumedCount + rest.resumedCount, n);
    });

    it("counts a lost answer as ambiguous once; its runs are missing from the counts, not resumed twice", async () => {
      const n = 3_000;
      const { dlq, clock } = setup(DISTRIBUTIONS.uniform3d(n));
      const lost = new Set([3, 10, 25]);
      dlq.loseAnswer = (i) => lost.has(i);
      const res = await run(dlq, clock, { concurrency: 8 });
      assertExactlyOnce(dlq);
      assert.equal(res.ambiguousRequests, lost.size);
      const unreported = [...lost].reduce((s, i) => s + dlq.requests[i].runs, 0);
      assert.equal(res.resumedCount, n - unreported);
    });

    it("stops a window whose cursor repeats (SVC_CURSOR_LOOP) and reports where it was", async () => {
      const step = async (_w: DrainWindow, _c: string | undefined, _s: CallState): Promise<ResumePage> => ({
        cursor: "same",
        workflowRuns: [],
      });
      const clock = new VirtualClock();
      // One window: a selection with a fromDate starts whole (one open below starts as its ladder).
      const selection = { fromDate: NOW - DAY };
      const f = await partial(clock.run(drainWindows(selection, step, undefined, { concurrency: 4 })));
      assert.ok(f.error instanceof SvcError && f.error.code === "SVC_CURSOR_LOOP");
      assert.match((f.error as Error).message, /already used/);
      assert.deepEqual(f.progress.windowState?.windows, [{ ...rootWindow(selection), cursor: "same" }]);
      assert.equal(f.progress.cursor, "same");
      assert.equal(f.progress.requestCount, 2);
    });

    it("stops after maxRequests with SVC_CURSOR_LOOP and the state", async () => {
      const { dlq, clock } = setup(DISTRIBUTIONS.uniform3d(500));
      const f = await partial(run(dlq, clock, { concurrency: 1, maxRequests: 3 }));
      assert.ok(f.error instanceof SvcError && f.error.code === "SVC_CURSOR_LOOP");
      assert.match((f.error as Error).message, /maxRequests=3/);
      assert.equal(f.progress.requestCount, 3);
      assert.equal(f.progress.cursor, dlq.requests[2].cursorOut);
    });

    it("restarts a window without its saved cursor when the service refuses it (400)", async () => {
      const n = 400;
      const { dlq, clock } = setup(DISTRIBUTIONS.uniform3d(n));
      const refused: DrainWindow[] = [];
      const state = {
        version: 1 as const,
        windows: [{ to: NOW - DAY, cursor: "stale" }, { from: NOW - DAY + 1 }],
        runs: 0,
        shortfall: 0,
      };
      const res = await run(dlq, clock, { concurrency: 4, state, onCursorRefused: (w) => refused.push(w) });
      assertExactlyOnce(dlq);
      assert.deepEqual(refused, [{ to: NOW - DAY }]);
      assert.equal(res.resumedCount, n);
      // Also a sequential drain's saved cursor.
      const again = setup(DISTRIBUTIONS.uniform3d(n));
      const seq = await run(again.dlq, again.clock, { concurrency: 1, startCursor: "stale" });
      assertExactlyOnce(again.dlq);
      assert.equal(seq.requestCount, Math.ceil(n / 50));
    });
  });

  describe("clustered failures, whatever the run IDs look like", () => {
    /** A one-second outage of `n` entries with run IDs of `shape`, 50 to 58 ms a request. */
    function outage(n: number, shape: RunIdShape): { dlq: FakeDlq; clock: VirtualClock } {
      const times = DISTRIBUTIONS.outage2h(n);
      const ids = new RunIdMaker(shape, mulberry32(3)).name(times);
      const dlq = new FakeDlq(times, (i) => ids[i]);
      const clock = new VirtualClock();
      const r = prng(7);
      dlq.delay = () => clock.sleep(50 + Math.floor(r() * 9));
      return { dlq, clock };
    }

    it("drains an outage in the same requests and time on every run-ID shape, within the allowance", async () => {
      const n = 5_000;
      const seen: string[] = [];
      for (const shape of ["sdk", "app", "mixed", "numeric", "hex"] as const) {
        const { dlq, clock } = outage(n, shape);
        const started = clock.now;
        const res = await run(dlq, clock, { concurrency: 16 }, undefined, {});
        assertExactlyOnce(dlq);
        assert.ok(res.requestCount <= bound(n), `${shape}: ${res.requestCount} requests > ${bound(n)}`);
        assert.ok(
          dlq.requests.every((q) => q.window.runIdPrefix === undefined),
          "no window by run ID",
        );
        seen.push(`${res.requestCount} requests, ${clock.now - started} ms`);
      }
      assert.equal(new Set(seen).size, 1, seen.join("; "));
    });

    it("narrows the outage by halving the window it is in at its middle, one empty half a round trip", async () => {
      const { dlq, clock } = outage(5_000, "app");
      await run(dlq, clock, { concurrency: 16 }, undefined, {});
      // Bounded windows opened without a cursor, in the order sent: a halving sends both halves.
      const first = dlq.requests.filter((q) => q.cursor === undefined && q.window.from !== undefined);
      let halvings = 0;
      for (let i = 1; i < first.length; i++) {
        const [a, b] = [first[i - 1].window, first[i].window];
        if (a.to === undefined || b.from !== a.to + 1 || b.to === undefined) continue;
        const [wa, wb] = [a.to - a.from! + 1, b.to - b.from + 1];
        if (wa < 2_000 || Math.abs(wa - wb) > 1) continue;
        halvings += 1;
        assert.ok(first[i - 1].runs === 0 || first[i].runs === 0 || wa < 2_000, "one half holds the outage");
      }
      assert.ok(halvings >= 10, `${halvings} halvings of windows wider than the outage`);
    });

    it("stays within the allowance on numbered run IDs (wfr_ + ten digits)", async () => {
      // No planner rule fans a window out by run-ID hex digit: on these run IDs the pieces after
      // `wfr_` + a to f would come back empty and the fanned window would find runs when sent
      // again, a request the budget does not reserve: one over the allowance.
      for (const [name, n] of [
        ["bursts3", 20_000],
        ["outage2h", 20_000],
        ["bursts3", 6_000],
      ] as const) {
        for (const seed of [7, 8, 9]) {
          const times = DISTRIBUTIONS[name](n, seed);
          const dlq = new FakeDlq(times, (i) => `wfr_${String(1_000_000 + i).padStart(10, "0")}`);
          const clock = new VirtualClock();
          const r = prng(seed);
          dlq.delay = () => clock.sleep(50 + Math.floor(r() * 9));
          const res = await run(dlq, clock, { concurrency: 16 }, undefined, {});
          assertExactlyOnce(dlq);
          assert.ok(
            res.requestCount <= bound(n),
            `${name}, ${n}, seed ${seed}: ${res.requestCount} requests > ${bound(n)}`,
          );
        }
      }
    });
  });

  describe("splitting", () => {
    it("does not split while requests wait at the rate gate (the rate, not latency, bounds the drain)", async () => {
      const { dlq, clock } = setup(DISTRIBUTIONS.uniform3d(2_000));
      // A fromDate: one window to start from (one open below starts as its ladder).
      const selection = { fromDate: NOW - 4 * DAY };
      const res = await run(dlq, clock, { concurrency: 8 }, { waiting: 3, ratePerSecond: 100 }, selection);
      assertExactlyOnce(dlq);
      assert.equal(res.splits, 0);
      assert.equal(res.requestCount, 40);
    });

    it("reports progress and a bounded, ordered, disjoint state after every page", async () => {
      const n = 4_000;
      const { dlq, clock } = setup(DISTRIBUTIONS.bursts3(n));
      const events: WindowPageEvent[] = [];
      const res = await run(dlq, clock, {
        concurrency: 16,
        keepRuns: false,
        // `state` is computed when read: the spread reads it in the callback, as of this page.
        onPage: (e) => void events.push({ ...e }),
      });
      assert.equal(res.runs.length, 0);
      assert.equal(res.resumedCount, n);
      assert.equal(events.length, res.requestCount);
      events.forEach((e, i) => {
        assert.equal(e.requestCount, i + 1);
        assert.ok(e.windowsOpen >= e.windowsInFlight);
        assert.equal(e.concurrency, 16, "the option, as the drain applied it");
        // The pieces of a fan-out by run ID are saved as the one window they were fanned from.
        assert.ok(e.state.windows.length >= 1 || e.windowsOpen === 0);
        assert.ok(e.state.windows.length <= e.windowsOpen);
        assert.ok(JSON.stringify(e.state).length < 4096);
        for (let j = 1; j < e.state.windows.length; j++) {
          assert.ok(e.state.windows[j].from! > e.state.windows[j - 1].to!, "ordered and disjoint");
        }
      });
      assert.equal(events.at(-1)!.resumedCount, n);
      assert.deepEqual(events.at(-1)!.state.windows, []);
      assert.ok(Math.max(...events.map((e) => e.windowsInFlight)) > 1);
    });
  });

  describe("arguments", () => {
    const clock = new VirtualClock();
    const dlq = new FakeDlq([]);
    const refused = async (p: Promise<unknown>, what: RegExp) => {
      await assert.rejects(p, (e: unknown) => {
        assert.ok(e instanceof SvcError && e.code === "SVC_INVALID_ARGUMENT");
        assert.match(e.message, what);
        return true;
      });
    };

    it("refuses dlqIds, bad counts, and a state with a cursor", async () => {
      await refused(drainWindows({ dlqIds: ["a"] }, dlq.step, undefined), /dlqIds/);
      await refused(drainWindows({}, dlq.step, undefined, { concurrency: 0 }), /concurrency/);
      await refused(drainWindows({}, dlq.step, undefined, { windowAllowance: 0 }), /windowAllowance/);
      await refused(drainWindows({}, dlq.step, undefined, { dailyLimit: 0 }), /dailyLimit/);
      await refused(drainWindows({}, dlq.step, undefined, { dailyLimit: 1.5 }), /dailyLimit/);
      await refused(
        drainWindows({}, dlq.step, undefined, {
          startCursor: "c",
          state: { version: 1, windows: [], runs: 0, shortfall: 0 },
        }),
        /state.*startCursor/,
      );
      await refused(
        drainWindows({ fromDate: 100 }, dlq.step, undefined, {
          state: { version: 1, windows: [{ from: 5 }], runs: 0, shortfall: 0 },
        }),
        /fromDate/,
      );
      await clock.run(Promise.resolve());
    });
  });
});
