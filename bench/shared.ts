/**
 * 9 (shared budget). A windowed drain when the account is shared: `DrainClient.drainWindows`
 * against the emulator (free plan, 100 requests per second enforced, 50 ms latency) while the
 * emulator simulates another client that uses 40 of every second's 100 requests, spread over the
 * second. Compared with the bound of the share the other client leaves, ceil(N/50)/(100 − 40) s,
 * and with the same drain alone on the account in the same run; 429s of the drain's requests;
 * every entry resumed once (the emulator's ledger).
 *
 *   node -r ts-node/register/transpile-only bench/shared.ts [--sizes 20000] [--load 40] [--out file.json]
 */
import { DrainClient, RateGate } from "../drain";
import { CREDS, startEmulatorProcess, type EmulatorProcess } from "./lib/emulator";
import { arg, benchMain } from "./lib/main";
import { result, type BenchResult } from "./lib/result";
import { fmt } from "./lib/stats";
import { mulberry32 } from "../emulator/prng";

const DAY = 86_400_000;
const LATENCY_MS = 50;
const LIMIT = 100;

async function seed(emu: EmulatorProcess, n: number): Promise<void> {
  await emu.admin("POST", "/admin/reset");
  const r = mulberry32(n);
  const now = Date.now();
  const list = Array.from({ length: n }, () => ({
    failedAt: now - 3 * DAY + Math.floor(r() * (3 * DAY - 1)),
  }));
  list.sort((a, b) => a.failedAt - b.failedAt);
  for (let i = 0; i < list.length; i += 10_000)
    await emu.admin("POST", "/admin/entries", list.slice(i, i + 10_000));
}

interface Trial {
  ms: number;
  requests: number;
  limited: number;
  counted: number;
  exact: boolean;
}

async function trial(emu: EmulatorProcess, n: number, load: number): Promise<Trial> {
  await seed(emu, n);
  await emu.admin("PUT", "/admin/faults", { endpoints: ["resume"], latencyMs: LATENCY_MS });
  await emu.admin("PUT", "/admin/other-client", { requestsPerSecond: load });
  const client = new DrainClient({ baseUrl: emu.url, token: CREDS.token });
  const gate = new RateGate({ limit: LIMIT });
  const started = performance.now();
  const res = await client.drainWindows({}, undefined, { keepRuns: false, gate, horizonMs: 3 * DAY });
  const ms = performance.now() - started;
  await client.close();
  const rate = (await emu.admin("GET", "/admin/rate-limit")) as {
    stats: { counted: number; limited: number };
  };
  const stats = (await emu.admin("GET", "/admin/stats")) as { size: number };
  const ledger = (await emu.admin("GET", "/admin/ledger?dlqId=-")) as {
    distinctEntriesResumed: number;
    duplicates: number;
  };
  const exact =
    res.resumedCount === n &&
    stats.size === 0 &&
    ledger.distinctEntriesResumed === n &&
    ledger.duplicates === 0;
  return { ms, requests: res.requestCount, limited: rate.stats.limited, counted: rate.stats.counted, exact };
}

export async function run(): Promise<BenchResult> {
  const r = result("shared", "9. Windowed drain at the rate limit: the shared budget");
  const sizes = (arg("sizes") ?? "20000").split(",").map(Number);
  const load = Number(arg("load") ?? 40);
  const emu = await startEmulatorProcess(0, "free", true);
  const rows: string[][] = [];
  try {
    r.notes.push(
      `Emulator: free plan, max_requests_per_second ${LIMIT} enforced, ${LATENCY_MS} ms latency per request; ` +
        `another client simulated by the emulator (otherClientLoad ${load}: ${load} requests of every one-second window, spread over the second).`,
      "Windowed drain with the default concurrency; its gate knows the account's limit (100) and paces by Burst-RateLimit-Remaining. One trial per row.",
    );
    for (const n of sizes) {
      const ideal = Math.ceil(n / 50);
      const alone = await trial(emu, n, 0);
      const shared = await trial(emu, n, load);
      const boundAlone = (ideal / LIMIT) * 1000;
      const boundShared = (ideal / (LIMIT - load)) * 1000;
      for (const [label, t, bound] of [
        ["alone on the account", alone, boundAlone],
        [`another client using ${load} of ${LIMIT}/s`, shared, boundShared],
      ] as const) {
        const share = t.limited / Math.max(1, t.counted);
        rows.push([
          label,
          n.toLocaleString("en-US"),
          fmt(t.ms / 1000),
          fmt(bound / 1000),
          (bound / t.ms).toFixed(2),
          String(t.requests),
          String(ideal),
          `${t.limited} (${fmt(share * 100)} %)`,
          t.exact ? "yes" : "**no**",
        ]);
      }
      const share = shared.limited / Math.max(1, shared.counted);
      r.rows.push({
        measurement: `N = ${n.toLocaleString("en-US")}, another client using ${load} of ${LIMIT} requests a second: drain time against the bound of the share left, ceil(N/50)/${LIMIT - load} s`,
        subjectLabel: "windowed drain",
        subject: `${fmt(shared.ms / 1000)} s, ${shared.requests} requests, ${shared.limited} × 429 (${fmt(share * 100)} %)`,
        baselineLabel: "bound of the share",
        baseline: `${fmt(boundShared / 1000)} s`,
        ratio: boundShared / shared.ms,
        target: "429s ≤ 2 %",
        ok: share <= 0.02 && shared.exact,
      });
    }
  } finally {
    await emu.close();
  }
  r.tables.push({
    title: `Drains of N failed runs, emulator latency ${LATENCY_MS} ms, ${LIMIT} requests/s enforced:`,
    header: [
      "drain",
      "N",
      "time s",
      "bound s",
      "bound / time",
      "requests",
      "ceil(N/50)",
      "429s of the drain's requests",
      "every entry once",
    ],
    rows,
  });
  return r;
}

benchMain(module, run);
