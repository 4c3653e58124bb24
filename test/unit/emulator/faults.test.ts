import assert from "node:assert/strict";
import type { RunningEmulator } from "../../../emulator";
import { startEmulator } from "../../../emulator";
import { FaultInjector } from "../../../emulator/faults";
import { admin, basic, expectError, resumeOk, resumeRaw, useEmulator } from "./helpers";

/**
 * Assert that nothing was committed.
 *
 * @param emu - the emulator.
 * @param size - expected DLQ size.
 */
function assertNothingCommitted(emu: RunningEmulator, size: number): void {
  assert.equal(emu.state.dlq.size, size);
  assert.equal(emu.state.ledger.totals().resumedTotal, 0);
}

describe("emulator fault injection", () => {
  let clock = Date.UTC(2025, 5, 1, 12, 0, 0, 250);
  const emu = useEmulator({ dlq: 120, now: () => clock });

  it("error5xxRate 1 → 5xx JSON before committing", async () => {
    emu().setFaults({ error5xxRate: 1 });
    for (let i = 0; i < 5; i++) {
      const res = await resumeRaw(emu());
      assert.ok([500, 502, 503].includes(res.status), String(res.status));
      await expectError(res, res.status, /injected server error/);
    }
    assertNothingCommitted(emu(), 120);
  });

  it("error5xxStatuses picks the status; the account endpoint is affected too", async () => {
    emu().setFaults({ error5xxRate: 1, error5xxStatuses: [503] });
    assert.equal((await resumeRaw(emu())).status, 503);
    const res = await fetch(`${emu().url}/v2/svc/user`, { headers: { authorization: basic() } });
    assert.equal(res.status, 503);
  });

  it("endpoints limits the faults to one endpoint", async () => {
    emu().setFaults({ error5xxRate: 1, error5xxStatuses: [500], endpoints: ["account"] });
    assert.equal((await resumeRaw(emu())).status, 200);
    assert.equal(
      (await fetch(`${emu().url}/v2/svc/user`, { headers: { authorization: basic() } })).status,
      500,
    );
  });

  it("random faults are deterministic for a seed", () => {
    const pattern = (seed: number): string => {
      const faults = new FaultInjector();
      faults.configure({ seed, error5xxRate: 0.5, latencyMs: 10, latencyJitterMs: 100 });
      return Array.from({ length: 40 }, () => {
        const plan = faults.plan("resume", 0);
        return `${plan.preCommit?.kind === "respond" ? plan.preCommit.status : 200}/${plan.delayMs}`;
      }).join(",");
    };
    assert.equal(pattern(7), pattern(7));
    assert.notEqual(pattern(7), pattern(8));
    assert.match(pattern(7), /^(?=.*\b200\/)(?=.*\b50[023]\/)/);
  });

  it("rateLimit every N → 429 with Retry-After and Burst-RateLimit headers, nothing committed", async () => {
    emu().setFaults({ rateLimit: { every: 2, retryAfterSeconds: 3 } });
    const ok = await resumeRaw(emu(), { count: 1 });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get("burst-ratelimit-remaining"), "0");
    const limited = await resumeRaw(emu(), { count: 1 });
    await expectError(limited, 429, /rate limit exceeded/);
    assert.equal(limited.headers.get("retry-after"), "3");
    assert.equal(limited.headers.get("burst-ratelimit-limit"), "1");
    assert.equal(limited.headers.get("burst-ratelimit-remaining"), "0");
    assert.equal(limited.headers.get("burst-ratelimit-reset"), String(Math.ceil((clock + 3000) / 1000)));
    assert.equal(emu().state.ledger.totals().resumedTotal, 1);
  });

  it("rateLimit burst/window → 429 once the window's budget is spent, until the window ends", async () => {
    emu().setFaults({ rateLimit: { burst: 2, windowMs: 10_000 } });
    const windowEnd = Math.floor(clock / 10_000) * 10_000 + 10_000;
    assert.equal((await resumeRaw(emu(), { count: 1 })).status, 200);
    const second = await resumeRaw(emu(), { count: 1 });
    assert.equal(second.headers.get("burst-ratelimit-remaining"), "0");
    const third = await resumeRaw(emu(), { count: 1 });
    assert.equal(third.status, 429);
    assert.equal(third.headers.get("retry-after"), String(Math.ceil((windowEnd - clock) / 1000)));
    assert.equal(third.headers.get("burst-ratelimit-reset"), String(windowEnd / 1000));
    clock = windowEnd;
    assert.equal((await resumeRaw(emu(), { count: 1 })).status, 200);
    assert.equal(emu().state.ledger.totals().resumedTotal, 3);
  });

  it("rateLimit retryAfter http-date and none", async () => {
    emu().setFaults({ rateLimit: { every: 1, retryAfter: "http-date", retryAfterSeconds: 2 } });
    const dated = await resumeRaw(emu());
    assert.equal(dated.headers.get("retry-after"), new Date(clock + 2000).toUTCString());
    emu().setFaults({ rateLimit: { every: 1, retryAfter: "none" } });
    const bare = await resumeRaw(emu());
    assert.equal(bare.status, 429);
    assert.equal(bare.headers.get("retry-after"), null);
    assert.notEqual(bare.headers.get("burst-ratelimit-reset"), null);
  });

  it("latency delays the response (counted, not timed)", async () => {
    emu().setFaults({ latencyMs: 20, latencyJitterMs: 10, latencySpikeRate: 1, latencySpikeMs: 5 });
    assert.equal((await resumeRaw(emu(), { count: 1 })).status, 200);
    assert.equal(emu().state.faults.stats().fired.latency, 1);
    const faults = new FaultInjector();
    faults.configure({
      seed: 1,
      latencyMs: 20,
      latencyJitterMs: 10,
      latencySpikeRate: 1,
      latencySpikeMs: 500,
    });
    const delay = faults.plan("resume", 0).delayMs;
    assert.ok(delay >= 520 && delay <= 530, String(delay));
  });

  it("close() cuts a pending injected latency short", async () => {
    const slow = await startEmulator({ faults: { latencyMs: 600_000 } });
    const pending = resumeRaw(slow).then(
      () => "answered",
      () => "failed",
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await slow.close();
    assert.equal(await pending, "failed");
  });

  it("dropConnectionRate 1 → socket destroyed without a response, nothing committed", async () => {
    emu().setFaults({ dropConnectionRate: 1 });
    await assert.rejects(resumeRaw(emu()));
    assertNothingCommitted(emu(), 120);
    const logged = emu().state.log.since(0)[0];
    assert.equal(logged.status, null);
    assert.equal(logged.fault, "dropConnection");
  });

  it("loseResponseAfterCommitRate 1 → committed, then the socket is destroyed; ledger marks responseLost", async () => {
    emu().setFaults({ loseResponseAfterCommitRate: 1 });
    await assert.rejects(resumeRaw(emu()));
    assert.equal(emu().state.dlq.size, 70);
    const totals = emu().state.ledger.totals();
    assert.equal(totals.resumedTotal, 50);
    assert.equal(totals.responseLostTotal, 50);
    const [, runs] = [...emu().state.ledger.entries()][0];
    assert.equal(runs[0].responseLost, true);
    const logged = emu().state.log.since(0)[0];
    assert.equal(logged.resumed, 50);
    assert.equal(logged.status, null);
    assert.equal(logged.fault, "loseResponseAfterCommit");
    // A retry without the cursor continues with the rest: nothing resumed twice.
    emu().setFaults({});
    await resumeOk(emu());
    assert.equal(emu().state.ledger.totals().duplicates, 0);
  });

  it("malformedJson → 200 with a broken JSON body, nothing committed", async () => {
    emu().setFaults({ malformedJson: true });
    const res = await resumeRaw(emu());
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json");
    await assert.rejects(res.json(), SyntaxError);
    assertNothingCommitted(emu(), 120);
  });

  it("htmlErrorPage → 502 with an HTML body, nothing committed", async () => {
    emu().setFaults({ htmlErrorPage: 1 });
    const res = await resumeRaw(emu());
    assert.equal(res.status, 502);
    assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(await res.text(), /<html>.*502 Bad Gateway/s);
    assertNothingCommitted(emu(), 120);
  });

  it("endlessCursor → a non-empty cursor forever, runs still resumed", async () => {
    emu().setFaults({ endlessCursor: true });
    let cursor = "";
    let resumed = 0;
    for (let i = 0; i < 6; i++) {
      const page = await resumeOk(emu(), cursor === "" ? {} : { cursor });
      assert.notEqual(page.cursor, "");
      cursor = page.cursor;
      resumed += page.workflowRuns.length;
    }
    assert.equal(resumed, 120);
    assert.equal(emu().state.dlq.size, 0);
  });

  it("repeatingCursor → the same cursor again and again, no runs, nothing committed", async () => {
    const first = await resumeOk(emu(), { count: 5 });
    emu().setFaults({ repeatingCursor: true });
    for (let i = 0; i < 3; i++) {
      const page = await resumeOk(emu(), { count: 5, cursor: first.cursor });
      assert.deepEqual(page, { cursor: first.cursor, workflowRuns: [] });
    }
    const fresh = await resumeOk(emu());
    assert.notEqual(fresh.cursor, "");
    assert.equal(fresh.workflowRuns.length, 0);
    assert.equal(emu().state.ledger.totals().resumedTotal, 5);
  });

  it("failRequestNumbers cuts a drain at an exact request", async () => {
    emu().setFaults({ failRequestNumbers: [2], failStatus: 503 });
    const first = await resumeOk(emu());
    const second = await resumeRaw(emu(), { cursor: first.cursor });
    await expectError(second, 503, /injected failure of request #2/);
    assert.equal(emu().state.ledger.totals().resumedTotal, 50);
    const third = await resumeOk(emu(), { cursor: first.cursor });
    assert.equal(third.workflowRuns.length, 50);
  });

  it("GET /admin/faults shows the config and counters; PUT validates naming the field", async () => {
    const put = await admin(emu(), "PUT", "/admin/faults", { error5xxRate: 1, seed: 3 });
    assert.equal(put.status, 200);
    await resumeRaw(emu());
    const got = await admin(emu(), "GET", "/admin/faults");
    assert.deepEqual(got.body, {
      config: { error5xxRate: 1, seed: 3 },
      stats: { requests: 1, fired: { error5xx: 1 } },
    });
    for (const [config, pattern] of [
      [{ error5xxRate: 2 }, /error5xxRate must be a number from 0 to 1, got 2/],
      [{ nope: true }, /unknown fault "nope"/],
      [{ rateLimit: { every: 0 } }, /rateLimit.every must be an integer >= 1, got 0/],
      [{ rateLimit: { every: 2, burst: 1, windowMs: 5 } }, /either every, or burst and windowMs/],
      [{ failStatus: 200 }, /failStatus must be an integer from 400 to 599, got 200/],
      [{ endlessCursor: true, repeatingCursor: true }, /cannot both be true/],
      [{ endpoints: ["resume", "other"] }, /endpoints must be an array of "resume" and\/or "account"/],
    ] as const) {
      const res = await fetch(`${emu().url}/admin/faults`, { method: "PUT", body: JSON.stringify(config) });
      await expectError(res, 400, pattern);
    }
    assert.throws(() => emu().setFaults({ latencyMs: -1 }), /latencyMs must be an integer number of ms/);
  });
});
