import assert from "node:assert/strict";
import type { RunningEmulator } from "../../../emulator";
import { drain, expectError, resumeOk, resumeRaw, useEmulator } from "./helpers";

const ORDERS = "http://127.0.0.1/workflows/orders";
const EMAILS = "http://127.0.0.1/workflows/emails";

/**
 * Ten entries: d0..d9, failedAt 1000..10000, runs wfr_aaN (even) / wfr_bbN (odd),
 * workflowCreatedAt 500 + N, orders for N < 5, emails otherwise.
 */
function addTen(emu: RunningEmulator): void {
  emu.addEntries(
    Array.from({ length: 10 }, (_, n) => ({
      dlqId: `d${n}`,
      workflowRunId: n % 2 === 0 ? `wfr_aa${n}` : `wfr_bb${n}`,
      workflowUrl: n < 5 ? ORDERS : EMAILS,
      failedAt: (n + 1) * 1000,
      workflowCreatedAt: 500 + n,
    })),
  );
}

/**
 * DLQ IDs whose runs the ledger holds, sorted.
 *
 * @param emu - the emulator.
 */
function resumedIds(emu: RunningEmulator): string[] {
  return [...emu.state.ledger.entries()].map(([id]) => id).sort();
}

describe("emulator resume filters", () => {
  const emu = useEmulator();
  beforeEach(() => addTen(emu()));

  it("fromDate is inclusive on failure time", async () => {
    await drain(emu(), { fromDate: 8000 });
    assert.deepEqual(resumedIds(emu()), ["d7", "d8", "d9"]);
  });

  it("toDate is inclusive on failure time", async () => {
    await drain(emu(), { toDate: 2000 });
    assert.deepEqual(resumedIds(emu()), ["d0", "d1"]);
  });

  it("fromDate and toDate together", async () => {
    await drain(emu(), { fromDate: 3000, toDate: 4000 });
    assert.deepEqual(resumedIds(emu()), ["d2", "d3"]);
  });

  it("workflowUrl is an exact match", async () => {
    await drain(emu(), { workflowUrl: EMAILS });
    assert.deepEqual(resumedIds(emu()), ["d5", "d6", "d7", "d8", "d9"]);
    const none = await resumeOk(emu(), { workflowUrl: `${ORDERS}/` });
    assert.equal(none.workflowRuns.length, 0);
  });

  it("workflowRunId matches a prefix", async () => {
    await drain(emu(), { workflowRunId: "wfr_aa" });
    assert.deepEqual(resumedIds(emu()), ["d0", "d2", "d4", "d6", "d8"]);
  });

  it("workflowRunId matches an exact ID", async () => {
    await drain(emu(), { workflowRunId: "wfr_bb3" });
    assert.deepEqual(resumedIds(emu()), ["d3"]);
  });

  it("workflowCreatedAt is an exact match", async () => {
    await drain(emu(), { workflowCreatedAt: 504 });
    assert.deepEqual(resumedIds(emu()), ["d4"]);
  });

  it("filters combine with AND", async () => {
    await drain(emu(), { workflowUrl: ORDERS, workflowRunId: "wfr_bb", fromDate: 3000 });
    assert.deepEqual(resumedIds(emu()), ["d3"]);
  });

  it("filters page with a cursor (count 2)", async () => {
    const first = await resumeOk(emu(), { workflowUrl: EMAILS, count: 2 });
    assert.equal(first.workflowRuns.length, 2);
    const second = await resumeOk(emu(), { workflowUrl: EMAILS, count: 2, cursor: first.cursor });
    const third = await resumeOk(emu(), { workflowUrl: EMAILS, count: 2, cursor: second.cursor });
    assert.equal(third.workflowRuns.length, 1);
    assert.equal(third.cursor, "");
    assert.equal(emu().state.dlq.size, 5);
  });

  it("the filters may come in a JSON body (dlqIds as array)", async () => {
    const res = await resumeRaw(emu(), {}, {}, { workflowUrl: ORDERS, toDate: 2000 });
    assert.equal(res.status, 200);
    assert.deepEqual(resumedIds(emu()), ["d0", "d1"]);
    const byIds = await resumeRaw(emu(), {}, {}, { dlqIds: ["d9"] });
    assert.equal(byIds.status, 200);
    assert.deepEqual(resumedIds(emu()), ["d0", "d1", "d9"]);
  });

  it("a cursor used with different filters is rejected with 400", async () => {
    const first = await resumeOk(emu(), { workflowUrl: EMAILS, count: 1 });
    const res = await resumeRaw(emu(), { workflowUrl: ORDERS, count: 1, cursor: first.cursor });
    await expectError(res, 400, /cursor ".+" was issued for different filters/);
    const none = await resumeRaw(emu(), { count: 1, cursor: first.cursor });
    await expectError(none, 400, /different filters/);
  });

  describe("dlqIds", () => {
    it("resumes exactly the listed entries (repeated query parameter), in order", async () => {
      const body = await resumeOk(emu(), { dlqIds: ["d7", "d2"] });
      assert.equal(body.workflowRuns.length, 2);
      assert.equal(body.cursor, "");
      assert.deepEqual(resumedIds(emu()), ["d2", "d7"]);
      assert.equal(emu().state.ledger.runsFor("d7")[0].workflowRunId, body.workflowRuns[0].workflowRunId);
    });

    it("ignores the other filters when dlqIds are given", async () => {
      const body = await resumeOk(emu(), { dlqIds: ["d1"], workflowUrl: EMAILS, fromDate: 9000 });
      assert.equal(body.workflowRuns.length, 1);
      assert.deepEqual(resumedIds(emu()), ["d1"]);
    });

    it("a repeated ID → 400 naming it, and nothing is resumed", async () => {
      const res = await resumeRaw(emu(), { dlqIds: ["d1", "d1"] });
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), { error: 'dlqIds[1] repeats dlqIds[0] ("d1")' });
      assert.equal(emu().state.ledger.totals().resumedTotal, 0);
    });

    it("an unknown ID → 404, and nothing in the request is resumed", async () => {
      const res = await resumeRaw(emu(), { dlqIds: ["d1", "nope", "d2"] });
      assert.equal(res.status, 404);
      assert.deepEqual(await res.json(), { error: "Some DLQ messages were not found" });
      assert.equal(emu().state.dlq.size, 10);
      assert.equal(emu().state.ledger.totals().resumedTotal, 0);
      const logged = emu().state.log.since(0);
      assert.match(logged[logged.length - 1].error ?? "", /"nope"/);
    });

    it("an already resumed ID → 404 on a second request", async () => {
      await resumeOk(emu(), { dlqIds: ["d3"] });
      assert.equal((await resumeRaw(emu(), { dlqIds: ["d3"] })).status, 404);
      assert.equal(emu().state.ledger.runsFor("d3").length, 1);
    });

    it("more than 50 IDs → 400", async () => {
      const ids = Array.from({ length: 51 }, (_, i) => `x${i}`);
      await expectError(await resumeRaw(emu(), { dlqIds: ids }), 400, /dlqIds has 51 values; at most 50/);
    });

    it("exactly 50 IDs are accepted", async () => {
      emu().addEntries(Array.from({ length: 40 }, (_, i) => ({ dlqId: `e${i}` })));
      const ids = [
        ...Array.from({ length: 40 }, (_, i) => `e${i}`),
        ...Array.from({ length: 10 }, (_, i) => `d${i}`),
      ];
      const body = await resumeOk(emu(), { dlqIds: ids });
      assert.equal(body.workflowRuns.length, 50);
      assert.equal(emu().state.dlq.size, 0);
    });
  });
});
