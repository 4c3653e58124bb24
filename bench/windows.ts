/**
 * 9. Windowed drain at the account's rate limit (issues 14 and 19): `SvcClient.drainWindows`
 * against the emulator with 50 ms of latency and its free plan's 100 requests per second
 * enforced, for N = 20,000 and 100,000 failed runs spread evenly over three days, in three
 * 20-second bursts, all within one second (one outage), and across three workflow URLs drained
 * by three drains at once through one shared rate gate (as three DlqRecovery resources of one
 * `pulumi up`). Compared with the rate bound ceil(N/50)/100 s and with the sequential drain
 * (`concurrency: 1`) in the same run; requests against ceil(N/50); 429s; every entry resumed
 * once (the emulator's ledger). Then the requests of small drains (N = 237 and 1,200).
 *
 *   node -r ts-node/register/transpile-only bench/windows.ts [--sizes 20000,100000]
 *     [--scenarios uniform,bursts,outage,urls] [--small 237,1200] [--unknown-account]
 *     [--no-sequential] [--out file.json]
 *
 * The per-second limit: an emulator that enforces `max_requests_per_second` itself is used as
 * it is (detected from `Burst-RateLimit-Limit` on an answer); otherwise the bench sets the
 * emulator's `rateLimit` fault to the same rule (100 per one-second window on unix seconds).
 * One trial per scenario (a 100,000-entry sequential drain alone takes about 2 minutes).
 */
import { request } from "undici";
import { DEFAULT_WINDOW_CONCURRENCY, RateGateRegistry, SvcClient, type AccountRecord } from "../client";
import { CREDS, startEmulatorProcess, type EmulatorProcess } from "./lib/emulator";
import { benchMain } from "./lib/main";
import { result, type BenchResult } from "./lib/result";
import { fmt } from "./lib/stats";
import { mulberry32 } from "../emulator/prng";

const DAY = 86_400_000;
const LATENCY_MS = 50;
/** The workflow URLs of the `urls` scenario. */
export const URLS = ["orders", "payments", "emails"].map((w) => `http://127.0.0.1/workflows/${w}`);

/** The bench's failure-time distributions. */
export type Scenario = "uniform" | "bursts" | "outage" | "urls";
/** What each scenario is, as the tables say it. */
export const TITLES: Record<Scenario, string> = {
  uniform: "evenly over 3 days",
  bursts: "three 20-second bursts",
  outage: "all within one second (one outage)",
  urls: "three workflow URLs, three drains at once",
};
/** Share of the rate bound each scenario must reach. */
export const TARGET: Record<Scenario, number> = { uniform: 0.9, bursts: 0.85, outage: 0.85, urls: 0.9 };
/**
 * Requests allowed for N entries: ceil(N/50) + allowance up to 2,500, 1.10 × ceil(N/50) + allowance
 * above (the bound: allowance 4).
 */
