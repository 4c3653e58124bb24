/**
 * Two runs of the simulator (`bench/windowsSim.ts --out file.json`) compared row by row, with the
 * checks of docs/design/drain.md ("Evaluating a change with the simulator") as a verdict:
 *
 * - every row of the second run within its allowance, with no 429 and each entry once;
 * - no row of section 9's rate and round trip (100/s, 50 ms) lower by over {@link SECTION9_DROP},
 *   no other row by over {@link ROW_DROP};
 * - no row that met its target below it now;
 * - the same rows in both runs (runs of other options are not compared);
 * - no row slower than {@link SEQUENTIAL_SLACK} × the sequential loop of its rate, round trip and
 *   N, where the run has that row (`--sequential`, or `--rows rates`).
 *
 * Rows are paired by what they measure (distribution, account, rate and round trip, run IDs, N);
 * a refactor must give identical tables ({@link Comparison.identical}).
 */
import type { Table } from "./result";

/** Largest drop of a section 9 row's median share a change may cause (noise at 9 trials). */
export const SECTION9_DROP = 0.02;
/** Largest drop of any other row's median share: beyond the noise of 9 trials at any rate. */
export const ROW_DROP = 0.05;
/** How much slower than the sequential loop a row may be (issue contract: 1.05 ×). */
export const SEQUENTIAL_SLACK = 1.05;
/** Section 9's rate and round trip, as the table writes them. */
const SECTION9_NET = "100/s, 50 ms";
/** A share moved by less than this is not listed (the total counts it). */
const MOVED = 0.005;

/** One row of a simulator table, read from its cells. */
export interface SimRow {
  /** distribution · account · rate, round trip · run IDs · N */
  key: string;
  net: string;
  n: string;
  sequential: boolean;
  /** A `dlqIds` resume, not a windowed drain. */
  ids: boolean;
  seconds: number;
  share: number;
  target?: number;
  /** Most requests of a trial, and the allowance. */
  requests: number;
  allowance: number;
  limited: number;
  exact: boolean;
  cells: readonly string[];
}

/** A row of both runs. */
export interface Pair {
  key: string;
  before: SimRow;
  after: SimRow;
  delta: number;
}

/** What {@link compareSims} found. */
export interface Comparison {
  pairs: Pair[];
  /** Keys in one run only. */
  unpaired: string[];
  /** Every cell of every row equal. */
  identical: boolean;
  /** Σ max(0, target − share) over the rows with a target, before and after. */
  shortfall: { before: number; after: number };
  below: { before: number; after: number };
  failures: string[];
}

/** The simulator table's columns, as `bench/windowsSim.ts` writes them. */
export const SIM_HEADER: readonly string[] = [
  "distribution",
  "account",
  "rate, round trip",
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
];
/** What a row is paired by: distribution, account, rate and round trip, run IDs, N. */
const KEY = SIM_HEADER.slice(0, 5);

/** The rows of a simulator table; throws naming the column a table lacks. */
export function simRows(table: Table): SimRow[] {
  const at = (name: string): number => {
    const i = table.header.indexOf(name);
    if (i < 0) throw new Error(`not a simulator table: no column "${name}" in "${table.title}"`);
    return i;
  };
  for (const c of SIM_HEADER) at(c);
  const num = (s: string): number => Number.parseFloat(s.replace(/,/g, ""));
  return table.rows.map((cells) => {
    const cell = (name: string): string => cells[at(name)] ?? "";
    const requests = /≤ (\d+)/.exec(cell("requests"))?.[1] ?? cell("requests");
    return {
      key: KEY.map(cell).join(" · "),
      net: cell("rate, round trip"),
      n: cell("N"),
      sequential: cell("distribution").startsWith("sequential"),
      ids: cell("distribution").startsWith("`dlqIds`"),
      seconds: num(cell("time s")),
      share: num(cell("share")),
      ...(cell("target") !== "" ? { target: num(cell("target")) } : {}),
      requests: num(requests),
      allowance: num(cell("allowance")),
      limited: num(cell("429s")),
      exact: cell("every entry once") === "yes",
      cells,
    };
  });
}

/** What a row of the second run breaks on its own: its allowance, a 429, an entry not once. */
function ownFailures(a: SimRow): string[] {
  const out: string[] = [];
  if (a.requests > a.allowance)
    out.push(`${a.key}: ${a.requests} requests, over its allowance of ${a.allowance}`);
  if (a.limited > 0) out.push(`${a.key}: ${a.limited} requests refused with 429`);
  if (!a.exact) out.push(`${a.key}: not every entry resumed exactly once`);
  return out;
}

