/**
 * How many requests a drain keeps in flight: about the rate times the measured round trip plus the
 * gate's backlog, never more than `concurrency` (default `MAX_IN_FLIGHT`), for windows of a filter
 * drain and `dlqIds` batches alike; and the rate is never exceeded (the gate paces every request).
 */
import { strict as assert } from "node:assert";
import { SvcError } from "../../../client";
import type { CallState } from "../../../client/request";
import { resumeBatches } from "../../../drain/batches";
import {
  MAX_IN_FLIGHT,
  RoundTripFloor,
  checkConcurrency,
  gateBacklog,
  inFlightFor,
} from "../../../drain/inFlight";
import { TaskPool } from "../../../drain/pool";
import { RateGate } from "../../../drain/rateGate";
import { drainWindows } from "../../../drain/windowDrain";
import { targetWindows } from "../../../drain/windowPlan";
import { DAY, DISTRIBUTIONS, FakeDlq, VirtualClock } from "../../../bench/lib/windowSim";
import { SecondLimit } from "../../../bench/lib/simAccount";

/** An account on a virtual clock: `rate` a second enforced per unix second, `rttMs` a request. */
function account(rate: number, rttMs: number) {
  const clock = new VirtualClock();
  const gate = new RateGate({ now: () => clock.now, sleep: clock.sleep });
  const limit = new SecondLimit(rate);
  const flight = { now: 0, most: 0 };
  /** Through the gate and the limit (a 429 is retried), then a round trip. */
  const pass = async (): Promise<void> => {
    for (;;) {
      await gate.acquire();
      const { status, headers } = limit.arrive(clock.now);
      flight.now += 1;
      flight.most = Math.max(flight.most, flight.now);
      await clock.sleep(rttMs);
      flight.now -= 1;
      gate.observe(status, headers);
      if (status !== 429) return;
    }
  };
  return { clock, gate, limit, flight, pass };
}

