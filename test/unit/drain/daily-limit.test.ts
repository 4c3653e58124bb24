import { strict as assert } from "node:assert";
import { SvcError } from "../../../client";
import { DrainError, RateGate } from "../../../drain";
import { BurstShare, shareMargin } from "../../../drain/burstShare";
import { waitInWords } from "../../../client/errors";
import { ACCOUNT_PATH, T0, harness, json, rejection, resumePath, type Harness } from "../client/helpers";
import { DAY, DISTRIBUTIONS, FakeDlq } from "../../../bench/lib/windowSim";

/** Next UTC midnight after T0 (2025-06-15 15:06:40 UTC). */
const MIDNIGHT = Math.ceil(T0 / DAY) * DAY;

/** The headers of a 429 the daily limit explains. */
const spentDay = (limit = 1000): Record<string, string> => ({
  "ratelimit-limit": String(limit),
  "ratelimit-remaining": "0",
  "ratelimit-reset": String(MIDNIGHT / 1000),
});

function svcError(e: unknown): SvcError {
  assert.ok(e instanceof SvcError, `expected an SvcError, got ${String(e)}`);
  return e;
}

describe("client: the account's daily limit", () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => h.close());

  it("a 429 the daily limit explains is not retried and says the limit, the reset and what to do", async () => {
    let sent = 0;
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply(() => {
        sent += 1;
        return json(429, { error: "daily limit" }, spentDay());
      })
      .persist();
    const e = svcError(await rejection(h.client.resumeDlq({})));
    assert.equal(e.code, "SVC_DAILY_LIMIT");
    assert.equal(sent, 1);
    assert.deepEqual(h.sleeps, []);
    assert.equal(e.retryable, false);
    assert.equal(e.dailyLimit, 1000);
    assert.equal(e.resetAt, MIDNIGHT);
    assert.match(e.message, /daily limit of 1000 requests is spent/);
    assert.match(e.message, /resets at 2025-06-16 00:00:00 UTC \(in 8 h 54 min\)/);
    assert.match(
      e.message,
      /`pulumi up` after that continues where the drain stopped and resumes nothing twice/,
    );
    assert.doesNotMatch(e.message, /gave up after/);
  });

  it("any 429 whose wait lies beyond the cap on all waits stops the same way", async () => {
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply(429, {}, { headers: { "retry-after": "3600" } });
    const e = svcError(await rejection(h.client.resumeDlq({})));
    assert.equal(e.code, "SVC_DAILY_LIMIT");
    assert.equal(e.dailyLimit, undefined);
    assert.equal(e.resetAt, T0 + 3_600_000);
    assert.match(e.message, /The service refuses requests for longer than the client waits for a retry/);
    assert.match(e.message, /in 1 h 0 min/);
    assert.deepEqual(h.sleeps, []);
  });

  it("a request outside a drain (the account read) says to try again after the reset", async () => {
    h.pool.intercept({ path: ACCOUNT_PATH, method: "GET" }).reply(429, {}, { headers: spentDay() });
    const e = svcError(await rejection(h.client.getAccount()));
    assert.equal(e.code, "SVC_DAILY_LIMIT");
    assert.match(e.message, /daily limit of 1000 requests is spent .*Try again after that\.$/);
    assert.doesNotMatch(e.message, /pulumi up/);
  });

  it("a per-second 429 with daily requests left is retried as before", async () => {
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply(429, {}, { headers: { ...spentDay(), "ratelimit-remaining": "500", "retry-after": "1" } });
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply(200, { cursor: "", workflowRuns: [] }, { headers: { "content-type": "application/json" } });
    const page = await h.client.resumeDlq({});
    assert.equal(page.workflowRuns.length, 0);
    assert.deepEqual(h.sleeps, [1000]);
  });

  /**
   * Drains a 5,000-entry DLQ through `gate`; the day allows 20 requests. `honest`: the answers say
   * what is left of the day; else another client spends it unseen (the answers claim 500 left).
   */
  async function drainUntilSpent(gate: RateGate, honest: boolean) {
    const dlq = new FakeDlq(DISTRIBUTIONS.uniform3d(5_000));
    const seen = { sent: 0, refused: 0 };
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply((opts) => {
        seen.sent += 1;
        if (seen.sent > 20) {
          seen.refused += 1;
          return json(429, { error: "daily limit" }, spentDay());
        }
        const q = new URLSearchParams(opts.path.split("?")[1] ?? "");
        const num = (k: string) => (q.get(k) === null ? undefined : Number(q.get(k)));
        const page = dlq.resumeNow(
          {
            ...(num("fromDate") !== undefined ? { from: num("fromDate") } : {}),
            ...(num("toDate") !== undefined ? { to: num("toDate") } : {}),
          },
          q.get("cursor") ?? undefined,
        );
        const left = { ...spentDay(), "ratelimit-remaining": String(honest ? 20 - seen.sent : 500) };
        return json(200, { cursor: page.cursor ?? "", workflowRuns: page.workflowRuns }, left);
      })
      .persist();
    const e = await rejection(
      h.drains.drainWindows({}, undefined, { concurrency: 8, gate, horizonMs: 3 * DAY }),
    );
    assert.ok(e instanceof DrainError);
    assert.equal(e.code, "SVC_DAILY_LIMIT");
    assert.match(e.message, /daily limit of 1000 requests is spent/);
    assert.equal(e.partial.requestCount, 20);
    assert.equal(e.partial.resumedCount, 5_000 - dlq.remaining);
    assert.ok(e.partial.windowState !== undefined && e.partial.windowState.windows.length > 0);
    assert.equal(h.retries.length, 0, "nothing retried");
    assert.equal(dlq.duplicates, 0);
    return { ...seen, message: e.message };
  }

  const virtualGate = (): RateGate =>
    new RateGate({ limit: 1000, now: () => h.clock.now, sleep: async (ms) => void (h.clock.now += ms) });

  it("sends no request the day cannot take: the answers say what is left, the drain stops at none", async () => {
    const gate = virtualGate();
    const { sent, refused, message } = await drainUntilSpent(gate, true);
    assert.deepEqual([sent, refused], [20, 0]);
    assert.match(message, /the service's last answer said none of the day's requests is left/);
    assert.equal(gate.dailyRequests?.remaining, 0);
  });

  it("when another client spends the day unseen, only the requests in flight are refused, none retried", async () => {
    const { refused } = await drainUntilSpent(virtualGate(), false);
    assert.ok(refused >= 1 && refused < 8, `${refused} requests refused`);
  });
});

