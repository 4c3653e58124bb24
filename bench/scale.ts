/**
 * 1. Emulator scale: resume requests per second against an emulator holding 1,000 entries and
 * one holding 1,000,000, with bare undici requests (the client is not measured). Each request
 * resumes 50 entries; after every 10 requests 500 entries are seeded back (untimed) so the DLQ
 * keeps its size and never runs dry.
 */
import { bareResume, barePool } from "./lib/bare";
import { processCpuMs, startEmulatorProcess, type EmulatorProcess } from "./lib/emulator";
import { benchMain } from "./lib/main";
import { result, type BenchResult } from "./lib/result";
import { alternate, now, stat } from "./lib/stats";

const SIZES: readonly number[] = [1_000, 1_000_000];
const REQUESTS_PER_TRIAL = 50;
const BATCH = 10;

export async function run(): Promise<BenchResult> {
  const r = result("scale", "1. Emulator scale");
  const emus = new Map<number, EmulatorProcess>();
  try {
    for (const size of SIZES) emus.set(size, await startEmulatorProcess(size));
    const pools = new Map(SIZES.map((s) => [s, barePool(emus.get(s)!.url)]));
    const samples = await alternate(
      SIZES.map(String) as ("1000" | "1000000")[],
      { warmup: 5, trials: 41 },
      async (v) => {
        const size = Number(v);
        const emu = emus.get(size)!;
        const pool = pools.get(size)!;
        let ms = 0;
        let cpu = 0;
        for (let done = 0; done < REQUESTS_PER_TRIAL; done += BATCH) {
          const e0 = processCpuMs(emu.child.pid);
          const t0 = now();
          for (let i = 0; i < BATCH; i++) {
            const body = await bareResume(pool);
            // Every request must resume a full page; a dry DLQ would measure nothing.
            if (!body.includes('"workflowRuns":[{')) throw new Error("the DLQ ran dry");
          }
          ms += now() - t0;
          cpu += processCpuMs(emu.child.pid) - e0;
          await emu.admin("POST", "/admin/seed", { count: BATCH * 50, seed: 1 });
        }
        return { rate: (REQUESTS_PER_TRIAL / ms) * 1000, cpu };
      },
    );
    const small = stat(
      samples["1000"].map((x) => x.rate),
      "req/s",
    );
    const large = stat(
      samples["1000000"].map((x) => x.rate),
      "req/s",
    );
    const cpuPerReq = (k: "1000" | "1000000") =>
      stat(
        samples[k].map((x) => (x.cpu / REQUESTS_PER_TRIAL) * 1000),
        "µs CPU/req",
      );
    const stats = await Promise.all(SIZES.map((s) => emus.get(s)!.admin("GET", "/admin/stats")));
    const ratio = large.median / small.median;
    r.rows.push({
      measurement: "resume req/s (50 runs each), 1,000,000 vs 1,000 entries",
      subjectLabel: "1,000,000 entries",
      subject: large,
      baselineLabel: "1,000 entries",
      baseline: small,
      ratio,
      target: "≈ 1 (0.90–1.10)",
      ok: ratio >= 0.9 && ratio <= 1.1,
    });
    const cs = cpuPerReq("1000");
    const cl = cpuPerReq("1000000");
    const cpuRatio = cl.median / cs.median;
    r.rows.push({
      measurement: "emulator CPU per resume request (all its threads), 1,000,000 vs 1,000 entries",
      subjectLabel: "1,000,000 entries",
      subject: cl,
      baselineLabel: "1,000 entries",
      baseline: cs,
      ratio: cpuRatio,
      target: "≈ 1 (0.90–1.10)",
      ok: cpuRatio >= 0.9 && cpuRatio <= 1.1,
    });
    r.notes.push(
      `${REQUESTS_PER_TRIAL} sequential bare requests per trial on one keep-alive pool; ` +
        `500 entries re-seeded after every ${BATCH} requests (untimed); 5 warm-up trials each, short trials alternated so that load from other processes hits both sizes alike.`,
    );
    r.details = { stats: Object.fromEntries(SIZES.map((s, i) => [s, stats[i]])) };
    await Promise.all([...pools.values()].map((p) => p.close()));
    return r;
  } finally {
    await Promise.all([...emus.values()].map((e) => e.close()));
  }
}

benchMain(module, run);
