/**
 * `svc:index:DlqRecovery` in a YAML program, through the svc provider, with the real CLI and the
 * emulator over loopback at 100 requests a second enforced (the payg plan): one SIGINT to
 * `pulumi` 1 s into a 20,000-entry drain stops it within 3 s (a deliberate timing assertion, with
 * that margin: the engine's `Cancel` reaches the provider in about 0.1 s), the partial state
 * counts what the ledger holds, the next `up` completes the drain, each entry once; progress
 * shows on the DlqRecovery's own row; no token anywhere in the state or the output. A double
 * SIGINT ends the CLI at once: the next `up` counts what the run log recorded and says so. A
 * `customTimeouts` stops a drain like a Ctrl-C.
 */
import * as assert from "node:assert/strict";
import { type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { MAX_RUNS_PER_REQUEST } from "../../client";
import { DEFAULT_WINDOW_CONCURRENCY } from "../../drain";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { DLQ_RECOVERY_PROVIDER_TYPE } from "../../core/typeTokens";
import { resourceOfType, type PulumiProject } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";
import { settledResumedCount } from "../helpers/ledger";
import { yamlProgramHead, yamlProject } from "../helpers/yaml";

const TOKEN = "tok-e2e-yaml-recovery-9d3a61f0";
const ENTRIES = 20_000;

/** The program: one DlqRecovery of everything, `triggers` to start a new drain, `options` as given. */
function program(trigger = 0, options = ""): string {
  return `${yamlProgramHead("yaml-recovery")}resources:
  incident42:
    type: svc:index:DlqRecovery
    properties:
      all: true
      triggers: [${trigger}]${options}
outputs:
  resumedCount: \${incident42.resumedCount}
  complete: \${incident42.complete}
`;
}

describe("e2e: a YAML program's DlqRecovery (the svc provider): Ctrl-C stops the drain, the next up continues", function () {
  this.timeout(600_000);
  let emulator: RunningEmulator;
  let p: PulumiProject;

  before(async function () {
    this.timeout(1_800_000);
    emulator = await startEmulator({ plan: "payg", token: TOKEN });
    p = await yamlProject("yaml-recovery", program(), { baseUrl: emulator.url, token: TOKEN });
  });
  after(async () => {
    try {
      if (p) assertNoSecrets({ "CLI output": p.transcript }, secretForms({ token: TOKEN }));
    } finally {
      await p?.cleanup();
      await emulator?.close();
    }
  });

  /** Writes the program with `trigger` and `options`. */
  function write(trigger: number, options = ""): void {
    fs.writeFileSync(path.join(p.dir, "Pulumi.yaml"), program(trigger, options));
  }

  /**
   * An `up` that gets `signals` SIGINTs, 100 ms apart, 1 s after the drain's first progress line:
   * what it printed and how long after the first signal the CLI exited (ms).
   */
  async function upInterrupted(signals: number): Promise<{ out: string; exitedAfterMs: number }> {
    let child: ChildProcess | undefined;
    let signalledAt: number | undefined;
    const res = await p.up([], {
      allowFailure: true,
      onSpawn: (c) => (child = c),
      onStdout: (chunk) => {
        if (signalledAt !== undefined || !/runs resumed in/.test(chunk)) return;
        signalledAt = -1;
        setTimeout(() => {
          signalledAt = Date.now();
          for (let i = 0; i < signals; i++) setTimeout(() => child?.kill("SIGINT"), i * 10);
        }, 1_000);
      },
    });
    const out = `${res.stdout}\n${res.stderr}`;
    assert.ok(signalledAt !== undefined && signalledAt > 0, `SIGINT was sent mid-drain:\n${out}`);
    assert.notEqual(res.code, 0, out);
    return { out, exitedAfterMs: Date.now() - signalledAt };
  }

  /** The ledger after the drain of `ENTRIES`: each entry once, the DLQ empty. */
  function assertEachOnce(): void {
    const t = emulator.state.ledger.totals();
    assert.equal(t.distinctEntriesResumed, ENTRIES);
    assert.equal(t.duplicates, 0, "no entry resumed twice");
    assert.equal(emulator.state.dlq.size, 0);
  }

  beforeEach(() => {
    emulator.reset();
    emulator.seed(ENTRIES, 27);
  });

  it("one SIGINT 1 s into a 20,000-entry drain: the CLI exits within 3 s, the state counts the ledger", async () => {
    const { out, exitedAfterMs } = await upInterrupted(1);
    assert.ok(exitedAfterMs < 3_000, `the CLI exited ${exitedAfterMs} ms after SIGINT`);
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
    assertEachOnce();
  });

  it("a double SIGINT ends the CLI at once; the next up counts what the run log recorded, says so, each entry once", async () => {
    write(1); // a new drain of the refilled DLQ
    await upInterrupted(2);
    await settledResumedCount(emulator, 300);
    // Whether the CLI ended before it saved the stopped drain (the second signal 10 ms after the
    // first usually wins) or just after, nothing is lost; when it did not save it, the next up says so.
    const state = (await p.exportState()).deployment.resources.find(
      (r) => r.type === DLQ_RECOVERY_PROVIDER_TYPE,
    );
    const saved = state?.outputs?.complete === false;
    let next = await p.up([], { allowFailure: true });
    if (/currently locked/.test(next.stdout + next.stderr)) {
      await p.cli(["cancel", "--yes"]);
      next = await p.up();
    }
    assert.equal(next.code, 0, next.stdout + next.stderr);
    const outputs = (await p.outputs()) as { resumedCount: number; complete: boolean };
    assert.equal(outputs.complete, true);
    assertEachOnce();
    const inFlight = DEFAULT_WINDOW_CONCURRENCY * MAX_RUNS_PER_REQUEST;
    assert.ok(
      outputs.resumedCount <= ENTRIES && outputs.resumedCount >= ENTRIES - inFlight,
      `resumedCount ${outputs.resumedCount}: short by at most the runs of the requests in flight`,
    );
    if (!saved) {
      assert.match(
        next.stdout,
        /the run log holds \d+ runs? resumed by a drain that stopped before its state was saved/,
      );
    }
  });

  it("customTimeouts stop a drain like a Ctrl-C, with the state saved; without them the next up completes it", async () => {
    write(2, "\n    options:\n      customTimeouts:\n        update: 1s");
    const res = await p.up([], { allowFailure: true });
    const out = `${res.stdout}\n${res.stderr}`;
    assert.notEqual(res.code, 0, out);
    assert.match(
      out,
      /DlqRecovery `incident42` was stopped \(Ctrl-C, or its `customTimeouts`\) after resuming/,
    );
    const ledger = await settledResumedCount(emulator, 300);
    const saved = resourceOfType((await p.exportState()).deployment, DLQ_RECOVERY_PROVIDER_TYPE).outputs as {
      resumedCount: number;
      complete: boolean;
    };
    assert.equal(saved.complete, false);
    assert.equal(saved.resumedCount, ledger);
    assert.ok(ledger > 0 && ledger < ENTRIES, `resumed ${ledger} of ${ENTRIES} in the 1 s`);
    write(2);
    await p.up();
    assert.deepEqual(await p.outputs(), { resumedCount: ENTRIES, complete: true });
    assertEachOnce();
  });

  it("a date given as a string (quoted, or a YAML timestamp): preview says it wants unix milliseconds, with the value", async () => {
    fs.writeFileSync(
      path.join(p.dir, "Pulumi.yaml"),
      `${yamlProgramHead("yaml-recovery")}resources:
  incident42:
    type: svc:index:DlqRecovery
    properties:
      workflowUrl: http://127.0.0.1/workflows/orders
      fromDate: "2026-11-20T08:00:00Z"
      toDate: 2026-11-21T08:00:00Z
`,
    );
    try {
      const res = await p.preview([], { allowFailure: true });
      const out = `${res.stdout}\n${res.stderr}`;
      assert.notEqual(res.code, 0, out);
      assert.match(
        out,
        /`fromDate` must be unix milliseconds, a number: "2026-11-20T08:00:00Z" is 1795161600000\./,
      );
      assert.match(
        out,
        /`toDate` must be unix milliseconds, a number: "2026-11-21T08:00:00Z" is 1795248000000\./,
      );
      assert.doesNotMatch(out, /Cannot assign type 'string' to type 'integer'/, out);
      assert.equal(
        emulator.state.log.since(0).filter((r) => r.path === "/v2/workflows/dlq/resume").length,
        0,
      );
    } finally {
      write(2);
    }
  });
});
