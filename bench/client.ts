/**
 * 2. Client overhead per request: `SvcClient.resumeDlq` against a bare undici `request()` on a
 * keep-alive `Pool`, the same number of sequential requests to the same emulator, each resuming
 * 50 entries. The DLQ is reset and re-seeded before every trial (untimed).
 */
import { SvcClient } from "../client";
import { bareResume, barePool } from "./lib/bare";
import { CREDS, startEmulatorProcess } from "./lib/emulator";
import { benchMain } from "./lib/main";
import { result, type BenchResult } from "./lib/result";
import { alternate, cpuMs, fmt, now, stat } from "./lib/stats";

const REQUESTS_PER_TRIAL = 100;

export async function run(): Promise<BenchResult> {
  const r = result("client", "2. Client overhead");
  const emu = await startEmulatorProcess(0);
  const client = new SvcClient({ baseUrl: emu.url, token: CREDS.token });
  const pool = barePool(emu.url);
  try {
    const samples = await alternate(["client", "bare"] as const, { warmup: 3, trials: 31 }, async (v) => {
      await emu.reseed(REQUESTS_PER_TRIAL * 50);
      const c0 = cpuMs();
      const t0 = now();
      if (v === "client") {
        for (let i = 0; i < REQUESTS_PER_TRIAL; i++) {
          const page = await client.resumeDlq({});
          if (page.workflowRuns.length !== 50) throw new Error("expected 50 runs");
        }
      } else {
        for (let i = 0; i < REQUESTS_PER_TRIAL; i++) {
          const body = await bareResume(pool);
          if (!body.includes('"workflowRuns":[{')) throw new Error("expected runs");
        }
      }
      return {
        wall: ((now() - t0) * 1000) / REQUESTS_PER_TRIAL,
        cpu: ((cpuMs() - c0) * 1000) / REQUESTS_PER_TRIAL,
      };
    });
    const wall = (k: "client" | "bare") =>
      stat(
        samples[k].map((x) => x.wall),
        "µs/req",
      );
    const cpu = (k: "client" | "bare") =>
      stat(
        samples[k].map((x) => x.cpu),
        "µs CPU/req",
      );
    const [cw, bw, cc, bc] = [wall("client"), wall("bare"), cpu("client"), cpu("bare")];
    r.rows.push({
      measurement: "time per sequential resume request (wall)",
      subjectLabel: "SvcClient.resumeDlq",
      subject: cw,
      baselineLabel: "bare undici request",
      baseline: bw,
      ratio: cw.median / bw.median,
      target: "report",
    });
    r.rows.push({
      measurement: "CPU of the calling process per resume request (GC included)",
      subjectLabel: "SvcClient.resumeDlq",
      subject: cc,
      baselineLabel: "bare undici request",
      baseline: bc,
      ratio: cc.median / bc.median,
      target: "report",
    });
    r.notes.push(
      `${REQUESTS_PER_TRIAL} sequential requests per trial, each resuming 50 entries, alternated; the bare request ` +
        "reads the body as text and does not parse it, the client parses and validates it. Client overhead " +
        `(difference of medians): ${fmt(cw.median - bw.median)} µs wall, ${fmt(cc.median - bc.median)} µs CPU per request. ` +
        "The CPU figure is the one to trust on a loaded machine.",
    );
    return r;
  } finally {
    await client.close();
    await pool.close();
    await emu.close();
  }
}

benchMain(module, run);
