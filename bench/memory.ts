/**
 * 7. Memory and state of a 1,000,000-entry drain.
 *
 * - In-process: `DlqRecoveryController.create` (`all: true`, default `maxRecordedRuns`, run log
 *   on) in a child process of its own running the built provider with plain node
 *   (bench/memoryChild.js): peak RSS sampled every 10 ms, the kernel's high-water mark, and
 *   the JSON size of the returned outputs (what the engine stores in state). Baseline: the same
 *   child draining 10,000 entries, so the ratio shows how memory grows with the drain. A second
 *   pair of runs forces a full GC at each progress line and records the heap the drain really
 *   keeps (garbage excluded), the last one while the drain's result is still held.
 * - Real CLI (skipped with `--no-cli` or `MEMORY_CLI=0`; alone with `--cli-only`): `pulumi up` of
 *   one DlqRecovery over 10,000 and over 1,000,000 entries; the state file's size, and the peak
 *   RSS of every process under the CLI (sampled from /proc every 100 ms), the svc provider's
 *   included (target: under 200 MB at 1,000,000 entries, the provider started as the CLI starts
 *   it: no Node flag, and no garbage collection forced by the product). `--paid`: at the paid
 *   plan's 500 requests a second and a 150 ms round trip (many requests in flight).
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PulumiProject } from "../toolchain/pulumi-project";
import { buildProblem } from "./lib/built";
import { CREDS, REPO_ROOT, startEmulatorProcess, type EmulatorProcess } from "./lib/emulator";
import { benchMain } from "./lib/main";
import { result, type BenchResult } from "./lib/result";
import { fmt, fmtBytes } from "./lib/stats";

const BIG = 1_000_000;
const SMALL = 10_000;

interface ChildReport {
  ms: number;
  heapBefore: number;
  liveHeapEnd?: number;
  liveHeapMax?: number;
  rssBefore: number;
  peakRss: number;
  peakHeap: number;
  maxRss: number;
  outputsBytes: number;
  resumedCount: number;
  requestCount: number;
  recordedRuns: number;
  runLogBytes: number;
}

async function inProcessDrain(emu: EmulatorProcess, entries: number, live = false): Promise<ChildReport> {
  await emu.reseed(entries);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-mem-"));
  try {
    const args = [path.join(__dirname, "memoryChild.js"), emu.url, CREDS.token, dir];
    const child = spawn(process.execPath, live ? ["--expose-gc", ...args, "live"] : args, {
      cwd: REPO_ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on("error", reject);
      child.on("exit", resolve);
    });
    if (code !== 0) throw new Error(`memory child exited with ${code}`);
    const report = JSON.parse(out) as ChildReport;
    if (report.resumedCount !== entries) throw new Error(`resumed ${report.resumedCount} of ${entries}`);
    return report;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Peak RSS per process role under `root`, sampled from /proc. */
function procSampler(root: number): { stop(): Record<string, number> } {
  const peaks: Record<string, number> = {};
  let rootCmd = "";
  try {
    rootCmd = fs.readFileSync(`/proc/${root}/cmdline`, "utf8").replace(/\0/g, " ").trim();
  } catch {
    // already gone
  }
  const sample = (): void => {
    const parent = new Map<number, number>();
    for (const name of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
        parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      } catch {
        // gone
      }
    }
    for (const [pid] of parent) {
      let p: number | undefined = pid;
      while (p !== undefined && p !== root && p > 1) p = parent.get(p);
      if (p !== root && pid !== root) continue;
      try {
        const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ").trim();
        // Zombies, and children forked by the CLI but not yet exec'd (they still show its command).
        if (cmd === "" || (pid !== root && cmd === rootCmd)) continue;
        const rss =
          Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
        // The svc provider runs as a plugin of the language host (`cmd/run-plugin <dist/provider>`).
        const role = /run-plugin|dist\/provider/.test(cmd)
          ? "svc provider (DlqRecovery)"
          : /cmd\/run/.test(cmd)
            ? "program (cmd/run)"
            : /language-host/.test(cmd)
              ? "language host"
              : pid === root
                ? "pulumi CLI (engine)"
                : `other: ${cmd.slice(0, 40)}`;
        peaks[role] = Math.max(peaks[role] ?? 0, rss);
      } catch {
        // gone
      }
    }
  };
  const timer = setInterval(sample, 100);
  return {
    stop() {
      clearInterval(timer);
      return peaks;
    },
  };
}

interface CliReport {
  ms: number;
  requestCount: number;
  stateBytes: number;
  runLogBytes: number;
  peaks: Record<string, number>;
}

/**
 * `--paid`: the paid plan's 500 requests a second enforced and a 150 ms (+ 0 to 8) round trip, as
 * an operator far from the service has it: the drain keeps about 85 requests in flight.
 */
