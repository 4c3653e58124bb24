/**
 * The request allowance of a windowed drain against the real emulator over loopback (issue 27):
 * at most ceil(N/50) + 4 requests up to 500 entries and 1.10 × ceil(N/50) + 24 above, for every
 * failure-time distribution, with no `fromDate` over the default 90-day horizon (the drain does
 * not know N, nor where failures lie); and, when the account's daily limit is known (given, or
 * read from `RateLimit-Limit` by the gate), never more than 2 % of it beyond ceil(N/50). Every
 * entry is resumed once (the emulator's ledger). Counts, not timings.
 */
import * as assert from "node:assert/strict";
import { RateGateRegistry, SvcClient, requestAllowance, type WindowDrainProgress } from "../../client";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { DISTRIBUTIONS } from "../unit/client/windowSim";

const CREDS = {
  token: "tok-allowance-8c41d2",
  username: "ops@example.com",
  password: "pw-allowance-2b9e7a",
};

describe("integration: the request allowance of a windowed drain ↔ emulator over loopback", function () {
  this.timeout(300_000);
  let emulator: RunningEmulator;

  before(async () => {
    emulator = await startEmulator({ plan: "payg", ...CREDS });
  });
  beforeEach(() => {
    emulator.reset();
    emulator.setPlan("payg");
    emulator.setDailyLimit(undefined);
    // A few ms of latency with jitter, so answers come back out of order as they do over a network.
    emulator.setFaults({ seed: 3, latencyMs: 2, latencyJitterMs: 6, endpoints: ["resume"] });
  });
  after(async () => emulator?.close());

  function seed(name: string, n: number, seedValue: number): void {
    const times = DISTRIBUTIONS[name](n, seedValue, Date.now());
    for (let i = 0; i < times.length; i += 10_000) {
      emulator.addEntries(times.slice(i, i + 10_000).map((failedAt) => ({ failedAt })));
    }
  }

  function assertLedgerExact(n: number, what: string): void {
    const t = emulator.state.ledger.totals();
    assert.equal(t.distinctEntriesResumed, n, `${what}: every entry resumed`);
    assert.equal(t.duplicates, 0, `${what}: no entry resumed twice`);
    assert.equal(emulator.state.dlq.size, 0, `${what}: the DLQ is empty`);
  }

  /** Drains `{}` (no dates: the 90-day default horizon) with 16 windows, through a fresh gate. */
  async function drain(opts: { dailyLimit?: number; limit?: number } = {}): Promise<WindowDrainProgress> {
    const c = new SvcClient({ baseUrl: emulator.url, token: CREDS.token, requestTimeoutMs: 5_000 });
    try {
      return await c.drainWindows({}, undefined, {
        concurrency: 16,
        keepRuns: false,
        gate: new RateGateRegistry().forAccount(emulator.url, CREDS.token, opts.limit ?? 1_000),
        ...(opts.dailyLimit !== undefined ? { dailyLimit: opts.dailyLimit } : {}),
      });
    } finally {
      await c.close();
    }
  }

  const names = ["uniform3d", "hour", "outage2h", "bursts3", "singleMs", "clusters"];
  for (const n of [237, 500, 501, 1_200, 20_000]) {
    it(`holds at ${n.toLocaleString("en-US")} entries for every distribution: at most ${requestAllowance(n)} requests, each entry once`, async () => {
      for (const name of names) {
        emulator.reset();
        seed(name, n, n + name.length);
        const res = await drain();
        assertLedgerExact(n, name);
        assert.equal(res.resumedCount, n, name);
        assert.equal(res.requestCount, emulator.state.log.total, `${name}: every logged request counted`);
        assert.ok(
          res.requestCount <= requestAllowance(n),
          `${name}: ${res.requestCount} requests > the allowance ${requestAllowance(n)}`,
        );
      }
    });
  }

  it("keeps the requests beyond ceil(N/50) within 2 % of the daily limit, read from RateLimit-Limit or given", async () => {
    const n = 20_000;
    const ideal = Math.ceil(n / 50);
    for (const name of ["outage2h", "singleMs"]) {
      // Without a known daily limit this drain spends more than 20 requests beyond ceil(N/50):
      // the cap below is what holds it.
      emulator.reset();
      seed(name, n, 31);
      const free = await drain();
      assertLedgerExact(n, `${name}, no daily limit`);
      assert.ok(free.requestCount > ideal + 20, `${name}: ${free.requestCount} requests without the cap`);

      // The emulator enforces 1,000 a day and says so on every answer (RateLimit-Limit).
      emulator.reset();
      emulator.setDailyLimit(1_000);
      seed(name, n, 31);
      const read = await drain();
      assertLedgerExact(n, `${name}, RateLimit-Limit`);
      assert.ok(
        read.requestCount <= ideal + 20,
        `${name}: ${read.requestCount} requests > ${ideal} + 2 % of 1,000`,
      );
      assert.equal(emulator.state.dailyLimit.view().refused, 0, "nothing refused by the daily limit");

      // The account's max_requests_per_day given (as the provider passes it from account settings).
      emulator.reset();
      emulator.setDailyLimit(undefined);
      seed(name, n, 31);
      const given = await drain({ dailyLimit: 1_000 });
      assertLedgerExact(n, `${name}, dailyLimit`);
      assert.ok(given.requestCount <= ideal + 20, `${name}: ${given.requestCount} requests > ${ideal} + 20`);
    }
  });
});
