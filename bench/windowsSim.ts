/**
 * 9s. The windowed drain of bench 9 (`bench/windows.ts`) on a virtual clock: the real
 * `drainWindows` runner and planner and the real {@link RateGate}, against the tests' in-memory
 * DLQ (`FakeDlq`) with 50 ms of latency per request and 100 requests per one-second window
 * (unix seconds) enforced as the emulator enforces it (counted when a request arrives, with
 * `Burst-RateLimit-*` on every answer and 429 past the limit). The scenarios of issue 27
 * (`bench/windowScenarios.ts`) with each account setting: no account settings (90-day horizon,
 * the gate learns the rate from the headers), payg (7-day retention) and free (3-day retention,
 * daily limit 1,000). Nothing sleeps on real time: a planner change is measured in seconds.
 *
 *   node -r ts-node/register/transpile-only bench/windowsSim.ts [--sizes 2500,5000,20000,100000]
 *     [--scenarios uniform,hour,window,outage,bursts,urls] [--horizons unknown,payg,free]
 *     [--small 237,500,501,1200] [--trials 5] [--jitter 9] [--trace] [--allowance n]
 *     [--run-ids sdk,app,mixed,numeric,hex | all] [--no-ceiling] [--sequential] [--svg file]
 *
 * `--allowance n` drains with `windowAllowance: n` instead of the default 4. `--run-ids`: the
 * shapes of the entries' run IDs (`emulator/run-ids.ts`), each a row of its own (default `sdk`,
 * the official SDK's; `all`: every shape but `numeric`). The `ceiling` column: the median share of
 * an oracle drain that knows where every entry is (`bench/lib/ceiling.ts`), same entries, gate and
 * latency; a target is out of reach only where it is below it. `--sequential`: a row of the
 * sequential drain (`concurrency: 1`) before each size. `--svg file`: the table as a chart too.
 *
 * What HTTP and the event loop add to each request is modelled as 0 to `--jitter` − 1 ms,
 * uniform, seeded per trial (each trial's latencies differ, as two real runs' do); `--jitter 0`
 * is 50 ms flat. The default, {@link DEFAULT_JITTER}, is calibrated in docs/benchmarks.md (9).
 */
import { RateGate } from "../drain/rateGate";
import type { CallState } from "../client/request";
import type { ResumePage } from "../client";
import type { DrainWindow } from "../drain/types";
import { DEFAULT_WINDOW_CONCURRENCY, drainWindows } from "../drain/windowDrain";
import { DEFAULT_WINDOW_ALLOWANCE, requestAllowance } from "../drain/windows";
import { FakeDlq, VirtualClock } from "./lib/windowSim";
import { drainCeiling } from "./lib/ceiling";
import { median, quantile } from "./lib/stats";
import { benchMain } from "./lib/main";
import { mulberry32 } from "../emulator/prng";
import { result, type BenchResult } from "./lib/result";
import { writeSimChart } from "./lib/simChart";
import {
  HORIZON_TITLES,
  SCENARIOS,
  TITLES,
  accountOf,
  entries,
  runIdShapesOf,
  selectionsOf,
  targetOf,
  type Horizon,
  type Scenario,
} from "./windowScenarios";
import type { RunIdShape } from "../emulator/run-ids";

const LATENCY_MS = 50;
const LIMIT = 100;
/** `--allowance`: the windows a drain may open before it has resumed anything. */
const ALLOWANCE = Number(arg("allowance") ?? DEFAULT_WINDOW_ALLOWANCE);

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** The per-second limit as the emulator enforces it: counted on arrival, per unix second. */
class SecondLimit {
  private second = -1;
  private used = 0;
  limited = 0;

  /** Counts a request arriving at `t`; its status and `Burst-RateLimit-*` headers. */
  arrive(t: number): { status: number; headers: Record<string, string> } {
    const second = Math.floor(t / 1000);
    if (second !== this.second) {
      this.second = second;
      this.used = 0;
    }
    this.used += 1;
    const headers: Record<string, string> = {
      "burst-ratelimit-limit": String(LIMIT),
      "burst-ratelimit-remaining": String(Math.max(0, LIMIT - this.used)),
      "burst-ratelimit-reset": String(second + 1),
    };
    if (this.used <= LIMIT) return { status: 200, headers };
    this.limited += 1;
    return {
      status: 429,
      headers: { ...headers, "retry-after": String(Math.max(1, second + 1 - t / 1000)) },
    };
  }
}