const PAID = process.argv.includes("--paid");

async function cliDrain(emu: EmulatorProcess, entries: number): Promise<CliReport> {
  await emu.reseed(entries);
  if (PAID)
    await emu.admin("PUT", "/admin/faults", { latencyMs: 150, latencyJitterMs: 8, endpoints: ["resume"] });
  const program = `
import { DlqRecovery } from "pulumi-svc";
const recovery = new DlqRecovery("recovery", { all: true });
export const resumedCount = recovery.resumedCount;
export const requestCount = recovery.requestCount;
`;
  const p = await PulumiProject.create({
    name: "bench-memory",
    program,
    env: { SVC_BASE_URL: emu.url, SVC_TOKEN: CREDS.token },
  });
  try {
    let sampler: { stop(): Record<string, number> } | undefined;
    const t0 = performance.now();
    await p.up([], { onSpawn: (child) => (sampler = procSampler(child.pid!)) });
    const ms = performance.now() - t0;
    const peaks = sampler?.stop() ?? {};
    const out = await p.outputs();
    if (out.resumedCount !== entries) throw new Error(`CLI drain resumed ${String(out.resumedCount)}`);
    const logDir = path.join(p.dir, "svc-recovery", "recovery"); // one file a drain
    const logFiles = fs.existsSync(logDir) ? fs.readdirSync(logDir).map((f) => path.join(logDir, f)) : [];
    return {
      ms,
      requestCount: out.requestCount as number,
      stateBytes: fs.statSync(p.stateFile()).size,
      runLogBytes: logFiles.reduce((sum, f) => sum + fs.statSync(f).size, 0),
      peaks,
    };
  } finally {
    fs.rmSync(p.dir, { recursive: true, force: true });
  }
}

function cliTable(r: BenchResult, small: CliReport, big: CliReport): void {
  const roles = [...new Set([...Object.keys(big.peaks), ...Object.keys(small.peaks)])].sort(
    (a, b) => (big.peaks[b] ?? 0) - (big.peaks[a] ?? 0),
  );
  const row = (label: string, f: (c: CliReport) => string): string[] => [label, f(small), f(big)];
  r.tables.push({
    title: "Real CLI: `pulumi up` of one DlqRecovery (`all: true`, defaults), one run each:",
    header: ["", `${SMALL.toLocaleString("en-US")} entries`, `${BIG.toLocaleString("en-US")} entries`],
    rows: [
      row("`pulumi up` wall time", (c) => `${fmt(c.ms / 1000)} s`),
      row("requests", (c) => String(c.requestCount)),
      row("state file", (c) => fmtBytes(c.stateBytes)),
      row("run log (svc-recovery/recovery/<specHash>.jsonl)", (c) => fmtBytes(c.runLogBytes)),
      ...roles.map((role) => row(`peak RSS, ${role}`, (c) => fmtBytes(c.peaks[role] ?? 0))),
    ],
  });
  const role = "svc provider (DlqRecovery)";
  if (big.peaks[role] && small.peaks[role]) {
    r.rows.push({
      measurement: `real CLI: peak RSS of the svc provider process, ${BIG.toLocaleString("en-US")} vs ${SMALL.toLocaleString("en-US")} entries`,
      subjectLabel: `${BIG.toLocaleString("en-US")} entries`,
      subject: fmtBytes(big.peaks[role]),
      baselineLabel: `${SMALL.toLocaleString("en-US")} entries`,
      baseline: fmtBytes(small.peaks[role]),
      ratio: big.peaks[role] / small.peaks[role],
      target: "report",
    });
    r.rows.push({
      measurement: `real CLI: peak RSS of the svc provider process, ${BIG.toLocaleString("en-US")} entries, no Node flag, no forced GC`,
      subjectLabel: `${BIG.toLocaleString("en-US")} entries`,
      subject: fmtBytes(big.peaks[role]),
      baselineLabel: "limit",
      baseline: "200 MB",
      ratio: big.peaks[role] / 200e6,
      target: "< 1 (under 200 MB)",
      ok: big.peaks[role] < 200e6,
    });
  }
  r.rows.push({
    measurement: `real CLI: state file, ${BIG.toLocaleString("en-US")} vs ${SMALL.toLocaleString("en-US")} entries`,
    subjectLabel: `${BIG.toLocaleString("en-US")} entries`,
    subject: fmtBytes(big.stateBytes),
    baselineLabel: `${SMALL.toLocaleString("en-US")} entries`,
    baseline: fmtBytes(small.stateBytes),
    ratio: big.stateBytes / small.stateBytes,
    target: "≈ 1",
    ok: big.stateBytes / small.stateBytes < 1.05,
  });
}

