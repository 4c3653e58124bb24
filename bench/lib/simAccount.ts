/**
 * The simulated account of the simulator bench (`bench/windowsSim.ts`): its per-second limit as the
 * emulator enforces it, its round trip, the rate gate shared by its drains, and the steps of a
 * windowed drain and of a `dlqIds` resume through them. Virtual time only (`VirtualClock`).
 */
import { RateGate } from "../../drain/rateGate";
import type { CallState } from "../../client/request";
import type { ResumePage } from "../../client";
import type { DrainWindow } from "../../drain/types";
import { mulberry32 } from "../../emulator/prng";
import { MAX_RUNS_PER_REQUEST } from "../../client/contract";
import type { FakeDlq, VirtualClock } from "./windowSim";

/** The account's per-second limit and the round trip of one request. */
export interface Net {
  /** Requests per unix second the service enforces (`max_requests_per_second`). */
  rate: number;
  /** Round trip of a request before jitter, ms. */
  rttMs: number;
}

/** Section 9's account: the free and payg plans' 100 requests a second, 50 ms. */
export const DEFAULT_NET: Net = { rate: 100, rttMs: 50 };

/** `100/s, 150 ms`: a net as the tables say it. */
export function netTitle(net: Net): string {
  return `${net.rate}/s, ${net.rttMs} ms`;
}

/** The nets of `--rate` × `--rtt` (comma-separated lists). */
export function netsOf(rates: string | undefined, rtts: string | undefined): Net[] {
  const list = (s: string | undefined, fallback: number): number[] =>
    s === undefined ? [fallback] : s.split(",").filter(Boolean).map(Number);
  const out: Net[] = [];
  for (const rate of list(rates, DEFAULT_NET.rate))
    for (const rttMs of list(rtts, DEFAULT_NET.rttMs)) {
      if (!(rate >= 1 && rttMs >= 0)) throw new Error(`--rate/--rtt: bad value ${rate}, ${rttMs}`);
      out.push({ rate, rttMs });
    }
  return out;
}

/** The per-second limit as the emulator enforces it: counted on arrival, per unix second. */
export class SecondLimit {
  private second = -1;
  private used = 0;
  limited = 0;

  constructor(private readonly limit: number) {}

  /** Counts a request arriving at `t`; its status and `Burst-RateLimit-*` headers. */
  arrive(t: number): { status: number; headers: Record<string, string> } {
    const second = Math.floor(t / 1000);
    if (second !== this.second) {
      this.second = second;
      this.used = 0;
    }
    this.used += 1;
    const headers: Record<string, string> = {
      "burst-ratelimit-limit": String(this.limit),
      "burst-ratelimit-remaining": String(Math.max(0, this.limit - this.used)),
      "burst-ratelimit-reset": String(second + 1),
    };
    if (this.used <= this.limit) return { status: 200, headers };
    this.limited += 1;
    return {
      status: 429,
      headers: { ...headers, "retry-after": String(Math.max(1, second + 1 - t / 1000)) },
    };
  }
}

/** The account of one simulated run: clock, gate, limit and round trip shared by its drains. */
export interface Account {
  clock: VirtualClock;
  gate: RateGate;
  limit: SecondLimit;
  net: Net;
}

/** An account on `clock`; its gate knows the rate beforehand when `rateKnown`. */
export function accountOn(clock: VirtualClock, net: Net, rateKnown: boolean): Account {
  const gate = new RateGate({
    ...(rateKnown ? { limit: net.rate } : {}),
    now: () => clock.now,
    sleep: clock.sleep,
  });
  return { clock, gate, limit: new SecondLimit(net.rate), net };
}

/** A round trip of the account: `rttMs` plus 0 to `jitter` − 1 ms, seeded. */
export function roundTrips(net: Net, jitter: number, seed: number): () => number {
  const r = mulberry32(seed);
  return () => net.rttMs + Math.floor(r() * jitter);
}

/**
 * `--trace`: one line per answer on stderr: time (s), runs (+: a cursor), cursor or start, width,
 * [from, to] in minutes from the answer (-: open), and the run-ID prefix of a fan-out's piece;
 * after each trial, {@link roundsSummary}.
 */
