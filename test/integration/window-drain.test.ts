/**
 * The windowed drain against the real emulator over loopback: exact partition of every
 * failure-time distribution (checked in the emulator's ledger), exactly once under faults with
 * windows in flight, continuation after a cut-off, the shared per-account rate gate against the
 * emulator's per-second limit, and the sequential drain's request counts.
 */
import * as assert from "node:assert/strict";
import {
  DrainClient,
  DrainError,
  RateGateRegistry,
  requestAllowance,
  type WindowDrainProgress,
} from "../../drain";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { DAY, DISTRIBUTIONS } from "../../bench/lib/windowSim";

const CREDS = {
  token: "tok-windows-3e9d1b",
  username: "ops@example.com",
  password: "pw-windows-5a7c2f",
};

/**
 * The allowance: ceil(N/50) + 4 up to 500 entries, 1.10 × ceil(N/50) + 24 + min(⌈rate × round
 * trip⌉, ceil(N/50)) above, with the rate and round trip the drain's budget credited.
 */
const bound = (n: number, res: { budgetNet?: WindowDrainProgress["budgetNet"] } = {}): number =>
  requestAllowance(n, res.budgetNet ?? {});

describe("integration: windowed drain ↔ emulator over loopback", function () {
  this.timeout(180_000);
  let emulator: RunningEmulator;
  let registry: RateGateRegistry;

  function client(): DrainClient {
    return new DrainClient({
      baseUrl: emulator.url,
      accountApiUrl: emulator.url,
      ...CREDS,
      retry: { maxRetries: 10, baseDelayMs: 5, maxDelayMs: 1_100, maxTotalDelayMs: 60_000 },
      requestTimeoutMs: 5_000,
    });
  }

  /** Adds `n` entries with failure times from a distribution, in failure-time order. */
  function seed(name: string, n: number, seedValue = 1, workflowUrl?: string): void {
    const times = DISTRIBUTIONS[name](n, seedValue, Date.now());
    for (let i = 0; i < times.length; i += 10_000) {
      emulator.addEntries(
        times.slice(i, i + 10_000).map((failedAt) => ({ failedAt, ...(workflowUrl ? { workflowUrl } : {}) })),
      );
    }
  }

  function assertLedgerExact(n: number): void {
    const t = emulator.state.ledger.totals();
    assert.equal(t.distinctEntriesResumed, n, "every entry resumed");
    assert.equal(t.duplicates, 0, "no entry resumed twice");
    assert.equal(emulator.state.dlq.size, 0, "the DLQ is empty");
  }

  /** Windows (fromDate..toDate) of the logged resume requests, with whether a cursor was sent. */
  function loggedWindows(): { from?: number; to?: number; cursor: boolean }[] {
    return emulator.state.log.since(0, Number.MAX_SAFE_INTEGER).map((r) => {
      const q = r.query as Record<string, string>;
      return {
        ...(q.fromDate !== undefined ? { from: Number(q.fromDate) } : {}),
        ...(q.toDate !== undefined ? { to: Number(q.toDate) } : {}),
        cursor: q.cursor !== undefined,
      };
    });
  }

  before(async () => {
    emulator = await startEmulator({ plan: "free", ...CREDS, logCapacity: 1_000_000 });
  });
  beforeEach(() => {
    emulator.reset();
    emulator.setPlan("free");
    registry = new RateGateRegistry();
  });
  after(async () => emulator?.close());

  for (const name of ["uniform3d", "burst20s", "bursts3", "clusters"]) {
    it(`${name}: every entry exactly once (ledger), windows split mid-drain, requests within the bound`, async () => {
      // Above SMALL_DRAIN_RUNS (500), so the budget earns credit for windows mid-drain; the
      // round trip, not the rate, bounds it (500 a second × 20 to 28 ms is more than 8 windows),
      // so the windows the credit earns are opened: by splitting windows that are under way.
      const n = 8_000;
      seed(name, n, 3);
      emulator.setPlan("fixed");
      emulator.setFaults({ seed: 4, latencyMs: 20, latencyJitterMs: 8, endpoints: ["resume"] });
      const c = client();
      const res = await c.drainWindows(
        {},
        { retries: 1 },
        {
          concurrency: 8,
          horizonMs: 3 * DAY,
          gate: registry.forAccount(emulator.url, CREDS.token, 1_000),
        },
      );
      await c.close();
      assertLedgerExact(n);
      assert.equal(res.resumedCount, n);
      assert.equal(res.requestCount, emulator.state.log.total, "every logged request answered and counted");
      assert.ok(res.requestCount <= bound(n, res), `${res.requestCount} requests > ${bound(n, res)}`);
      assert.ok(res.splits > 0 && res.maxInFlight > 1);
      const logged = loggedWindows();
      const continued = logged.filter((w) => w.cursor);
      assert.ok(
        continued.some((w) =>
          logged.some(
            (v) =>
              !v.cursor &&
              (v.from ?? -Infinity) >= (w.from ?? -Infinity) &&
              (v.to ?? Infinity) <= (w.to ?? Infinity) &&
              (v.from !== w.from || v.to !== w.to),
          ),
        ),
        "a window that had returned a cursor was split",
      );
    });
  }

  it("exactly once under 5xx, 429 bursts, dropped connections and lost responses, with windows in flight", async () => {
    const n = 5_000;
    seed("bursts3", n, 5);
    emulator.setFaults({
      seed: 6,
      endpoints: ["resume"],
      latencyMs: 3,
      latencyJitterMs: 10,
      error5xxRate: 0.08,
      rateLimit: { burst: 150, windowMs: 1_000 },
      dropConnectionRate: 0.06,
      loseResponseAfterCommitRate: 0.08, // about 8 of ~100 answers: the test needs at least one
    });
    const c = client();
    const res = await c.drainWindows({}, undefined, {
      concurrency: 8,
      horizonMs: 3 * DAY,
      gate: registry.forAccount(emulator.url, CREDS.token),
    });
    await c.close();
    assertLedgerExact(n);
    const t = emulator.state.ledger.totals();
    assert.ok(t.responseLostTotal > 0, "responses were lost after commit");
    assert.ok(res.ambiguousRequests > 0);
    assert.equal(res.resumedCount + t.responseLostTotal, n, "known IDs + lost IDs = every entry");
    assert.ok(res.maxInFlight > 1 && res.splits > 0);
    const fired = emulator.state.faults.stats().fired;
    assert.ok((fired.error5xx ?? 0) > 0 && (fired.dropConnection ?? 0) > 0, JSON.stringify(fired));
  });

  it("continues after a cut-off with windows in flight, from the reported state only", async () => {
    const n = 6_000;
    seed("uniform3d", n, 7);
    emulator.setFaults({ seed: 8, latencyMs: 2, latencyJitterMs: 10, endpoints: ["resume"] });
    const gate = registry.forAccount(emulator.url, CREDS.token, 1_000);
    const abort = new AbortController();
    let inFlightAtCut = 0;
    const c = client();
    const err = await c
      .drainWindows({}, undefined, {
        concurrency: 8,
        horizonMs: 3 * DAY,
        gate,
        signal: abort.signal,
        onPage: (e) => {
          // The first page from the 40th request on that has other windows in flight:
          // how many are in flight at one page depends on loopback timing, not on the drain.
          if (!abort.signal.aborted && e.requestCount >= 40 && e.windowsInFlight > 1) {
            inFlightAtCut = e.windowsInFlight;
            abort.abort(); // SIGINT
          }
        },
      })
      .then(
        () => assert.fail("the drain should have been cut off"),
        (e: unknown) => e,
      );
    assert.ok(err instanceof DrainError && err.code === "SVC_ABORTED", String(err));
    assert.ok(inFlightAtCut > 1, "windows were in flight at the cut-off");
    const saved = JSON.parse(JSON.stringify(err.partial.windowState)) as WindowDrainProgress["windowState"];
    assert.ok(saved.windows.length > 1);
    assert.ok(JSON.stringify(saved).length < 4096, "bounded state");
    assert.ok(emulator.state.dlq.size > 0);

    const rest = await c.drainWindows({}, undefined, {
      concurrency: 8,
      horizonMs: 3 * DAY,
      gate,
      state: saved,
    });
    await c.close();
    assertLedgerExact(n);
    assert.equal(err.partial.resumedCount + rest.resumedCount, n);
    assert.ok(err.partial.requestCount + rest.requestCount <= bound(n, rest));
  });

  it("concurrency 1 keeps the sequential request counts: ceil(N/50)", async () => {
    for (const n of [237, 10_000]) {
      emulator.reset();
      emulator.seed(n, 9);
      const c = client();
      const res = await c.drainWindows({}, undefined, {
        concurrency: 1,
        gate: registry.forAccount(emulator.url, CREDS.token, 1_000),
      });
      await c.close();
      assert.equal(res.requestCount, Math.ceil(n / 50));
      assert.equal(emulator.state.log.total, Math.ceil(n / 50));
      assert.ok(loggedWindows().every((w) => w.from === undefined && w.to === undefined));
      assertLedgerExact(n);
    }
  });

  it("two drains of one account share its gate and stay within the per-second limit", async () => {
    const n = 4_000;
    seed("uniform3d", n, 11, "http://127.0.0.1/workflows/a");
    seed("bursts3", n, 12, "http://127.0.0.1/workflows/b");
    // A per-second limit of 40 (one-second windows on unix seconds, headers on every answer): the
    // account's own limit, and the same rule as a fault for an emulator that does not enforce it.
    emulator.state.account.patch({ max_requests_per_second: 40 });
    emulator.setFaults({ endpoints: ["resume"], latencyMs: 5, rateLimit: { burst: 40, windowMs: 1_000 } });
    const gateA = registry.forAccount(emulator.url, CREDS.token);
    const gateB = registry.forAccount(`${emulator.url}/`, CREDS.token);
    assert.equal(gateA, gateB, "one gate for the account");
    const [a, b] = [client(), client()];
    const [ra, rb] = await Promise.all([
      a.drainWindows({ workflowUrl: "http://127.0.0.1/workflows/a" }, undefined, {
        concurrency: 8,
        horizonMs: 3 * DAY,
        gate: gateA,
      }),
      b.drainWindows({ workflowUrl: "http://127.0.0.1/workflows/b" }, undefined, {
        concurrency: 8,
        horizonMs: 3 * DAY,
        gate: gateB,
      }),
    ]);
    await Promise.all([a.close(), b.close()]);
    assertLedgerExact(2 * n);
    const limited = emulator.state.faults.stats().fired.rateLimit ?? 0;
    const total = emulator.state.log.total;
    assert.equal(total, ra.requestCount + rb.requestCount + limited);
    assert.ok(limited <= 0.05 * total, `${limited} of ${total} requests were answered 429`);
    const s = gateA.stats();
    assert.equal(s.learntLimit, 40, "the limit was learnt from Burst-RateLimit-Limit");
    assert.equal(s.released, total, "every attempt of both drains passed the one gate");
  });
});
