/**
 * `svc:index:DlqRecovery` in a YAML program, through the svc provider, with the real CLI and the
 * emulator over loopback at 100 requests a second enforced (the payg plan): one SIGINT to
 * `pulumi` 1 s into a 20,000-entry drain stops it within 3 s (a deliberate timing assertion, with
 * that margin: the engine's `Cancel` reaches the provider in about 0.1 s), the partial state
 * counts what the ledger holds, the next `up` completes the drain, each entry once; progress
 * shows on the DlqRecovery's own row; no token anywhere in the state or the output.
 */
import * as assert from "node:assert/strict";
import { execFile, type ChildProcess } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { DLQ_RECOVERY_PROVIDER_TYPE } from "../../core/typeTokens";
import { PulumiProject, REPO_ROOT, resourceOfType } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";
import { settledResumedCount } from "../helpers/ledger";
import { yamlProgramHead } from "../helpers/yaml";

const TOKEN = "tok-e2e-yaml-recovery-9d3a61f0";
const ENTRIES = 20_000;

const PROGRAM = `${yamlProgramHead("yaml-recovery")}resources:
  incident42:
    type: svc:index:DlqRecovery
    properties:
      all: true
outputs:
  resumedCount: \${incident42.resumedCount}
  complete: \${incident42.complete}
`;

describe("e2e: a YAML program's DlqRecovery (the svc provider): Ctrl-C stops the drain, the next up continues", function () {
  this.timeout(600_000);
  let emulator: RunningEmulator;
  let p: PulumiProject;

  before(async function () {
    this.timeout(1_800_000);
    await promisify(execFile)("bash", [path.join(REPO_ROOT, "toolchain", "provision-yaml.sh")]);
    emulator = await startEmulator({ plan: "payg", token: TOKEN });
    p = await PulumiProject.create({ name: "yaml-recovery", program: "", files: { "Pulumi.yaml": PROGRAM } });
    await p.setConfig("svc:baseUrl", emulator.url);
    await p.setConfig("svc:token", TOKEN, true);
  });
  after(async () => {
    try {
      if (p) assertNoSecrets({ "CLI output": p.transcript }, secretForms({ token: TOKEN }));
    } finally {
      await p?.cleanup();
      await emulator?.close();
    }
  });

  it("one SIGINT 1 s into a 20,000-entry drain: the CLI exits within 3 s, the state counts the ledger", async () => {
    emulator.seed(ENTRIES, 27);
    let child: ChildProcess | undefined;
    let signalledAt: number | undefined;
    const res = await p.up([], {
      allowFailure: true,
      onSpawn: (c) => (child = c),
      onStdout: (chunk) => {
        if (signalledAt === undefined && /runs resumed in/.test(chunk)) {
          signalledAt = -1;
          setTimeout(() => {
            signalledAt = Date.now();
            child?.kill("SIGINT");
          }, 1_000);
        }
      },
    });
    const exitedAfter = Date.now() - (signalledAt ?? 0);
    assert.ok(signalledAt !== undefined && signalledAt > 0, `SIGINT was sent mid-drain:\n${res.stdout}`);
    assert.ok(exitedAfter < 3_000, `the CLI exited ${exitedAfter} ms after SIGINT`);
    const out = `${res.stdout}\n${res.stderr}`;
    assert.notEqual(res.code, 0, out);
    // Progress and the stop are on the DlqRecovery's row, not the stack's.
    assert.match(out, /svc:index:DlqRecovery +incident42 +.*runs resumed in/);
    assert.match(
      out,
      /DlqRecovery `incident42` was stopped \(Ctrl-C, or its `customTimeouts`\) after resuming/,
    );

    const ledger = await settledResumedCount(emulator, 300);
    const { text, deployment } = await p.exportState();
    const saved = resourceOfType(deployment, DLQ_RECOVERY_PROVIDER_TYPE).outputs as {
      resumedCount: number;
      complete: boolean;
    };
    assert.equal(saved.complete, false);
    assert.equal(saved.resumedCount, ledger, "the saved state counts what the ledger holds");
    assert.ok(ledger > 0 && ledger < ENTRIES, `resumed ${ledger} of ${ENTRIES} before the stop`);
    assertNoSecrets({ state: text }, secretForms({ token: TOKEN }));

    await p.up();
    assert.deepEqual(await p.outputs(), { resumedCount: ENTRIES, complete: true });
    const t = emulator.state.ledger.totals();
    assert.equal(t.distinctEntriesResumed, ENTRIES);
    assert.equal(t.duplicates, 0, "no entry resumed twice");
    assert.equal(emulator.state.dlq.size, 0);
  });
});
