/**
 * A new user's recovery by `dlqIds`, end to end: the real Pulumi CLI against the emulator over
 * loopback. 2,001 IDs with one typo: `up` names the typo and resumes every other ID; the list is
 * fixed and `up` resumes the corrected ID alone; the emulator's ledger shows every existing ID
 * resumed exactly once. And a `maxRuns` drain: it stops at its cap (the up succeeds), the same cap
 * sends nothing, and the next `up` without it completes, each entry once.
 */
import * as assert from "node:assert/strict";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { PulumiProject } from "../helpers/pulumi";

const TOKEN = "tok-e2e-ids-4f1a9c0b7d";
const RESUME_PATH = "/v2/workflows/dlq/resume";

/** The program takes the resource's arguments as JSON from stack config `args`. */
const PROGRAM = `
import * as pulumi from "@pulumi/pulumi";
import { DlqRecovery } from "pulumi-svc";
const args = JSON.parse(new pulumi.Config().require("args"));
const recovery = new DlqRecovery("recovery", args);
export const resumedCount = recovery.resumedCount;
export const requestCount = recovery.requestCount;
export const complete = recovery.complete;
export const notFoundDlqIds = recovery.notFoundDlqIds;
export const notFoundCount = recovery.notFoundCount;
`;

describe("e2e: DlqRecovery by dlqIds with a typo, and maxRuns", function () {
  this.timeout(900_000);
  let emulator: RunningEmulator;
  const projects: PulumiProject[] = [];

  async function project(name: string, args: Record<string, unknown>): Promise<PulumiProject> {
    const p = await PulumiProject.create({ name, program: PROGRAM });
    projects.push(p);
    await p.setConfig("svc:baseUrl", emulator.url);
    await p.setConfig("svc:token", TOKEN, true);
    await p.setConfig("args", JSON.stringify(args));
    return p;
  }
  /** The DLQ IDs sent since `since` (an index of the emulator's request log). */
  function sentIds(since: number): string[] {
    return emulator.state.log
      .since(since, 1_000_000)
      .filter((r) => r.path === RESUME_PATH)
      .flatMap((r) => {
        const v = r.query.dlqIds;
        return v === undefined ? [] : typeof v === "string" ? [v] : [...v];
      });
  }
  /** Every entry of the ledger resumed exactly once, and these many of them. */
  function assertLedger(distinct: number): void {
    const ledger = emulator.state.ledger.totals();
    assert.equal(ledger.distinctEntriesResumed, distinct);
    assert.equal(ledger.duplicates, 0, "no entry resumed twice");
  }

  before(async () => {
    emulator = await startEmulator({ plan: "payg", token: TOKEN });
  });
  after(async () => {
    for (const p of projects) await p.cleanup();
    await emulator?.close();
  });

  it("2,001 IDs with one typo: the typo is named, the others resumed; the fixed list resumes the one left, every ID once", async () => {
    emulator.reset();
    emulator.seed(2_001, 21);
    const ids = emulator.state.dlq.page(0, 1_000_000).map((e) => e.dlqId);
    const last = ids[ids.length - 1];
    const typo = `${last.slice(0, -1)}${last.endsWith("x") ? "y" : "x"}`;
    const withTypo = [...ids.slice(0, 1_000), typo, ...ids.slice(1_000, 2_000)];
    const p = await project("ids", { dlqIds: withTypo });

    const first = await p.up();
    const out1 = first.stdout + first.stderr;
    assert.match(out1, new RegExp(`1 ID of the 2001 \`dlqIds\` was not in the DLQ .*"${typo}"`));
    // A warning on the DlqRecovery's row (the engine's), printed live and again under Diagnostics.
    assert.match(
      out1,
      /svc:index:DlqRecovery recovery created \([\d.]+s\) warning: DlqRecovery `recovery`: 1 ID/,
    );
    assert.match(out1, /\n {4}warning: DlqRecovery `recovery`: 1 ID of the 2001/);
    let outputs = await p.outputs();
    assert.equal(outputs.complete, true);
    assert.equal(outputs.resumedCount, 2_000);
    assert.deepEqual(outputs.notFoundDlqIds, [typo]);
    assert.equal(outputs.notFoundCount, 1);
    assert.ok((outputs.requestCount as number) <= 41 + 12, "41 batches, and at most 12 more for the typo");
    assertLedger(2_000);
    assert.deepEqual(
      emulator.state.dlq.page(0, 10).map((e) => e.dlqId),
      [last],
    );

    // The user fixes the typo: the preview says what the next up does, and the up sends only it.
    await p.setConfig(
      "args",
      JSON.stringify({ dlqIds: [...ids.slice(0, 1_000), last, ...ids.slice(1_000, 2_000)] }),
    );
    const preview = await p.preview();
    assert.match(
      preview.stdout + preview.stderr,
      /It skips the 2000 IDs of the new `dlqIds` this resource already resumed .* sends the other 1\./,
    );
    const since = emulator.state.log.total;
    const second = await p.up();
    assert.match(second.stdout + second.stderr, /skipping 2000 IDs of the 2001 `dlqIds`/);
    assert.deepEqual(sentIds(since), [last], "only the corrected ID is sent");
    outputs = await p.outputs();
    assert.equal(outputs.complete, true);
    assert.equal(outputs.resumedCount, 1);
    assert.equal(outputs.notFoundCount, 0);
    assertLedger(2_001);
    assert.equal(emulator.state.dlq.size, 0);
  });

  it("maxRuns stops the drain at its cap; the same cap sends nothing; the next up without it completes, each entry once", async () => {
    emulator.reset();
    emulator.seed(600, 22);
    const p = await project("capped", { all: true, maxRuns: 200, triggers: ["capped"] });

    const first = await p.up();
    assert.match(first.stdout + first.stderr, /stopped at `maxRuns` \(200\) after resuming \d+ runs/);
    let outputs = await p.outputs();
    assert.equal(outputs.complete, false);
    const resumed = outputs.resumedCount as number;
    assert.ok(resumed >= 200 && resumed < 250, `${resumed} runs: not the first whole request at or past 200`);
    assertLedger(resumed);
    assert.equal(emulator.state.dlq.size, 600 - resumed);

    let since = emulator.state.log.total;
    const again = await p.up();
    assert.match(
      again.stdout + again.stderr,
      /stopped at `maxRuns` \(200\) after \d+ runs; .*Raise or remove `maxRuns`/,
    );
    const resumes = emulator.state.log.since(since, 1_000).filter((r) => r.path === RESUME_PATH);
    assert.equal(resumes.length, 0, "the same cap sends nothing");

    await p.setConfig("args", JSON.stringify({ all: true, triggers: ["capped"] }));
    since = emulator.state.log.total;
    const last = await p.up();
    assert.match(last.stdout + last.stderr, /the next up continues it where it stopped, each entry once/);
    outputs = await p.outputs();
    assert.equal(outputs.complete, true);
    assert.equal(outputs.resumedCount, 600, "counts of the drain and its continuation");
    const continued = emulator.state.log.since(since, 1_000).filter((r) => r.path === RESUME_PATH);
    assert.equal(
      continued.reduce((n, r) => n + (r.resumed ?? 0), 0),
      600 - resumed,
      "the continuation resumes the rest",
    );
    assertLedger(600);
    assert.equal(emulator.state.dlq.size, 0);
  });
});
