/**
 * Quiet by default, with the real CLI: after a `triggers` change `pulumi preview --diff` prints
 * at most 40 lines and a DlqRecovery's state stays under 10 kB; the state of an earlier version
 * (1,000 recorded runs, one run log `svc-recovery/<name>.jsonl`) is trimmed by the next `up`
 * without a resume request, and that run log stays where it is. The line of a drain stopped at
 * `maxRuns`, and the line that says the next up continues it, are sent once per operation: the
 * Diagnostics of each phase list each once. Progress lines show on the resource's row only (the
 * engine's ephemeral log): the Diagnostics list none.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { PulumiProject, resourceOfType } from "../helpers/pulumi";

const TYPE = "svc:index:DlqRecovery";
const PROGRAM = `
import * as pulumi from "@pulumi/pulumi";
import { DlqRecovery } from "pulumi-svc";
const config = new pulumi.Config();
const recovery = new DlqRecovery("recovery", {
  all: true,
  triggers: [config.require("incident")],
  maxRuns: config.getNumber("maxRuns"),
});
export const resumedCount = recovery.resumedCount;
export const recordedRuns = recovery.resumedRuns.apply((r) => r.length);
`;

describe("e2e: quiet by default", function () {
  this.timeout(600_000);
  let emulator: RunningEmulator;
  let p: PulumiProject;

  /** The DlqRecovery's state in bytes (its entry of `pulumi stack export`), and its outputs. */
  async function recoveryState() {
    const { deployment } = await p.exportState();
    const res = resourceOfType(deployment, TYPE);
    return { bytes: JSON.stringify(res).length, outputs: res.outputs ?? {}, deployment };
  }
  const resumeRequests = () =>
    emulator.state.log.since(0, 1_000_000).filter((r) => r.path === "/v2/workflows/dlq/resume").length;

  before(async () => {
    emulator = await startEmulator({ plan: "payg", dlq: 600 });
    p = await PulumiProject.create({ name: "quiet", program: PROGRAM });
    await p.setConfig("svc:baseUrl", emulator.url);
    await p.setConfig("svc:token", "emulator-token", true);
    await p.setConfig("incident", "first");
    await p.up();
  });
  after(async () => {
    await p?.cleanup();
    await emulator?.close();
  });

  it("after a `triggers` change, preview --diff prints at most 40 lines and the state stays under 10 kB", async () => {
    const first = await recoveryState();
    assert.equal(first.outputs.resumedCount, 600);
    assert.ok(first.bytes < 10_000, `state of a 600-run drain: ${first.bytes} bytes`);
    emulator.seed(400, 2);
    await p.setConfig("incident", "second");
    const preview = await p.preview();
    const lines = preview.stdout.trimEnd().split("\n");
    assert.match(preview.stdout, /~ triggers/);
    assert.ok(lines.length <= 40, `preview --diff printed ${lines.length} lines:\n${preview.stdout}`);
    await p.up();
    const second = await recoveryState();
    assert.equal(second.outputs.resumedCount, 400);
    assert.ok(second.bytes < 10_000, `state after the second drain: ${second.bytes} bytes`);
    assert.deepEqual(await p.outputs(), { resumedCount: 400, recordedRuns: 10 });
  });

  it("trims the state of an earlier version on the next up, sending no request; its run log stays", async () => {
    // The state and the run log as an earlier version left them: 1,000 recorded runs.
    const { outputs, deployment } = await recoveryState();
    const runs = Array.from({ length: 1_000 }, (_, i) => ({
      workflowRunId: `wfr_earlier_${String(i).padStart(6, "0")}`,
      workflowCreatedAt: 1_790_000_000_000 + i,
    }));
    Object.assign(outputs, { resumedRuns: runs, resumedCount: 1_000, resumedRunsTruncated: false });
    const file = path.join(p.dir, "state.json");
    fs.writeFileSync(file, JSON.stringify({ version: 3, deployment }));
    await p.cli(["stack", "import", "--file", file]);
    const oldLog = path.join(p.dir, "svc-recovery", "recovery.jsonl");
    const oldLogText = runs.map((r) => JSON.stringify(r)).join("\n") + "\n";
    fs.writeFileSync(oldLog, oldLogText);
    const before = await recoveryState();
    assert.ok(before.bytes > 50_000, `the earlier state: ${before.bytes} bytes`);

    const sent = resumeRequests();
    const up = await p.up();
    assert.match(up.stdout, /the state keeps 1000 resumed runs, more than `maxRecordedRuns` \(10\)/);
    assert.equal(resumeRequests(), sent, "no resume request");
    const after = await recoveryState();
    assert.ok(after.bytes < 10_000, `the trimmed state: ${after.bytes} bytes`);
    assert.deepEqual(after.outputs.resumedRuns, runs.slice(0, 10));
    assert.equal(after.outputs.resumedCount, 1_000);
    assert.equal(after.outputs.resumedRunsTruncated, true);
    assert.equal(
      fs.readFileSync(oldLog, "utf8"),
      oldLogText,
      "the earlier run log is where it was, unchanged",
    );
    await p.up(["--expect-no-changes"]);
    assert.equal(resumeRequests(), sent);
  });

  it("the `maxRuns` and continuation lines listed once in each phase's Diagnostics, progress in none", async () => {
    /** How often `line` is in each Diagnostics section of `out` (one a phase). */
    const inDiagnostics = (out: string, line: RegExp) =>
      out
        .split(/^Diagnostics:$/m)
        .slice(1)
        .map((d) => d.split(/^Resources:$/m)[0].match(new RegExp(line.source, "g"))?.length ?? 0);
    emulator.seed(300, 3);
    await p.setConfig("incident", "third");
    await p.setConfig("maxRuns", "100");
    const capped = await p.up();
    const stopped = /DlqRecovery `recovery`: stopped at `maxRuns` \(100\) after resuming \d+ runs/;
    assert.deepEqual(inDiagnostics(capped.stdout, stopped), [1], capped.stdout);
    // With its preview phase, as a user runs it: the engine diffs in both phases.
    const continued = await p.cli(["up", "--yes", "--config", "maxRuns=1000"]);
    const continues =
      /DlqRecovery `recovery`: the last drain stopped at `maxRuns` after \d+ runs; the next up continues it/;
    assert.deepEqual(inDiagnostics(continued.stdout, continues), [1, 1], continued.stdout);
    // Progress shows on the row while the drain runs, and the line that ends it stays.
    const progress = /runs resumed in \d+ requests? \(\d+ runs\/s, \d+ req\/s/;
    assert.match(continued.stdout, progress);
    assert.deepEqual(inDiagnostics(continued.stdout, progress), [0, 0], continued.stdout);
    assert.equal((await recoveryState()).outputs.resumedCount, 300);
  });
});
