import assert from "node:assert/strict";
import type { RunningEmulator } from "../../../emulator";
import { admin, drain, expectError, resumeOk, resumeRaw, useEmulator } from "./helpers";

/**
 * Assert the ledger holds exactly the expected DLQ IDs, each resumed once.
 *
 * @param emu - the emulator.
 * @param expected - DLQ IDs.
 */
function assertResumedOnce(emu: RunningEmulator, expected: Iterable<string>): void {
  const totals = emu.state.ledger.totals();
  assert.equal(totals.duplicates, 0);
  const resumed = new Set([...emu.state.ledger.entries()].map(([id]) => id));
  assert.deepEqual([...resumed].sort(), [...new Set(expected)].sort());
}

describe("emulator cursor correctness", () => {
  const emu = useEmulator();

  it("entries added and removed between pages: none skipped, none twice", async () => {
    emu().seed(120, 9);
    const initial = emu()
      .state.dlq.page(0, 1000)
      .map((e) => e.dlqId);
    const first = await resumeOk(emu());
    assert.equal(first.workflowRuns.length, 50);

    // Between pages: remove 10 entries not yet resumed, add 30 new ones.
    const removed = initial.slice(60, 70);
    for (const id of removed)
      assert.equal((await admin(emu(), "DELETE", `/admin/entries/${id}`)).status, 200);
    const added = emu()
      .addEntries(Array.from({ length: 30 }, (_, i) => ({ dlqId: `new-${i}` })))
      .map((e) => e.dlqId);

    let cursor = first.cursor;
    let requests = 1;
    while (cursor !== "") {
      const page = await resumeOk(emu(), { cursor });
      cursor = page.cursor;
      requests++;
    }
    assert.equal(requests, Math.ceil((120 - 10 + 30) / 50));
    assertResumedOnce(emu(), [...initial.filter((id) => !removed.includes(id)), ...added]);
    assert.equal(emu().state.dlq.size, 0);
  });

  it("entries resumed by dlqIds between filter pages are not resumed again", async () => {
    emu().addEntries(Array.from({ length: 100 }, (_, i) => ({ dlqId: `e${i}`, failedAt: 1000 + i })));
    const first = await resumeOk(emu(), { fromDate: 1000 });
    await resumeOk(emu(), { dlqIds: ["e60", "e61", "e99"] });
    const rest = await resumeOk(emu(), { fromDate: 1000, cursor: first.cursor });
    assert.equal(rest.workflowRuns.length, 47);
    assert.equal(rest.cursor, "");
    assertResumedOnce(
      emu(),
      Array.from({ length: 100 }, (_, i) => `e${i}`),
    );
  });

  it("matching entries added behind the cursor are picked up on the next page", async () => {
    const url = "http://127.0.0.1/workflows/orders";
    emu().addEntries(Array.from({ length: 60 }, (_, i) => ({ dlqId: `o${i}`, workflowUrl: url })));
    const first = await resumeOk(emu(), { workflowUrl: url });
    emu().addEntries([
      { dlqId: "late-match", workflowUrl: url },
      { dlqId: "late-other", workflowUrl: "http://127.0.0.1/workflows/emails" },
    ]);
    const second = await resumeOk(emu(), { workflowUrl: url, cursor: first.cursor });
    assert.equal(second.workflowRuns.length, 11);
    assert.equal(second.cursor, "");
    assert.ok(emu().state.dlq.has("late-other"));
    assert.equal(emu().state.ledger.runsFor("late-match").length, 1);
  });

  it("repeating a cursor (client retry after a lost response) never resumes an entry twice", async () => {
    emu().seed(150, 4);
    const first = await resumeOk(emu());
    const second = await resumeOk(emu(), { cursor: first.cursor });
    const retry = await resumeOk(emu(), { cursor: first.cursor });
    const secondIds = new Set(second.workflowRuns.map((r) => r.workflowRunId));
    assert.equal(retry.workflowRuns.length, 50);
    assert.ok(retry.workflowRuns.every((r) => !secondIds.has(r.workflowRunId)));
    assert.equal(retry.cursor, "");
    assert.equal(emu().state.ledger.totals().duplicates, 0);
    assert.equal(emu().state.ledger.totals().resumedTotal, 150);
  });

  it("a cursor whose next entries were deleted continues with the following ones", async () => {
    emu().addEntries(Array.from({ length: 60 }, (_, i) => ({ dlqId: `e${i}` })));
    const first = await resumeOk(emu());
    for (let i = 50; i < 55; i++) emu().state.dlq.remove(`e${i}`);
    const second = await resumeOk(emu(), { cursor: first.cursor });
    assert.equal(second.workflowRuns.length, 5);
    assertResumedOnce(emu(), [
      ...Array.from({ length: 50 }, (_, i) => `e${i}`),
      ...Array.from({ length: 5 }, (_, i) => `e${55 + i}`),
    ]);
  });

  it("the drain stays exact across tombstone compactions", async () => {
    emu().seed(3000, 2);
    const ids = emu()
      .state.dlq.page(0, 3000)
      .map((e) => e.dlqId);
    const { requests } = await drain(emu());
    assert.equal(requests, 60);
    assert.ok(emu().state.dlq.stats().compactions >= 1, "at least one compaction happened");
    assertResumedOnce(emu(), ids);
  });

  it("a cursor from before an admin reset is rejected", async () => {
    emu().seed(80, 1);
    const first = await resumeOk(emu());
    await admin(emu(), "POST", "/admin/reset");
    emu().seed(80, 1);
    await expectError(await resumeRaw(emu(), { cursor: first.cursor }), 400, /before the DLQ was reset/);
  });

  it("an empty cursor parameter starts from the beginning", async () => {
    emu().seed(10, 1);
    const body = await resumeOk(emu(), { cursor: "" });
    assert.equal(body.workflowRuns.length, 10);
  });
});