describe("drain/rateGate: a spent day", () => {
  it("refuses waiting and later requests without sending them, until the reset", async () => {
    let now = T0;
    const gate = new RateGate({ limit: 10, now: () => now, sleep: async (ms) => void (now += ms) });
    const waiting = [gate.acquire(), gate.acquire(), gate.acquire()];
    gate.observe(429, spentDay(500));
    const results = await Promise.allSettled(waiting);
    assert.ok(results.some((r) => r.status === "rejected"));
    const e = svcError(await rejection(gate.acquire()));
    assert.equal(e.code, "SVC_DAILY_LIMIT");
    assert.equal(e.dailyLimit, 500);
    assert.match(e.message, /this one was not sent/);
    assert.ok(gate.stats().refusedUnsent >= 1);
    now = MIDNIGHT;
    await gate.acquire();
  });

  it("an answer saying none of the day is left spends it; clearSpentDay (a new day, told) opens it again", async () => {
    let now = T0;
    const gate = new RateGate({ limit: 10, now: () => now, sleep: async (ms) => void (now += ms) });
    await gate.acquire();
    gate.observe(200, { ...spentDay(), "ratelimit-remaining": "0" });
    const e = svcError(await rejection(gate.acquire()));
    assert.match(e.message, /last answer said none of the day's requests is left/);
    gate.clearSpentDay();
    await gate.acquire();
  });

  it("tells what the last answer said is left of the day", () => {
    const gate = new RateGate({ limit: 10, now: () => T0 });
    const before = gate.dailyRequests;
    assert.equal(before, undefined);
    gate.observe(200, { ...spentDay(1000), "ratelimit-remaining": "73" });
    assert.deepEqual(gate.dailyRequests, { limit: 1000, remaining: 73, resetAt: MIDNIGHT });
  });

  it("counts an attempt that ended without an answer, so what is in flight stays right", async () => {
    const h = harness();
    const gate = new RateGate({
      limit: 1000,
      now: () => h.clock.now,
      sleep: async (ms) => void (h.clock.now += ms),
    });
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .replyWithError(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }));
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply(200, { cursor: "", workflowRuns: [] }, { headers: { "content-type": "application/json" } });
    await h.drains.resumeByIds(["dlq_a"], undefined, { gate });
    await h.close();
    assert.deepEqual([gate.stats().released, gate.stats().unanswered, gate.stats().responses], [2, 1, 1]);
  });

  it("words waits", () => {
    assert.equal(waitInWords(12_000), "12 s");
    assert.equal(waitInWords(250_000), "4 min 10 s");
    assert.equal(waitInWords(3_600_000), "1 h 0 min");
  });
});

