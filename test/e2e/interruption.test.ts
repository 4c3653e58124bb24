/**
 * An `up` interrupted mid-drain (SIGINT, Ctrl-C) and an `up` killed outright (SIGKILL): the
 * interrupted program is stopped through the language host's Cancel and no process is left
 * behind; the next run completes, every entry is resumed exactly once (emulator ledger),
 * resumed runs are accounted for (state or run log; a kill can lose the IDs of the one request
 * in flight), and the recovery steps of the README work as written.
 */
import * as assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { PulumiProject } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";

const TOKEN = "tok-e2e-interrupt-61d0b3f2";
const ENTRIES = 3_000;

/** Written by the program when it receives SIGINT; it then keeps running (see below). */
const SIGINT_MARKER = "program-received-sigint";

// The program records a SIGINT and does not exit on it, so stopping it takes the language
// host's whole Cancel: SIGINT first, SIGKILL after the grace period.
const PROGRAM = `
import * as fs from "node:fs";
import { DlqRecovery } from "pulumi-svc";
process.on("SIGINT", () => fs.writeFileSync("${SIGINT_MARKER}", String(process.pid)));
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

/** True while a process exists and has not exited (a zombie awaiting its parent counts as exited). */
function running(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
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
   * project and the DLQ size at the moment the program's SIGINT marker appeared (undefined if
   * it never did).
   */
  async function interruptedUp(
    signal: NodeJS.Signals,
    latencyMs: number,
  ): Promise<{ p: PulumiProject; dlqAtProgramSigint: number | undefined }> {
    emulator.reset();
    emulator.seed(ENTRIES, 21);
    emulator.setFaults({ latencyMs }); // a drain of 60 requests that takes a few seconds
    const p = await PulumiProject.create({ name: `interrupt-${signal.toLowerCase()}`, program: PROGRAM });
    projects.push(p);
    await p.setConfig("svc:baseUrl", emulator.url);
    await p.setConfig("svc:token", TOKEN, true);
    let child: ChildProcess | undefined;
    let sent = false;
    let dlqAtProgramSigint: number | undefined;
    const watch = setInterval(() => {
      if (dlqAtProgramSigint === undefined && fs.existsSync(path.join(p.dir, SIGINT_MARKER))) {
        dlqAtProgramSigint = emulator.state.dlq.size;
      }
    }, 20);
    try {
      const res = await p.up([], {
        allowFailure: true,
        onSpawn: (c) => (child = c),
        onStdout: (chunk) => {
          if (!sent && /runs resumed in/.test(chunk)) {
            sent = true;
            child?.kill(signal);
          }
        },
      });
      assert.ok(sent, "the signal was sent mid-drain");
      assert.notEqual(res.code, 0, `the interrupted up failed (${res.code ?? res.signal})`);
    } finally {
      clearInterval(watch);
    }
    return { p, dlqAtProgramSigint };
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

  it("SIGINT: Cancel stops the program, no process is left, the next up completes the drain, each entry once", async () => {
    // A slower drain than the SIGKILL case's, so it is still running when Cancel arrives.
    const { p, dlqAtProgramSigint } = await interruptedUp("SIGINT", 150);
    assert.match(p.transcript, /update canceled/);
    // Only the CLI got the signal. The program's SIGINT came from the language host's Cancel
    // while the drain was still running, not from the CLI's teardown of its plugins at the end
    // (which signals the host's process group once the drain is over).
    const marker = path.join(p.dir, SIGINT_MARKER);
    assert.ok(fs.existsSync(marker), "the program received SIGINT");
    assert.ok(
      dlqAtProgramSigint !== undefined && dlqAtProgramSigint > 0,
      `the program received SIGINT mid-drain, through Cancel (DLQ then held ${dlqAtProgramSigint} entries)`,
    );
    // It ignored the SIGINT; the host killed it after the grace period, and the CLI returned.
    const programPid = Number(fs.readFileSync(marker, "utf8"));
    await until(
      () => processesIn(fs.realpathSync(p.dir)).length === 0 && !running(programPid),
      `every process of the interrupted up, the program (pid ${programPid}) included, to exit`,
      20_000,
    );
    const afterInterrupt = emulator.state.ledger.totals();
    assert.ok(afterInterrupt.distinctEntriesResumed > 0, "the drain had started before the interruption");

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

  it("SIGKILL: after `pulumi cancel`, the next up finishes; every entry once, the run log short of at most one request", async () => {
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
    assert.deepEqual((await p.outputs()).complete, true);

    const t = emulator.state.ledger.totals();
    assert.equal(t.distinctEntriesResumed, ENTRIES, "every entry resumed");
    assert.equal(t.duplicates, 0, "none twice");
    assert.equal(emulator.state.dlq.size, 0);
    // A process killed outright cannot record the answer of the request it had in flight:
    // at most one request's runs (50) were resumed without their new IDs reaching the log.
    const logged = runLogLines(p);
    assert.ok(
      logged >= ENTRIES - 50 && logged <= ENTRIES,
      `the run log holds ${logged} of ${ENTRIES} runs; at most the one request in flight at the kill is missing`,
    );
  });
});
