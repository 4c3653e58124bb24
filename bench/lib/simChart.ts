/**
 * The chart of the simulator bench (`bench/windowsSim.ts --svg file`): share of the bound against
 * N, one line per scenario, the sequential loop dashed, the targets as marks. Drawn from the
 * bench's own table (the figures docs/benchmarks.md reports), one panel when every run-ID shape
 * has the same median share on every row (said in the legend), else one panel per shape.
 */
import * as fs from "node:fs";
import type { Table } from "./result";
import { renderChart, type Chart, type Mark, type Series } from "./svgChart";

/** One row of the table, as the chart needs it. */
interface Point {
  scenario: string;
  shape: string;
  n: number;
  share: number;
  target: number;
}

/** Short names of the scenarios' titles (`TITLES` in bench/windowScenarios.ts), and colours. */
const SCENARIOS: { prefix: string; label: string; color: string }[] = [
  { prefix: "evenly", label: "even spread, 3 days", color: "#0072B2" },
  { prefix: "all within the last hour", label: "last hour", color: "#56B4E9" },
  { prefix: "a 30-minute", label: "30-minute window (from/to)", color: "#009E73" },
  { prefix: "a one-second", label: "one-second outage, 2 h ago", color: "#D55E00" },
  { prefix: "three 20-second", label: "three 20-s bursts", color: "#CC79A7" },
  { prefix: "three workflow URLs", label: "three URLs, three drains", color: "#E69F00" },
];

const SEQUENTIAL = "sequential";
const TARGET_COLOR = "#333";
/** The clustered scenarios, whose targets differ from the spread ones'. */
const CLUSTERED = ["a one-second", "three 20-second"];
const CLUSTERED_DASH = "3 2";

/** The rows of the bench's table as points (share: the median, the cell's first number). */
export function pointsOf(table: Table): Point[] {
  const col = (name: string) => table.header.indexOf(name);
  const [d, x, n, share, target] = ["distribution", "run IDs", "N", "share", "target"].map(col);
  return table.rows.map((r) => ({
    scenario: r[d].startsWith(SEQUENTIAL) ? SEQUENTIAL : r[d],
    shape: r[x],
    n: Number(r[n].replace(/,/g, "")),
    share: Number.parseFloat(r[share]),
    target: Number.parseFloat(r[target]) || 0,
  }));
}

/** Whether every shape has the same share as every other on each scenario and N. */
function shapesAgree(points: Point[]): boolean {
  const seen = new Map<string, number>();
  for (const p of points) {
    const key = `${p.scenario}|${p.n}`;
    if (seen.has(key) && seen.get(key) !== p.share) return false;
    seen.set(key, p.share);
  }
  return true;
}

/** One line per scenario (in the bench's order) of `points`, then the sequential loop, dashed. */
function seriesOf(points: Point[]): Series[] {
  const out: Series[] = [];
  for (const s of SCENARIOS) {
    const mine = points.filter((p) => p.scenario.startsWith(s.prefix));
    if (mine.length > 0)
      out.push({ label: s.label, color: s.color, points: mine.map((p) => ({ x: p.n, y: p.share })) });
  }
  const seq = points.filter((p) => p.scenario === SEQUENTIAL);
  if (seq.length > 0)
    out.push({
      label: "sequential loop (concurrency: 1)",
      color: "#000",
      dash: "7 5",
      points: seq.map((p) => ({ x: p.n, y: p.share })),
    });
  return out;
}

/** The distinct targets of `points`, one mark each, dotted for the clustered scenarios'. */
function marksOf(points: Point[]): Mark[] {
  const clustered = (p: Point) => CLUSTERED.some((c) => p.scenario.startsWith(c));
  const keys = new Set(points.filter((p) => p.target > 0).map((p) => `${p.n}|${p.target}|${clustered(p)}`));
  return [...keys].map((k) => {
    const [x, y, c] = k.split("|");
    return {
      x: Number(x),
      y: Number(y),
      color: TARGET_COLOR,
      ...(c === "true" ? { dash: CLUSTERED_DASH } : {}),
    };
  });
}

/** The chart of the bench's table; `conditions`: lines saying how it was measured. */
export function simChart(table: Table, conditions: string[]): Chart {
  const points = pointsOf(table);
  const shapes = [...new Set(points.map((p) => p.shape).filter((s) => s !== "any"))];
  const agree = shapesAgree(points.filter((p) => p.scenario !== SEQUENTIAL));
  const seq = points.filter((p) => p.scenario === SEQUENTIAL);
  const panels = (agree ? [shapes.join(", ")] : shapes).map((shape) => {
    const mine = points.filter((p) => shape.split(", ").includes(p.shape));
    const only = agree ? mine.filter((p) => p.shape === shapes[0]) : mine;
    return {
      title: `run IDs: ${shape}`,
      series: seriesOf([...only, ...seq]),
      marks: marksOf(only),
    };
  });
  const agreeNote =
    agree && shapes.length > 1
      ? [`Run IDs ${shapes.join(", ")}: the same median on`, "every point, so one line stands for all.", ""]
      : [];
  return {
    title: "Windowed drain, simulated: share of the rate bound ceil(N/50)/100 s against N",
    xLabel: "N, entries in the DLQ (log scale)",
    yLabel: "share of the bound (median)",
    xTicks: [...new Set(points.map((p) => p.n))].sort((a, b) => a - b),
    panels,
    extraLegend: [
      { label: "target, spread rows (issue 42)", color: TARGET_COLOR, mark: true },
      { label: "target, outage and bursts", color: TARGET_COLOR, dash: CLUSTERED_DASH, mark: true },
    ],
    notes: [...agreeNote, ...conditions],
  };
}

/** How the simulator ran: trials a row, account settings, latency (+ 0 to jitter − 1 ms), rate. */
export interface SimConditions {
  trials: number;
  horizons: string[];
  latencyMs: number;
  jitter: number;
  limit: number;
}

/** The lines under the legend saying how the figures were measured. */
export function conditionsOf(c: SimConditions): string[] {
  const rtt = c.jitter > 1 ? `${c.latencyMs}–${c.latencyMs + c.jitter - 1}` : String(c.latencyMs);
  return [
    "Simulator (bench/windowsSim.ts): real planner,",
    "runner and rate gate, in-memory DLQ, virtual clock;",
    `${c.limit} requests/s, ${rtt} ms round trip;`,
    `account: ${c.horizons.join(", ")}; median of ${c.trials} trials a point.`,
  ];
}

/** `--svg file`: writes the chart of the bench's table to `file` (nothing when undefined). */
export function writeSimChart(file: string | undefined, table: Table, c: SimConditions): void {
  if (file === undefined) return;
  fs.writeFileSync(file, renderChart(simChart(table, conditionsOf(c))));
}