describe("drain/burstShare", () => {
  /** One window of 100: `others` requests of another client spread over it, `mine` of ours. */
  function window(share: BurstShare, resetAt: number, others: number, mine: number, inFlight = 0): void {
    for (let i = 1; i <= mine; i++) {
      const othersSoFar = Math.floor((others * i) / mine);
      const t = resetAt - 1000 + (1000 * i) / mine;
      share.observe(100, Math.max(0, 100 - othersSoFar - i), resetAt, inFlight, { sent: t });
    }
  }

  it("without others it does not limit (a request counted in the next window is noise)", () => {
    const share = new BurstShare();
    for (let s = 1; s <= 5; s++) window(share, s * 1000, 1, 90);
    assert.equal(share.ratePerSecond, undefined);
  });

  it("with another client using 40 of 100 it settles at the rest minus the margin", () => {
    const share = new BurstShare();
    window(share, 1000, 40, 60);
    for (let s = 2; s <= 8; s++) window(share, s * 1000, 40, Math.floor(share.ratePerSecond ?? 100));
    window(share, 9000, 0, 1); // closes the last window
    assert.equal(share.ratePerSecond, 100 - 40 - shareMargin(100));
  });

  it("its requests in flight, sent after the answered one was counted, are not taken for the others'", () => {
    const share = new BurstShare();
    // 60 a second at 50 ms: 3 requests in flight at every answer, none counted yet.
    window(share, 1000, 40, 60, 3);
    window(share, 2000, 0, 1);
    assert.deepEqual(share.othersSeen, [40]);
    assert.equal(share.ratePerSecond, 100 - 40 - shareMargin(100));
  });

  it("a window this process stopped early is extrapolated, never beyond what its own left", () => {
    const share = new BurstShare();
    // Half-way through: 20 of the other client's 40 counted, then this process stopped sending.
    for (let i = 1; i <= 30; i++) share.observe(100, 100 - 20 - i, 1000, 0, { sent: 500 });
    share.observe(100, 0, 2000, 0, { sent: 1990 }); // the next window closes the first
    assert.deepEqual(share.othersSeen, [40]);
    assert.equal(share.ratePerSecond, 100 - 40 - shareMargin(100));
    const full = new BurstShare();
    // A window that filled up: the others cannot have used more than what was left beside ours.
    for (let i = 1; i <= 50; i++) full.observe(100, 100 - 2 * i, 1000, 0, { sent: 500 });
    full.observe(100, 99, 2000, 0, { sent: 1990 });
    assert.deepEqual(full.othersSeen, [50]);
  });

  it("a window whose last answer came before its end is extrapolated too", () => {
    const share = new BurstShare();
    // Answers up to 0.95 s: 38 of the other client's 40 seen by then.
    for (let i = 1; i <= 57; i++)
      share.observe(100, 100 - Math.floor((38 * i) / 57) - i, 1000, 0, { sent: (950 * i) / 57 });
    share.observe(100, 99, 2000, 0, { sent: 1010 }); // the next window closes the first
    assert.deepEqual(share.othersSeen, [40]);
  });

  /**
   * Windows of 100 a second with `others` requests of another client, this process sending one
   * every 10 ms, each answered a round trip of 150 to 209 ms later (seeded): answers overtake each
   * other. The service counts each request as it is sent; `observe` takes the answers as they come.
   */
  function jittered(share: BurstShare, windows: number, others: number, mine: number): void {
    let seed = 7;
    const random = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const sent: { t: number; resetAt: number; remaining: number; at: number }[] = [];
    for (let s = 1; s <= windows; s++) {
      for (let i = 1; i <= mine; i++) {
        const t = (s - 1) * 1000 + (1000 * i) / (mine + 1);
        const othersSoFar = Math.floor((others * i) / mine);
        sent.push({ t, resetAt: s * 1000, remaining: 100 - othersSoFar - i, at: t + 150 + 60 * random() });
      }
    }
    const byAnswer = [...sent].sort((a, b) => a.at - b.at);
    byAnswer.forEach((x) => {
      const inFlight = sent.filter((y) => y.t <= x.at && y.at > x.at).length;
      share.observe(100, x.remaining, x.resetAt, inFlight, { sent: x.t, answered: x.at });
    });
  }

  it("takes none of its own overtaken requests for another client's: alone, it does not limit", () => {
    const share = new BurstShare();
    jittered(share, 6, 0, 95);
    assert.deepEqual(share.othersSeen, [0, 0]);
    assert.equal(share.ratePerSecond, undefined);
  });

  it("with overtaking answers and another client using 40 of 100, it sees the 40", () => {
    const share = new BurstShare();
    jittered(share, 6, 40, 55);
    // 40 counted by this process's last request at 0.98 s: 41 over the whole window.
    assert.deepEqual(share.othersSeen, [41, 41]);
    assert.equal(share.ratePerSecond, 100 - 41 - shareMargin(100));
  });

  it("its refused requests (429) are not counted in the window: the others' use is not understated", () => {
    const share = new BurstShare();
    // Another client's 40 and 60 of this process's fill the window by 0.9 s; 10 more are refused.
    for (let i = 1; i <= 60; i++)
      share.observe(100, 100 - Math.floor((40 * i) / 60) - i, 1000, 0, { sent: 15 * i });
    for (let i = 1; i <= 10; i++) share.observe(100, 0, 1000, 0, { sent: 900 + 10 * i, refused: true });
    share.observe(100, 99, 2000, 0, { sent: 1010 });
    assert.deepEqual(share.othersSeen, [40]);
  });

  it("leaves room for the others' requests that reach the service within a round trip", () => {
    const share = new BurstShare();
    // Half-way through the window: 20 left after this one, 5 of this process's on the way, the
    // others' 74 counted in 500 ms (at least: less any of the 5 counted already): 148 a second,
    // 8 of them within the 50 ms round trip. 20 - 5 - 8 = 7 may still be sent.
    share.observe(100, 20, 1000, 5, { sent: 500, answered: 550 });
    for (let i = 0; i < 7; i++) {
      assert.equal(share.releasableAt(550), 550, `release ${i + 1} of 7`);
      share.released(550);
    }
    assert.equal(share.releasableAt(550), 1000, "20 left less 5 of its own and 8 of the others'");
    // Alone, its own requests counted but not answered yet (overtaken) are not taken for others':
    // 45 answered, 50 counted, 8 in flight (5 of them overtaken): 42 may still be sent.
    const alone = new BurstShare();
    for (let i = 1; i <= 45; i++)
      alone.observe(100, 100 - i - 5, 1000, 8, { sent: 10 * i, answered: 10 * i + 50 });
    for (let i = 0; i < 42; i++) {
      assert.equal(alone.releasableAt(500), 500, `release ${i + 1} of 42`);
      alone.released(500);
    }
    assert.equal(alone.releasableAt(500), 1000);
  });

  it("two processes that see each other settle below the limit together", () => {
    const a = new BurstShare();
    const b = new BurstShare();
    let ra = 100;
    let rb = 100;
    for (let s = 1; s <= 10; s++) {
      // Over the limit both get about half through; each sees the other's answered requests.
      const total = ra + rb;
      const fa = total > 100 ? Math.floor((100 * ra) / total) : Math.floor(ra);
      const fb = total > 100 ? 100 - fa : Math.floor(rb);
      window(a, s * 1000, fb, fa);
      window(b, s * 1000, fa, fb);
      ra = a.ratePerSecond ?? 100;
      rb = b.ratePerSecond ?? 100;
    }
    assert.ok(ra + rb <= 100, `${ra} + ${rb}`);
    assert.ok(ra + rb >= 90, `${ra} + ${rb}`);
  });

  it("leaves room: nothing more is released in a window the answers say is spent", () => {
    const share = new BurstShare();
    share.observe(100, 3, 2000, 2, { sent: 1400 });
    assert.equal(share.releasableAt(1500), 1500);
    share.released(1500);
    assert.equal(share.releasableAt(1510), 2000);
    assert.equal(share.releasableAt(2000), 2000);
  });
});
