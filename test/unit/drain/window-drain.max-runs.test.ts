/**
 * The windowed drain's `maxRuns`: it stops starting requests once the runs resumed and 50 per
 * request in flight reach the cap, returns (no failure) with `stoppedAtMaxRuns` and the state to
 * continue from, and a continuation without the cap resumes the rest, each entry once.
 */
import { strict as assert } from "node:assert";
import { drainWindows } from "../../../drain/windowDrain";
import type { UnpacedWindowDrainOptions } from "../../../drain/types";
import { DAY, DISTRIBUTIONS, FakeDlq, VirtualClock, prng } from "../../../bench/lib/windowSim";

function setup(times: number[], seed = 7): { dlq: FakeDlq; clock: VirtualClock } {
  const dlq = new FakeDlq(times);
  const clock = new VirtualClock();
  const r = prng(seed);
  dlq.delay = () => clock.sleep(20 + Math.floor(r() * 60));
  return { dlq, clock };
}

function run(dlq: FakeDlq, clock: VirtualClock, opts: UnpacedWindowDrainOptions) {
  return clock.run(
    drainWindows({}, dlq.step, undefined, { now: () => clock.now, horizonMs: 3 * DAY, ...opts }),
  );
}

describe("drain/windowDrain: maxRuns", () => {
  for (const concurrency of [1, 16]) {
    it(`stops at the first whole request at or past the cap, then continues each entry once (concurrency ${concurrency})`, async () => {
      const n = 3_000;
      const cap = 1_010;
      const { dlq, clock } = setup(DISTRIBUTIONS.uniform3d(n));
      const first = await run(dlq, clock, { concurrency, maxRuns: cap });
      assert.equal(first.stoppedAtMaxRuns, true);
      assert.ok(first.resumedCount >= cap, `${first.resumedCount} runs, below the cap`);
      assert.ok(
        first.resumedCount < cap + 50,
        `${first.resumedCount} runs: more than one request past the cap`,
      );
      assert.equal(first.requestCount, dlq.requests.length);
      assert.ok(first.windowState.windows.length > 0, "where it stopped is saved");
      const rest = await run(dlq, clock, { concurrency, state: first.windowState });
      assert.equal(rest.stoppedAtMaxRuns, undefined);
      assert.equal(first.resumedCount + rest.resumedCount, n);
      assert.equal(dlq.duplicates, 0);
      assert.equal(dlq.remaining, 0);
    });
  }

  it("a cap the selection does not reach completes the drain", async () => {
    const { dlq, clock } = setup(DISTRIBUTIONS.uniform3d(400));
    const res = await run(dlq, clock, { concurrency: 4, maxRuns: 400 });
    assert.equal(res.resumedCount, 400);
    assert.equal(res.stoppedAtMaxRuns, undefined);
    assert.deepEqual(res.windowState.windows, []);
  });

  it("a cap already reached sends nothing", async () => {
    const { dlq, clock } = setup(DISTRIBUTIONS.uniform3d(100));
    const res = await run(dlq, clock, { concurrency: 4, maxRuns: 0 });
    assert.equal(dlq.requests.length, 0);
    assert.equal(res.stoppedAtMaxRuns, true);
  });
});
