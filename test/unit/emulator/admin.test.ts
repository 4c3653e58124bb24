import assert from "node:assert/strict";
import { admin, expectError, resumeOk, useEmulator } from "./helpers";

describe("emulator admin API", () => {
  const emu = useEmulator();

  it("GET /admin lists the endpoints", async () => {
    const { status, body } = await admin(emu(), "GET", "/admin");
    assert.equal(status, 200);
    assert.ok((body.endpoints as string[]).some((e) => e.startsWith("GET /admin/ledger")));
  });

  it("POST /admin/entries adds partial entries; GET pages them", async () => {
    const added = await admin(emu(), "POST", "/admin/entries", [
      { dlqId: "a", workflowUrl: "http://127.0.0.1/workflows/x", failedAt: 5 },
      { dlqId: "b" },
      {},
    ]);
    assert.equal(added.status, 201);
    assert.equal(added.body.added, 3);
    assert.deepEqual((added.body.dlqIds as string[]).slice(0, 2), ["a", "b"]);
    const page = await admin(emu(), "GET", "/admin/entries?limit=2&offset=1");
    assert.equal(page.body.count, 3);
    const entries = page.body.entries as Record<string, unknown>[];
    assert.equal(entries.length, 2);
    assert.equal(entries[0].dlqId, "b");
    assert.equal(entries[0].method, "POST");
    assert.deepEqual(entries[0].steps, [{ name: "step-1", state: "STEP_FAILED" }]);
  });

  it("POST /admin/entries rejects bad input naming the entry and field, all-or-nothing", async () => {
    for (const [body, pattern] of [
      [[{ dlqId: "ok" }, { failedAt: "soon" }], /entries\[1\]\.failedAt must be an integer >= 0, got "soon"/],
      [[{ colour: "red" }], /entries\[0\]\.colour is not a DLQ entry field/],
      [
        [{ steps: [{ name: "s", state: "DONE" }] }],
        /entries\[0\]\.steps\[0\]\.state must be one of STEP_SUCCESS/,
      ],
      [[{ dlqId: "dup" }, { dlqId: "dup" }], /entries\[1\]\.dlqId "dup" is already in the DLQ/],
      [[{ period: "soon" }], /entries\[0\]\.period must look like/],
      [{ dlqId: "x" }, /entries must be a JSON array/],
    ] as const) {
      const res = await fetch(`${emu().url}/admin/entries`, { method: "POST", body: JSON.stringify(body) });
      await expectError(res, 400, pattern);
    }
    assert.equal(emu().state.dlq.size, 0);
  });

  it("DELETE /admin/entries/:dlqId removes one entry; unknown → 404", async () => {
    emu().addEntries([{ dlqId: "a/b" }, { dlqId: "c" }]);
    const deleted = await admin(emu(), "DELETE", `/admin/entries/${encodeURIComponent("a/b")}`);
    assert.deepEqual(deleted, { status: 200, body: { deleted: "a/b", count: 1 } });
    const missing = await fetch(`${emu().url}/admin/entries/zzz`, { method: "DELETE" });
    await expectError(missing, 404, /dlqId "zzz" is not in the DLQ/);
  });

  it("GET /admin/ledger shows runs by DLQ ID with overrides and totals", async () => {
    emu().addEntries([{ dlqId: "a" }, { dlqId: "b" }]);
    await resumeOk(emu(), {}, { "Svc-Retries": "4" });
    // Re-adding a resumed ID and resuming it again shows up as a duplicate.
    emu().addEntries([{ dlqId: "a" }]);
    await resumeOk(emu());
    const { body } = await admin(emu(), "GET", "/admin/ledger");
    assert.equal(body.resumedTotal, 3);
    assert.equal(body.distinctEntriesResumed, 2);
    assert.equal(body.duplicates, 1);
    const runs = (body.byDlqId as Record<string, Record<string, unknown>[]>).a;
    assert.equal(runs.length, 2);
    assert.deepEqual(runs[0].overrides, { retries: 4 });
    assert.deepEqual(runs[1].overrides, {});
    const one = await admin(emu(), "GET", "/admin/ledger?dlqId=b");
    assert.deepEqual(Object.keys(one.body.byDlqId as object), ["b"]);
  });

  it("GET /admin/requests returns the log, with ?since for new requests only", async () => {
    emu().seed(3, 1);
    await resumeOk(emu(), { count: 1 });
    await resumeOk(emu(), { count: 1 });
    const all = await admin(emu(), "GET", "/admin/requests");
    assert.equal(all.body.total, 2);
    assert.equal(all.body.next, 2);
    await resumeOk(emu(), { count: 1 }, { "Svc-Flow-Control-Key": "k" });
    const fresh = await admin(emu(), "GET", `/admin/requests?since=${all.body.next as number}`);
    const requests = fresh.body.requests as Record<string, unknown>[];
    assert.equal(requests.length, 1);
    assert.equal(requests[0].index, 2);
    assert.equal(requests[0].method, "POST");
    assert.equal(requests[0].path, "/v2/workflows/dlq/resume");
    assert.deepEqual(requests[0].query, { count: "1" });
    assert.deepEqual(requests[0].overrideHeaders, { "svc-flow-control-key": "k" });
    assert.equal(requests[0].status, 200);
    assert.equal(requests[0].resumed, 1);
    assert.equal(typeof requests[0].time, "number");
  });

  it("POST /admin/seed seeds; GET /admin/stats counts", async () => {
    const seeded = await admin(emu(), "POST", "/admin/seed", { count: 40, seed: 2 });
    assert.deepEqual(seeded.body, { added: 40, count: 40 });
    const stats = await admin(emu(), "GET", "/admin/stats");
    assert.equal(stats.body.size, 40);
    const bad = await fetch(`${emu().url}/admin/seed`, {
      method: "POST",
      body: JSON.stringify({ count: -1 }),
    });
    await expectError(bad, 400, /count must be an integer from 0 to 5000000, got -1/);
  });

  it("POST /admin/reset empties DLQ, ledger, log and faults", async () => {
    emu().seed(10, 1);
    await resumeOk(emu(), { count: 2 });
    emu().setFaults({ error5xxRate: 1 });
    await admin(emu(), "POST", "/admin/reset");
    assert.equal(emu().state.dlq.size, 0);
    assert.equal(emu().state.ledger.totals().resumedTotal, 0);
    assert.equal(emu().state.log.total, 0);
    assert.deepEqual(emu().state.faults.config, {});
  });

  it("unknown admin path → 404 JSON", async () => {
    await expectError(
      await fetch(`${emu().url}/admin/nothing`),
      404,
      /no such admin endpoint: GET \/admin\/nothing/,
    );
  });

  it("bad query values → 400 naming the parameter", async () => {
    await expectError(
      await fetch(`${emu().url}/admin/entries?limit=x`),
      400,
      /limit must be an integer .* got "x"/,
    );
    await expectError(await fetch(`${emu().url}/admin/requests?since=-1`), 400, /since must be an integer/);
  });
});
