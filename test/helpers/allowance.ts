/**
 * The emulator and drain of the request-allowance suites (`test/integration/window-allowance*`),
 * which run as separate files so that their drains, each bound by its own CPU, run side by side.
 */
import * as assert from "node:assert/strict";
import { DrainClient, RateGateRegistry, requestAllowance, type WindowDrainProgress } from "../../drain";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { DISTRIBUTIONS } from "../../bench/lib/windowSim";

const CREDS = {
  token: "tok-allowance-8c41d2",
  username: "ops@example.com",
  password: "pw-allowance-2b9e7a",
};

/** The distributions of failure times every size is drained with. */
export const ALLOWANCE_DISTRIBUTIONS = ["uniform3d", "hour", "outage2h", "bursts3", "singleMs", "clusters"];

/** What a suite uses: the emulator (started in `before`, reset before each test) and its helpers. */
export interface AllowanceBench {
  readonly emulator: () => RunningEmulator;
  seed(name: string, n: number, seedValue: number): void;
  assertLedgerExact(n: number, what: string): void;
  /**
   * The drain's requests are within `requestAllowance(N)` with the rate and round trip its budget
   * credited (`budgetNet`), every one of them logged, and every entry was resumed once.
   */
  assertWithinAllowance(res: WindowDrainProgress, n: number, what: string): void;
  /** Drains `{}` (no dates: the 90-day default horizon) with 16 windows, through a fresh gate. */
  drain(opts?: { dailyLimit?: number; limit?: number }): Promise<WindowDrainProgress>;
}

/** Registers the suite's hooks (call inside its `describe`) and returns its helpers. */
export function allowanceBench(): AllowanceBench {
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
  return {
    emulator: () => emulator,
    seed(name, n, seedValue) {
      const times = DISTRIBUTIONS[name](n, seedValue, Date.now());
      for (let i = 0; i < times.length; i += 10_000) {
        emulator.addEntries(times.slice(i, i + 10_000).map((failedAt) => ({ failedAt })));
      }
    },
    assertLedgerExact(n, what) {
      const t = emulator.state.ledger.totals();
      assert.equal(t.distinctEntriesResumed, n, `${what}: every entry resumed`);
      assert.equal(t.duplicates, 0, `${what}: no entry resumed twice`);
      assert.equal(emulator.state.dlq.size, 0, `${what}: the DLQ is empty`);
    },
    assertWithinAllowance(res, n, what) {
      this.assertLedgerExact(n, what);
      assert.equal(res.resumedCount, n, what);
      assert.equal(res.requestCount, emulator.state.log.total, `${what}: every logged request counted`);
      const most = requestAllowance(n, res.budgetNet ?? {});
      const net = res.budgetNet
        ? `${res.budgetNet.ratePerSecond}/s, ${res.budgetNet.roundTripMs} ms`
        : "no rate";
      assert.ok(
        res.requestCount <= most,
        `${what}: ${res.requestCount} requests > the allowance ${most} (${net})`,
      );
    },
    async drain(opts = {}) {
      const c = new DrainClient({ baseUrl: emulator.url, token: CREDS.token, requestTimeoutMs: 5_000 });
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
    },
  };
}
