/**
 * A drain that shares the account, against the real emulator over loopback: the daily limit
 * stops it without retrying and a new day continues it (each entry once, ledger); another
 * client's load and a second drain in another process leave it at most 2 % 429s; alone, answers
 * that overtake each other do not make it pace below the limit.
 */
import * as assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as path from "node:path";
import { DrainClient, DrainError, RateGate, type WindowDrainProgress } from "../../drain";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { DAY, DISTRIBUTIONS } from "../../bench/lib/windowSim";

const CREDS = { token: "tok-shared-6c2e8a", username: "ops@example.com", password: "pw-shared-91d3f0" };
/** The free plan's max_requests_per_second. */
const LIMIT = 100;

describe("integration: a drain that shares the account", function () {
  this.timeout(240_000);
  let emulator: RunningEmulator;

  function client(): DrainClient {
    return new DrainClient({
      baseUrl: emulator.url,
      ...CREDS,
      retry: { maxRetries: 10, baseDelayMs: 5, maxDelayMs: 1_100, maxTotalDelayMs: 60_000 },
    });
  }

  function seed(n: number, seedValue = 1): number[] {
    const times = DISTRIBUTIONS.uniform3d(n, seedValue, Date.now());
    for (let i = 0; i < times.length; i += 10_000) {
      emulator.addEntries(times.slice(i, i + 10_000).map((failedAt) => ({ failedAt })));
    }
    return times;
  }

  function assertLedgerExact(n: number): void {
    const t = emulator.state.ledger.totals();
    assert.equal(t.distinctEntriesResumed, n, "every entry resumed");
    assert.equal(t.duplicates, 0, "no entry resumed twice");
    assert.equal(emulator.state.dlq.size, 0, "the DLQ is empty");
  }

  /** 429s of the per-second limit among the logged requests. */
  function limitedShare(): { limited: number; total: number; share: number } {
    const log = emulator.state.log.since(0, Number.MAX_SAFE_INTEGER);
    const limited = log.filter((r) => r.rateLimited === true).length;
    return { limited, total: log.length, share: limited / Math.max(1, log.length) };
  }

  beforeEach(async () => {
    emulator = await startEmulator({ plan: "free", ...CREDS, logCapacity: 1_000_000 });
    emulator.setFaults({ seed: 3, latencyMs: 50, endpoints: ["resume"] });
  });
  afterEach(async () => emulator?.close());

  it("the daily limit stops every window at once, without retrying; a new day continues, each entry once", async () => {
    const n = 5_000;
    seed(n);
    emulator.setDailyLimit(40);
    const c = client();
    const gate = new RateGate({ limit: LIMIT });
    const e = await c.drainWindows({}, undefined, { gate, horizonMs: 3 * DAY }).then(
      () => assert.fail("the drain should stop at the daily limit"),
      (error: unknown) => error,
    );
    assert.ok(e instanceof DrainError, String(e));
    assert.equal(e.code, "SVC_DAILY_LIMIT");
    assert.equal(e.dailyLimit, 40);
    assert.match(e.message, /daily limit of 40 requests is spent/);
    assert.match(e.message, /resets at \d{4}-\d\d-\d\d 00:00:00 UTC \(in \d+ (h|min|s)/);
    assert.match(e.message, /`pulumi up` after that continues where the drain stopped/);
    const day = emulator.state.dailyLimit.view();
    assert.equal(day.counted, 40);
    // The answers say what is left of the day: no request is sent that the day cannot take.
    assert.equal(day.refused, 0, `${day.refused} requests refused past the limit`);
    assert.match(e.message, /the service's last answer said none of the day's requests is left/);
    assert.equal(e.partial.requestCount, 40);
    const partial = e.partial as WindowDrainProgress;
    assert.ok(partial.windowState.windows.length > 0);
    assert.equal(e.partial.resumedCount, emulator.state.ledger.totals().distinctEntriesResumed);

    emulator.newDay();
    emulator.setDailyLimit(10_000);
    const res = await c.drainWindows({}, undefined, {
      gate: new RateGate({ limit: LIMIT }),
      horizonMs: 3 * DAY,
      state: partial.windowState,
    });
    await c.close();
    assert.equal(e.partial.resumedCount + res.resumedCount, n);
    assertLedgerExact(n);
  });

  it("with another client using 40 of 100 requests a second, at most 2 % of the drain's requests are refused", async () => {
    const n = 20_000;
    seed(n, 2);
    emulator.setOtherClientLoad(40);
    const c = client();
    const gate = new RateGate({ limit: LIMIT });
    const started = Date.now();
    const res = await c.drainWindows({}, undefined, { gate, horizonMs: 3 * DAY, keepRuns: false });
    const seconds = (Date.now() - started) / 1000;
    await c.close();
    assertLedgerExact(n);
    const { limited, total, share } = limitedShare();
    console.log(
      `      another client at 40/s: ${total} requests, ${limited} 429s (${(share * 100).toFixed(2)} %), ` +
        `${(res.requestCount / seconds).toFixed(1)} answered/s, share ${gate.ratePerSecond?.toFixed(1)}/s`,
    );
    assert.ok(share <= 0.02, `${limited} of ${total} requests refused`);
  });

  it("alone, with answers that overtake each other, takes none of its own requests for another client's", async () => {
    const n = 10_000;
    seed(n, 5);
    // 50 to 110 ms a round trip at 100 requests a second: the answers come back in another order
    // than the emulator counted the requests.
    emulator.setFaults({ seed: 5, latencyMs: 50, latencyJitterMs: 60, endpoints: ["resume"] });
    const c = client();
    const gate = new RateGate({ limit: LIMIT });
    const rates = new Set<number | undefined>();
    const onPage = (): void => void rates.add(gate.ratePerSecond);
    await c.drainWindows({}, undefined, { gate, horizonMs: 3 * DAY, keepRuns: false, onPage });
    await c.close();
    assertLedgerExact(n);
    assert.deepEqual([...rates], [LIMIT], "the gate paced at the account's limit on every page");
    assert.equal(limitedShare().limited, 0);
  });

  it("two drains of one account in two processes at once: each entry once, at most 2 % 429s", async () => {
    const n = 20_000;
    const times = seed(n, 4);
    const mid = times[n / 2];
    const child = path.join(__dirname, "fixtures", "drain-child.ts");
    const run = (from: number, to: number): Promise<Record<string, number>> =>
      new Promise((resolve, reject) => {
        const p = spawn(
          process.execPath,
          [
            "-r",
            "ts-node/register/transpile-only",
            child,
            emulator.url,
            CREDS.token,
            String(from),
            String(to),
            String(LIMIT),
          ],
          { stdio: ["ignore", "pipe", "pipe"] },
        );
        let out = "";
        let err = "";
        p.stdout.on("data", (d: Buffer) => (out += d.toString()));
        p.stderr.on("data", (d: Buffer) => (err += d.toString()));
        p.on("exit", (code) =>
          code === 0
            ? resolve(JSON.parse(out) as Record<string, number>)
            : reject(new Error(`child: ${err}`)),
        );
      });
    const [a, b] = await Promise.all([run(0, mid - 1), run(mid, Date.now() + DAY)]);
    assertLedgerExact(n);
    assert.equal(a.resumedCount + b.resumedCount, n);
    const { limited, total, share } = limitedShare();
    console.log(
      `      two processes: ${total} requests, ${limited} 429s (${(share * 100).toFixed(2)} %); ` +
        `A ${a.requestCount} answered in ${a.seconds.toFixed(1)} s, B ${b.requestCount} in ${b.seconds.toFixed(1)} s`,
    );
    assert.ok(share <= 0.02, `${limited} of ${total} requests refused`);
  });
});
