import assert from "node:assert/strict";
import { startEmulator } from "../../../emulator";
import { SEED_SPAN_MS, SEED_WORKFLOWS } from "../../../emulator/seed";
import { resumeOk, useEmulator } from "./helpers";

const NOW = Date.UTC(2025, 2, 10, 8, 0, 0);

describe("emulator seeding", () => {
  it("is deterministic for a seed and a fixed clock, and differs between seeds", async () => {
    const snapshots: string[] = [];
    for (const seed of [11, 11, 12]) {
      const emu = await startEmulator({ dlq: 200, seed, now: () => NOW });
      snapshots.push(JSON.stringify(emu.state.dlq.page(0, 200)));
      await emu.close();
    }
    assert.equal(snapshots[0], snapshots[1]);
    assert.notEqual(snapshots[0], snapshots[2]);
  });

  it("spreads failures over the last days and several workflow URLs, in failure-time order", async () => {
    const emu = await startEmulator({ dlq: 2000, now: () => NOW });
    try {
      const entries = emu.state.dlq.page(0, 2000);
      const urls = new Set(entries.map((e) => e.workflowUrl));
      assert.deepEqual([...urls].sort(), SEED_WORKFLOWS.map((w) => w.url).sort());
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i];
        assert.ok(e.failedAt >= NOW - SEED_SPAN_MS && e.failedAt < NOW);
        if (i > 0) assert.ok(e.failedAt >= entries[i - 1].failedAt);
        assert.ok(e.workflowCreatedAt < e.failedAt && e.createdAt >= e.failedAt);
        assert.match(e.dlqId, /^dlq_[0-9a-f]{16}$/);
        assert.match(e.workflowRunId, /^wfr_[a-zA-Z0-9_-]{21}$/, "the default: the SDK's");
        assert.equal(e.steps.filter((s) => s.state === "STEP_FAILED").length, 1);
      }
      assert.equal(new Set(entries.map((e) => e.dlqId)).size, 2000);
      assert.ok(entries.some((e) => e.flowControlKey !== undefined && e.flowControlKey !== ""));
    } finally {
      await emu.close();
    }
  });

  it("seeding the same seed twice adds distinct entries", async () => {
    const emu = await startEmulator({ dlq: 100, seed: 1 });
    try {
      emu.seed(100, 1);
      assert.equal(emu.state.dlq.size, 200);
    } finally {
      await emu.close();
    }
  });
});

describe("emulator resume model", () => {
  const emu = useEmulator({ now: () => NOW });

  it("creates a new run that keeps completed steps' results and re-runs failed and pending steps", async () => {
    emu().addEntries([
      {
        dlqId: "d1",
        workflowRunId: "wfr_original",
        steps: [
          { name: "a", state: "STEP_SUCCESS", result: { total: 3 } },
          { name: "b", state: "STEP_SUCCESS", result: "ok" },
          { name: "c", state: "STEP_FAILED" },
          { name: "d", state: "STEP_PROGRESS" },
          { name: "e", state: "STEP_RETRY" },
        ],
      },
    ]);
    const { workflowRuns } = await resumeOk(emu());
    assert.equal(workflowRuns.length, 1);
    assert.equal(workflowRuns[0].workflowCreatedAt, NOW);
    assert.equal(emu().state.dlq.has("d1"), false);
    const [run] = emu().state.ledger.runsFor("d1");
    assert.equal(run.workflowRunId, workflowRuns[0].workflowRunId);
    assert.notEqual(run.workflowRunId, "wfr_original");
    assert.equal(run.originalWorkflowRunId, "wfr_original");
    assert.equal(run.runState, "RUN_STARTED");
    assert.equal(run.requestIndex, 0);
    assert.deepEqual(run.steps, [
      { name: "a", state: "STEP_SUCCESS", result: { total: 3 }, carriedOver: true },
      { name: "b", state: "STEP_SUCCESS", result: "ok", carriedOver: true },
      { name: "c", state: "STEP_PROGRESS", carriedOver: false },
      { name: "d", state: "STEP_PROGRESS", carriedOver: false },
      { name: "e", state: "STEP_PROGRESS", carriedOver: false },
    ]);
  });

  it("gives every resumed run a distinct new ID", async () => {
    emu().seed(120, 1);
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++)
      for (const r of (await resumeOk(emu())).workflowRuns) ids.add(r.workflowRunId);
    assert.equal(ids.size, 120);
  });
});