function trace(now: number, w: DrainWindow, cursor: string | undefined, page: ResumePage): void {
  const width = w.from !== undefined && w.to !== undefined ? `${w.to - w.from + 1}ms` : "open";
  const m = (t: number | undefined) => (t === undefined ? "-" : ((t - now) / 60000).toFixed(1));
  const id = w.runIdPrefix !== undefined ? ` ${w.runIdPrefix}` : "";
  const line = `${(now % 1e6) / 1000} ${page.workflowRuns.length}${page.cursor ? "+" : ""} ${cursor ? "cursor" : "start"} ${width} [${m(w.from)}, ${m(w.to)}]${id}`;
  process.stderr.write(`${line}\n`);
}

/** An answer of a traced drain: when it came (unix ms) and how many runs it resumed. */
export interface TracedAnswer {
  at: number;
  runs: number;
}

/**
 * `--trace`'s summary of a trial: its answers in spans of one mean round trip (`rttMs`) from `started`,
 * how many came back, full, empty and partial: where a drain's time goes (a span with fewer
 * answers than the gate passes in a round trip is one the drain left it idle), `whose` named.
 */
export function roundsSummary(
  answers: readonly TracedAnswer[],
  started: number,
  rttMs: number,
  whose: string,
): string {
  const rounds: number[][] = [];
  for (const { at, runs } of answers) {
    const r = (rounds[Math.floor((at - started) / rttMs)] ??= [0, 0, 0]);
    r[runs >= MAX_RUNS_PER_REQUEST ? 0 : runs === 0 ? 1 : 2] += 1;
  }
  const lines = [...rounds.entries()].map(([i, r = [0, 0, 0]]) => {
    const span = `${((i * rttMs) / 1000).toFixed(2)}–${(((i + 1) * rttMs) / 1000).toFixed(2)} s`;
    return `answers at ${span}: ${r[0] + r[1] + r[2]} (${r[0]} full, ${r[1]} empty, ${r[2]} partial)`;
  });
  return `answers of ${whose} by round trip:\n${lines.join("\n")}\n`;
}

/** Passes the gate and the limit; a 429 costs a round trip and is retried. */
async function admitted(a: Account): Promise<Record<string, string>> {
  for (;;) {
    await a.gate.acquire();
    const { status, headers } = a.limit.arrive(a.clock.now);
    if (status !== 429) return headers;
    await a.clock.sleep(a.net.rttMs);
    a.gate.observe(429, headers);
  }
}

/** The step of one windowed drain: through the gate, counted by the limit, the DLQ's delay, the answer. */
export function stepOf(dlq: FakeDlq, a: Account, traced?: TracedAnswer[]) {
  return async (window: DrainWindow, cursor: string | undefined, state: CallState): Promise<ResumePage> => {
    const headers = await admitted(a);
    const page = await dlq.step(window, cursor, state);
    a.gate.observe(200, headers);
    if (traced !== undefined) {
      trace(a.clock.now, window, cursor, page);
      traced.push({ at: a.clock.now, runs: page.workflowRuns.length });
    }
    return page;
  };
}

/** A DLQ of IDs for a `dlqIds` resume: how often each was resumed. */
export class IdDlq {
  readonly ids: string[];
  private readonly resumed = new Map<string, number>();
  requests = 0;

  constructor(n: number) {
    this.ids = Array.from({ length: n }, (_, i) => `dlq_${i.toString(36).padStart(8, "0")}`);
  }

  /** Every ID resumed exactly once. */
  get exact(): boolean {
    return this.resumed.size === this.ids.length && [...this.resumed.values()].every((c) => c === 1);
  }

  /** The step of `resumeByIds`: through the gate and the limit, a round trip, every ID resumed. */
  stepOf(a: Account, roundTrip: () => number) {
    return async (dlqIds: string[], _cursor: string | undefined, state: CallState): Promise<ResumePage> => {
      const headers = await admitted(a);
      await a.clock.sleep(roundTrip());
      state.attempts += 1;
      this.requests += 1;
      for (const id of dlqIds) this.resumed.set(id, (this.resumed.get(id) ?? 0) + 1);
      a.gate.observe(200, headers);
      return {
        cursor: undefined,
        workflowRuns: dlqIds.map((id) => ({ workflowRunId: `wfr_${id}`, workflowCreatedAt: a.clock.now })),
      };
    };
  }
}