/** The failures of a row of both runs, beside its own. */
function rowFailures(p: Pair, sequential: SimRow | undefined): string[] {
  const { after: a, before: b, key } = p;
  const out: string[] = [];
  const section9 = a.net === SECTION9_NET && !a.ids;
  const most = section9 ? SECTION9_DROP : ROW_DROP;
  if (p.delta < -most) {
    const row = section9 ? "a section 9 row" : "a row";
    out.push(`${key}: ${b.share.toFixed(3)} → ${a.share.toFixed(3)}, ${row} down by over ${most}`);
  }
  if (a.target !== undefined && b.share >= a.target && a.share < a.target) {
    out.push(`${key}: ${a.share.toFixed(3)}, now below its target ${a.target.toFixed(2)}`);
  }
  if (sequential !== undefined && !a.sequential && a.seconds > SEQUENTIAL_SLACK * sequential.seconds) {
    out.push(
      `${key}: ${a.seconds} s, slower than ${SEQUENTIAL_SLACK} × the sequential loop's ${sequential.seconds} s`,
    );
  }
  return out;
}

/** What the target says a row lacks. */
function short(r: SimRow): number {
  return r.target === undefined ? 0 : Math.max(0, r.target - r.share);
}

/** `after` against `before`, row by row. */
export function compareSims(before: Table, after: Table): Comparison {
  const a = simRows(after);
  const b = new Map(simRows(before).map((r) => [r.key, r]));
  const sequential = new Map(a.filter((r) => r.sequential).map((r) => [`${r.net} ${r.n}`, r]));
  const pairs: Pair[] = [];
  const unpaired = [...b.keys()].filter((k) => !a.some((r) => r.key === k));
  for (const r of a) {
    const old = b.get(r.key);
    if (old === undefined) unpaired.push(r.key);
    else pairs.push({ key: r.key, before: old, after: r, delta: r.share - old.share });
  }
  const sum = (f: (r: SimRow) => number, side: "before" | "after") =>
    pairs.reduce((s, p) => s + f(p[side]), 0);
  const isBelow = (r: SimRow) => (short(r) > 0 ? 1 : 0);
  return {
    pairs,
    unpaired,
    identical:
      unpaired.length === 0 && pairs.every((p) => p.before.cells.join("|") === p.after.cells.join("|")),
    shortfall: { before: sum(short, "before"), after: sum(short, "after") },
    below: { before: sum(isBelow, "before"), after: sum(isBelow, "after") },
    failures: [
      ...a.flatMap(ownFailures),
      ...pairs.flatMap((p) => rowFailures(p, sequential.get(`${p.after.net} ${p.after.n}`))),
      ...unpaired.map((k) => `${k}: in one run only (compare runs of the same options)`),
    ],
  };
}

/** The comparison as text: totals, the rows that moved, the failures, the verdict. */
export function formatComparison(c: Comparison): string {
  const total = c.pairs.reduce((s, p) => s + p.delta, 0);
  const moved = c.pairs.filter((p) => Math.abs(p.delta) >= MOVED).sort((x, y) => x.delta - y.delta);
  const lines = [
    `rows: ${c.pairs.length} in both runs, ${moved.length} moved by ${MOVED} or more, ${c.unpaired.length} in one run only`,
    c.identical
      ? "identical: every cell of every row"
      : `share: ${total >= 0 ? "+" : ""}${total.toFixed(3)} in all; short of the targets ${c.shortfall.before.toFixed(3)} → ${c.shortfall.after.toFixed(3)} (rows below ${c.below.before} → ${c.below.after})`,
    ...moved.map((p) => {
      const target = p.after.target === undefined ? "" : `  target ${p.after.target.toFixed(2)}`;
      const sign = p.delta >= 0 ? "+" : "";
      return `  ${p.before.share.toFixed(3)} → ${p.after.share.toFixed(3)} ${sign}${p.delta.toFixed(3)}  ${p.key}${target}`;
    }),
    ...c.failures.map((f) => `failure: ${f}`),
    c.failures.length === 0 ? "verdict: no check failed" : `verdict: ${c.failures.length} failed`,
  ];
  return `${lines.join("\n")}\n`;
}
