/**
 * DlqRecovery, end to end: the real Pulumi CLI against the emulator over loopback.
 * The emulator's ledger and request log are the witnesses: which entries were resumed,
 * how many times, by how many requests, with which headers.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { PulumiProject, resourceOfType } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";

const CREDS = {
  token: "tok-e2e-recovery-93ab7c1d5e",
  username: "ops@example.com",
  password: "pw-e2e-unused-0d9c",
};
const TYPE = "svc:index:DlqRecovery";

/** The program takes the resource's arguments as JSON from stack config `args`. */
const PROGRAM = `
import * as pulumi from "@pulumi/pulumi";
import { DlqRecovery } from "pulumi-svc";
const args = JSON.parse(new pulumi.Config().require("args"));
const recovery = new DlqRecovery("recovery", args);
export const resumedCount = recovery.resumedCount;
export const requestCount = recovery.requestCount;
export const complete = recovery.complete;
export const recordedRuns = recovery.resumedRuns.apply((r) => r.length);
export const truncated = recovery.resumedRunsTruncated;
`;

describe("e2e: DlqRecovery", function () {
  this.timeout(900_000);
  let emulator: RunningEmulator;
  const projects: PulumiProject[] = [];

  async function project(name: string, args: Record<string, unknown>): Promise<PulumiProject> {
    const p = await PulumiProject.create({ name, program: PROGRAM });
    projects.push(p);
    await p.setConfig("svc:baseUrl", emulator.url);
    await p.setConfig("svc:token", CREDS.token, true);
    await p.setConfig("args", JSON.stringify(args));
    return p;
  }

  /** Requests the emulator received since `since` (an index of its request log). */
  function requestsSince(since: number) {
    return emulator.state.log.since(since, 1_000_000).filter((r) => r.path === "/v2/workflows/dlq/resume");
  }

  before(async () => {
    emulator = await startEmulator({ plan: "payg", ...CREDS });
  });
  after(async () => {
    try {
      const places: Record<string, string> = {};
      for (const p of projects) {
        places[`${p.dir} CLI output`] = p.transcript;
        const state = fs.existsSync(p.backendDir) ? p.stateFile() : undefined;
        if (state) places[`${p.dir} state file`] = fs.readFileSync(state, "utf8");
      }
      assertNoSecrets(places, secretForms({ token: CREDS.token }));
    } finally {
      for (const p of projects) await p.cleanup();
      await emulator?.close();
    }
  });

  describe("a 237-entry drain with overrides", () => {
    let p: PulumiProject;
    // The sequential drain (one cursor), whose requests are exactly ceil(N/50).
    const args = {
      all: true,
      concurrency: 1,
      flowControl: { key: "incident-42", parallelism: 5, rate: 10, period: 1 },
      retries: 3,
      triggers: ["first"],
    };

    before(async () => {
      emulator.reset();
      emulator.seed(237, 7);
      p = await project("recovery", args);
    });

    it("makes exactly 5 requests and resumes every entry once", async () => {
      const since = emulator.state.log.total;
      await p.up();
      const requests = requestsSince(since);
      assert.equal(requests.length, 5);
      const ledger = emulator.state.ledger.totals();
      assert.equal(ledger.distinctEntriesResumed, 237);
      assert.equal(ledger.duplicates, 0);
      assert.equal(emulator.state.dlq.size, 0);
      assert.deepEqual(await p.outputs(), {
        resumedCount: 237,
        requestCount: 5,
        complete: true,
        recordedRuns: 10, // the default maxRecordedRuns; every run is in the run log
        truncated: true,
      });
    });

    it("sends the override headers exactly as set", () => {
      for (const r of requestsSince(0)) {
        assert.deepEqual(r.overrideHeaders, {
          "svc-flow-control-key": "incident-42",
          "svc-flow-control-value": "parallelism=5, rate=10, period=1s",
          "svc-retries": "3",
        });
      }
    });

    it("shows progress during up and records the drain in state", async () => {
      assert.match(
        p.transcript,
        /DlqRecovery `recovery`: 237 runs resumed in 5 requests \(\d+ runs\/s\), done/,
      );
      const { deployment } = await p.exportState();
      const res = resourceOfType(deployment, TYPE);
      assert.equal(res.outputs?.complete, true);
      assert.match(String(res.outputs?.startedAt), /^\d{4}-\d\d-\d\dT/);
      assert.deepEqual(res.outputs?.overrideHeaders, {
        "Svc-Flow-Control-Key": "incident-42",
        "Svc-Flow-Control-Value": "parallelism=5, rate=10, period=1s",
        "Svc-Retries": "3",
      });
    });

    it("sends no request on a second up of the unchanged resource", async () => {
      emulator.seed(10, 8);
      const since = emulator.state.log.total;
      const res = await p.up();
      assert.equal(requestsSince(since).length, 0);
      assert.match(res.stdout, /2 unchanged/);
      assert.equal(emulator.state.dlq.size, 10, "the new entries are left alone");
    });

    it("resumes again when `triggers` changes", async () => {
      const since = emulator.state.log.total;
      await p.setConfig("args", JSON.stringify({ ...args, triggers: ["second"] }));
      const preview = await p.preview();
      assert.match(preview.stdout, /~ 1 to update/);
      await p.up();
      assert.equal(requestsSince(since).length, 1);
      assert.equal(emulator.state.dlq.size, 0);
      const outputs = await p.outputs();
      assert.equal(outputs.resumedCount, 10);
      assert.equal(emulator.state.ledger.totals().duplicates, 0);
    });

    it("leaves the service untouched on destroy", async () => {
      const since = emulator.state.log.total;
      await p.destroy();
      assert.equal(requestsSince(since).length, 0);
    });
  });

  it("sends no override header when no override is set", async () => {
    emulator.reset();
    emulator.seed(30, 9);
    const p = await project("plain", { workflowUrl: "http://127.0.0.1/workflows/orders" });
    const since = emulator.state.log.total;
    await p.up();
    const requests = requestsSince(since);
    // No fromDate: the drain starts as its ladder, four windows sent together.
    assert.equal(requests.length, 4);
    for (const r of requests) assert.deepEqual(r.overrideHeaders, {});
    const resumed = [...emulator.state.ledger.entries()].flatMap(([, runs]) => runs);
    assert.ok(resumed.length > 0);
    for (const run of resumed) {
      assert.equal(run.workflowUrl, "http://127.0.0.1/workflows/orders");
      assert.deepEqual(run.overrides, {});
    }
  });

  it("keeps partial state when a fatal fault cuts the drain, and the next up finishes exactly once", async () => {
    emulator.reset();
    emulator.seed(260, 11);
    const p = await project("cut", { all: true, concurrency: 1, triggers: ["cut"] });
    emulator.setFaults({ failRequestNumbers: [3], failStatus: 401 });

    const failed = await p.up([], { allowFailure: true });
    assert.notEqual(failed.code, 0);
    assert.match(failed.stdout + failed.stderr, /was cut off after resuming 100 runs in 2 requests/);
    const { deployment } = await p.exportState();
    const res = resourceOfType(deployment, TYPE);
    assert.equal(res.outputs?.complete, false);
    assert.equal(res.outputs?.resumedCount, 100);
    assert.equal((res.outputs?.resumedRuns as unknown[]).length, 10, "the default maxRecordedRuns");
    assert.equal(typeof res.outputs?.cursor, "string");
    assert.equal(emulator.state.dlq.size, 160);

    emulator.setFaults({});
    const preview = await p.preview();
    assert.match(preview.stdout, /~ 1 to update/);
    await p.up();
    const outputs = await p.outputs();
    assert.equal(outputs.complete, true);
    assert.equal(outputs.resumedCount, 260);
    assert.equal(outputs.recordedRuns, 10);
    const ledger = emulator.state.ledger.totals();
    assert.equal(ledger.distinctEntriesResumed, 260);
    assert.equal(ledger.duplicates, 0);
    assert.equal(emulator.state.dlq.size, 0);
  });

  // The state's bound (maxRecordedRuns) is pinned by the unit tests on the virtual clock and
  // measured at 1,000,000 entries in bench 7; here, the real CLI's state file and run log.
  it("leaves a state file under 1 MB after a 5,000-entry drain, the run log with every run", async () => {
    emulator.reset();
    emulator.seed(5_000, 12);
    const p = await project("huge", { all: true, concurrency: 1 });
    await p.up();
    const outputs = await p.outputs();
    assert.equal(outputs.resumedCount, 5_000);
    assert.equal(outputs.requestCount, 100);
    assert.equal(outputs.recordedRuns, 10);
    assert.equal(outputs.truncated, true);
    const size = fs.statSync(p.stateFile()).size;
    assert.ok(size < 1_000_000, `state file is ${size} bytes`);
    const { deployment } = await p.exportState();
    const hash = String(resourceOfType(deployment, TYPE).outputs?.specHash);
    const log = fs.readFileSync(`${p.dir}/svc-recovery/recovery/${hash}.jsonl`, "utf8").trim().split("\n");
    assert.equal(log.length, 5_000, "the run log holds every resumed run");
    assert.equal(emulator.state.ledger.totals().duplicates, 0);
  });
});
