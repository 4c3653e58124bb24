/**
 * The simulator's rate rows (`bench/windowsSim.ts --rows rates`): drains at the rates and round
 * trips accounts have (100 and 500 requests a second; 50 to 300 ms), with no account settings and
 * SDK-shaped run IDs, each row with its target share of the bound ceil(N/50)/rate; three
 * 20-second bursts at 20,000 and 100,000 (no target); the sequential loop beside each size; and
 * `dlqIds` resumes of 10,000 and 100,000 IDs.
 */
import { resumeBatches } from "../../drain/batches";
import { median } from "./stats";
import { DEFAULT_NET, IdDlq, accountOn, netTitle, roundTrips, type Net } from "./simAccount";
import { VirtualClock } from "./windowSim";
import { targetOf, type Horizon, type Scenario } from "../windowScenarios";
import type { RunIdShape } from "../../emulator/run-ids";

/** The nets of the rate rows. */
export const RATE_NETS: readonly Net[] = [
  { rate: 100, rttMs: 150 },
  { rate: 100, rttMs: 300 },
  { rate: 500, rttMs: 50 },
  { rate: 500, rttMs: 150 },
];

/** A drain row of the simulator. */
export interface RowSpec {
  scenario: Scenario;
  n: number;
  horizon: Horizon;
  runIds: RunIdShape;
  net: Net;
  /** The row's target share; `netTarget`'s when unset. */
  target?: number;
}

/** A rate row: a drain, the sequential loop, or a `dlqIds` resume. */
export type RateRow =
  | ({ kind: "drain" } & RowSpec)
  | { kind: "sequential"; n: number; net: Net }
  | { kind: "ids"; n: number; net: Net; target: number };

/** Target shares by size of spread and last-hour failures, per net (`rate/rtt`). */
const TARGETS: Record<string, [number, number][]> = {
  "100/150": [
    [5_000, 0.65],
    [20_000, 0.85],
    [100_000, 0.9],
  ],
  "100/300": [
    [5_000, 0.5],
    [20_000, 0.75],
    [100_000, 0.9],
  ],
  "500/50": [
    [20_000, 0.65],
    [100_000, 0.9],
    [1_000_000, 0.95],
  ],
  "500/150": [
    [20_000, 0.5],
    [100_000, 0.8],
    [1_000_000, 0.9],
  ],
};

/** Sizes with a row of three 20-second bursts (no target), every net. */
const BURSTS_AT: readonly number[] = [20_000, 100_000];

/** The one-second outage at 100,000 entries, every net. */
const OUTAGE_TARGET = 0.75;

/** `dlqIds` resumes: net, IDs, target. */
const ID_TARGETS: [Net, number, number][] = [
  [{ rate: 100, rttMs: 50 }, 10_000, 0.85],
  [{ rate: 100, rttMs: 150 }, 10_000, 0.85],
  [{ rate: 500, rttMs: 50 }, 10_000, 0.65],
  [{ rate: 500, rttMs: 150 }, 10_000, 0.5],
  [{ rate: 500, rttMs: 150 }, 100_000, 0.85],
];

/** The target share of a drain of `n` entries of `scenario` at `net`; 0 where none is set. */
export function rateTarget(net: Net, scenario: Scenario, n: number): number {
  if (scenario === "outage") return n === 100_000 ? OUTAGE_TARGET : 0;
  if (scenario !== "uniform" && scenario !== "hour") return 0;
  return TARGETS[`${net.rate}/${net.rttMs}`]?.find(([at]) => at === n)?.[1] ?? 0;
}

/**
 * The target share of a drain row at `net`: section 9's at 100 a second and 50 ms, else the rate
 * rows' (section 10), whose targets hold for every account but the free plan's.
 */
export function netTarget(net: Net, scenario: Scenario, n: number, horizon: Horizon): number {
  if (net.rate === DEFAULT_NET.rate && net.rttMs === DEFAULT_NET.rttMs) return targetOf(scenario, n, horizon);
  return horizon === "free" ? 0 : rateTarget(net, scenario, n);
}

/** Every rate row, the sizes limited to `sizes` when given. */
export function rateRowSpecs(sizes?: readonly number[]): RateRow[] {
  const keep = (n: number): boolean => sizes === undefined || sizes.includes(n);
  const out: RateRow[] = [];
  for (const net of RATE_NETS) {
    for (const [n, target] of TARGETS[`${net.rate}/${net.rttMs}`].filter(([n]) => keep(n))) {
      out.push({ kind: "sequential", n, net });
      for (const scenario of ["uniform", "hour"] as const)
        out.push({ kind: "drain", scenario, n, horizon: "unknown", runIds: "sdk", net, target });
      if (n === 100_000)
        out.push({
          kind: "drain",
          scenario: "outage",
          n,
          horizon: "unknown",
          runIds: "sdk",
          net,
          target: OUTAGE_TARGET,
        });
      // Three clusters at once, no target: what a rule for spread failures must not slow down.
      if (BURSTS_AT.includes(n))
        out.push({ kind: "drain", scenario: "bursts", n, horizon: "unknown", runIds: "sdk", net, target: 0 });
    }
  }
  for (const [net, n, target] of ID_TARGETS) if (keep(n)) out.push({ kind: "ids", n, net, target });
  return out;
}

/** One simulated `dlqIds` resume of `n` IDs: virtual ms, requests, 429s, every ID once. */
async function simulateIds(n: number, net: Net, seed: number, o: IdsOptions) {
  const clock = new VirtualClock();
  const a = accountOn(clock, net, false);
  const dlq = new IdDlq(n);
  const started = clock.now;
  const p = await clock.run(
    resumeBatches(dlq.ids, dlq.stepOf(a, roundTrips(net, o.jitter, seed)), {
      keepRuns: false,
      gate: a.gate,
      now: () => clock.now,
      ...(o.concurrency !== undefined ? { concurrency: o.concurrency } : {}),
    }),
  );
  return { ms: clock.now - started, requests: p.requestCount, limited: a.limit.limited, exact: dlq.exact };
}

/** How the `dlqIds` rows run: the batches' cap (the default when unset) and the jitter, ms. */
export interface IdsOptions {
  concurrency?: number;
  jitter: number;
}

/** A row of `count` `dlqIds` resumes of `n` IDs, in the simulator table's columns. */
export async function idsRow(
  n: number,
  net: Net,
  count: number,
  target: number,
  o: IdsOptions,
): Promise<string[]> {
  const ts = [];
  for (let i = 0; i < count; i++) ts.push(await simulateIds(n, net, 7 + i, o));
  const ideal = Math.ceil(n / 50);
  const shares = ts.map((t) => ((ideal / net.rate) * 1000) / t.ms);
  const share = median(shares);
  return [
    "`dlqIds`",
    "none",
    netTitle(net),
    "-",
    n.toLocaleString("en-US"),
    (median(ts.map((t) => t.ms)) / 1000).toFixed(2),
    `${share.toFixed(3)} (${Math.min(...shares).toFixed(2)}–${Math.max(...shares).toFixed(2)})${share >= target ? "" : " below"}`,
    target.toFixed(2),
    "",
    String(Math.max(...ts.map((t) => t.requests))),
    String(ideal),
    String(ideal),
    "",
    String(Math.max(...ts.map((t) => t.limited))),
    ts.every((t) => t.exact) ? "yes" : "**no**",
  ];
}
