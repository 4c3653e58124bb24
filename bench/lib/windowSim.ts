/**
 * The simulated service of the windowed-drain tests and of the simulator bench (bench/windowsSim.ts): an in-memory DLQ whose entries carry failure times
 * (resumed entries leave it, a cursor is valid for its own window only, at most 50 runs a
 * request), a virtual clock (sleeps resolve in time order, instantly), and failure-time
 * distributions. Nothing here waits on real time.
 */
import { SvcError, type ResumePage } from "../../client";
import type { CallState } from "../../client/request";
import type { DrainWindow } from "../../drain/types";
import { mulberry32 } from "../../emulator/prng";

/** A whole-second unix-ms instant used as "now" by the fixtures. */
export const NOW = 1_750_000_000_000;
export const DAY = 86_400_000;

/** Deterministic PRNG (the emulator's mulberry32), returning [0, 1). */
export const prng = mulberry32;

/** Failure-time distributions the tests drain, `n` entries each, sorted, relative to `now`. */
export const DISTRIBUTIONS: Record<string, (n: number, seed?: number, now?: number) => number[]> = {
  /** Evenly over the 3 days before now. */
  uniform3d: (n, seed = 1, now = NOW) => sorted(n, seed, () => [now - 3 * DAY, 3 * DAY]),
  /** One 20-second burst 30 hours ago. */
  burst20s: (n, seed = 1, now = NOW) => sorted(n, seed, () => [now - 30 * 3_600_000, 20_000]),
  /** Three 20-second bursts, at 60 h, 37 h and 2 h ago. */
  bursts3: (n, seed = 1, now = NOW) => {
    const starts = [now - 60 * 3_600_000, now - 37 * 3_600_000, now - 2 * 3_600_000];
    let i = 0;
    return sorted(n, seed, () => [starts[i++ % 3], 20_000]);
  },
  /** Evenly over the last hour. */
  hour: (n, seed = 1, now = NOW) => sorted(n, seed, () => [now - 3_600_000, 3_600_000]),
  /** A one-second outage 2 hours ago. */
  outage2h: (n, seed = 1, now = NOW) => sorted(n, seed, () => [now - 2 * 3_600_000, 1_000]),
  /** Every entry in the same millisecond, 5 days ago. */
  singleMs: (n, _seed, now = NOW) => Array.from({ length: n }, () => now - 5 * DAY),
  /** Two single-millisecond clusters and a sprinkle over 3 days. */
  clusters: (n, seed = 1, now = NOW) => {
    let i = 0;
    return sorted(n, seed, () => {
      const k = i++ % 5;
      return k === 0 ? [now - DAY, 1] : k === 1 ? [now - 2 * DAY, 1] : [now - 3 * DAY, 3 * DAY];
    });
  },
};

function sorted(n: number, seed: number, range: () => [number, number]): number[] {
  const r = prng(seed);
  const out = Array.from({ length: n }, () => {
    const [start, span] = range();
    return start + Math.floor(r() * span);
  });
  return out.sort((a, b) => a - b);
}

/** A virtual clock: `sleep` resolves when {@link VirtualClock.run} advances time to it. */
export class VirtualClock {
  now: number;
  private timers: { at: number; seq: number; resolve: () => void }[] = [];
  private seq = 0;

  constructor(start = NOW) {
    this.now = start;
  }

  /** Sleeps `ms` of virtual time. */
  sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      this.timers.push({ at: this.now + Math.max(0, ms), seq: this.seq++, resolve });
    });

  /** Runs `work` to completion, advancing virtual time whenever nothing else can happen. */
  async run<T>(work: Promise<T>): Promise<T> {
    let finished = false;
    const watched = work.finally(() => {
      finished = true;
    });
    watched.catch(() => undefined);
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      if (finished) return watched;
      if (this.timers.length === 0) {
        await new Promise((resolve) => setImmediate(resolve));
        if (finished) return watched;
        throw new Error("virtual clock: nothing scheduled and the work did not finish");
      }
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers.shift()!;
      this.now = Math.max(this.now, next.at);
      next.resolve();
    }
  }
}

/** One request the fake DLQ answered. */
export interface FakeRequest {
  window: DrainWindow;
  cursor: string | undefined;
  runs: number;
  cursorOut: string | undefined;
}

/**
 * An in-memory DLQ of entries with failure times, answering like the service: entries matching
 * the window after the cursor position, at most 50, removed when resumed; a cursor when more
 * match. A cursor names its window; used with another window it is refused (400).
 */
export class FakeDlq {
  /** Failure times, sorted. */
  readonly times: number[];
  /** How often each entry was resumed. */
  readonly resumed: Uint8Array;
  readonly requests: FakeRequest[] = [];
  /** Windows with a request in progress (to check they never overlap). */
  private readonly active = new Set<DrainWindow>();
  overlaps = 0;
  private readonly next: Int32Array;
  /** Each entry's run ID: `wfr_` and random hex, as the emulator's, unless given. */
  readonly ids: string[];
  private runSeq = 0;
  /** Awaited before each request is handled (latency, interleaving). */
  delay: () => Promise<void> = async () => undefined;
  /** Called before a request is handled; may throw to inject a failure. */
  fault?: (index: number, state: CallState) => void;
  /** Resume the page but lose the answer (ambiguous), for these request indices. */
  loseAnswer?: (index: number) => boolean;

