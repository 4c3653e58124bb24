/**
 * The client against the real emulator over loopback: every fault the emulator can
 * inject, and a fault soak in which every entry must be resumed exactly once according
 * to the emulator's ledger.
 */
import * as assert from "node:assert/strict";
import { SvcError, type RetryEvent, type SvcClientOptions } from "../../client";
import { DrainClient } from "../../drain";
import { startEmulator, type RunningEmulator } from "../../emulator";

const CREDS = {
  token: "tok-integration-7c4f1a",
  username: "ops@example.com",
  password: "pw-integration-2b8d",
};

describe("integration: client ↔ emulator over loopback", function () {
  this.timeout(120_000);
  let emulator: RunningEmulator;
  let retries: RetryEvent[];

  function client(extra: Partial<SvcClientOptions> = {}): DrainClient {
    retries = [];
    return new DrainClient({
      baseUrl: emulator.url,
      accountApiUrl: emulator.url,
      ...CREDS,
      retry: { maxRetries: 8, baseDelayMs: 5, maxDelayMs: 1_500, maxTotalDelayMs: 20_000 },
      requestTimeoutMs: 2_000,
      onRetry: (e) => retries.push(e),
      ...extra,
    });
  }

  before(async () => {
    emulator = await startEmulator({ plan: "payg", ...CREDS });
  });
  beforeEach(() => emulator.reset());
  after(async () => emulator?.close());

  it("reads the account record with Basic auth and tolerates the record's extra fields", async () => {
    const c = client();
    const record = await c.getAccount();
    await c.close();
    assert.equal(record.max_parallelism, 10);
    assert.equal(record.token, CREDS.token);
    assert.equal(
      (record as unknown as Record<string, unknown>).region,
      undefined,
      "extra fields are dropped",
    );
  });

  it("drains 237 entries in exactly 5 requests, each entry once", async () => {
    emulator.seed(237, 1);
    const c = client();
    const res = await c.drain({}, { retries: 2 });
    await c.close();
    assert.equal(res.requestCount, 5);
    assert.equal(res.resumedCount, 237);
    assert.equal(new Set(res.runs.map((r) => r.workflowRunId)).size, 237);
    const t = emulator.state.ledger.totals();
    assert.equal(t.distinctEntriesResumed, 237);
    assert.equal(t.duplicates, 0);
  });

  it("rejects wrong credentials with SVC_UNAUTHORIZED, without the secrets in the error", async () => {
    const c = client({ token: "tok-wrong-000000", password: "pw-wrong-000000" });
    const errs = await Promise.all([c.getAccount().catch((e) => e), c.resumeDlq({}).catch((e) => e)]);
    await c.close();
    for (const e of errs) {
      assert.ok(e instanceof SvcError);
      assert.equal(e.code, "SVC_UNAUTHORIZED");
      assert.equal(e.status, 401);
      const text = `${e.message} ${e.stack} ${JSON.stringify(e)}`;
      assert.ok(!text.includes("tok-wrong-000000") && !text.includes("pw-wrong-000000"));
    }
  });

  it("retries 5xx answers and still resumes every entry once", async () => {
    emulator.seed(300, 2);
    emulator.setFaults({ seed: 3, error5xxRate: 0.3 });
    const c = client();
    const res = await c.drain({});
    await c.close();
    assert.ok(
      retries.some((r) => r.status !== undefined && r.status >= 500),
      "some 5xx was retried",
    );
    assert.equal(res.resumedCount, 300);
    assert.equal(emulator.state.ledger.totals().duplicates, 0);
  });

  it("waits as told by Retry-After (seconds) on 429", async () => {
    emulator.seed(120, 4);
    emulator.setFaults({ rateLimit: { every: 2, retryAfterSeconds: 1 } });
    const c = client();
    const res = await c.drain({});
    await c.close();
    const limited = retries.filter((r) => r.status === 429);
    assert.ok(limited.length > 0);
    for (const r of limited) {
      assert.ok(
        r.delayMs >= 900 && r.delayMs <= 1_500,
        `waited ${r.delayMs} ms (Retry-After 1 s, cap 1.5 s)`,
      );
      assert.equal(r.ambiguous, false, "a 429 resumed nothing");
    }
    assert.equal(res.resumedCount, 120);
  });

  it("waits until Burst-RateLimit-Reset when no Retry-After is sent, and parses an HTTP-date Retry-After", async () => {
    for (const retryAfter of ["none", "http-date"] as const) {
      emulator.reset();
      emulator.seed(60, 4);
      emulator.setFaults({ rateLimit: { every: 2, retryAfter } });
      const c = client();
      const res = await c.drain({});
      await c.close();
      const limited = retries.filter((r) => r.status === 429);
      assert.ok(limited.length > 0, retryAfter);
      for (const r of limited)
        assert.ok(r.delayMs > 5 && r.delayMs <= 1_500, `${retryAfter}: waited ${r.delayMs} ms`);
      assert.equal(res.resumedCount, 60);
    }
  });

  it("survives dropped connections, counting them as ambiguous, never resuming twice", async () => {
    emulator.seed(200, 5);
    emulator.setFaults({ seed: 6, dropConnectionRate: 0.3 });
    const c = client();
    const res = await c.drain({});
    await c.close();
    assert.ok(retries.some((r) => r.ambiguous));
    assert.equal(res.resumedCount, 200);
    assert.equal(emulator.state.ledger.totals().duplicates, 0);
  });

  it("accounts honestly for a response lost after the resume was committed", async () => {
    emulator.seed(150, 7);
    emulator.setFaults({ failRequestNumbers: [], loseResponseAfterCommitRate: 0 });
    emulator.setFaults({ seed: 8, loseResponseAfterCommitRate: 0.5 });
    const c = client();
    const res = await c.drain({});
    await c.close();
    const t = emulator.state.ledger.totals();
    assert.equal(t.duplicates, 0, "nothing resumed twice");
    assert.equal(t.distinctEntriesResumed, 150, "every entry resumed");
    assert.ok(res.ambiguousRequests > 0);
    assert.equal(res.resumedCount + t.responseLostTotal, 150, "known IDs + lost IDs = every entry");
  });

  it("reports latency as time, not as failure", async () => {
    emulator.seed(60, 9);
    emulator.setFaults({ latencyMs: 50, latencyJitterMs: 20 });
    const c = client();
    const res = await c.drain({});
    await c.close();
    assert.equal(res.resumedCount, 60);
    assert.equal(retries.length, 0);
  });

  it("gives up with SVC_TIMEOUT when an answer takes longer than the request timeout", async () => {
    emulator.seed(10, 10);
    emulator.setFaults({ latencyMs: 1_500 });
    const c = client({ requestTimeoutMs: 200, retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 5 } });
    const err = await c.getAccount().catch((e) => e);
    await c.close();
    assert.ok(err instanceof SvcError);
    assert.equal(err.code, "SVC_TIMEOUT");
  });

  it("names the malformed answer: broken JSON and an HTML error page", async () => {
    emulator.seed(10, 11);
    for (const faults of [{ malformedJson: true }, { htmlErrorPage: true }]) {
      emulator.setFaults(faults);
      const c = client({ retry: { maxRetries: 0 } });
      const err = await c.resumeDlq({}).catch((e) => e);
      await c.close();
      assert.ok(err instanceof SvcError, JSON.stringify(faults));
      if ("malformedJson" in faults) assert.equal(err.code, "SVC_MALFORMED_RESPONSE");
      else assert.ok(["SVC_MALFORMED_RESPONSE", "SVC_SERVER_ERROR"].includes(err.code), err.code);
    }
  });

  it("stops an endless or repeating cursor with SVC_CURSOR_LOOP and the progress made", async () => {
    for (const faults of [{ endlessCursor: true }, { repeatingCursor: true }]) {
      emulator.reset();
      emulator.seed(120, 12);
      emulator.setFaults(faults);
      const c = client();
      const err = await c.drain({}, undefined, { maxRequests: 50 }).catch((e) => e);
      await c.close();
      assert.ok(err instanceof SvcError, JSON.stringify(faults));
      assert.equal(err.code, "SVC_CURSOR_LOOP");
      const partial = (err as SvcError & { partial?: { resumedCount: number } }).partial;
      assert.ok(partial, "the error carries the progress made");
      assert.equal(partial.resumedCount + emulator.state.dlq.size, 120, "no run forgotten");
    }
  });

  it("follows the cursor while entries are added and removed between pages", async () => {
    emulator.seed(200, 13);
    const c = client();
    let pages = 0;
    const removed: string[] = [];
    const res = await c.drain(
      {},
      {},
      {
        onPage: () => {
          pages++;
          if (pages === 1) {
            emulator.seed(30, 14); // added behind the cursor
            const victim = emulator.state.dlq.page(10, 1)[0];
            removed.push(victim.dlqId);
            emulator.state.dlq.remove(victim.dlqId);
          }
        },
      },
    );
    await c.close();
    const t = emulator.state.ledger.totals();
    assert.equal(t.duplicates, 0);
    assert.equal(res.resumedCount, 229, "200 + 30 added - 1 removed");
    assert.equal(emulator.state.dlq.size, 0);
    assert.equal(emulator.state.ledger.runsFor(removed[0]).length, 0);
  });

  it("fault soak: 5,000 entries under 10% 5xx, 429 bursts, latency spikes and dropped connections, each resumed exactly once", async () => {
    emulator.seed(5_000, 15);
    emulator.setFaults({
      seed: 16,
      error5xxRate: 0.1,
      rateLimit: { burst: 30, windowMs: 1_000, retryAfter: "seconds" },
      latencySpikeRate: 0.05,
      latencySpikeMs: 150,
      dropConnectionRate: 0.05,
    });
    const c = client({
      retry: { maxRetries: 10, baseDelayMs: 5, maxDelayMs: 1_100, maxTotalDelayMs: 60_000 },
    });
    const res = await c.drain({});
    await c.close();
    const t = emulator.state.ledger.totals();
    assert.equal(t.distinctEntriesResumed, 5_000);
    assert.equal(t.duplicates, 0);
    assert.equal(emulator.state.dlq.size, 0);
    assert.equal(res.resumedCount, 5_000, "no response was lost after a commit in this soak");
    assert.ok(retries.length > 0, "faults were met and retried");
  });
});
