/**
 * What a bench hands back, and its rendering as markdown for docs/benchmarks.md.
 */
import { fmtRatio, fmtStat, type Stat } from "./stats";

/** One compared measurement: a subject against its baseline, as a ratio of medians. */
export interface Row {
  /** What is compared, e.g. "resume requests/s, 1,000,000 vs 1,000 entries". */
  measurement: string;
  subjectLabel: string;
  subject: Stat | string;
  baselineLabel?: string;
  baseline?: Stat | string;
  /** subject median / baseline median (or as the measurement says). */
  ratio?: number;
  /** How the ratio reads, e.g. "≤ 1.10" or "≈ 1". */
  target?: string;
  /** Whether the ratio meets the target (undefined when there is none). */
  ok?: boolean;
}

/** An extra table (counts, memory), rendered as is. */
export interface Table {
  title: string;
  header: string[];
  rows: string[][];
}

/** The result of one bench. */
export interface BenchResult {
  /** Short name used on the command line, e.g. "scale". */
  name: string;
  /** Heading, e.g. "1. Emulator scale". */
  title: string;
  rows: Row[];
  tables: Table[];
  notes: string[];
  /** Set when the bench did not run, with the reason. */
  skipped?: string;
  /** Wall time of the whole bench, ms. */
  durationMs?: number;
  /** Anything else worth keeping in the JSON result. */
  details?: Record<string, unknown>;
}

/** An empty result to fill in. */
export function result(name: string, title: string): BenchResult {
  return { name, title, rows: [], tables: [], notes: [] };
}

function cell(v: Stat | string | undefined): string {
  if (v === undefined) return "";
  return typeof v === "string" ? v : fmtStat(v);
}

function esc(s: string): string {
  return s.replace(/\|/g, "\\|");
}

function table(header: string[], rows: string[][]): string {
  const lines = [`| ${header.map(esc).join(" | ")} |`, `| ${header.map(() => "---").join(" | ")} |`];
  for (const r of rows) lines.push(`| ${r.map(esc).join(" | ")} |`);
  return lines.join("\n");
}

/** Markdown: one summary table of every ratio, then each bench's extra tables and notes. */
export function markdown(results: BenchResult[]): string {
  const out: string[] = [];
  const summary: string[][] = [];
  for (const r of results) {
    if (r.skipped) {
      summary.push([r.title, `skipped: ${r.skipped}`, "", "", "", ""]);
      continue;
    }
    for (const row of r.rows) {
      summary.push([
        `${r.title}: ${row.measurement}`,
        `${row.subjectLabel}: ${cell(row.subject)}`,
        row.baselineLabel ? `${row.baselineLabel}: ${cell(row.baseline)}` : cell(row.baseline),
        row.ratio === undefined ? "" : fmtRatio(row.ratio),
        row.target ?? "",
        row.ok === undefined ? "" : row.ok ? "yes" : "**no**",
      ]);
    }
  }
  out.push(
    table(["measurement", "measured (median, min–max, n)", "baseline", "ratio", "target", "met"], summary),
  );
  for (const r of results) {
    if (r.skipped || (r.tables.length === 0 && r.notes.length === 0)) continue;
    out.push(`\n### ${r.title}\n`);
    for (const t of r.tables) out.push(`${t.title}\n\n${table(t.header, t.rows)}\n`);
    for (const n of r.notes) out.push(`- ${n}`);
  }
  return out.join("\n");
}