  constructor(times: number[], ids?: (i: number) => string) {
    this.times = [...times].sort((a, b) => a - b);
    this.resumed = new Uint8Array(this.times.length);
    const r = prng(this.times.length + 1);
    const hex = (): string =>
      Math.floor(r() * 2 ** 32)
        .toString(16)
        .padStart(8, "0");
    this.ids = this.times.map((_, i) => ids?.(i) ?? `wfr_${hex()}${hex()}`);
    this.next = new Int32Array(this.times.length + 1).map((_, i) => i);
  }

  /**
   * Marks entries `[from, to)` (indices in failure-time order) as already resumed, as a drain
   * cut off before would have left them (for saved-state fixtures).
   */
  markResumed(from: number, to: number): void {
    for (let i = from; i < to; i++) {
      this.resumed[i] = 1;
      this.next[i] = i + 1;
    }
  }

  /** Entries not resumed yet. */
  get remaining(): number {
    return this.resumed.reduce((n, r) => n + (r === 0 ? 1 : 0), 0);
  }

  /** Entries resumed more than once. */
  get duplicates(): number {
    return this.resumed.reduce((n, r) => n + (r > 1 ? 1 : 0), 0);
  }

  private alive(i: number): number {
    let j = i;
    while (this.next[j] !== j) j = this.next[j];
    let k = i;
    while (this.next[k] !== k) {
      const up = this.next[k];
      this.next[k] = j;
      k = up;
    }
    return j;
  }

  private lowerBound(t: number): number {
    let lo = 0;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.times[mid] < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The step function of a windowed drain. */
  step = async (window: DrainWindow, cursor: string | undefined, state: CallState): Promise<ResumePage> => {
    const index = this.requests.length;
    const record: FakeRequest = { window, cursor, runs: 0, cursorOut: undefined };
    this.requests.push(record);
    for (const w of this.active) {
      const lo = Math.max(w.from ?? -Infinity, window.from ?? -Infinity);
      const hi = Math.min(w.to ?? Infinity, window.to ?? Infinity);
      const a = w.runIdPrefix ?? "";
      const b = window.runIdPrefix ?? "";
      if (lo <= hi && (a.startsWith(b) || b.startsWith(a))) this.overlaps += 1;
    }
    this.active.add(window);
    try {
      await this.delay();
      state.attempts += 1;
      this.fault?.(index, state);
      const page = this.resumeNow(window, cursor);
      record.runs = page.workflowRuns.length;
      record.cursorOut = page.cursor;
      if (this.loseAnswer?.(index)) {
        // The lost attempt resumed a page; the retry resumes the next one.
        state.ambiguous = true;
        const retry = this.resumeNow(window, cursor);
        return { ...retry, ambiguous: true };
      }
      return page;
    } finally {
      this.active.delete(window);
    }
  };

  /** Handles one request at once (for a mocked HTTP endpoint). */
  resumeNow(window: DrainWindow, cursor: string | undefined): ResumePage {
    const key = `${window.from ?? "-"}:${window.to ?? "-"}:${window.runIdPrefix ?? "-"}`;
    const prefix = window.runIdPrefix;
    let start = this.lowerBound(window.from ?? -Infinity);
    if (cursor !== undefined) {
      const m = /^(.*)@(\d+)$/.exec(cursor);
      if (!m || m[1] !== key) {
        throw new SvcError("SVC_BAD_REQUEST", `cursor ${cursor} was issued for another window`, {
          status: 400,
        });
      }
      start = Math.max(start, Number(m[2]));
    }
    const to = window.to ?? Infinity;
    const workflowRuns = [];
    const within = (k: number): boolean => k < this.times.length && this.times[k] <= to;
    // The next entry not resumed from `k` on whose run ID starts with the window's prefix.
    const from = (k: number): number => {
      let j = this.alive(k);
      while (prefix !== undefined && within(j) && !this.ids[j].startsWith(prefix)) j = this.alive(j + 1);
      return j;
    };
    let i = from(start);
    let last = start;
    while (within(i) && workflowRuns.length < 50) {
      this.resumed[i] += 1;
      this.next[i] = i + 1;
      workflowRuns.push({ workflowRunId: `wfr_${this.runSeq++}`, workflowCreatedAt: NOW });
      last = i + 1;
      i = from(i + 1);
    }
    const more = within(i);
    return { cursor: more ? `${key}@${last}` : undefined, workflowRuns };
  }
}

/** Every request takes `latencyMs` of virtual time before the DLQ handles it. */
export function withLatency(dlq: FakeDlq, clock: VirtualClock, latencyMs: number): void {
  dlq.delay = () => clock.sleep(latencyMs);
}

/** Delays of a few microtask turns, drawn from a seeded PRNG, so completions interleave. */
export function jitterTicks(seed: number, max = 6): () => Promise<void> {
  const r = prng(seed);
  return async () => {
    const n = Math.floor(r() * max);
    for (let i = 0; i < n; i++) await Promise.resolve();
  };
}
