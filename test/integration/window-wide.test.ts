/**
 * A wide drain against the real emulator over loopback: the paid plan's 500 requests a second,
 * 150 ms (+ 0 to 8) a request, 20,000 entries spread over 3 days, no account settings, SDK run
 * IDs. The drain keeps more than 32 requests in flight for at least half its time and never
 * exceeds the rate (no 429: alone on the account); a drain of 50,000 at 300 ms cut off by an abort while more windows are open
 * than a saved state holds continues from it and resumes each entry once, within the allowance.
 */
import * as assert from "node:assert/strict";
import {
  DrainClient,
  DrainError,
  MAX_SAVED_WINDOWS,
  RateGateRegistry,
  requestAllowance,
  type RateGate,
  type UnpacedWindowDrainOptions,
  type WindowDrainProgress,
} from "../../drain";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { DISTRIBUTIONS } from "../../bench/lib/windowSim";

const CREDS = { token: "tok-wide-5b3e81", username: "ops@example.com", password: "pw-wide-9c27d4" };
const N = 20_000;
/** Entries of the cut-off drain. */
const WIDE_N = 50_000;

describe("integration: a wide drain at 500 a second and 150 ms ↔ emulator over loopback", function () {
  this.timeout(180_000);
  let emulator: RunningEmulator;

  before(async () => {
    emulator = await startEmulator({ plan: "paid", ...CREDS });
  });
  beforeEach(() => {
    emulator.reset();
    emulator.setPlan("paid");
    emulator.setFaults({ seed: 5, latencyMs: 150, latencyJitterMs: 8, endpoints: ["resume"] });
  });
  after(async () => emulator?.close());

  it("keeps more than 32 requests in flight for at least half the drain, never past the rate, each entry once", async () => {
    seed(emulator, N);
    const inFlight = new InFlightClock();
    const res = await drain(emulator, gateOf(emulator), { onPage: (e) => inFlight.page(e.windowsInFlight) });
    inFlight.stop();
    assertLedgerExact(emulator, N);
    assert.equal(res.resumedCount, N);
    assert.equal(emulator.state.rateLimit.stats().limited, 0, "no 429: never more than the rate allows");
    const share = inFlight.shareAbove(32);
    if (process.env.SVC_WIDE_SHARE_LOG) console.log(`share>32 ${share.toFixed(3)} max ${res.maxInFlight}`);
    assert.ok(share >= 0.5, `more than 32 requests in flight for ${(share * 100).toFixed(0)} % of the drain`);
    const most = requestAllowance(N, res.budgetNet ?? {});
    assert.ok(res.requestCount <= most, `${res.requestCount} requests > the allowance ${most}`);
  });

  it("cut off by an abort with more windows open than MAX_SAVED_WINDOWS, continues each entry once", async () => {
    // 300 ms: 150 requests in flight needed, more windows open than a saved state holds.
    emulator.setFaults({ seed: 6, latencyMs: 300, latencyJitterMs: 8, endpoints: ["resume"] });
    seed(emulator, WIDE_N);
    const gate = gateOf(emulator);
    const abort = new AbortController();
    let widest = 0;
    const err = await drain(emulator, gate, {
      signal: abort.signal,
      onPage: (e) => {
        widest = Math.max(widest, e.windowsOpen);
        if (e.windowsOpen > MAX_SAVED_WINDOWS) abort.abort(); // SIGINT
      },
    }).then(
      () => assert.fail("the drain should have been cut off"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof DrainError && err.code === "SVC_ABORTED", String(err));
    assert.ok(widest > MAX_SAVED_WINDOWS, `${widest} windows open at most`);
    const saved = JSON.parse(JSON.stringify(err.partial.windowState)) as WindowDrainProgress["windowState"];
    assert.ok(saved.windows.length >= 1 && saved.windows.length <= MAX_SAVED_WINDOWS);
    assert.ok(JSON.stringify(saved).length < 8192, "a few kB");
    assert.ok(emulator.state.dlq.size > 0, "cut off mid-way");

    const rest = await drain(emulator, gate, { state: saved });
    assertLedgerExact(emulator, WIDE_N);
    assert.equal(err.partial.resumedCount + rest.resumedCount, WIDE_N);
    const requests = err.partial.requestCount + rest.requestCount;
    const most = requestAllowance(WIDE_N, rest.budgetNet ?? {});
    assert.ok(requests <= most, `${requests} requests > the allowance ${most}`);
    assert.equal(emulator.state.rateLimit.stats().limited, 0);
  });
});

/**
 * How long a drain keeps more than so many requests in flight, in 10 ms slots from its start to its
 * end. Requests in flight change only when an answer comes back (the drain sends the next ones
 * right after it), so a slot holds the most any of its pages reported, or what the last one before
 * it did.
 */
class InFlightClock {
  private readonly started = Date.now();
  private ended = this.started;
  private readonly most = new Map<number, number>();

  page(inFlight: number): void {
    const slot = Math.floor((Date.now() - this.started) / 10);
    this.most.set(slot, Math.max(this.most.get(slot) ?? 0, inFlight));
  }

  stop(): void {
    this.ended = Date.now();
  }

  /** The share of the drain's slots with more than `n` requests in flight. */
  shareAbove(n: number): number {
    const slots = Math.max(1, Math.ceil((this.ended - this.started) / 10));
    let above = 0;
    let last = 0;
    for (let slot = 0; slot < slots; slot++) {
      last = this.most.get(slot) ?? last;
      if (last > n) above += 1;
    }
    return above / slots;
  }
}

/** Adds `n` entries spread evenly over the last 3 days. */
function seed(emulator: RunningEmulator, n: number): void {
  const times = DISTRIBUTIONS.uniform3d(n, 11, Date.now());
  for (let i = 0; i < n; i += 10_000)
    emulator.addEntries(times.slice(i, i + 10_000).map((failedAt) => ({ failedAt })));
}

function assertLedgerExact(emulator: RunningEmulator, n: number): void {
  const t = emulator.state.ledger.totals();
  assert.equal(t.distinctEntriesResumed, n, "every entry resumed");
  assert.equal(t.duplicates, 0, "no entry resumed twice");
  assert.equal(emulator.state.dlq.size, 0, "the DLQ is empty");
}

/** A fresh gate for the account, learning its rate from `Burst-RateLimit-*` (no account settings). */
function gateOf(emulator: RunningEmulator): RateGate {
  return new RateGateRegistry().forAccount(emulator.url, CREDS.token);
}

/** Drains `{}` (no dates: the 90-day default horizon) with the default, automatic concurrency. */
async function drain(
  emulator: RunningEmulator,
  gate: RateGate,
  more: Pick<UnpacedWindowDrainOptions, "signal" | "onPage" | "state"> = {},
): Promise<WindowDrainProgress> {
  const c = new DrainClient({ baseUrl: emulator.url, token: CREDS.token, requestTimeoutMs: 10_000 });
  try {
    return await c.drainWindows({}, undefined, { keepRuns: false, gate, ...more });
  } finally {
    await c.close();
  }
}