/**
 * `--jitter` by default: 0 to 8 ms, 4 ms on average, near the 3.6 ms measured against the emulator
 * at 100 requests a second with 7 in flight (docs/benchmarks.md, section 9).
 */
export const DEFAULT_JITTER = 9;

const TRACE = process.argv.includes("--trace") || process.env.SIM_TRACE === "1";

/**
 * `--trace`: one line per answer on stderr: time (s), runs (+: a cursor), cursor or start, width,
 * [from, to] in minutes from the answer (-: open), and the run-ID prefix of a fan-out's piece.
 */
function trace(now: number, w: DrainWindow, cursor: string | undefined, page: ResumePage): void {
  const width = w.from !== undefined && w.to !== undefined ? `${w.to - w.from + 1}ms` : "open";
  const m = (t: number | undefined) => (t === undefined ? "-" : ((t - now) / 60000).toFixed(1));
  const id = w.runIdPrefix !== undefined ? ` ${w.runIdPrefix}` : "";
  const line = `${(now % 1e6) / 1000} ${page.workflowRuns.length}${page.cursor ? "+" : ""} ${cursor ? "cursor" : "start"} ${width} [${m(w.from)}, ${m(w.to)}]${id}`;
  process.stderr.write(`${line}\n`);
}

/** The account of one simulated run: clock, gate and limit shared by its drains. */
interface Account {
  clock: VirtualClock;
  gate: RateGate;
  limit: SecondLimit;
}

/** The step of one drain: through the gate, counted by the limit, 50 ms, then the DLQ answers. */
function stepOf(dlq: FakeDlq, a: Account) {
  return async (window: DrainWindow, cursor: string | undefined, state: CallState): Promise<ResumePage> => {
    for (;;) {
      await a.gate.acquire();
      const { status, headers } = a.limit.arrive(a.clock.now);
      if (status === 429) {
        await a.clock.sleep(LATENCY_MS);
        a.gate.observe(429, headers);
        continue;
      }
      const page = await dlq.step(window, cursor, state);
      a.gate.observe(200, headers);
      if (TRACE) trace(a.clock.now, window, cursor, page);
      return page;
    }
  };
}

/** One simulated trial. */
export interface SimTrial {
  /** The distribution of failure times. */
  scenario: Scenario;
  /** The account settings. */
  horizon: Horizon;
  /** The shape of the entries' run IDs. */
  runIds: RunIdShape;
  /** Entries drained. */
  n: number;
  /** Virtual time from the first request to the last answer. */
  ms: number;
  /** Requests answered (all drains of the trial). */
  requests: number;
  /** Requests refused with 429. */
  limited: number;
  /** Windows opened by splitting. */
  splits: number;
  /** Every entry resumed exactly once, and requests in flight never overlapped. */
  exact: boolean;
  /** Requests that resumed nothing. */
  empty: number;
  /** Requests that resumed 1 to 49 entries. */
  partial: number;
}

/** The in-memory DLQs of a scenario, one per selection, each answering after the latency. */
function dlqsOf(
  scenario: Scenario,
  n: number,
  now: number,
  clock: VirtualClock,
  seed: number,
  runIds: RunIdShape,
): FakeDlq[] {
  const list = entries(scenario, n, now, runIds);
  const r = mulberry32(seed);
  const jitter = Number(arg("jitter") ?? DEFAULT_JITTER);
  return selectionsOf(scenario, now).map((sel) => {
    const mine = list.filter((e) => sel.workflowUrl === undefined || e.workflowUrl === sel.workflowUrl);
    const dlq = new FakeDlq(
      mine.map((e) => e.failedAt),
      (i) => mine[i].workflowRunId,
    );
    dlq.delay = () => clock.sleep(LATENCY_MS + Math.floor(r() * jitter));
    return dlq;
  });
}

/**
 * Runs one scenario of `n` entries with an account setting on a virtual clock, the entries
 * seeded `seededBeforeMs` before the drain starts.
 */
