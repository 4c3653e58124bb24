/**
 * An `up` interrupted mid-drain (SIGINT, Ctrl-C) and an `up` killed outright (SIGKILL), in a
 * TypeScript program: SIGINT reaches the svc provider as the engine's `Cancel`, which stops the
 * drain with its state saved (`resumedCount` equal to the ledger); the CLI exits at once and no
 * process is left behind; the next run completes, every entry is resumed exactly once (emulator
 * ledger), resumed runs and their requests are accounted for (state or run log; a kill loses the
 * IDs of the requests in flight), and the recovery steps of the README work as written.
 */
import * as assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { MAX_RUNS_PER_REQUEST } from "../../client";
import { DEFAULT_WINDOW_CONCURRENCY } from "../../drain";
import { DLQ_RECOVERY_PROVIDER_TYPE } from "../../core/typeTokens";
import { settledResumedCount } from "../helpers/ledger";
import { PulumiProject, resourceOfType } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";

const TOKEN = "tok-e2e-interrupt-61d0b3f2";
const ENTRIES = 3_000;

const PROGRAM = `
import { DlqRecovery } from "pulumi-svc";
const recovery = new DlqRecovery("recovery", { all: true });
export const resumed = recovery.resumedCount;
export const complete = recovery.complete;
`;

