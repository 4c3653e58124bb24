/**
 * 10. `dlqIds` recoveries at the plans' rates and round trips, against the emulator:
 * `DrainClient.resumeByIds` of 10,000 and 100,000 IDs with its automatic concurrency, through a
 * rate gate that learns the account's limit from the `Burst-RateLimit-*` headers (no account
 * settings), the emulator's `free` (100 a second) or `paid` (500) plan enforcing it and adding the
 * round trip to every request; beside it the sequential path (concurrency 1) on the same emulator.
 * The share is the bound ceil(N/50)/rate over the time; docs/benchmarks.md section 10 has the
 * simulator's figures for the same rows.
 *
 *   node -r ts-node/register/transpile-only bench/byidsRates.ts [--rows 100x50x10000,...]
 *     [--no-sequential]
 */
import { DrainClient, RateGateRegistry } from "../drain";
import { CREDS, startEmulatorProcess, type EmulatorProcess } from "./lib/emulator";
import { arg } from "./lib/main";

/** A row: the account's rate a second, the round trip in ms, the IDs. */
type Row = [rate: number, rttMs: number, ids: number];

/** The `dlqIds` rows of docs/benchmarks.md section 10. */
const ROWS: Row[] = [
  [100, 50, 10_000],
  [100, 150, 10_000],
  [500, 50, 10_000],
  [500, 150, 10_000],
  [500, 150, 100_000],
];

/** The IDs of `n` freshly seeded entries, the round trip set on the resume endpoint. */
async function seededIds(emu: EmulatorProcess, n: number, rttMs: number): Promise<string[]> {
  await emu.reseed(n);
  const ids: string[] = [];
  for (let offset = 0; offset < n; offset += 10_000) {
    const route = `/admin/entries?limit=10000&offset=${offset}`;
    const listed = (await emu.admin("GET", route)) as { entries: { dlqId: string }[] };
    ids.push(...listed.entries.map((e) => e.dlqId));
  }
  await emu.admin("PUT", "/admin/faults", { endpoints: ["resume"], latencyMs: rttMs });
  return ids;
}

/** Every seeded entry resumed exactly once, by the emulator's ledger. */
async function exactlyOnce(emu: EmulatorProcess, n: number): Promise<boolean> {
  const ledger = (await emu.admin("GET", "/admin/ledger?dlqId=-")) as {
    distinctEntriesResumed: number;
    duplicates: number;
  };
  return ledger.distinctEntriesResumed === n && ledger.duplicates === 0;
}

/** One resume of the row's IDs: seconds, requests, 429s, each once. */
async function resume(emu: EmulatorProcess, [, rttMs, n]: Row, concurrency?: number) {
  const ids = await seededIds(emu, n, rttMs);
  const before = (await emu.admin("GET", "/admin/requests?since=0&limit=100000")) as {
    requests: { status: number }[];
  };
  const gate = new RateGateRegistry().forAccount(emu.url, CREDS.token);
  const client = new DrainClient({ baseUrl: emu.url, token: CREDS.token });
  const t0 = performance.now();
  const res = await client.resumeByIds(ids, undefined, {
    gate,
    keepRuns: false,
    ...(concurrency !== undefined ? { concurrency } : {}),
  });
  const seconds = (performance.now() - t0) / 1000;
  await client.close();
  const after = (await emu.admin("GET", "/admin/requests?since=0&limit=100000")) as {
    requests: { status: number }[];
  };
  const limited = after.requests.slice(before.requests.length).filter((r) => r.status === 429).length;
  return { seconds, requests: res.requestCount, limited, once: await exactlyOnce(emu, n) };
}

async function main(): Promise<void> {
  const rows =
    arg("rows")
      ?.split(",")
      .map((r) => r.split("x").map(Number) as Row) ?? ROWS;
  const sequential = !process.argv.includes("--no-sequential");
  console.log(
    "| rate, round trip | IDs | time s | share | sequential s | × sequential | requests | 429s | each once |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const row of rows) {
    const [rate, rttMs, n] = row;
    const emu = await startEmulatorProcess(0, rate === 500 ? "paid" : "free", true);
    try {
      const r = await resume(emu, row);
      const s = sequential ? await resume(emu, row, 1) : undefined;
      const share = Math.ceil(n / 50) / rate / r.seconds;
      const cells = [
        `${rate}/s, ${rttMs} ms`,
        n.toLocaleString("en-US"),
        r.seconds.toFixed(2),
        share.toFixed(3),
        s ? s.seconds.toFixed(1) : "",
        s ? (r.seconds / s.seconds).toFixed(3) : "",
        String(r.requests),
        String(r.limited),
        r.once && (s?.once ?? true) ? "yes" : "**no**",
      ];
      console.log(`| ${cells.join(" | ")} |`);
    } finally {
      await emu.close();
    }
  }
}

void main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