export async function simulate(
  scenario: Scenario,
  n: number,
  horizon: Horizon,
  seededBeforeMs = 0,
  concurrency = DEFAULT_WINDOW_CONCURRENCY,
  runIds: RunIdShape = "sdk",
  oracle = false,
): Promise<SimTrial> {
  const clock = new VirtualClock();
  const account = accountOf(horizon);
  const a: Account = {
    clock,
    gate: new RateGate({
      ...(account.rateKnown ? { limit: LIMIT } : {}),
      now: () => clock.now,
      sleep: clock.sleep,
    }),
    limit: new SecondLimit(),
  };
  const seededAt = clock.now - seededBeforeMs;
  // Each trial's latencies differ, as two real runs' do.
  const dlqs = dlqsOf(scenario, n, seededAt, clock, 7 + seededBeforeMs, runIds);
  const selections = selectionsOf(scenario, seededAt);
  const started = clock.now;
  const results = await clock.run(
    Promise.all(
      dlqs.map((dlq, i) =>
        oracle
          ? drainCeiling(
              dlq.times,
              { drains: dlqs.length, rate: LIMIT, roundTripMs: LATENCY_MS + 4 },
              stepOf(dlq, a),
            )
          : drainWindows(selections[i], stepOf(dlq, a), a.gate, {
              concurrency,
              keepRuns: false,
              ...(account.horizonMs !== undefined ? { horizonMs: account.horizonMs } : {}),
              ...(account.dailyLimit !== undefined ? { dailyLimit: account.dailyLimit } : {}),
              windowAllowance: ALLOWANCE,
              now: () => clock.now,
            }),
      ),
    ),
  );
  const all = dlqs.flatMap((d) => d.requests);
  return {
    scenario,
    horizon,
    runIds,
    n,
    ms: clock.now - started,
    requests: results.reduce((s, r) => s + r.requestCount, 0),
    limited: a.limit.limited,
    splits: results.reduce((s, r) => s + r.splits, 0),
    exact: dlqs.every((d) => d.remaining === 0 && d.duplicates === 0 && d.overlaps === 0),
    empty: all.filter((r) => r.runs === 0).length,
    partial: all.filter((r) => r.runs > 0 && r.runs < 50).length,
  };
}

/** The most requests the drains of a trial may send: the allowance of each drain's entries. */
function allowanceOf(t: SimTrial): number {
  const account = accountOf(t.horizon);
  const budget = {
    allowance: ALLOWANCE,
    ...(account.dailyLimit !== undefined ? { dailyLimit: account.dailyLimit } : {}),
  };
  const parts = t.scenario === "urls" ? [0, 1, 2].map((i) => Math.floor((t.n + 2 - i) / 3)) : [t.n];
  return parts.reduce((s, n) => s + requestAllowance(n, budget), 0);
}

/**
 * One row over the trials of a scenario: median share of the bound with its lower quartile (a
 * median of three real drains falls below the median of many about as often as one drain does)
 * and its range, worst requests.
 */
