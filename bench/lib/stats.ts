/**
 * Statistics and formatting shared by the benches: every timing is repeated and reported as
 * median with its spread (min–max), every comparison as a ratio of two medians measured in the
 * same run.
 */

/** A repeated measurement. */
export interface Stat {
  /** What one sample is, e.g. "ms per drain" or "requests/s". */
  unit: string;
  samples: number[];
  median: number;
  min: number;
  max: number;
  /** (max - min) / median, as a fraction. */
  spread: number;
}

/** Summarises samples. */
export function stat(samples: number[], unit: string): Stat {
  if (samples.length === 0) throw new Error("no samples");
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  const min = sorted[0];
  const max = sorted[sorted.length - 1];
  return { unit, samples, median, min, max, spread: median === 0 ? 0 : (max - min) / median };
}

/** A number with about 3 significant digits and thousands separators. */
export function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** "12.3 ms (11.9–13.0, n=7)". */
export function fmtStat(s: Stat): string {
  return `${fmt(s.median)} ${s.unit} (${fmt(s.min)}–${fmt(s.max)}, n=${s.samples.length})`;
}

/** A ratio to two decimals, e.g. "1.04×". */
export function fmtRatio(r: number): string {
  return `${r.toFixed(2)}×`;
}

/** Bytes as "1.23 MB" (decimal units). */
export function fmtBytes(n: number): string {
  const sign = n < 0 ? "−" : "";
  const a = Math.abs(n);
  if (a >= 1e9) return `${sign}${(a / 1e9).toFixed(2)} GB`;
  if (a >= 1e6) return `${sign}${(a / 1e6).toFixed(1)} MB`;
  if (a >= 1e3) return `${sign}${(a / 1e3).toFixed(1)} kB`;
  return `${sign}${Math.round(a)} B`;
}

/** Milliseconds since an origin, high resolution. */
export function now(): number {
  return performance.now();
}

/**
 * Runs `variants` in alternating order for `warmup` + `trials` rounds (A B C, B C A, …, rotated
 * so no variant always runs first) and returns the timed samples of each; warm-up rounds are
 * discarded. `measure` returns one sample (e.g. milliseconds).
 */
export async function alternate<K extends string, T = number>(
  variants: readonly K[],
  rounds: { warmup: number; trials: number },
  measure: (variant: K, round: number) => Promise<T>,
): Promise<Record<K, T[]>> {
  const out = Object.fromEntries(variants.map((v) => [v, [] as T[]])) as Record<K, T[]>;
  const total = rounds.warmup + rounds.trials;
  for (let r = 0; r < total; r++) {
    for (let i = 0; i < variants.length; i++) {
      const v = variants[(i + r) % variants.length];
      const sample = await measure(v, r);
      if (r >= rounds.warmup) out[v].push(sample);
    }
  }
  return out;
}

/** CPU time (user + system) of this process in ms, all threads (GC and libuv included). */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** The `p` quantile (0 to 1) of `xs`, the lower of two neighbours. */
export function quantile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(p * (s.length - 1))];
}

/** The median of `xs`, the lower of two neighbours. */
export function median(xs: number[]): number {
  return quantile(xs, 0.5);
}
