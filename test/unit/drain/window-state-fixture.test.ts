/**
 * A `windowState` saved by an earlier planner (`test/fixtures/windowState-v1.json`, whose `about`
 * says how it was made) still continues: every entry the cut-off drain left is
 * resumed exactly once, with no window overlap, within the request bound.
 */
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import type { WindowDrainState } from "../../../drain/types";
import { drainWindows } from "../../../drain/windowDrain";
import { DAY, DISTRIBUTIONS, FakeDlq, VirtualClock, prng } from "../../../bench/lib/windowSim";

interface SavedCase {
  distribution: string;
  seed: number;
  n: number;
  reported: number;
  state: WindowDrainState;
  ranges: [number, number][];
}

const FIXTURE = path.join(__dirname, "../../fixtures/windowState-v1.json");
const cases = (JSON.parse(fs.readFileSync(FIXTURE, "utf8")) as { states: SavedCase[] }).states;

describe("drain/windowDrain: a windowState saved by the previous planner (fixture)", () => {
  for (const c of cases) {
    for (const concurrency of [1, 16]) {
      it(`${c.distribution}, ${c.n} entries, ${c.state.windows.length} saved windows, concurrency ${concurrency}`, async () => {
        const dlq = new FakeDlq(DISTRIBUTIONS[c.distribution](c.n, c.seed));
        for (const [from, to] of c.ranges) dlq.markResumed(from, to);
        const left = dlq.remaining;
        const clock = new VirtualClock();
        const r = prng(3);
        dlq.delay = () => clock.sleep(20 + Math.floor(r() * 60));
        const rest = await clock.run(
          drainWindows({}, dlq.step, undefined, {
            now: () => clock.now,
            horizonMs: 3 * DAY,
            concurrency,
            keepRuns: false,
            state: c.state,
          }),
        );
        assert.equal(dlq.duplicates, 0, "no entry resumed twice");
        assert.equal(dlq.remaining, 0, "every entry resumed");
        assert.equal(dlq.overlaps, 0, "requests in flight target disjoint windows");
        assert.equal(rest.resumedCount, left);
        assert.deepEqual(rest.windowState.windows, []);
        // Each saved window ends with one page that is not full; splits stay within the budget.
        assert.ok(rest.requestCount <= Math.ceil(left / 50) + c.state.windows.length + 8);
        // A saved cursor is used as it was saved: the first request of its window carries it.
        for (const w of c.state.windows.filter((s) => s.cursor !== undefined)) {
          const first = dlq.requests.find((q) => q.window.from === w.from && q.window.to === w.to);
          assert.equal(first?.cursor, w.cursor);
        }
      });
    }
  }
});
