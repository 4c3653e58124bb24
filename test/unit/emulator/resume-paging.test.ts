import assert from "node:assert/strict";
import { drain, resumeOk, useEmulator } from "./helpers";

describe("emulator resume paging", () => {
  const emu = useEmulator();

  for (const n of [1, 50, 51, 237]) {
    it(`drains ${n} entries in ceil(${n}/50) = ${Math.ceil(n / 50)} requests, each entry once`, async () => {
      emu().seed(n, 3);
      const ids = emu()
        .state.dlq.page(0, n)
        .map((e) => e.dlqId);
      const { requests, runs } = await drain(emu());
      assert.equal(requests, Math.ceil(n / 50));
      assert.equal(runs.length, n);
      assert.equal(new Set(runs).size, n);
      assert.equal(emu().state.dlq.size, 0);
      const totals = emu().state.ledger.totals();
      assert.deepEqual(totals, {
        resumedTotal: n,
        distinctEntriesResumed: n,
        duplicates: 0,
        responseLostTotal: 0,
      });
      for (const id of ids) assert.equal(emu().state.ledger.runsFor(id).length, 1, id);
    });
  }

  it("an empty DLQ answers 200 with an empty cursor and no runs", async () => {
    assert.deepEqual(await resumeOk(emu()), { cursor: "", workflowRuns: [] });
  });

  it("returns new run IDs and creation times, never the original IDs", async () => {
    emu().seed(5, 1);
    const originals = new Set(
      emu()
        .state.dlq.page(0, 5)
        .map((e) => e.workflowRunId),
    );
    const before = Date.now();
    const { workflowRuns } = await resumeOk(emu());
    for (const run of workflowRuns) {
      assert.match(run.workflowRunId, /^wfr_[0-9a-f]{24}$/);
      assert.ok(!originals.has(run.workflowRunId));
      assert.ok(Number.isInteger(run.workflowCreatedAt) && run.workflowCreatedAt >= before);
    }
  });

  it("count limits the runs per request", async () => {
    emu().seed(25, 1);
    const first = await resumeOk(emu(), { count: 10 });
    assert.equal(first.workflowRuns.length, 10);
    assert.notEqual(first.cursor, "");
    const second = await resumeOk(emu(), { count: 15, cursor: first.cursor });
    assert.equal(second.workflowRuns.length, 15);
    assert.equal(second.cursor, "");
  });

  it("without a cursor a fresh request starts over with what is left", async () => {
    emu().seed(120, 1);
    assert.equal((await resumeOk(emu())).workflowRuns.length, 50);
    assert.equal((await resumeOk(emu())).workflowRuns.length, 50);
    const last = await resumeOk(emu());
    assert.equal(last.workflowRuns.length, 20);
    assert.equal(last.cursor, "");
  });

  it("the cursor is opaque and the response has exactly cursor and workflowRuns", async () => {
    emu().seed(60, 1);
    const res = await resumeOk(emu());
    assert.deepEqual(Object.keys(res).sort(), ["cursor", "workflowRuns"]);
    assert.match(res.cursor, /^[A-Za-z0-9_-]+$/);
    assert.deepEqual(Object.keys(res.workflowRuns[0]).sort(), ["workflowCreatedAt", "workflowRunId"]);
  });
});
