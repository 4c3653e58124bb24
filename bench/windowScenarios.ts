/**
 * The failure-time scenarios of bench 9 (`bench/windows.ts`) and its simulator
 * (`bench/windowsSim.ts`): the failure-time distributions users run. Each scenario is a list of
 * partial DLQ entries (failure time, workflow URL) relative to the time the drain starts, the
 * selection each drain gets (no `fromDate` unless the scenario gives an outage window), and the
 * account settings a drain runs with (the horizon where windows split, the daily limit).
 *
 * Deterministic: the same scenario, size and `now` give the same entries (the emulator's
 * mulberry32 PRNG), so the simulator and the real bench drain the same data.
 */
import type { DlqSelection } from "../client";
import { mixSeed, mulberry32 } from "../emulator/prng";
import {
  DEFAULT_RUN_ID_SHAPE,
  RUN_ID_SHAPES,
  RunIdMaker,
  isRunIdShape,
  type RunIdShape,
} from "../emulator/run-ids";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The workflow URLs of the `urls` scenario. */
export const URLS = ["orders", "payments", "emails"].map((w) => `http://127.0.0.1/workflows/${w}`);

/** The bench's failure-time distributions. */
export type Scenario = "uniform" | "hour" | "outage" | "bursts" | "window" | "urls";

/** Every scenario, in the order the tables list them. */
export const SCENARIOS: readonly Scenario[] = ["uniform", "hour", "window", "outage", "bursts", "urls"];

/** What each scenario is, as the tables say it. */
export const TITLES: Record<Scenario, string> = {
  uniform: "evenly over the last 3 days",
  hour: "all within the last hour",
  window: "a 30-minute outage given by fromDate/toDate",
  outage: "a one-second outage 2 hours ago",
  bursts: "three 20-second bursts over the last day",
  urls: "three workflow URLs (3 days), three drains at once",
};

/** The account settings a drain runs with. */
export type Horizon = "unknown" | "payg" | "free";

/** What each account setting is, as the tables say it. */
export const HORIZON_TITLES: Record<Horizon, string> = {
  unknown: "no account settings (90-day horizon)",
  payg: "payg (7-day retention)",
  free: "free (3-day retention = the failures' span, daily limit 1,000)",
};

/** The drain options of an account setting: horizon, daily limit, whether the rate is known. */
export function accountOf(h: Horizon): { horizonMs?: number; dailyLimit?: number; rateKnown: boolean } {
  if (h === "unknown") return { rateKnown: false };
  if (h === "payg") return { horizonMs: 7 * DAY, rateKnown: true };
  return { horizonMs: 3 * DAY, dailyLimit: 1_000, rateKnown: true };
}

/**
 * Shares of the rate bound ceil(N/50)/100 s each scenario must reach (docs/benchmarks.md, section 9),
 * by N; 0 where none is set. Free-plan rows are reported, not targeted.
 */
export function targetOf(s: Scenario, n: number, h: Horizon): number {
  if (h === "free") return 0;
  const spread = [
    [2_500, 0.6],
    [5_000, 0.75],
    [20_000, 0.85],
    [100_000, 0.9],
  ];
  const clustered = [
    [5_000, 0.5],
    [20_000, 0.7],
    [100_000, 0.85],
  ];
  const table = s === "outage" || s === "bursts" ? clustered : s === "urls" ? [[20_000, 0.85]] : spread;
  return table.find(([at]) => at === n)?.[1] ?? 0;
}

/** The 30-minute outage window of the `window` scenario, ending 4.5 hours before `now`. */
export function outageWindow(now: number): { fromDate: number; toDate: number } {
  const fromDate = now - 5 * HOUR;
  return { fromDate, toDate: fromDate + 30 * 60_000 - 1 };
}

/** The selections of a scenario's drains: one per workflow URL for `urls`, else one. */
export function selectionsOf(s: Scenario, now: number): DlqSelection[] {
  if (s === "urls") return URLS.map((workflowUrl) => ({ workflowUrl }));
  return [s === "window" ? outageWindow(now) : {}];
}

/** Where one failure of the scenario lies: the start and length of its range, ms. */
function rangeOf(s: Scenario, i: number, now: number): [number, number] {
  if (s === "hour") return [now - HOUR, HOUR - 1];
  if (s === "outage") return [now - 2 * HOUR, 1_000];
  if (s === "bursts") return [now - [22, 13, 4][i % 3] * HOUR - 17 * 60_000, 20_000];
  if (s === "window") {
    const w = outageWindow(now);
    return [w.fromDate, w.toDate - w.fromDate + 1];
  }
  return [now - 3 * DAY, 3 * DAY - 1];
}

/** A partial DLQ entry of a scenario. */
export interface ScenarioEntry {
  failedAt: number;
  workflowUrl: string;
  workflowRunId: string;
}

/**
 * Partial entries (failure time, workflow URL, run ID of shape `runIds`, `emulator/run-ids.ts`),
 * in failure-time order (the DLQ's insertion order). The failure times do not depend on the
 * shape; an `app` ID's sequence number rises with the failure time (runs that fail together were
 * triggered together).
 */
export function entries(
  s: Scenario,
  n: number,
  now: number,
  runIds: RunIdShape = DEFAULT_RUN_ID_SHAPE,
): ScenarioEntry[] {
  const r = mulberry32(n + s.length);
  const out = Array.from({ length: n }, (_, i) => {
    const [start, span] = rangeOf(s, i, now);
    return { failedAt: start + Math.floor(r() * span), workflowUrl: s === "urls" ? URLS[i % 3] : URLS[0] };
  });
  out.sort((a, b) => a.failedAt - b.failedAt);
  const ids = new RunIdMaker(runIds, mulberry32(mixSeed(n, s.length))).name(out.map((e) => e.failedAt));
  return out.map((e, i) => ({ ...e, workflowRunId: ids[i] }));
}

/**
 * The run-ID shapes of a `--run-ids` list (comma-separated; `all` for every one but `numeric`).
 *
 * @throws Error naming a shape that is not one
 */
export function runIdShapesOf(list: string | undefined): RunIdShape[] {
  if (list === undefined) return [DEFAULT_RUN_ID_SHAPE];
  if (list === "all") return RUN_ID_SHAPES.filter((x) => x !== "numeric");
  return list.split(",").map((x) => {
    if (!isRunIdShape(x))
      throw new Error(`--run-ids: ${JSON.stringify(x)} is not one of ${RUN_ID_SHAPES.join(", ")}`);
    return x;
  });
}