describe("drain/inFlight: requests in flight follow the rate and the round trip", () => {
  it("keeps ceil(rate × round trip) plus the gate's backlog, within 1 and the cap", () => {
    assert.equal(gateBacklog(100), 2, "two requests wait 20 ms at 100 a second");
    assert.equal(gateBacklog(500), 10, "as long a wait at 500 a second");
    assert.equal(gateBacklog(undefined), 2);
    // With the round trip: half of what the gate lets through in one waits as answers bunch.
    assert.equal(gateBacklog(100, 54), 2, "section 9's backlog stays 2");
    assert.equal(gateBacklog(100, 80), 2, "up to 8 in flight, whatever the wait at a shared gate");
    assert.equal(gateBacklog(100, 150), 7);
    assert.equal(gateBacklog(500, 150), 37);
    assert.equal(inFlightFor(100, 50), 7);
    assert.equal(inFlightFor(100, 150), 17);
    assert.equal(inFlightFor(500, 150), 85);
    assert.equal(inFlightFor(500, 150, 32), 32, "concurrency caps it");
    assert.equal(inFlightFor(500, 10_000), MAX_IN_FLIGHT, "never more than MAX_IN_FLIGHT");
    assert.equal(inFlightFor(0.001, 0), 2);
    assert.equal(MAX_IN_FLIGHT, 256);
    // The planner's windows follow the same rule.
    assert.equal(targetWindows(MAX_IN_FLIGHT, { ratePerSecond: 500, roundTripMs: 150 }), 85);
    assert.equal(targetWindows(16, { ratePerSecond: 500, roundTripMs: 150 }), 16);
    assert.equal(targetWindows(16, { ratePerSecond: 100, roundTripMs: 54 }), 8, "section 9's 8 windows");
  });

  it("measures the floor of recent round trips: down at once, up 5 % an answer", () => {
    const rtt = new RoundTripFloor();
    assert.equal(rtt.ms, undefined);
    assert.equal(rtt.add(150), 150);
    assert.equal(rtt.add(400), 157.5, "a request that waited at the gate lifts it a little");
    assert.equal(rtt.add(120), 120);
  });

  it("refuses a `concurrency` outside 1 to 256, naming the range and what unset means", () => {
    for (const bad of [0, 257, 1.5, -1]) {
      assert.throws(
        () => checkConcurrency(bad),
        (e: unknown) =>
          e instanceof SvcError &&
          /`concurrency` must be an integer from 1 to 256 .*unset: about the rate × the round trip/.test(
            e.message,
          ),
      );
    }
    for (const ok of [undefined, 1, 256]) checkConcurrency(ok);
  });

  it("a pool's limit may be a function, read before each start", async () => {
    let limit = 2;
    let running = 0;
    const seen: number[] = [];
    let left = 12;
    await new TaskPool(() => limit).run({
      take: () => (left-- > 0 ? left : undefined),
      start: async () => {
        running += 1;
        seen.push(running);
        await new Promise((r) => setImmediate(r));
        running -= 1;
      },
      settle: () => void (limit = 5),
    });
    assert.equal(seen[0], 1);
    assert.equal(Math.max(...seen), 5);
  });

  describe("`dlqIds` batches", () => {
    const step = (a: ReturnType<typeof account>) => async (dlqIds: string[], _c: unknown, s: CallState) => {
      await a.pass();
      s.attempts += 1;
      return {
        cursor: undefined,
        workflowRuns: dlqIds.map((id) => ({ workflowRunId: `wfr_${id}`, workflowCreatedAt: 0 })),
      };
    };
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `dlq_${i}`);

    for (const [rate, rtt] of [
      [500, 150],
      [100, 150],
      [100, 50],
    ] as const) {
      // Past the gate, as many as the rate lets through in a round trip; the backlog waits at it.
      const need = (rate * rtt) / 1000;
      it(`keep about ${need} past the gate at ${rate} a second and ${rtt} ms, no 429, each ID once`, async () => {
        const a = account(rate, rtt);
        const p = await a.clock.run(
          resumeBatches(ids(10_000), step(a), { gate: a.gate, now: () => a.clock.now, keepRuns: false }),
        );
        assert.equal(p.resumedCount, 10_000);
        assert.equal(p.requestCount, 200);
        assert.equal(a.limit.limited, 0, "never more than the rate allows");
        assert.ok(
          a.flight.most >= need - 2 && a.flight.most <= inFlightFor(rate, rtt),
          `${a.flight.most} in flight`,
        );
      });
    }

    it("`concurrency` caps them; without a gate they keep `concurrency`, or 4", async () => {
      const a = account(500, 150);
      await a.clock.run(
        resumeBatches(ids(5_000), step(a), { gate: a.gate, now: () => a.clock.now, concurrency: 8 }),
      );
      assert.equal(a.flight.most, 8);
      const b = account(500, 150);
      await b.clock.run(resumeBatches(ids(5_000), step(b), { now: () => b.clock.now }));
      assert.equal(b.flight.most, 4);
    });
  });

  it("a filter drain keeps more than 32 windows in flight at 500 a second and 150 ms, no 429", async () => {
    const a = account(500, 150);
    const dlq = new FakeDlq(DISTRIBUTIONS.uniform3d(20_000));
    dlq.delay = () => a.pass();
    const res = await a.clock.run(
      drainWindows({}, dlq.step, a.gate, { horizonMs: 3 * DAY, keepRuns: false, now: () => a.clock.now }),
    );
    assert.equal(dlq.remaining, 0);
    assert.equal(dlq.duplicates, 0);
    assert.equal(dlq.overlaps, 0);
    assert.equal(a.limit.limited, 0);
    // About 85 and more: the round trip the drain measures varies with the jitter and the gate's
    // wait, which grows while the windows the gate needs open within a round trip.
    assert.ok(
      res.maxInFlight > 32 && res.maxInFlight <= inFlightFor(500, 200),
      `${res.maxInFlight} windows in flight at most`,
    );
  });
});
