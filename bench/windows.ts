/**
 * 9. Windowed drain at the account's rate limit: `DrainClient.drainWindows`
 * against the emulator with 50 ms of latency and 100 requests per second enforced, on what users
 * run (`bench/windowScenarios.ts`): failures evenly over the last 3 days, all within the last
 * hour, a 30-minute outage given by `fromDate`/`toDate`, a one-second outage 2 hours ago, three
 * 20-second bursts over the last day, and three workflow URLs drained by three drains at once
 * through one shared rate gate. Each with no account settings (the 90-day default horizon, the
 * gate learning the rate from the headers) and with a payg account (7-day retention); the free
 * plan's rows (3-day retention = the failures' span, daily limit 1,000) for the even spread,
 * reported, not targeted (`--no-free` leaves it out: at 1,000,000 entries it alone takes over
 * 200 s). Compared with the rate bound ceil(N/50)/100 s and with the sequential
 * cursor loop (`concurrency: 1`, one request per round trip, what the official SDK does) on the
 * same emulator in the same run; requests against the allowance (`requestAllowance`); 429s;
 * every entry resumed once (the emulator's ledger). Then the requests of small drains. Beside each
 * row, the simulator's median for the same planner and scenario (`bench/windowsSim.ts`, run after
 * the real drains; `--no-sim` leaves it out) and how far the real median is from it.
 *
 *   node -r ts-node/register/transpile-only bench/windows.ts [--sizes 2500,5000,20000,100000]
 *     [--scenarios uniform,hour,window,outage,bursts,urls] [--horizons unknown,payg]
 *     [--small 237,500,501,1200] [--trials 3] [--no-sequential] [--no-free] [--no-sim] [--out file.json]
 *     [--run-ids sdk,app,mixed,numeric,hex | all] [--rate 100|500] [--rtt ms] [--jitter ms]
 *
 * `--rate`/`--rtt`: the account's per-second limit (500: the paid plan) and the emulator's latency
 * a request; other than 100 and 50, the rows are judged on the rate rows' targets
 * (`bench/lib/rateRows.ts`) and compared with the simulator at the same rate and round trip.
 * `--jitter`: 0 to that many ms more a request, uniform (the emulator's `latencyJitterMs`; the
 * simulator's `--jitter` takes the same argument); without it the emulator adds none, and the
 * simulator its default.
 * `--run-ids`: the shapes of the seeded entries' run IDs (`emulator/run-ids.ts`), each a row of
 * its own (default `sdk`, the official SDK's; `all`: every shape but `numeric`).
 *
 * The per-second limit: an emulator that enforces `max_requests_per_second` itself is used as
 * it is (detected from `Burst-RateLimit-Limit` on an answer); otherwise the bench sets the
 * emulator's `rateLimit` fault to the same rule (100 per one-second window on unix seconds).
 * Each row: `--trials` drains (default 3) one after the other, reported as the median with the
 * range; the target is met when the median meets it. The sequential loop drains once per size.
 */
import { request } from "undici";
import type { DlqSelection } from "../client";
import { DEFAULT_WINDOW_CONCURRENCY, DrainClient, RateGateRegistry } from "../drain";
import { requestAllowance } from "../drain/windows";
import { CREDS, startEmulatorProcess, type EmulatorProcess } from "./lib/emulator";
import { arg, benchMain } from "./lib/main";
import { result, type BenchResult } from "./lib/result";
import { fmt, stat } from "./lib/stats";
import { trials as simTrials } from "./windowsSim";
import { netTarget } from "./lib/rateRows";
import {
  HORIZON_TITLES,
  SCENARIOS,
  TITLES,
  accountOf,
  entries,
  runIdShapesOf,
  selectionsOf,
  type Horizon,
  type Scenario,
  type ScenarioEntry,
} from "./windowScenarios";
import type { RunIdShape } from "../emulator/run-ids";