/** The in-process drains of 10,000 and 1,000,000 entries: rows, table and details of `r`. */
async function inProcessRows(r: BenchResult, emu: EmulatorProcess): Promise<void> {
  const small = await inProcessDrain(emu, SMALL);
  const big = await inProcessDrain(emu, BIG);
  const smallLive = await inProcessDrain(emu, SMALL, true);
  const bigLive = await inProcessDrain(emu, BIG, true);
  const kept = (c: ChildReport): number => (c.liveHeapEnd ?? 0) - c.heapBefore;
  r.rows.push({
    measurement: `peak RSS of an in-process drain, ${BIG.toLocaleString("en-US")} vs ${SMALL.toLocaleString("en-US")} entries`,
    subjectLabel: `${BIG.toLocaleString("en-US")} entries`,
    subject: `${fmtBytes(big.peakRss)} (sampled), ${fmtBytes(big.maxRss)} (kernel max)`,
    baselineLabel: `${SMALL.toLocaleString("en-US")} entries`,
    baseline: `${fmtBytes(small.peakRss)} (sampled), ${fmtBytes(small.maxRss)} (kernel max)`,
    ratio: big.peakRss / small.peakRss,
    target: "report (bounded state ⇒ ≈ 1 expected)",
  });
  r.rows.push({
    measurement: `live heap at the end of an in-process drain (after a full GC), ${BIG.toLocaleString("en-US")} vs ${SMALL.toLocaleString("en-US")} entries`,
    subjectLabel: `${BIG.toLocaleString("en-US")} entries`,
    subject: `${fmtBytes(kept(bigLive))} above the start`,
    baselineLabel: `${SMALL.toLocaleString("en-US")} entries`,
    baseline: `${fmtBytes(kept(smallLive))} above the start`,
    ratio: kept(bigLive) / kept(smallLive),
    target: "report (O(1) expected)",
  });
  r.rows.push({
    measurement: `outputs JSON (state) of the drain, ${BIG.toLocaleString("en-US")} vs ${SMALL.toLocaleString("en-US")} entries`,
    subjectLabel: `${BIG.toLocaleString("en-US")} entries`,
    subject: fmtBytes(big.outputsBytes),
    baselineLabel: `${SMALL.toLocaleString("en-US")} entries`,
    baseline: fmtBytes(small.outputsBytes),
    ratio: big.outputsBytes / small.outputsBytes,
    target: "≈ 1 (state bounded by maxRecordedRuns)",
    ok: big.outputsBytes / small.outputsBytes < 1.05,
  });
  const row = (label: string, f: (c: ChildReport) => string): string[] => [label, f(small), f(big)];
  r.tables.push({
    title: "In-process drain (built provider, plain node, child process of its own):",
    header: ["", `${SMALL.toLocaleString("en-US")} entries`, `${BIG.toLocaleString("en-US")} entries`],
    rows: [
      row("RSS before the drain", (c) => fmtBytes(c.rssBefore)),
      row("peak RSS (sampled every 10 ms)", (c) => fmtBytes(c.peakRss)),
      row("peak RSS (kernel high-water mark)", (c) => fmtBytes(c.maxRss)),
      row("peak V8 heap used (sampled)", (c) => fmtBytes(c.peakHeap)),
      [
        "live heap at the end of the drain, after a full GC, above the start (separate run)",
        fmtBytes(kept(smallLive)),
        fmtBytes(kept(bigLive)),
      ],
      row("outputs JSON (goes to state)", (c) => fmtBytes(c.outputsBytes)),
      row("resumedRuns kept in state", (c) => String(c.recordedRuns)),
      row("run log file", (c) => fmtBytes(c.runLogBytes)),
      row("requests", (c) => String(c.requestCount)),
      row("drain time", (c) => `${fmt(c.ms / 1000)} s`),
    ],
  });
  r.details = { small, big, smallLive, bigLive };
}

export async function run(): Promise<BenchResult> {
  const r = result("memory", "7. Memory and state");
  const problem = buildProblem();
  if (problem) {
    r.skipped = problem;
    return r;
  }
  const emu = PAID ? await startEmulatorProcess(0, "paid", true) : await startEmulatorProcess(0);
  try {
    if (!process.argv.includes("--cli-only")) await inProcessRows(r, emu);
    if (!process.argv.includes("--no-cli") && process.env.MEMORY_CLI !== "0") {
      const cliSmall = await cliDrain(emu, SMALL);
      const cliBig = await cliDrain(emu, BIG);
      cliTable(r, cliSmall, cliBig);
      r.details = { ...r.details, cliSmall, cliBig };
    }
    return r;
  } finally {
    await emu.close();
  }
}

benchMain(module, run);