/** Processes (other than this one) whose working folder is the project's: plugins left behind. */
function processesIn(dir: string): number[] {
  const pids: number[] = [];
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (fs.readlinkSync(`/proc/${pid}/cwd`) === dir && Number(pid) !== process.pid) pids.push(Number(pid));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

/** Lines of the resource's run logs (`svc-recovery/recovery/`, one file a drain). */
function runLogLines(p: PulumiProject): number {
  const dir = path.join(p.dir, "svc-recovery", "recovery");
  if (!fs.existsSync(dir)) return 0;
  return fs
    .readdirSync(dir)
    .map((f) => fs.readFileSync(path.join(dir, f), "utf8").trim().split("\n").filter(Boolean).length)
    .reduce((a, b) => a + b, 0);
}

async function until(cond: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("e2e: interrupted and killed `pulumi up`", function () {
  this.timeout(600_000);
  let emulator: RunningEmulator;
  const projects: PulumiProject[] = [];

  /**
   * Runs an `up` and sends `signal` to the CLI at the drain's first progress line. Returns the
   * project, what the CLI printed, and how long after the signal it exited (ms).
   */
  async function interruptedUp(
    signal: NodeJS.Signals,
    latencyMs: number,
  ): Promise<{ p: PulumiProject; out: string; exitedAfterMs: number }> {
    emulator.reset();
    emulator.seed(ENTRIES, 21);
    emulator.setFaults({ latencyMs }); // a drain of 60 requests that takes a few seconds
    const p = await PulumiProject.create({ name: `interrupt-${signal.toLowerCase()}`, program: PROGRAM });
    projects.push(p);
    await p.setConfig("svc:baseUrl", emulator.url);
    await p.setConfig("svc:token", TOKEN, true);
    let child: ChildProcess | undefined;
    let sentAt: number | undefined;
    const res = await p.up([], {
      allowFailure: true,
      onSpawn: (c) => (child = c),
      onStdout: (chunk) => {
        if (sentAt === undefined && /runs resumed in/.test(chunk)) {
          sentAt = Date.now();
          child?.kill(signal);
        }
      },
    });
    assert.ok(sentAt !== undefined, "the signal was sent mid-drain");
    assert.notEqual(res.code, 0, `the interrupted up failed (${res.code ?? res.signal})`);
    return { p, out: `${res.stdout}\n${res.stderr}`, exitedAfterMs: Date.now() - sentAt };
  }

  before(async () => {
    emulator = await startEmulator({ plan: "payg", token: TOKEN });
  });
  after(async () => {
    try {
      const places: Record<string, string> = {};
      for (const p of projects) {
        places[`${p.dir} CLI output`] = p.transcript;
        places[`${p.dir} state file`] = fs.readFileSync(p.stateFile(), "utf8");
      }
      assertNoSecrets(places, secretForms({ token: TOKEN }));
    } finally {
      for (const p of projects) await p.cleanup();
      await emulator?.close();
    }
  });

  it("SIGINT: Cancel stops the drain with its state saved, no process is left, the next up completes it, each entry once", async () => {
    // A slower drain than the SIGKILL case's, so it is still running when Cancel arrives.
    const { p, out, exitedAfterMs } = await interruptedUp("SIGINT", 150);
    assert.ok(exitedAfterMs < 3_000, `the CLI exited ${exitedAfterMs} ms after SIGINT`);
    assert.match(
      out,
      /DlqRecovery `recovery` was stopped \(Ctrl-C, or its `customTimeouts`\) after resuming \d+ runs/,
    );
    await until(
      () => processesIn(fs.realpathSync(p.dir)).length === 0,
      "every process of the interrupted up to exit",
      20_000,
    );
    const ledger = await settledResumedCount(emulator);
    assert.ok(ledger > 0 && ledger < ENTRIES, `the drain had started and was stopped (${ledger} resumed)`);
    const saved = resourceOfType((await p.exportState()).deployment, DLQ_RECOVERY_PROVIDER_TYPE).outputs as {
      resumedCount: number;
      complete: boolean;
    };
    assert.deepEqual(
      saved,
      { ...saved, resumedCount: ledger, complete: false },
      "the state counts the ledger",
    );

    emulator.setFaults({});
    await p.up();
    assert.deepEqual(await p.outputs(), { resumed: ENTRIES, complete: true });
    const t = emulator.state.ledger.totals();
    assert.equal(t.distinctEntriesResumed, ENTRIES, "every entry resumed");
    assert.equal(t.duplicates, 0, "none twice");
    assert.equal(emulator.state.dlq.size, 0);
    const since = emulator.state.log.total;
    await p.up();
    const resumes = emulator.state.log.since(since).filter((r) => r.path === "/v2/workflows/dlq/resume");
    assert.equal(resumes.length, 0, "once complete, an up resumes nothing again");
  });

  it("SIGKILL: after `pulumi cancel`, the next up finishes and counts what the run log recorded; every entry once", async () => {
    const { p } = await interruptedUp("SIGKILL", 60);
    // The provider process outlives the CLI for a moment: wait until it has stopped resuming.
    let last = -1;
    await until(() => {
      const now = emulator.state.ledger.totals().resumedTotal;
      const settled = now === last;
      last = now;
      return settled;
    }, "the orphaned drain to stop");
    emulator.setFaults({});
    // The language host and the provider notice the engine is gone and exit: no orphan lingers.
    await until(
      () => processesIn(fs.realpathSync(p.dir)).length === 0,
      "the plugins of the killed CLI to exit",
      20_000,
    );

    // As the README says: the stack is locked; `pulumi cancel` removes the lock.
    const locked = await p.up([], { allowFailure: true });
    assert.notEqual(locked.code, 0);
    assert.match(locked.stdout + locked.stderr, /currently locked/);
    await p.cli(["cancel", "--yes"]);
    const res = await p.up();
    assert.match(res.stdout, /pending operations/);
    // The killed drain's runs, which no state recorded, are counted from the run log, and said so.
    assert.match(
      res.stdout,
      /DlqRecovery `recovery`: the run log holds \d+ runs resumed by a drain that stopped before its state was saved/,
    );
    const outputs = await p.outputs();
    assert.equal(outputs.complete, true);

    const t = emulator.state.ledger.totals();
    assert.equal(t.distinctEntriesResumed, ENTRIES, "every entry resumed");
    assert.equal(t.duplicates, 0, "none twice");
    assert.equal(emulator.state.dlq.size, 0);
    // The provider is killed with the CLI (the language host ends its plugins when the engine is
    // gone): the answers of the requests it had in flight, at most `concurrency` (its default
    // cap) of 50 runs, never reach the run log.
    const logged = runLogLines(p);
    const inFlight = DEFAULT_WINDOW_CONCURRENCY * MAX_RUNS_PER_REQUEST;
    assert.ok(
      logged >= ENTRIES - inFlight && logged <= ENTRIES,
      `the run log holds ${logged} of ${ENTRIES} runs; at most the requests in flight at the kill are missing`,
    );
    assert.equal(outputs.resumed, logged, "resumedCount counts every run of the run log");
    // `requestCount` counts the requests the run log recorded too (the killed drain's included):
    // the service answered at most the requests in flight at the kill more.
    const state = resourceOfType((await p.exportState()).deployment, DLQ_RECOVERY_PROVIDER_TYPE).outputs as {
      requestCount: number;
    };
    const answered = emulator.state.log
      .since(0, 1_000_000)
      .filter((r) => r.path === "/v2/workflows/dlq/resume" && r.status === 200).length;
    assert.ok(
      state.requestCount <= answered && answered - state.requestCount <= DEFAULT_WINDOW_CONCURRENCY,
      `requestCount ${state.requestCount}; the service answered ${answered} resume requests`,
    );
  });
});
