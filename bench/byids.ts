/**
 * 5. Explicit dlqIds: `DrainClient.resumeByIds` of 10,000 IDs (200 batches of 50) with 4 and 8
 * batches in flight against the sequential path (concurrency 1), the emulator adding 20 ms of
 * latency to every request. The DLQ is re-seeded and the IDs listed before every trial (untimed).
 */
import { DrainClient } from "../drain";
import { CREDS, startEmulatorProcess } from "./lib/emulator";
import { benchMain } from "./lib/main";
import { result, type BenchResult } from "./lib/result";
import { alternate, fmt, now, stat } from "./lib/stats";

const IDS = 10_000;
const LATENCY_MS = 20;
const VARIANTS = ["1", "4", "8"] as const;

export async function run(): Promise<BenchResult> {
  const r = result("byids", "5. Explicit dlqIds");
  const emu = await startEmulatorProcess(0);
  try {
    const samples = await alternate(VARIANTS, { warmup: 1, trials: 5 }, async (v) => {
      await emu.reseed(IDS);
      const listed = (await emu.admin("GET", `/admin/entries?limit=${IDS}`)) as {
        entries: { dlqId: string }[];
      };
      const ids = listed.entries.map((e) => e.dlqId);
      await emu.admin("PUT", "/admin/faults", { latencyMs: LATENCY_MS });
      const client = new DrainClient({ baseUrl: emu.url, token: CREDS.token });
      const t0 = now();
      const res = await client.resumeByIds(ids, undefined, { concurrency: Number(v) });
      const ms = now() - t0;
      await client.close();
      if (res.resumedCount !== IDS || res.requestCount !== IDS / 50) {
        throw new Error(`concurrency ${v}: ${res.resumedCount} resumed in ${res.requestCount} requests`);
      }
      return ms;
    });
    const s1 = stat(samples["1"], "ms");
    for (const c of ["4", "8"] as const) {
      const s = stat(samples[c], "ms");
      const ratio = s.median / s1.median;
      r.rows.push({
        measurement: `resumeByIds of 10,000 IDs, ${LATENCY_MS} ms latency, concurrency ${c} vs 1`,
        subjectLabel: `concurrency ${c}`,
        subject: s,
        baselineLabel: "concurrency 1",
        baseline: s1,
        ratio,
        target: `report (ideal ${fmt(1 / Number(c))})`,
      });
      r.notes.push(
        `concurrency ${c}: ${fmt(s1.median / s.median)}× faster than sequential ` +
          `(ideal ${c}×); ${fmt((IDS / s.median) * 1000)} runs/s.`,
      );
    }
    r.notes.push(
      `Sequential floor: ${IDS / 50} requests × ${LATENCY_MS} ms = ${(IDS / 50) * LATENCY_MS} ms of injected latency; ` +
        `measured ${fmt(s1.median)} ms.`,
    );
    return r;
  } finally {
    await emu.close();
  }
}

benchMain(module, run);
