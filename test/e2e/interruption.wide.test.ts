/**
 * A wide drain interrupted by Ctrl-C, end to end: the real Pulumi CLI, a DlqRecovery of 20,000
 * entries on the emulator's paid plan (500 requests a second enforced) at 150 ms a request, no
 * account settings, so the drain keeps many windows in flight. SIGINT reaches the provider as
 * `Cancel` while the drain has resumed a few thousand runs; the next `up` continues from the saved
 * state and resumes every entry once (the emulator's ledger), with no 429.
 */
import * as assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { DLQ_RECOVERY_PROVIDER_TYPE } from "../../core/typeTokens";
import { settledResumedCount } from "../helpers/ledger";
import { PulumiProject, resourceOfType } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";

const TOKEN = "tok-e2e-wide-8e20c4a1";
const ENTRIES = 20_000;

const PROGRAM = `
import { DlqRecovery } from "pulumi-svc";
const recovery = new DlqRecovery("recovery", { all: true });
export const resumed = recovery.resumedCount;
export const complete = recovery.complete;
`;

describe("e2e: a wide drain at 500 a second and 150 ms, interrupted by Ctrl-C", function () {
  this.timeout(600_000);
  let emulator: RunningEmulator;
  let p: PulumiProject | undefined;

  before(async () => {
    emulator = await startEmulator({ plan: "paid", token: TOKEN });
  });
  after(async () => {
    try {
      if (p !== undefined) {
        const places = { "CLI output": p.transcript, "state file": fs.readFileSync(p.stateFile(), "utf8") };
        assertNoSecrets(places, secretForms({ token: TOKEN }));
      }
    } finally {
      await p?.cleanup();
      await emulator?.close();
    }
  });

  it("SIGINT mid-drain saves the state; the next up completes it, each entry once, no 429", async () => {
    emulator.seed(ENTRIES, 43);
    emulator.setFaults({ seed: 7, latencyMs: 150, latencyJitterMs: 8, endpoints: ["resume"] });
    p = await PulumiProject.create({ name: "interrupt-wide", program: PROGRAM });
    await p.setConfig("svc:baseUrl", emulator.url);
    await p.setConfig("svc:token", TOKEN, true);
    let child: ChildProcess | undefined;
    let sent = false;
    const res = await p.up([], {
      allowFailure: true,
      onSpawn: (c) => (child = c),
      onStdout: (chunk) => {
        // Ctrl-C once a few thousand runs are resumed: the drain is wide by then.
        const m = /([\d,]+) runs resumed in/.exec(chunk);
        if (!sent && m !== null && Number(m[1].replace(/,/g, "")) >= 3_000) {
          sent = true;
          child?.kill("SIGINT");
        }
      },
    });
    assert.ok(sent, "the signal was sent mid-drain");
    assert.notEqual(res.code, 0, `the interrupted up failed (${res.code ?? res.signal})`);
    const ledger = await settledResumedCount(emulator);
    assert.ok(ledger > 0 && ledger < ENTRIES, `the drain was stopped mid-way (${ledger} resumed)`);
    const saved = resourceOfType((await p.exportState()).deployment, DLQ_RECOVERY_PROVIDER_TYPE).outputs as {
      resumedCount: number;
      complete: boolean;
    };
    assert.deepEqual(
      saved,
      { ...saved, resumedCount: ledger, complete: false },
      "the state counts the ledger",
    );

    await p.up();
    assert.deepEqual(await p.outputs(), { resumed: ENTRIES, complete: true });
    const t = emulator.state.ledger.totals();
    assert.equal(t.distinctEntriesResumed, ENTRIES, "every entry resumed");
    assert.equal(t.duplicates, 0, "none twice");
    assert.equal(emulator.state.dlq.size, 0);
    assert.equal(emulator.state.rateLimit.stats().limited, 0, "no 429: never more than the rate allows");
  });
});