function rowOf(ts: SimTrial[], oracle: SimTrial[] = []): string[] {
  const { n, scenario, horizon, runIds } = ts[0];
  const ideal = Math.ceil(n / 50);
  const boundMs = (ideal / LIMIT) * 1000;
  const shares = ts.map((t) => boundMs / t.ms);
  const share = median(shares);
  const target = targetOf(scenario, n, horizon);
  const requests = Math.max(...ts.map((t) => t.requests));
  const most = allowanceOf(ts[0]);
  return [
    TITLES[scenario],
    HORIZON_TITLES[horizon].replace(/ \(.*/, ""),
    runIds,
    n.toLocaleString("en-US"),
    (median(ts.map((t) => t.ms)) / 1000).toFixed(2),
    `${share.toFixed(3)} (q25 ${quantile(shares, 0.25).toFixed(3)}; ${Math.min(...shares).toFixed(2)}–${Math.max(...shares).toFixed(2)})${share >= target ? "" : " below"}`,
    target > 0 ? target.toFixed(2) : "",
    oracle.length === 0 ? "" : median(oracle.map((t) => boundMs / t.ms)).toFixed(3),
    `${median(ts.map((t) => t.requests))} (≤ ${requests})`,
    String(ideal),
    `${most}${requests <= most ? "" : " **exceeded**"}`,
    `${median(ts.map((t) => t.empty))} / ${median(ts.map((t) => t.partial))}`,
    String(Math.max(...ts.map((t) => t.limited))),
    ts.every((t) => t.exact) ? "yes" : "**no**",
  ];
}

/** `trials` runs of one scenario, the entries seeded 1.777 s further before the drain each time. */
export async function trials(
  scenario: Scenario,
  n: number,
  horizon: Horizon,
  count: number,
  runIds: RunIdShape = "sdk",
  oracle = false,
): Promise<SimTrial[]> {
  const out: SimTrial[] = [];
  for (let i = 0; i < count; i++) {
    out.push(await simulate(scenario, n, horizon, i * 1_777, DEFAULT_WINDOW_CONCURRENCY, runIds, oracle));
  }
  return out;
}

/** `--no-ceiling` leaves the ceiling (the oracle drain, `bench/lib/ceiling.ts`) out. */
const CEILING = !process.argv.includes("--no-ceiling");

/** One row: the drain's trials and, unless `--no-ceiling`, the oracle's on the same entries. */
async function row(
  scenario: Scenario,
  n: number,
  h: Horizon,
  count: number,
  x: RunIdShape,
): Promise<string[]> {
  const ts = await trials(scenario, n, h, count, x);
  return rowOf(ts, CEILING ? await trials(scenario, n, h, count, x, true) : []);
}

/** The sequential drain (`concurrency: 1`) of N entries: ceil(N/50) round trips. */
async function sequential(n: number): Promise<string[]> {
  const t = await simulate("uniform", n, "payg", 0, 1);
  const ideal = Math.ceil(n / 50);
  const share = ideal / LIMIT / (t.ms / 1000);
  return [
    "sequential drain, `concurrency: 1`",
    "any",
    "any",
    n.toLocaleString("en-US"),
    (t.ms / 1000).toFixed(2),
    share.toFixed(3),
    "",
    "",
    String(t.requests),
    String(ideal),
    String(ideal),
    "",
    String(t.limited),
    t.exact ? "yes" : "**no**",
  ];
}

function list<T extends string>(name: string, fallback: string): T[] {
  return (arg(name) ?? fallback).split(",").filter(Boolean) as T[];
}

/** Every scenario at every size with every account setting, and the requests of the small drains. */
export async function run(): Promise<BenchResult> {
  const r = result("windowsSim", "9s. Windowed drain at the rate limit, simulated on a virtual clock");
  const sizes = list("sizes", "2500,5000,20000,100000").map(Number);
  const scenarios = list<Scenario>("scenarios", SCENARIOS.join(","));
  const horizons = list<Horizon>("horizons", "unknown,payg,free");
  const small = list("small", "237,500,501,1200").map(Number);
  const shapes = runIdShapesOf(arg("run-ids"));
  r.notes.push(
    "Each row: the median (lower quartile; min–max) of the trials (`--trials`, default 5), the entries seeded 0, 1.777, 3.554, … s before the drain starts (as the real bench seeds them before it drains), so a cluster falls differently against the split points; each trial's jitter has its own seed.",
    `Real runner, planner and rate gate; in-memory DLQ, ${LATENCY_MS} ms per request (+ 0 to ${Number(arg("jitter") ?? DEFAULT_JITTER) - 1} ms), ${LIMIT} requests per unix second enforced on arrival; virtual time.`,
  );
  const rows: string[][] = [];
  const count = Number(arg("trials") ?? 5);
  for (const n of sizes) {
    if (process.argv.includes("--sequential")) rows.push(await sequential(n));
    for (const s of scenarios)
      for (const h of horizons) for (const x of shapes) rows.push(await row(s, n, h, count, x));
  }
  for (const n of small)
    for (const h of horizons) for (const x of shapes) rows.push(await row("uniform", n, h, count, x));
  r.tables.push({
    title: `Simulated drains (share = bound / time; allowance = ceil(N/50) + ${ALLOWANCE} up to 500, 1.10 × ceil(N/50) + ${ALLOWANCE + 20} above, + 2 % of the daily limit at most):`,
    header: [
      "distribution",
      "account",
      "run IDs",
      "N",
      "time s",
      "share",
      "target",
      "ceiling",
      "requests",
      "ceil(N/50)",
      "allowance",
      "empty / partial",
      "429s",
      "every entry once",
    ],
    rows,
  });
  const sim = { trials: count, horizons, latencyMs: LATENCY_MS, limit: LIMIT };
  writeSimChart(arg("svg"), r.tables[0], { ...sim, jitter: Number(arg("jitter") ?? DEFAULT_JITTER) });
  return r;
}

benchMain(module, run);
