/**
 * An `up` interrupted mid-drain (SIGINT) and an `up` killed outright (SIGKILL): the next
 * run completes, every entry is resumed exactly once (emulator ledger), resumed runs are
 * accounted for (state or run log; a kill can lose the IDs of the one request in flight),
 * and the recovery steps of the README work as written.
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

function runLogLines(p: PulumiProject): number {
  const file = path.join(p.dir, "svc-recovery", "recovery.jsonl");
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n").filter(Boolean).length : 0;
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

  async function interruptedUp(signal: NodeJS.Signals): Promise<PulumiProject> {
    emulator.reset();
    emulator.seed(ENTRIES, 21);
    emulator.setFaults({ latencyMs: 60 }); // a drain of 60 requests that takes a few seconds
    const p = await PulumiProject.create({ name: `interrupt-${signal.toLowerCase()}`, program: PROGRAM });
    projects.push(p);
    await p.setConfig("svc:baseUrl", emulator.url);
    await p.setConfig("svc:token", TOKEN, true);
    let child: ChildProcess | undefined;
    let sent = false;
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
    return p;
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

  it("SIGINT: the engine lets the drain finish and records it; the next up changes nothing", async () => {
    const p = await interruptedUp("SIGINT");
    assert.match(p.transcript, /update canceled/);
    emulator.setFaults({});
    const since = emulator.state.log.total;
    await p.up();
    const resumes = emulator.state.log.since(since).filter((r) => r.path === "/v2/workflows/dlq/resume");
    assert.equal(resumes.length, 0, "the next up resumed nothing again");
    assert.deepEqual(await p.outputs(), { resumed: ENTRIES, complete: true });
    const t = emulator.state.ledger.totals();
    assert.equal(t.distinctEntriesResumed, ENTRIES);
    assert.equal(t.duplicates, 0);
  });

  it("SIGKILL: after `pulumi cancel`, the next up finishes; every entry once, the run log short of at most one request", async () => {
    const p = await interruptedUp("SIGKILL");
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