export const requestBound = (n: number, allowance = 4): number =>
  (n <= 2_500 ? 1 : 1.1) * Math.ceil(n / 50) + allowance;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** Deterministic PRNG (the emulator's mulberry32), returning [0, 1). */
const prng = mulberry32;

/** Partial entries (failure time and workflow URL), in failure-time order. */
export function entries(
  scenario: Scenario,
  n: number,
  now: number,
): { failedAt: number; workflowUrl: string }[] {
  const r = prng(n + scenario.length);
  const bursts = [now - 60 * 3_600_000, now - 37 * 3_600_000, now - 2 * 3_600_000];
  // The outage: one second, 41 h 17 min ago (not at a power-of-two split point of the 3 days).
  const outage = now - 41 * 3_600_000 - 17 * 60_000;
  const out = Array.from({ length: n }, (_, i) => {
    const failedAt =
      scenario === "bursts"
        ? bursts[i % 3] + Math.floor(r() * 20_000)
        : scenario === "outage"
          ? outage + Math.floor(r() * 1_000)
          : now - 3 * DAY + Math.floor(r() * (3 * DAY - 1));
    return { failedAt, workflowUrl: scenario === "urls" ? URLS[i % 3] : URLS[0] };
  });
  return out.sort((a, b) => a.failedAt - b.failedAt);
}

async function seed(emu: EmulatorProcess, list: { failedAt: number; workflowUrl: string }[]): Promise<void> {
  await emu.admin("POST", "/admin/reset");
  for (let i = 0; i < list.length; i += 10_000) {
    await emu.admin("POST", "/admin/entries", list.slice(i, i + 10_000));
  }
}

/** Whether the emulator enforces the per-second limit itself (answers carry its headers). */
async function nativeLimit(emu: EmulatorProcess): Promise<boolean> {
  await emu.admin("POST", "/admin/reset");
  const res = await request(`${emu.url}/v2/workflows/dlq/resume`, {
    method: "POST",
    headers: { authorization: `Bearer ${CREDS.token}` },
  });
  await res.body.text();
  return res.headers["burst-ratelimit-limit"] !== undefined;
}

async function faults(emu: EmulatorProcess, native: boolean, limit: number): Promise<void> {
  await emu.admin("PUT", "/admin/faults", {
    endpoints: ["resume"],
    latencyMs: LATENCY_MS,
    ...(native ? {} : { rateLimit: { burst: limit, windowMs: 1_000 } }),
  });
}

/** Every seeded entry resumed exactly once, by the emulator's ledger. */
async function exactlyOnce(emu: EmulatorProcess, n: number): Promise<boolean> {
  const stats = (await emu.admin("GET", "/admin/stats")) as { size: number };
  const ledger = (await emu.admin("GET", "/admin/ledger?dlqId=-")) as {
    distinctEntriesResumed: number;
    duplicates: number;
  };
  return stats.size === 0 && ledger.distinctEntriesResumed === n && ledger.duplicates === 0;
}

interface Trial {
  label: string;
  n: number;
  ms: number;
  requests: number;
  limited: number;
  splits: number;
  maxInFlight: number;
  exact: boolean;
}

async function trial(
  emu: EmulatorProcess,
  scenario: Scenario,
  n: number,
  mode: "windows" | "sequential",
  account: AccountRecord | undefined,
  native: boolean,
  limit: number,
): Promise<Trial> {
  await seed(emu, entries(scenario, n, Date.now()));
  await faults(emu, native, limit);
  let limited = 0;
  const clients = (scenario === "urls" ? URLS : [undefined]).map(
    () =>
      new SvcClient({
        baseUrl: emu.url,
        token: CREDS.token,
        onRetry: (e) => void (e.status === 429 && (limited += 1)),
      }),
  );
  const gate = new RateGateRegistry().forAccount(emu.url, CREDS.token, account?.max_requests_per_second);
  const started = performance.now();
  const results = await Promise.all(
    clients.map((c, i) => {
      const selection = scenario === "urls" ? { workflowUrl: URLS[i] } : {};
      return c.drainWindows(selection, undefined, {
        keepRuns: false,
        gate,
        concurrency: mode === "sequential" ? 1 : DEFAULT_WINDOW_CONCURRENCY,
        ...(account ? { horizonMs: account.max_dlq_retention_time_milis } : {}),
      });
    }),
  );
  const ms = performance.now() - started;
  await Promise.all(clients.map((c) => c.close()));
  const resumed = results.reduce((s, r) => s + r.resumedCount, 0);
  return {
    label: mode,
    n,
    ms,
    requests: results.reduce((s, r) => s + r.requestCount, 0),
    limited,
    splits: results.reduce((s, r) => s + r.splits, 0),
    maxInFlight: results.reduce((s, r) => s + r.maxInFlight, 0),
    exact: resumed === n && (await exactlyOnce(emu, n)),
  };
}

/** The account and rate limit of a run, and how the per-second limit is enforced. */
interface Setting {
  emu: EmulatorProcess;
  account: AccountRecord | undefined;
  native: boolean;
  limit: number;
}

/** The rows of one windowed trial: share of the bound, speed-up, requests and 429s. */
function trialRows(
  r: BenchResult,
  scenario: Scenario,
  t: Trial,
  seq: Trial | undefined,
  limit: number,
): void {
  const n = t.n;
  const ideal = Math.ceil(n / 50);
  const boundMs = (ideal / limit) * 1000;
  const ratio = boundMs / t.ms;
  const at = `N = ${n.toLocaleString("en-US")}, ${TITLES[scenario]}`;
  r.rows.push({
    measurement: `${at}: drain time against the rate bound ceil(N/50)/${limit} s`,
    subjectLabel: "windowed drain",
    subject: `${fmt(t.ms / 1000)} s, ${t.requests} requests, ${t.limited} × 429`,
    baselineLabel: "bound",
    baseline: `${fmt(boundMs / 1000)} s`,
    ratio,
    target: `≥ ${TARGET[scenario].toFixed(2)}`,
    ok: ratio >= TARGET[scenario] && t.exact,
  });
  if (seq) {
    r.rows.push({
      measurement: `${at}: against the sequential drain (concurrency 1)`,
      subjectLabel: "windowed drain",
      subject: `${fmt(t.ms / 1000)} s`,
      baselineLabel: "sequential",
      baseline: `${fmt(seq.ms / 1000)} s`,
      ratio: seq.ms / t.ms,
      target: "report",
    });
  }
  const share429 = t.limited / (t.requests + t.limited);
  r.rows.push({
    measurement: `${at}: requests answered, and 429s`,
    subjectLabel: "requests",
    subject: `${t.requests} (${fmt((t.requests / ideal - 1) * 100)} % over ceil(N/50)); ${t.limited} × 429 (${fmt(share429 * 100)} %)`,
    baselineLabel: "ceil(N/50)",
    baseline: String(ideal),
    ratio: t.requests / ideal,
    target: "≤ 1.10 × ceil(N/50) + 4; 429s ≤ 1 %",
    ok: t.requests <= requestBound(n) && share429 <= 0.01 && t.exact,
  });
}

/** Every scenario at N entries, after the sequential drain of N (unless `--no-sequential`). */
async function size(
  r: BenchResult,
  rows: string[][],
  set: Setting,
  n: number,
  scenarios: Scenario[],
): Promise<void> {
  const { emu, account, native, limit } = set;
  const ideal = Math.ceil(n / 50);
  const boundMs = (ideal / limit) * 1000;
  const seq = process.argv.includes("--no-sequential")
    ? undefined
    : await trial(emu, "uniform", n, "sequential", undefined, native, limit);
  if (seq)
    rows.push(row("sequential drain, `concurrency: 1` (any distribution)", seq, ideal, boundMs, undefined));
  for (const scenario of scenarios) {
    const t = await trial(emu, scenario, n, "windows", account, native, limit);
    rows.push(row(`windowed, ${TITLES[scenario]}`, t, ideal, boundMs, seq));
    trialRows(r, scenario, t, seq, limit);
  }
}

/** Requests of small drains (evenly over 3 days). */
async function smallDrains(r: BenchResult, set: Setting, sizes: number[]): Promise<void> {
  for (const n of sizes) {
    const t = await trial(set.emu, "uniform", n, "windows", set.account, set.native, set.limit);
    const ideal = Math.ceil(n / 50);
    r.rows.push({
      measurement: `Small drain, N = ${n.toLocaleString("en-US")} evenly over 3 days: requests`,
      subjectLabel: "requests",
      subject: `${t.requests} (${t.splits} windows split, ${t.limited} × 429)`,
      baselineLabel: "ceil(N/50)",
      baseline: String(ideal),
      ratio: t.requests / ideal,
      target: "≤ ceil(N/50) + 4",
      ok: t.requests <= ideal + 4 && t.exact,
    });
  }
}

async function setting(emu: EmulatorProcess, unknown: boolean): Promise<Setting> {
  const native = await nativeLimit(emu);
  const probe = new SvcClient({ accountApiUrl: emu.url, username: CREDS.username, password: CREDS.password });
  const account = await probe.getAccount();
  await probe.close();
  return { emu, account: unknown ? undefined : account, native, limit: account.max_requests_per_second };
}

export async function run(): Promise<BenchResult> {
  const r = result("windows", "9. Windowed drain at the rate limit");
  const sizes = (arg("sizes") ?? "20000,100000").split(",").map(Number);
  const scenarios = (arg("scenarios") ?? "uniform,bursts,outage,urls").split(",") as Scenario[];
  const small = (arg("small") ?? "237,1200").split(",").filter(Boolean).map(Number);
  const unknown = process.argv.includes("--unknown-account");
  const emu = await startEmulatorProcess(0, "free", true);
  const rows: string[][] = [];
  try {
    const set = await setting(emu, unknown);
    r.notes.push(
      `Emulator: free plan, max_requests_per_second ${set.limit}, DLQ retention 3 days, ${LATENCY_MS} ms latency per request; ` +
        `per-second limit ${set.native ? "enforced by the emulator itself" : "enforced by the emulator's rateLimit fault (100 per one-second window on unix seconds)"}.`,
      `Windowed drains: concurrency ${DEFAULT_WINDOW_CONCURRENCY}, one rate gate shared by the drains of the run; ` +
        (unknown
          ? "account not read (limit learnt from Burst-RateLimit-* headers, 90-day default horizon)."
          : "the account's max_requests_per_second as the gate's limit and its DLQ retention as the horizon (as the provider passes them when account settings are configured)."),
      "One trial per row. Drain time is wall time from the first request to the last answer.",
    );
    for (const n of sizes) await size(r, rows, set, n, scenarios);
    await smallDrains(r, set, small);
  } finally {
    await emu.close();
  }
  r.tables.push({
    title: `Drains of N failed runs, emulator latency ${LATENCY_MS} ms, 100 requests/s enforced:`,
    header: [
      "drain",
      "N",
      "time s",
      "bound s",
      "bound / time",
      "vs sequential",
      "requests",
      "ceil(N/50)",
      "429s",
      "windows split",
      "most in flight",
      "every entry once",
    ],
    rows,
  });
  return r;
}

function row(label: string, t: Trial, ideal: number, boundMs: number, seq: Trial | undefined): string[] {
  return [
    label,
    t.n.toLocaleString("en-US"),
    fmt(t.ms / 1000),
    fmt(boundMs / 1000),
    (boundMs / t.ms).toFixed(2),
    seq ? `${(seq.ms / t.ms).toFixed(1)}× faster` : "",
    String(t.requests),
    String(ideal),
    String(t.limited),
    String(t.splits),
    String(t.maxInFlight),
    t.exact ? "yes" : "**no**",
  ];
}

benchMain(module, run);
