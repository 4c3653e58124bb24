/**
 * A DlqRecovery drain that fails: a fatal answer mid-drain and the update that continues it, lost
 * responses, repeating and endless cursors, an unreachable service, a retried 5xx.
 */
import { strict as assert } from "node:assert";
import {
  TOKEN,
  assertNoSecrets,
  assertResumedExactlyOnce,
  dlqProvider,
  errorText,
  liveDlqIds,
  resumeRequests,
  seedLosingFirstResponseOnly,
  useEmulator,
  zeroJitter,
  partialRejection,
  sequential,
} from "../helpers";

describe("provider/dlqRecovery: a fatal failure mid-drain, then update", () => {
  const emu = useEmulator();

  async function cutOff(status: number) {
    emu().seed(237);
    const ids = liveDlqIds(emu());
    emu().setFaults({ seed: 1, failRequestNumbers: [3], failStatus: status });
    const h = dlqProvider();
    const inputs = sequential(emu(), { recoveryName: "incident-9" });
    const e = await partialRejection(h.provider.create(inputs));
    return { ...h, ids, inputs, e };
  }

  it("400 on request #3: rejects with id, the partial state and 'run up again'", async () => {
    const { e, logs } = await cutOff(400);
    assert.match(e.id, /^dlqr-[0-9a-f]{16}$/);
    const p = e.properties;
    assert.equal(p.resumedCount, 100);
    assert.equal(p.requestCount, 2);
    assert.equal(p.complete, false);
    assert.equal(typeof p.cursor, "string");
    assert.ok((p.cursor ?? "").length > 0);
    assert.equal(p.resumedRuns.length, 100);
    assert.equal(new Set(p.resumedRuns.map((r) => r.workflowRunId)).size, 100);
    assert.equal(p.all, true, "the inputs are part of the saved state");
    assert.match(p.lastError ?? "", /injected failure of request #3/);
    assert.match(e.message, /^DlqRecovery `incident-9`: .*400/);
    assert.match(e.message, /cut off after resuming 100 runs in 2 requests/);
    assert.match(
      e.message,
      /Fix the input the service refused \(above\); running `pulumi up` again before that fails/,
    );
    assert.match(e.message, /Then `pulumi up` continues where it stopped\.$/);
    assert.doesNotMatch(e.message, /Run `pulumi up` again/);
    assert.deepEqual(e.reasons, [e.message]);
    assert.equal(emu().state.ledger.totals().resumedTotal, 100);
    assertNoSecrets({ error: errorText(e), logs: logs.join("\n") }, [TOKEN]);
  });

  it("update after the 400 continues from the cursor: totals add up, every entry exactly once", async () => {
    const { provider, e, inputs, ids } = await cutOff(400);
    emu().setFaults({});
    assert.equal((await provider.diff(e.id, e.properties, inputs)).changes, true);
    const { outs } = await provider.update(e.id, e.properties, inputs);
    assert.equal(outs.complete, true);
    assert.equal(outs.resumedCount, 237);
    assert.equal(outs.requestCount, 5);
    assert.equal(outs.resumedRuns.length, 237);
    assert.equal(new Set(outs.resumedRuns.map((r) => r.workflowRunId)).size, 237);
    assert.equal(outs.cursor, undefined);
    assert.equal(outs.lastError, undefined);
    assert.equal(outs.startedAt, e.properties.startedAt, "the drain's start is kept");
    // Only the continuation's requests after the failure: 137 entries, 3 requests, first with the cursor.
    const after = resumeRequests(emu()).slice(3);
    assert.equal(after.length, 3);
    assert.equal(after[0].query.cursor, e.properties.cursor);
    assertResumedExactlyOnce(emu(), ids);
    assert.equal(emu().state.dlq.size, 0);
    assert.equal((await provider.diff(e.id, outs, inputs)).changes, false);
  });

  it("401 on request #3: says the token was rejected and where it came from, never the token", async () => {
    const { e, provider, inputs, ids } = await cutOff(401);
    assert.match(e.message, /rejected the credentials \(HTTP 401\)/);
    assert.ok(e.message.includes("`token` from the input `token`"), e.message);
    assert.equal(e.properties.resumedCount, 100);
    assertNoSecrets({ error: errorText(e) }, [TOKEN]);
    emu().setFaults({});
    const { outs } = await provider.update(e.id, e.properties, inputs);
    assert.equal(outs.resumedCount, 237);
    assertResumedExactlyOnce(emu(), ids);
  });

  it("a saved cursor the service refuses: the drain starts over without duplicates", async () => {
    const { e, provider, inputs, ids, logs } = await cutOff(400);
    emu().setFaults({});
    const tampered = { ...e.properties, cursor: Buffer.from("not-a-cursor").toString("base64url") };
    const { outs } = await provider.update(e.id, tampered, inputs);
    assert.ok(
      logs.some((l) => l.includes("the saved cursor was refused; starting the drain over")),
      JSON.stringify(logs),
    );
    assert.equal(outs.complete, true);
    assert.equal(outs.resumedCount, 237);
    assert.equal(outs.requestCount, 5);
    assertResumedExactlyOnce(emu(), ids);
  });

  it("a changed selection after a cut-off starts a new drain (the old cursor is not reused)", async () => {
    const { e, provider, inputs, ids } = await cutOff(400);
    emu().setFaults({});
    const news = { ...inputs, triggers: ["again"] };
    const { outs } = await provider.update(e.id, e.properties, news);
    assert.equal(outs.complete, true);
    assert.equal(outs.resumedCount, 137);
    const after = resumeRequests(emu()).slice(3);
    assert.equal(after.length, 3);
    assert.equal(after[0].query.cursor, undefined, "the new drain starts without the old cursor");
    assertResumedExactlyOnce(emu(), ids);
  });
});

describe("provider/dlqRecovery: ambiguous and endless drains", () => {
  const emu = useEmulator();
  zeroJitter();

  it("a response lost after commit: counted as ambiguous, nothing resumed twice", async () => {
    emu().seed(120);
    const ids = liveDlqIds(emu());
    emu().setFaults({ seed: seedLosingFirstResponseOnly(0.3, 8), loseResponseAfterCommitRate: 0.3 });
    const { provider } = dlqProvider();
    const { outs } = await provider.create(sequential(emu()));
    assert.equal(outs.complete, true);
    assert.equal(outs.ambiguousRequests, 1);
    assert.equal(outs.resumedCount, 70, "the 50 runs of the lost response have unknown IDs");
    assert.equal(outs.requestCount, 2);
    const totals = emu().state.ledger.totals();
    assert.equal(totals.responseLostTotal, 50);
    assertResumedExactlyOnce(emu(), ids);
    assert.equal(outs.resumedCount + totals.responseLostTotal, 120);
  });

  it("a lost dlqIds response: the batch's IDs are unconfirmed, nothing resumed twice", async () => {
    emu().seed(60);
    const ids = liveDlqIds(emu());
    emu().setFaults({ seed: seedLosingFirstResponseOnly(0.3, 8), loseResponseAfterCommitRate: 0.3 });
    const { provider } = dlqProvider();
    const { outs } = await provider.create({ dlqIds: ids, baseUrl: emu().url, token: TOKEN, concurrency: 1 });
    assert.equal(outs.complete, true);
    assert.equal(outs.ambiguousRequests, 1);
    assert.equal(outs.resumedCount, 10);
    assert.deepEqual([...outs.unconfirmedDlqIds].sort(), ids.slice(0, 50).sort());
    assertResumedExactlyOnce(emu(), ids);
  });

  it("a repeating cursor: SVC_CURSOR_LOOP with the partial state; update then finishes", async () => {
    emu().seed(10);
    const ids = liveDlqIds(emu());
    emu().setFaults({ seed: 1, repeatingCursor: true });
    const { provider } = dlqProvider();
    const inputs = sequential(emu());
    const e = await partialRejection(provider.create(inputs));
    assert.match(e.message, /SVC_CURSOR_LOOP/);
    assert.match(e.message, /Run `pulumi up` again/);
    assert.equal(e.properties.complete, false);
    assert.equal(e.properties.resumedCount, 0);
    assert.equal(e.properties.requestCount, 2);
    assert.ok(e.properties.cursor);
    assert.equal(emu().state.ledger.totals().resumedTotal, 0);
    emu().setFaults({});
    const { outs } = await provider.update(e.id, e.properties, inputs);
    assert.equal(outs.complete, true);
    assert.equal(outs.resumedCount, 10);
    assertResumedExactlyOnce(emu(), ids);
  });

  it("an endless cursor: SVC_CURSOR_LOOP after the DLQ is drained, with every run in the partial state", async () => {
    emu().seed(60);
    const ids = liveDlqIds(emu());
    emu().setFaults({ seed: 1, endlessCursor: true });
    const { provider } = dlqProvider();
    const inputs = sequential(emu());
    const e = await partialRejection(provider.create(inputs));
    assert.match(e.message, /SVC_CURSOR_LOOP/);
    assert.equal(e.properties.complete, false);
    assert.equal(e.properties.resumedCount, 60);
    assert.equal(e.properties.resumedRuns.length, 60);
    assert.ok(e.properties.cursor);
    assertResumedExactlyOnce(emu(), ids);
    emu().setFaults({});
    const { outs } = await provider.update(e.id, e.properties, inputs);
    assert.equal(outs.complete, true);
    assert.equal(outs.resumedCount, 60);
    assertResumedExactlyOnce(emu(), ids);
  });

  it("an unreachable service: rejects naming the URL (nothing resumed, nothing lost)", async () => {
    const url = emu().url;
    await emu().close();
    const { provider } = dlqProvider();
    const e = await partialRejection(provider.create({ all: true, baseUrl: url, token: TOKEN }));
    assert.match(e.message, /cannot reach the service at http:\/\/127\.0\.0\.1:\d+/);
    assert.equal(e.properties.resumedCount, 0);
    assertNoSecrets({ error: errorText(e) }, [TOKEN]);
  });

  it("a 5xx is retried and the drain completes", async () => {
    emu().seed(60);
    emu().setFaults({ seed: 1, failRequestNumbers: [2], failStatus: 503 });
    const { provider } = dlqProvider();
    const { outs } = await provider.create(sequential(emu()));
    assert.equal(outs.complete, true);
    assert.equal(outs.resumedCount, 60);
    assert.equal(outs.ambiguousRequests, 1, "a 5xx on a resume may have been processed");
    assert.deepEqual(
      resumeRequests(emu()).map((r) => r.status),
      [200, 503, 200],
    );
  });
});
