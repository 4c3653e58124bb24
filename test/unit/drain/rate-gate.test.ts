import { strict as assert } from "node:assert";
import { SvcError, parseRateLimitHeaders } from "../../../client";
import { CAUTIOUS_START_RATE, RateGate, RateGateRegistry, accountKey } from "../../../drain";
import { capped } from "../../../drain/rateGate";
import { serverWaitHint } from "../../../client/retry";
import { VirtualClock } from "../../../bench/lib/windowSim";

/** Unix seconds → the header value. */
const secs = (ms: number): string => String(Math.ceil(ms / 1000));

/** Acquires `n` times at once and returns each release time, relative to the start, in call order. */
async function releases(gate: RateGate, clock: VirtualClock, n: number): Promise<number[]> {
  const start = clock.now;
  const times: number[] = new Array(n);
  await clock.run(
    Promise.all(
      Array.from({ length: n }, (_, i) => gate.acquire().then(() => (times[i] = clock.now - start))),
    ),
  );
  return times;
}

function gaps(times: number[]): number[] {
  return times.slice(1).map((t, i) => t - times[i]);
}

describe("drain/rateGate", () => {
  let clock: VirtualClock;
  let gate: RateGate;
  const make = (limit?: number): RateGate =>
    new RateGate({ ...(limit !== undefined ? { limit } : {}), now: () => clock.now, sleep: clock.sleep });
  beforeEach(() => {
    clock = new VirtualClock(1_750_000_000_250);
  });

  it("spaces releases evenly at an explicit limit, first come first served", async () => {
    gate = make(100);
    const order: number[] = [];
    await clock.run(
      Promise.all(Array.from({ length: 6 }, (_, i) => gate.acquire().then(() => void order.push(i)))),
    );
    assert.deepEqual(order, [0, 1, 2, 3, 4, 5]);
    assert.deepEqual(await releases(gate, clock, 5), [10, 20, 30, 40, 50]);
    assert.equal(gate.ratePerSecond, 100);
    assert.equal(gate.stats().released, 11);
    assert.equal(gate.waiting, 0);
  });

  it("keeps to its schedule when its timers fire late, so the rate stays at the limit", async () => {
    // Node's timers fire a millisecond or two after the time asked for.
    gate = new RateGate({ limit: 100, now: () => clock.now, sleep: (ms) => clock.sleep(ms + 1) });
    const times = await releases(gate, clock, 201);
    assert.ok(times[200] <= 2_001, `200 intervals of 10 ms took ${times[200]} ms`);
    for (let i = 100; i < times.length; i++) {
      assert.ok(times[i] - times[i - 100] >= 1_000, `101 releases within ${times[i] - times[i - 100]} ms`);
    }
  });

  it("times the others' use from when its answered requests were sent, not answered", async () => {
    gate = make(100);
    const w0 = 1_750_000_001_000;
    // 57 requests sent 16.7 ms apart up to 0.95 s, each answered 50 ms later; another client
    // spreads 40 over the window: 38 of them are in the last answer's count.
    const events: { at: number; i: number; send: boolean }[] = [];
    for (let i = 1; i <= 57; i++) {
      const sent = w0 + Math.round((950 * i) / 57);
      events.push({ at: sent, i, send: true }, { at: sent + 50, i, send: false });
    }
    events.sort((a, b) => a.at - b.at || Number(b.send) - Number(a.send));
    for (const e of events) {
      clock.now = e.at;
      if (e.send) await clock.run(gate.acquire());
      else {
        const sentAt = w0 + Math.round((950 * e.i) / 57);
        const others = Math.floor((40 * (sentAt - w0)) / 1000);
        gate.observe(200, {
          "burst-ratelimit-limit": "100",
          "burst-ratelimit-remaining": String(100 - others - e.i),
          "burst-ratelimit-reset": secs(w0 + 1000),
        });
      }
    }
    // A request sent the first window's longest round trip (50 ms) past its end settles it.
    clock.now = w0 + 1_100;
    await clock.run(gate.acquire());
    gate.observe(200, {
      "burst-ratelimit-limit": "100",
      "burst-ratelimit-remaining": "99",
      "burst-ratelimit-reset": secs(w0 + 2000),
    });
    assert.equal(gate.ratePerSecond, 100 - 40 - 2, "the limit, less the others' 40, less the margin");
  });

  it("counts its answers that come after their window reset as its own use of that window", async () => {
    gate = make(100);
    const w0 = 1_750_000_001_000;
    const answer = (remaining: number, reset: number): void =>
      gate.observe(200, {
        "burst-ratelimit-limit": "100",
        "burst-ratelimit-remaining": String(remaining),
        "burst-ratelimit-reset": secs(reset),
      });
    // 90 requests of this process alone, 10 ms apart, answered 50 ms later, but the 84th and 85th
    // 200 ms later: after the window reset, overtaken by the later ones.
    const events: { at: number; i: number; send: boolean }[] = [];
    for (let i = 1; i <= 90; i++) {
      const sent = w0 + 10 * i - 5;
      events.push(
        { at: sent, i, send: true },
        { at: sent + (i === 84 || i === 85 ? 200 : 50), i, send: false },
      );
    }
    events.sort((a, b) => a.at - b.at || Number(b.send) - Number(a.send));
    for (const e of events) {
      clock.now = e.at;
      if (e.send) await clock.run(gate.acquire());
      else answer(100 - e.i, w0 + 1000);
    }
    clock.now = w0 + 1_300;
    await clock.run(gate.acquire());
    answer(99, w0 + 2000);
    assert.equal(gate.ratePerSecond, 100, "no other client: the limit");
  });

  it("starts cautiously without a limit, then takes the limit from Burst-RateLimit-Limit", async () => {
    gate = make();
    assert.equal(gate.ratePerSecond, CAUTIOUS_START_RATE);
    // The first START_BURST go out together (a drain's first round trip), then 10 a second.
    assert.deepEqual(gaps(await releases(gate, clock, 6)), [0, 0, 0, 100, 100]);
    gate.observe(200, {
      "burst-ratelimit-limit": "50",
      "burst-ratelimit-remaining": "40",
      "burst-ratelimit-reset": secs(clock.now + 1),
    });
    assert.equal(gate.ratePerSecond, 50);
    assert.equal(gate.stats().learntLimit, 50);
    assert.deepEqual(gaps(await releases(gate, clock, 4)), [20, 20, 20]);
  });

  it("ends its start burst at the first answer, and has none with a known limit", async () => {
    gate = make();
    assert.deepEqual(gaps(await releases(gate, clock, 2)), [0]);
    gate.observe(200, {});
    assert.deepEqual(gaps(await releases(gate, clock, 3)), [100, 100], "an answer came: 10 a second");
    gate = make(100);
    assert.deepEqual(gaps(await releases(gate, clock, 3)), [10, 10], "the limit is known: no burst");
  });

  it("uses the lower of the explicit and the learnt limit", () => {
    gate = make(100);
    gate.observe(200, { "burst-ratelimit-limit": "40" });
    assert.equal(gate.ratePerSecond, 40);
    gate.observe(200, { "burst-ratelimit-limit": "500" });
    assert.equal(gate.ratePerSecond, 100);
    gate.setLimit(undefined);
    assert.equal(gate.ratePerSecond, 500);
  });

  it("on a 429 pauses every waiting request until the window resets, then continues", async () => {
    gate = make(100);
    await releases(gate, clock, 1);
    const resetAt = Math.ceil((clock.now + 1) / 1000) * 1000; // the next whole second
    gate.observe(429, {
      "burst-ratelimit-limit": "100",
      "burst-ratelimit-remaining": "0",
      "burst-ratelimit-reset": secs(resetAt),
      "retry-after": "1",
    });
    const start = clock.now;
    const times = await releases(gate, clock, 3);
    assert.ok(
      times[0] >= resetAt - start,
      `released at +${times[0]} before the reset at +${resetAt - start}`,
    );
    assert.equal(times[0], resetAt - start);
    assert.deepEqual(gaps(times), [10, 10]);
    assert.deepEqual(
      { limited: gate.stats().limited, pauses: gate.stats().pauses },
      { limited: 1, pauses: 1 },
    );
  });

  it("without a reset header pauses for Retry-After, else one second", async () => {
    gate = make(100);
    gate.observe(429, { "retry-after": "2" });
    assert.deepEqual(await releases(gate, clock, 1), [2000]);
    gate.observe(429, {});
    assert.deepEqual(await releases(gate, clock, 1), [1000]);
  });

  it("pauses when a success says the window is spent, not when that window is already over", async () => {
    gate = make(100);
    gate.observe(200, { "burst-ratelimit-remaining": "0", "burst-ratelimit-reset": secs(clock.now - 1000) });
    assert.deepEqual(await releases(gate, clock, 1), [0]);
    const resetAt = Math.ceil((clock.now + 1) / 1000) * 1000;
    gate.observe(200, { "burst-ratelimit-remaining": "0", "burst-ratelimit-reset": secs(resetAt) });
    const start = clock.now;
    assert.deepEqual(await releases(gate, clock, 1), [resetAt - start]);
    assert.equal(gate.stats().limited, 0);
    assert.equal(gate.stats().pauses, 1);
  });

  it("without any limit doubles its rate after each busy second and halves it on a 429", async () => {
    gate = make();
    await releases(gate, clock, 14); // START_BURST at once, then 10/s for a second
    assert.equal(gate.ratePerSecond, 20);
    await releases(gate, clock, 21);
    assert.equal(gate.ratePerSecond, 40);
    gate.observe(429, {});
    assert.equal(gate.ratePerSecond, 20);
    // A second with a 429 in it does not double.
    await releases(gate, clock, 15);
    assert.equal(gate.ratePerSecond, 20);
    await releases(gate, clock, 15);
    assert.equal(gate.ratePerSecond, 40);
    const fast = new RateGate({ startRate: 9_000, now: () => clock.now, sleep: clock.sleep });
    await releases(fast, clock, 9_005);
    assert.equal(fast.ratePerSecond, undefined, "beyond 10,000/s the gate stops limiting");
  });

  it("refuses a limit that is not a positive number", () => {
    for (const bad of [0, -1, NaN, Infinity]) {
      assert.throws(
        () => new RateGate({ limit: bad }),
        (e: unknown) => e instanceof SvcError && /limit/.test(e.message),
      );
    }
    assert.throws(() => make(10).setLimit(0), /limit/);
    assert.throws(() => new RateGate({ startRate: 0 }), /startRate/);
  });

  it("a per-drain cap spaces that drain's requests below the shared gate", async () => {
    gate = make(100);
    const slow = capped(gate.acquire, 4, () => clock.now, clock.sleep);
    const start = clock.now;
    const times: number[] = [];
    await clock.run(
      Promise.all(Array.from({ length: 3 }, () => slow().then(() => void times.push(clock.now - start)))),
    );
    assert.deepEqual(times, [0, 250, 500]);
    assert.equal(capped(gate.acquire, undefined), gate.acquire);
  });

  describe("registry", () => {
    it("one gate per account (base URL and token), shared by every caller", () => {
      const reg = new RateGateRegistry();
      const a = reg.forAccount("http://127.0.0.1:4000/", "tok-a");
      assert.equal(reg.forAccount("http://127.0.0.1:4000", "tok-a"), a);
      assert.notEqual(reg.forAccount("http://127.0.0.1:4000", "tok-b"), a);
      assert.notEqual(reg.forAccount("http://127.0.0.1:4001", "tok-a"), a);
      assert.equal(reg.size, 3);
    });

    it("sets the account's limit when a caller knows it", () => {
      const reg = new RateGateRegistry();
      const g = reg.forAccount("http://127.0.0.1:4000", "t");
      assert.equal(g.ratePerSecond, CAUTIOUS_START_RATE);
      assert.equal(reg.forAccount("http://127.0.0.1:4000", "t", 100), g);
      assert.equal(g.ratePerSecond, 100);
      assert.equal(reg.forAccount("http://127.0.0.1:9", "u", 7).ratePerSecond, 7);
    });

    it("keys hold a hash of the token, never the token", () => {
      const token = "tok_SUPERSECRET_8f3a91c2d4";
      const k = accountKey("http://127.0.0.1:4000/v2/", token);
      assert.ok(!k.includes(token) && !k.includes("SUPERSECRET"));
      assert.match(k, /^http:\/\/127\.0\.0\.1:4000\/v2#[0-9a-f]{16}$/);
      assert.notEqual(accountKey("http://127.0.0.1:4000", "a"), accountKey("http://127.0.0.1:4000", "b"));
    });
  });

  describe("parseRateLimitHeaders (one place for the rate-limit headers)", () => {
    const now = 1_750_000_000_250;
    it("reads limit, remaining, reset (unix seconds) and Retry-After", () => {
      assert.deepEqual(
        parseRateLimitHeaders(
          {
            "burst-ratelimit-limit": "100",
            "burst-ratelimit-remaining": "0",
            "burst-ratelimit-reset": "1750000001",
            "retry-after": "1",
          },
          now,
        ),
        { limit: 100, remaining: 0, resetInMs: 750, windowEndsAt: 1_750_000_001_000, retryAfterMs: 1000 },
      );
      assert.deepEqual(parseRateLimitHeaders({ "burst-ratelimit-limit": ["5", "6"] }, now), { limit: 5 });
    });

    it("leaves out what it cannot read", () => {
      assert.deepEqual(
        parseRateLimitHeaders(
          {
            "burst-ratelimit-limit": "0",
            "burst-ratelimit-remaining": "-1",
            "burst-ratelimit-reset": "soon",
          },
          now,
        ),
        {},
      );
      assert.deepEqual(parseRateLimitHeaders({ "burst-ratelimit-limit": "1e3" }, now), {});
    });

    it("serverWaitHint still takes the longer of Retry-After and the reset", () => {
      assert.equal(serverWaitHint({ "retry-after": "1", "burst-ratelimit-reset": "1750000003" }, now), 2750);
      assert.equal(serverWaitHint({ "retry-after": "5", "burst-ratelimit-reset": "1750000001" }, now), 5000);
      assert.equal(serverWaitHint({}, now), undefined);
    });
  });
});