/** `--rtt`: the emulator's latency a resume request, ms (section 9's 50 by default). */
const LATENCY_MS = Number(arg("rtt") ?? 50);
/** `--jitter`: the emulator's extra latency a resume request, 0 to this many ms, uniform. */
const JITTER_MS = arg("jitter") === undefined ? undefined : Number(arg("jitter"));
/** `--rate`: the account's per-second limit, 100 (the free plan) or 500 (the paid plan). */
const LIMIT = Number(arg("rate") ?? 100);
/** The account's net for the simulator and the rate rows' targets. */
const NET = { rate: LIMIT, rttMs: LATENCY_MS };
/** Trials of the simulator per row (`bench/windowsSim.ts`), the median compared. */
const SIM_TRIALS = 5;
/** How far the simulator's median may be from the real one (a share of the bound); a row further off is flagged. */
const SIM_AGREES = 0.05;

/** The rate bound of a drain of `n` entries: ceil(n/50) requests at {@link LIMIT} a second, ms. */
function boundMs(n: number): number {
  return (Math.ceil(n / 50) / LIMIT) * 1000;
}

async function seed(emu: EmulatorProcess, list: ScenarioEntry[]): Promise<void> {
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

async function faults(emu: EmulatorProcess, native: boolean): Promise<void> {
  await emu.admin("PUT", "/admin/faults", {
    endpoints: ["resume"],
    latencyMs: LATENCY_MS,
    ...(JITTER_MS !== undefined ? { latencyJitterMs: JITTER_MS } : {}),
    ...(native ? {} : { rateLimit: { burst: LIMIT, windowMs: 1_000 } }),
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

/** One drain (or three, for `urls`) of a scenario. */
export interface Trial {
  scenario: Scenario;
  horizon: Horizon;
  runIds: RunIdShape;
  n: number;
  sequential: boolean;
  ms: number;
  requests: number;
  /** The most requests the drains may send: the allowance of each drain's entries. */
  allowance: number;
  limited: number;
  exact: boolean;
}

/** The drains of one trial, each through the shared gate. */
function drains(
  emu: EmulatorProcess,
  selections: DlqSelection[],
  horizon: Horizon,
  sequential: boolean,
  onLimited: () => void,
) {
  const account = accountOf(horizon);
  const gate = new RateGateRegistry().forAccount(emu.url, CREDS.token, account.rateKnown ? LIMIT : undefined);
  return selections.map((selection) => {
    const client = new DrainClient({
      baseUrl: emu.url,
      token: CREDS.token,
      onRetry: (e) => void (e.status === 429 && onLimited()),
    });
    const run = client.drainWindows(selection, undefined, {
      keepRuns: false,
      gate,
      concurrency: sequential ? 1 : DEFAULT_WINDOW_CONCURRENCY,
      ...(account.horizonMs !== undefined ? { horizonMs: account.horizonMs } : {}),
      ...(account.dailyLimit !== undefined ? { dailyLimit: account.dailyLimit } : {}),
    });
    return run.finally(() => client.close());
  });
}

async function trial(
  emu: EmulatorProcess,
  native: boolean,
  scenario: Scenario,
  n: number,
  horizon: Horizon,
  runIds: RunIdShape,
  sequential = false,
): Promise<Trial> {
  const now = Date.now();
  const list = entries(scenario, n, now, runIds);
  await seed(emu, list);
  await faults(emu, native);
  const selections = selectionsOf(scenario, now);
  let limited = 0;
  const started = performance.now();
  const results = await Promise.all(drains(emu, selections, horizon, sequential, () => (limited += 1)));
  const ms = performance.now() - started;
  // The budget credits the round trip the drain measures: the latency and loopback's few ms.
  const net = { ratePerSecond: LIMIT, roundTripMs: LATENCY_MS + 10 };
  const budget = accountOf(horizon).dailyLimit !== undefined ? { ...net, dailyLimit: 1_000 } : net;
  const sizes = selections.map(
    (s) => list.filter((e) => !s.workflowUrl || e.workflowUrl === s.workflowUrl).length,
  );
  const resumed = results.reduce((s, r) => s + r.resumedCount, 0);
  return {
    scenario,
    horizon,
    runIds,
    n,
    sequential,
    ms,
    requests: results.reduce((s, r) => s + r.requestCount, 0),
    allowance: sizes.reduce((s, k) => s + requestAllowance(k, budget), 0),
    limited,
    exact: resumed === n && (await exactlyOnce(emu, n)),
  };
}

/** The trials of one row, drained one after the other on the same emulator. */
async function repeated(
  emu: EmulatorProcess,
  native: boolean,
  of: Pick<Trial, "scenario" | "n" | "horizon" | "runIds">,
  count: number,
): Promise<Trial[]> {
  const out: Trial[] = [];
  for (let i = 0; i < count; i++)
    out.push(await trial(emu, native, of.scenario, of.n, of.horizon, of.runIds));
  return out;
}

/** A row of the table: its drains, and the sequential loop of its size (none for its own row). */
interface Row {
  trials: Trial[];
  seq?: Trial;
}

/** What the simulator gives for a row: median share of the bound and median requests. */
interface Simulated {
  share: number;
  requests: number;
}

/**
 * The table row of a row's drains: median time and share of the bound (min–max over the drains),
 * the simulator's median and the difference, target (met by the median), against the sequential
 * loop, median requests (the most of any drain checked against the allowance), the most 429s,
 * every entry once in every drain.
 */
function row({ trials: ts, seq }: Row, sim: Simulated | undefined): string[] {
  const t = ts[0];
  const ideal = Math.ceil(t.n / 50);
  const bound = boundMs(t.n);
  const ms = stat(
    ts.map((x) => x.ms),
    "ms",
  );
  const share = bound / ms.median;
  const range = ts.length > 1 ? ` (${(bound / ms.max).toFixed(2)}–${(bound / ms.min).toFixed(2)})` : "";
  const target = t.sequential ? 0 : netTarget(NET, t.scenario, t.n, t.horizon);
  const requests = stat(
    ts.map((x) => x.requests),
    "requests",
  );
  const off = sim ? share - sim.share : 0;
  return [
    t.sequential ? "sequential cursor loop, `concurrency: 1`" : TITLES[t.scenario],
    t.sequential ? "any" : HORIZON_TITLES[t.horizon].replace(/ \(.*/, ""),
    t.sequential ? "any" : t.runIds,
    t.n.toLocaleString("en-US"),
    fmt(ms.median / 1000),
    `${share.toFixed(3)}${range}`,
    sim ? `${sim.share.toFixed(3)} (${sim.requests} req.)` : "",
    sim
      ? `${off >= 0 ? "+" : "−"}${Math.abs(off).toFixed(3)}${Math.abs(off) > SIM_AGREES ? ` **> ${SIM_AGREES}**` : ""}`
      : "",
    target > 0 ? `≥ ${target.toFixed(2)}${share >= target ? "" : " **no**"}` : "",
    seq ? `${(seq.ms / ms.median).toFixed(1)}×` : "",
    `${requests.median} (≤ ${t.allowance})${requests.max <= t.allowance ? "" : " **exceeded**"}`,
    String(ideal),
    String(Math.max(...ts.map((x) => x.limited))),
    ts.every((x) => x.exact) ? "yes" : "**no**",
  ];
}

/**
 * The simulator's figures for a row (`bench/windowsSim.ts`: the same planner and scenario on a
 * virtual clock, {@link SIM_TRIALS} trials, its default jitter). Run after the real drains, so
 * its CPU does not slow them.
 */
async function simulated(t: Trial): Promise<Simulated> {
  const ts = await simTrials(t.scenario, t.n, t.horizon, SIM_TRIALS, t.runIds, false, NET);
  return {
    share:
      boundMs(t.n) /
      stat(
        ts.map((x) => x.ms),
        "ms",
      ).median,
    requests: stat(
      ts.map((x) => x.requests),
      "requests",
    ).median,
  };
}

/** What a run covers. */
interface Plan {
  /** Drains per row (`--trials`); the sequential loop drains once per size. */
  trials: number;
  sizes: number[];
  scenarios: Scenario[];
  horizons: Horizon[];
  small: number[];
  /** The run-ID shapes (`--run-ids`), each a row of its own. */
  shapes: RunIdShape[];
}

function planOf(): Plan {
  const list = (name: string, fallback: string) => (arg(name) ?? fallback).split(",").filter(Boolean);
  return {
    trials: Number(arg("trials") ?? 3),
    sizes: list("sizes", "2500,5000,20000,100000").map(Number),
    scenarios: list("scenarios", SCENARIOS.join(",")) as Scenario[],
    horizons: list("horizons", "unknown,payg") as Horizon[],
    small: list("small", "237,500,501,1200").map(Number),
    shapes: runIdShapesOf(arg("run-ids")),
  };
}

/** Every row of the run, in order: per size the sequential loop, each scenario, the free plan's row. */
async function measure(emu: EmulatorProcess, native: boolean, p: Plan): Promise<Row[]> {
  const rows: Row[] = [];
  const add = async (scenario: Scenario, n: number, horizon: Horizon, seq?: Trial) => {
    for (const runIds of p.shapes) {
      rows.push({ trials: await repeated(emu, native, { scenario, n, horizon, runIds }, p.trials), seq });
    }
  };
  for (const n of p.sizes) {
    const seq = process.argv.includes("--no-sequential")
      ? undefined
      : await trial(emu, native, "uniform", n, "payg", p.shapes[0], true);
    if (seq) rows.push({ trials: [seq] });
    for (const s of p.scenarios) for (const h of p.horizons) await add(s, n, h, seq);
    if (!process.argv.includes("--no-free")) await add("uniform", n, "free", seq);
  }
  for (const n of p.small) for (const h of p.horizons) await add("uniform", n, h);
  return rows;
}

/** The table: each row with the simulator's figures beside it (none for the sequential loop). */
async function table(rows: Row[]): Promise<string[][]> {
  const out: string[][] = [];
  for (const r of rows) {
    const sim =
      r.trials[0].sequential || process.argv.includes("--no-sim") ? undefined : await simulated(r.trials[0]);
    out.push(row(r, sim));
  }
  return out;
}

/** Bench 9: every row of the run on one emulator, as one table. */
export async function run(): Promise<BenchResult> {
  const r = result("windows", "9. Windowed drain at the rate limit");
  const plan = planOf();
  const emu = await startEmulatorProcess(0, LIMIT === 500 ? "paid" : "free", true);
  let rows: Row[];
  try {
    const native = await nativeLimit(emu);
    r.notes.push(
      `Emulator: ${LATENCY_MS} ms latency per request; per-second limit ${LIMIT} ${native ? "enforced by the emulator itself" : "enforced by the emulator's rateLimit fault (one-second windows on unix seconds)"}.`,
      `Windowed drains: concurrency ${DEFAULT_WINDOW_CONCURRENCY}, one rate gate per trial shared by its drains. No account settings: the gate learns the rate from Burst-RateLimit-* (until the first answer 4 requests at once, then 10 a second), 90-day horizon. payg: the gate's limit 100, horizon 7 days. free: limit 100, horizon 3 days, daily limit 1,000 (so at most 20 requests beyond ceil(N/50)).`,
      `Each row: the median of ${plan.trials} drains (min–max of the share in parentheses); the target is judged on the median, the requests of every drain against the allowance. Drain time is wall time from the first request to the last answer. The sequential loop drains the same emulator (evenly over 3 days; its time does not depend on the distribution); once per size.`,
    );
    rows = await measure(emu, native, plan);
  } finally {
    await emu.close();
  }
  r.tables.push({
    title: `Drains of N failed runs, emulator latency ${LATENCY_MS} ms, ${LIMIT} requests/s enforced (share = ceil(N/50)/${LIMIT} s ÷ time):`,
    header: [
      "drain",
      "account",
      "run IDs",
      "N",
      "time s",
      "share of the bound (min–max)",
      "simulated",
      "real − simulated",
      "target",
      "vs sequential",
      "requests (allowance)",
      "ceil(N/50)",
      "429s",
      "every entry once",
    ],
    rows: await table(rows),
  });
  return r;
}

benchMain(module, run);
