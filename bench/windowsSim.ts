/**
 * 9s. The windowed drain of bench 9 (`bench/windows.ts`) on a virtual clock: the real
 * `drainWindows` runner and planner and the real {@link RateGate}, against the tests' in-memory
 * DLQ (`FakeDlq`) with 50 ms of latency per request and 100 requests per one-second window
 * (unix seconds) enforced as the emulator enforces it (counted when a request arrives, with
 * `Burst-RateLimit-*` on every answer and 429 past the limit). The scenarios of bench 9
 * (`bench/windowScenarios.ts`) with each account setting: no account settings (90-day horizon,
 * the gate learns the rate from the headers), payg (7-day retention) and free (3-day retention,
 * daily limit 1,000). Nothing sleeps on real time: a planner change is measured in seconds.
 *
 * Options: `USAGE` in `bench/lib/simOptions.ts` (`--help` prints it; an unknown one is
 * refused). The `ceiling` column: the median share of an oracle drain that knows where every entry
 * is (`bench/lib/ceiling.ts`), same entries, gate and latency; a target is out of reach only where
 * it is below it.
 *
 * What HTTP and the event loop add to each request is modelled as 0 to `--jitter` − 1 ms,
 * uniform, seeded per trial (each trial's latencies differ, as two real runs' do); `--jitter 0`
 * is 50 ms flat. The default, {@link DEFAULT_JITTER}, is calibrated in docs/benchmarks.md (9).
 */
import { DEFAULT_WINDOW_CONCURRENCY, drainWindows } from "../drain/windowDrain";
import { requestAllowance } from "../drain/windows";
import { FakeDlq, VirtualClock } from "./lib/windowSim";
import { drainCeiling } from "./lib/ceiling";
import { median, quantile } from "./lib/stats";
import { arg, benchMain } from "./lib/main";
import {
  DEFAULT_NET,
  accountOn,
  netTitle,
  netsOf,
  roundTrips,
  roundsSummary,
  stepOf,
  type Net,
  type TracedAnswer,
} from "./lib/simAccount";
import { RATE_NETS, idsRow, netTarget, rateRowSpecs, type RowSpec } from "./lib/rateRows";
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
  type Horizon,
  type Scenario,
} from "./windowScenarios";
import type { RunIdShape } from "../emulator/run-ids";
import { DEFAULT_WINDOW_ALLOWANCE } from "../drain/planKnobs";
import { checkOptions, refuseOption } from "./lib/simOptions";
import { SIM_HEADER } from "./lib/simCompare";

/** `--allowance`: the windows a drain may open before it has resumed anything. */
const ALLOWANCE = Number(arg("allowance") ?? DEFAULT_WINDOW_ALLOWANCE);

/**
 * `--jitter` by default: 0 to 8 ms, 4 ms on average, near the 3.6 ms measured against the emulator
 * at 100 requests a second with 7 in flight (docs/benchmarks.md, section 9).
 */
export const DEFAULT_JITTER = 9;
const JITTER = Number(arg("jitter") ?? DEFAULT_JITTER);

