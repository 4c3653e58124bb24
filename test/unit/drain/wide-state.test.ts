/**
 * A saved state holds what a wide drain has open: a drain with more windows open than
 * `MAX_SAVED_WINDOWS`, cut off, saves neighbours merged (without their cursors) and the next drain
 * continues each entry once; a state saved by an earlier version (the v1 fixture) still loads.
 */
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import type { OpenWindow, WindowDrainState } from "../../../drain/types";
import { drainWindows } from "../../../drain/windowDrain";
import { RateGate } from "../../../drain/rateGate";
import { requestAllowance, validateWindowState } from "../../../drain/windows";
import { fitWindowState } from "../../../drain/savedState";
import { DAY, DISTRIBUTIONS, FakeDlq, VirtualClock } from "../../../bench/lib/windowSim";
import { SecondLimit } from "../../../bench/lib/simAccount";
import { MAX_SAVED_WINDOWS } from "../../../drain/planKnobs";

const w = (from: number, to: number, cursor?: string): OpenWindow => ({
  from,
  to,
  ...(cursor ? { cursor } : {}),
});

describe("drain/windows: the saved state of a wide drain", () => {
  it("keeps a state of at most MAX_SAVED_WINDOWS windows as it is", () => {
    const state: WindowDrainState = {
      version: 1,
      windows: [w(0, 9, "c"), w(20, 29)],
      runs: 600,
      shortfall: 40,
    };
    assert.equal(fitWindowState(state), state);
    assert.equal(MAX_SAVED_WINDOWS, 64);
  });

  it("merges neighbours without cursors first, then the narrowest, keeping the open bounds", () => {
    const state: WindowDrainState = {
      version: 1,
      windows: [
        { to: 9, cursor: "a" },
        w(10, 19, "b"),
        w(30, 39),
        w(40, 99),
        w(100, 109, "c"),
        { from: 200 },
      ],
      runs: 900,
      shortfall: 120,
    };
    const fit = fitWindowState(state, 4);
    assert.deepEqual(fit.windows, [{ to: 9, cursor: "a" }, w(10, 19, "b"), w(30, 109), { from: 200 }]);
    assert.equal(fit.runs, 900);
    assert.equal(fit.shortfall, 120);
    assert.deepEqual(fitWindowState(state, 1).windows, [{}], "down to the whole selection");
    // What it saves is a valid state of the selection.
    validateWindowState(fit, {});
  });

  it("merges 300 windows with cursors down to 64, disjoint and in order", () => {
    const windows = Array.from({ length: 300 }, (_, i) => w(i * 100, i * 100 + 49, `c${i}`));
    const fit = fitWindowState({ version: 1, windows, runs: 20_000, shortfall: 0 });
    assert.equal(fit.windows.length, MAX_SAVED_WINDOWS);
    assert.equal(fit.windows[0].from, 0);
    assert.equal(fit.windows[63].to, 29_949);
    assert.deepEqual(validateWindowState(fit, {}).windows, fit.windows);
    assert.ok(JSON.stringify(fit).length < 4096, "a few kB");
  });

  it("a drain with more windows open than MAX_SAVED_WINDOWS, cut off, continues each entry once", async () => {
    const clock = new VirtualClock();
    const gate = new RateGate({ now: () => clock.now, sleep: clock.sleep });
    const limit = new SecondLimit(500);
    const dlq = new FakeDlq(DISTRIBUTIONS.uniform3d(100_000));
    // 500 requests a second, 300 ms: 150 in flight needed, more than 64 windows open.
    dlq.delay = async () => {
      for (;;) {
        await gate.acquire();
        const { status, headers } = limit.arrive(clock.now);
        await clock.sleep(300);
        gate.observe(status, headers);
        if (status !== 429) return;
      }
    };
    const abort = new AbortController();
    let widest = 0;
    const opts = { horizonMs: 3 * DAY, keepRuns: false, now: () => clock.now };
    const err = await clock
      .run(
        drainWindows({}, dlq.step, gate, {
          ...opts,
          signal: abort.signal,
          onPage: (e) => {
            widest = Math.max(widest, e.windowsOpen);
            assert.ok(e.state.windows.length <= MAX_SAVED_WINDOWS);
            // Ctrl-C mid-drain, while more windows are open than a saved state held before.
            if (e.windowsOpen > MAX_SAVED_WINDOWS * 1.5) abort.abort();
          },
        }),
      )
      .then(
        () => assert.fail("the drain should have been cut off"),
        (e: unknown) => e,
      );
    assert.ok(err instanceof Error && "progress" in err, String(err));
    const progress = (
      err as { progress: { windowState: WindowDrainState; resumedCount: number; requestCount: number } }
    ).progress;
    assert.ok(widest > MAX_SAVED_WINDOWS, `${widest} windows open at most`);
    const saved = JSON.parse(JSON.stringify(progress.windowState)) as WindowDrainState;
    assert.ok(saved.windows.length <= MAX_SAVED_WINDOWS && saved.windows.length > 1);
    assert.ok(dlq.remaining > 0);

    const rest = await clock.run(drainWindows({}, dlq.step, gate, { ...opts, state: saved }));
    assert.equal(dlq.duplicates, 0, "no entry resumed twice");
    assert.equal(dlq.remaining, 0, "every entry resumed");
    assert.equal(dlq.overlaps, 0);
    assert.equal(progress.resumedCount + rest.resumedCount, 100_000);
    const most = requestAllowance(100_000, rest.budgetNet ?? {});
    assert.ok(
      progress.requestCount + rest.requestCount <= most,
      `${progress.requestCount + rest.requestCount} > ${most}`,
    );
  });

  it("a state saved by an earlier version (v1 fixture) still loads", () => {
    const fixture = path.join(__dirname, "../../fixtures/windowState-v1.json");
    const cases = (JSON.parse(fs.readFileSync(fixture, "utf8")) as { states: { state: WindowDrainState }[] })
      .states;
    assert.ok(cases.length > 0);
    for (const c of cases) assert.deepEqual(fitWindowState(validateWindowState(c.state, {})), c.state);
  });
});
