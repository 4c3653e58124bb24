/**
 * 3. Drain throughput: a DlqRecovery drain of 10,000 entries (`DlqRecoveryController.create` with
 * `all: true` and `concurrency: 1`, called in-process, log silenced) against the floor: the same
 * 200 sequential requests (50 runs each, following the cursor) sent with bare undici on a fresh
 * keep-alive pool. The sequential drain, so every variant sends the same requests and the
 * difference is the drain's own cost; section 9 measures the windowed drain.
 * `DrainClient.drain` alone and the provider with its run log on are measured alongside, to tell
 * where any difference comes from. The DLQ is reset and re-seeded before every trial (untimed).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { DrainClient } from "../drain";
import { DlqRecoveryController } from "../provider/dlqRecovery/controller";
import { bareDrain, barePool } from "./lib/bare";
import { CREDS, startEmulatorProcess, type EmulatorProcess } from "./lib/emulator";
import { benchMain } from "./lib/main";
import { result, type BenchResult } from "./lib/result";
import { cpuRatio, drainStats, sampleDrain, sharedEmu, type DrainStats } from "./lib/drainSample";
import { alternate, fmt } from "./lib/stats";

export const ENTRIES = 10_000;
const REQUESTS = Math.ceil(ENTRIES / 50);
const VARIANTS = ["provider", "providerRunLog", "clientDrain", "bare"] as const;

type Variant = (typeof VARIANTS)[number];

/** One drain of 10,000 entries by variant `v`: the requests it sent and the runs it resumed. */
async function drainOnce(
  v: Variant,
  emu: EmulatorProcess,
  provider: DlqRecoveryController,
  inputs: { all: true; concurrency: 1; baseUrl: string; token: string; recoveryName: string },
): Promise<[number, number]> {
  if (v === "provider" || v === "providerRunLog") {
    const { outs } = await provider.create({
      ...inputs,
      runLogFile: v === "provider" ? "" : "run.jsonl",
    });
    return [outs!.requestCount, outs!.resumedCount];
  }
  if (v === "clientDrain") {
    const client = new DrainClient({ baseUrl: emu.url, token: CREDS.token });
    const res = await client.drain({});
    await client.close();
    return [res.requestCount, res.resumedCount];
  }
  const pool = barePool(emu.url);
  const counts = await bareDrain(pool);
  await pool.close();
  return counts;
}

/** The rows of the result: the provider (with and without run log) and the client against the floor. */
function pushRows(r: BenchResult, s: Record<Variant, DrainStats>, emuCpu: number): void {
  const ratio = s.provider.wall.median / s.bare.wall.median;
  r.rows.push({
    measurement: `drain of ${ENTRIES.toLocaleString("en-US")} entries (${REQUESTS} requests), wall time`,
    subjectLabel: 'DlqRecoveryController.create, runLogFile ""',
    subject: s.provider.wall,
    baselineLabel: "floor: bare sequential undici",
    baseline: s.bare.wall,
    ratio,
    target: "≤ 1.10",
    ok: ratio <= 1.1,
  });
  r.rows.push({
    measurement: "same drain, CPU of the drain side (this process, GC included)",
    subjectLabel: "provider",
    subject: s.provider.cpu,
    baselineLabel: "floor",
    baseline: s.bare.cpu,
    ratio: s.provider.cpu.median / s.bare.cpu.median,
    target: "report",
  });
  const est = cpuRatio(s.provider, s.bare, emuCpu);
  r.rows.push({
    measurement: "same drain, quiet-machine estimate: (drain-side CPU + emulator CPU) provider / floor",
    subjectLabel: "provider",
    subject: `${fmt(s.provider.cpu.median + emuCpu)} ms CPU`,
    baselineLabel: "floor",
    baseline: `${fmt(s.bare.cpu.median + emuCpu)} ms CPU`,
    ratio: est,
    target: "≤ 1.10",
    ok: est <= 1.1,
  });
  r.rows.push({
    measurement: "same, with the run log written (JSON Lines in a temp dir), wall time",
    subjectLabel: "provider, runLogFile set",
    subject: s.providerRunLog.wall,
    baselineLabel: "floor",
    baseline: s.bare.wall,
    ratio: s.providerRunLog.wall.median / s.bare.wall.median,
    target: "report",
  });
  r.rows.push({
    measurement: "same, the client alone, wall time",
    subjectLabel: "DrainClient.drain",
    subject: s.clientDrain.wall,
    baselineLabel: "floor",
    baseline: s.bare.wall,
    ratio: s.clientDrain.wall.median / s.bare.wall.median,
    target: "report",
  });
}

/** The table of where the time goes and the throughput notes. */
function pushBreakdown(r: BenchResult, s: Record<Variant, DrainStats>, emuCpu: number): void {
  r.tables.push({
    title: "Where the time goes (medians per drain of 10,000 entries):",
    header: [
      "variant",
      "wall ms",
      "drain-side CPU ms",
      "emulator CPU ms",
      "wall vs floor",
      "CPU estimate vs floor",
    ],
    rows: VARIANTS.map((v) => [
      v,
      fmt(s[v].wall.median),
      fmt(s[v].cpu.median),
      fmt(s[v].emu),
      `${(s[v].wall.median / s.bare.wall.median).toFixed(2)}×`,
      `${cpuRatio(s[v], s.bare, emuCpu).toFixed(2)}×`,
    ]),
  });
  r.notes.push(
    `Throughput (medians): provider ${fmt((ENTRIES / s.provider.wall.median) * 1000)} runs/s, ` +
      `floor ${fmt((ENTRIES / s.bare.wall.median) * 1000)} runs/s.`,
    "The drain is a ping-pong between this process and the emulator, so wall ≈ drain-side CPU + emulator CPU " +
      "when the machine is quiet; the CPU estimate is what the ratio is without load from other processes.",
  );
}

export async function run(): Promise<BenchResult> {
  const r = result("drain", "3. Drain throughput");
  const emu = await startEmulatorProcess(0);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-drain-"));
  const provider = new DlqRecoveryController({ log: () => undefined, env: {}, cwd: () => dir });
  const inputs = {
    all: true as const,
    concurrency: 1 as const,
    baseUrl: emu.url,
    token: CREDS.token,
    recoveryName: "bench",
  };
  try {
    const samples = await alternate(VARIANTS, { warmup: 3, trials: 25 }, async (v) => {
      await emu.reseed(ENTRIES);
      fs.rmSync(path.join(dir, "run.jsonl"), { force: true });
      let requests = 0;
      let resumed = 0;
      const sample = await sampleDrain(emu, async () => {
        [requests, resumed] = await drainOnce(v, emu, provider, inputs);
      });
      if (requests !== REQUESTS || resumed !== ENTRIES) {
        throw new Error(`${v}: ${requests} requests, ${resumed} resumed`);
      }
      return sample;
    });
    const s = Object.fromEntries(VARIANTS.map((v) => [v, drainStats(samples[v])])) as Record<
      Variant,
      DrainStats
    >;
    const emuCpu = sharedEmu(VARIANTS.map((v) => samples[v]));
    r.notes.push(
      `Emulator CPU per drain, median over every variant (all send the same requests): ${fmt(emuCpu)} ms; ` +
        "the quiet-machine estimate is (drain-side CPU + that) over the same for the floor.",
    );
    pushRows(r, s, emuCpu);
    pushBreakdown(r, s, emuCpu);
    r.details = { samples };
    return r;
  } finally {
    await emu.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

benchMain(module, run);