const TRACE = process.argv.includes("--trace") || process.env.SIM_TRACE === "1";

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
  /** The account's rate and round trip. */
  net: Net;
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
  net: Net,
): FakeDlq[] {
  const list = entries(scenario, n, now, runIds);
  const roundTrip = roundTrips(net, JITTER, seed);
  return selectionsOf(scenario, now).map((sel) => {
    const mine = list.filter((e) => sel.workflowUrl === undefined || e.workflowUrl === sel.workflowUrl);
    const dlq = new FakeDlq(
      mine.map((e) => e.failedAt),
      (i) => mine[i].workflowRunId,
    );
    dlq.delay = () => clock.sleep(roundTrip());
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
  concurrency: number | undefined = DEFAULT_WINDOW_CONCURRENCY,
  runIds: RunIdShape = "sdk",
  oracle = false,
  net: Net = DEFAULT_NET,
): Promise<SimTrial> {
  const clock = new VirtualClock();
  const account = accountOf(horizon);
  const a = accountOn(clock, net, account.rateKnown);
  const seededAt = clock.now - seededBeforeMs;
  // Each trial's latencies differ, as two real runs' do.
  const dlqs = dlqsOf(scenario, n, seededAt, clock, 7 + seededBeforeMs, runIds, net);
  const selections = selectionsOf(scenario, seededAt);
  const started = clock.now;
  const traced: TracedAnswer[] | undefined = TRACE ? [] : undefined;
  const at = { drains: dlqs.length, rate: net.rate, roundTripMs: net.rttMs + (JITTER - 1) / 2 };
  const results = await clock.run(
    Promise.all(
      dlqs.map((dlq, i) =>
        oracle
          ? drainCeiling(dlq.times, at, stepOf(dlq, a, traced))
          : drainWindows(selections[i], stepOf(dlq, a, traced), a.gate, {
              ...(concurrency !== undefined ? { concurrency } : {}),
              keepRuns: false,
              ...(account.horizonMs !== undefined ? { horizonMs: account.horizonMs } : {}),
              ...(account.dailyLimit !== undefined ? { dailyLimit: account.dailyLimit } : {}),
              windowAllowance: ALLOWANCE,
              now: () => clock.now,
            }),
      ),
    ),
  );
  if (traced !== undefined)
    process.stderr.write(
      roundsSummary(traced, started, at.roundTripMs, oracle ? "the ceiling's oracle" : "the drain"),
    );
  const all = dlqs.flatMap((d) => d.requests);
  return {
    scenario,
    horizon,
    runIds,
    n,
    net,
    ms: clock.now - started,
    requests: results.reduce((s, r) => s + r.requestCount, 0),
    limited: a.limit.limited,
    splits: results.reduce((s, r) => s + r.splits, 0),
    exact: dlqs.every((d) => d.remaining === 0 && d.duplicates === 0 && d.overlaps === 0),
    empty: all.filter((r) => r.runs === 0).length,
    partial: all.filter((r) => r.runs > 0 && r.runs < 50).length,
  };
}

/** The allowance as the table's title says it. */
const ALLOWANCE_TEXT = `ceil(N/50) + ${ALLOWANCE} up to 500, 1.10 × ceil(N/50) + ${ALLOWANCE + 20} + min(⌈rate × round trip⌉, ceil(N/50)) above, + 2 % of the daily limit at most`;

/** The most requests the drains of a trial may send: the allowance of each drain's entries. */
function allowanceOf(t: SimTrial): number {
  const account = accountOf(t.horizon);
  // The longest round trip the drain can measure without waiting at the gate.
  const roundTripMs = t.net.rttMs + JITTER - 1;
  const budget = {
    allowance: ALLOWANCE,
    ratePerSecond: t.net.rate,
    roundTripMs,
    ...(account.dailyLimit !== undefined ? { dailyLimit: account.dailyLimit } : {}),
  };
  const parts = t.scenario === "urls" ? [0, 1, 2].map((i) => Math.floor((t.n + 2 - i) / 3)) : [t.n];
  return parts.reduce((s, n) => s + requestAllowance(n, budget), 0);
}

/** The share of the bound ceil(N/50)/rate a drain of `ms` reached. */
function shareOf(n: number, net: Net, ms: number): number {
  return ((Math.ceil(n / 50) / net.rate) * 1000) / ms;
}

/** `0.912 (q25 0.905; 0.90–0.93)`, and ` below` under the target. */
function shareCell(shares: number[], target: number): string {
  const share = median(shares);
  const range = `${Math.min(...shares).toFixed(2)}–${Math.max(...shares).toFixed(2)}`;
  return `${share.toFixed(3)} (q25 ${quantile(shares, 0.25).toFixed(3)}; ${range})${share >= target ? "" : " below"}`;
}

/**
 * One row over the trials of a scenario: median share of the bound with its lower quartile (a
 * median of three real drains falls below the median of many about as often as one drain does)
 * and its range, worst requests. `target`: the row's target, by default that of its rate and
 * round trip (`netTarget`).
 */
function rowOf(ts: SimTrial[], oracle: SimTrial[] = [], target?: number): string[] {
  const { n, scenario, horizon, runIds, net } = ts[0];
  const shares = ts.map((t) => shareOf(n, net, t.ms));
  const goal = target ?? netTarget(net, scenario, n, horizon);
  const requests = Math.max(...ts.map((t) => t.requests));
  const most = allowanceOf(ts[0]);
  return [
    TITLES[scenario],
    HORIZON_TITLES[horizon].replace(/ \(.*/, ""),
    netTitle(net),
    runIds,
    n.toLocaleString("en-US"),
    (median(ts.map((t) => t.ms)) / 1000).toFixed(2),
    shareCell(shares, goal),
    goal > 0 ? goal.toFixed(2) : "",
    oracle.length === 0 ? "" : median(oracle.map((t) => shareOf(n, net, t.ms))).toFixed(3),
    `${median(ts.map((t) => t.requests))} (≤ ${requests})`,
    String(Math.ceil(n / 50)),
    `${most}${requests <= most ? "" : " **exceeded**"}`,
    `${median(ts.map((t) => t.empty))} / ${median(ts.map((t) => t.partial))}`,
    String(Math.max(...ts.map((t) => t.limited))),
    ts.every((t) => t.exact) ? "yes" : "**no**",
  ];
}

/**
 * `--first-trial k`: the trials start at the k-th (from 0) of the default sequence, so
 * `--first-trial 6 --trials 1 --trace` traces exactly the seventh trial of a row.
 */
const FIRST_TRIAL = Number(arg("first-trial") ?? 0);

/** `trials` runs of one scenario, the entries seeded 1.777 s further before the drain each time. */
export async function trials(
  scenario: Scenario,
  n: number,
  horizon: Horizon,
  count: number,
  runIds: RunIdShape = "sdk",
  oracle = false,
  net: Net = DEFAULT_NET,
): Promise<SimTrial[]> {
  const out: SimTrial[] = [];
  for (let i = 0; i < count; i++) {
    out.push(
      await simulate(scenario, n, horizon, (FIRST_TRIAL + i) * 1_777, CONCURRENCY, runIds, oracle, net),
    );
  }
  return out;
}

/** `--no-ceiling` leaves the ceiling (the oracle drain, `bench/lib/ceiling.ts`) out. */
const CEILING = !process.argv.includes("--no-ceiling");

/** `--concurrency n` drains with that cap instead of the default. */
const CONCURRENCY =
  arg("concurrency") === undefined ? DEFAULT_WINDOW_CONCURRENCY : Number(arg("concurrency"));

/** One row: the drain's trials and, unless `--no-ceiling`, the oracle's on the same entries. */
async function row(spec: RowSpec, count: number): Promise<string[]> {
  const { scenario: s, n, horizon: h, runIds: x, net } = spec;
  const ts = await trials(s, n, h, count, x, false, net);
  return rowOf(ts, CEILING ? await trials(s, n, h, count, x, true, net) : [], spec.target);
}

/** The sequential drain (`concurrency: 1`) of N entries: ceil(N/50) round trips. */
async function sequential(n: number, net: Net = DEFAULT_NET): Promise<string[]> {
  const t = await simulate("uniform", n, "payg", 0, 1, "sdk", false, net);
  const ideal = Math.ceil(n / 50);
  return [
    "sequential drain, `concurrency: 1`",
    "any",
    netTitle(net),
    "any",
    n.toLocaleString("en-US"),
    (t.ms / 1000).toFixed(2),
    shareOf(n, net, t.ms).toFixed(3),
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

/** The names `--name` lists, every one of `allowed` by default; a name not in it is refused. */
function names<T extends string>(name: string, allowed: readonly T[]): T[] {
  const given = list<T>(name, allowed.join(","));
  const unknown = given.find((x) => !allowed.includes(x));
  if (unknown !== undefined) refuseOption(`--${name} takes ${allowed.join(",")}, not "${unknown}"`);
  return given;
}

/** The rows of section 9 (every scenario, size, account setting and net) and the small drains. */
async function sectionRows(count: number): Promise<string[][]> {
  const sizes = list("sizes", "2500,5000,20000,100000").map(Number);
  const scenarios = names<Scenario>("scenarios", SCENARIOS);
  const horizons = names("horizons", Object.keys(HORIZON_TITLES) as Horizon[]);
  const small = list("small", "237,500,501,1200").map(Number);
  const shapes = runIdShapesOf(arg("run-ids"));
  const nets = netsOf(arg("rate"), arg("rtt"));
  const rows: string[][] = [];
  for (const net of nets) {
    for (const n of sizes) {
      if (process.argv.includes("--sequential")) rows.push(await sequential(n, net));
      for (const scenario of scenarios)
        for (const horizon of horizons)
          for (const runIds of shapes) rows.push(await row({ scenario, n, horizon, runIds, net }, count));
    }
    for (const n of small)
      for (const horizon of horizons)
        for (const runIds of shapes)
          rows.push(await row({ scenario: "uniform", n, horizon, runIds, net }, count));
  }
  return rows;
}

/** The rate rows (`--rows rates`): each net's target rows, its sequential loop and its `dlqIds` rows. */
async function rateRows(count: number): Promise<string[][]> {
  const sizes = arg("sizes")?.split(",").map(Number);
  const cap = arg("concurrency");
  const idsOptions = { jitter: JITTER, ...(cap !== undefined ? { concurrency: Number(cap) } : {}) };
  const rows: string[][] = [];
  for (const spec of rateRowSpecs(sizes)) {
    if (spec.kind === "sequential") rows.push(await sequential(spec.n, spec.net));
    else if (spec.kind === "ids") rows.push(await idsRow(spec.n, spec.net, count, spec.target, idsOptions));
    else rows.push(await row(spec, count));
  }
  return rows;
}

/** Every scenario at every size with every account setting, and the requests of the small drains. */
export async function run(): Promise<BenchResult> {
  const r = result("windowsSim", "9s. Windowed drain at the rate limit, simulated on a virtual clock");
  const count = Number(arg("trials") ?? 5);
  const nets = arg("rows") === "rates" ? RATE_NETS : netsOf(arg("rate"), arg("rtt"));
  r.notes.push(
    "Each row: the median (lower quartile; min–max) of the trials (`--trials`, default 5), the entries seeded 0, 1.777, 3.554, … s before the drain starts (as the real bench seeds them before it drains), so a cluster falls differently against the split points; each trial's jitter has its own seed.",
    `Real runner, planner and rate gate; in-memory DLQ, ${nets.map(netTitle).join("; ")} per request (+ 0 to ${JITTER - 1} ms), the rate enforced per unix second on arrival; virtual time.`,
  );
  const rows = arg("rows") === "rates" ? await rateRows(count) : await sectionRows(count);
  r.tables.push({
    title: `Simulated drains (share = bound ceil(N/50)/rate / time; allowance: ${ALLOWANCE_TEXT}):`,
    header: [...SIM_HEADER],
    rows,
  });
  const sim = { trials: count, horizons: names("horizons", Object.keys(HORIZON_TITLES) as Horizon[]) };
  writeSimChart(arg("svg"), r.tables[0], {
    ...sim,
    latencyMs: nets[0].rttMs,
    limit: nets[0].rate,
    jitter: JITTER,
  });
  return r;
}

if (require.main === module) checkOptions(process.argv.slice(2));
benchMain(module, run);
