// size: RateGate is one pacing state machine (rate source, slow start, 429 pauses) whose fields every method touches; the parts that stand alone are already burstShare.ts and dailyBudget.ts
/**
 * One rate gate per account: every resume request of every drain in the process passes the
 * gate of its account (base URL and token), so all the DlqRecovery resources of one `pulumi up`
 * together stay within the account's per-second limit.
 *
 * The gate releases waiting requests one at a time, in arrival order, at most `rate` per second
 * (evenly spaced; in a burst only at the start, below). Where the rate comes from:
 * 1. an explicit limit (the account record's `max_requests_per_second`, when the caller knows it);
 * 2. else the `Burst-RateLimit-Limit` header, learnt from the first response that carries it;
 * 3. else a cautious start at {@link CAUTIOUS_START_RATE} per second after the first
 *    {@link START_BURST} requests, released at once, doubled after every second the gate was in
 *    use without a 429, halved on a 429 (slow start, as TCP does).
 * When both 1 and 2 are known the lower one counts. A per-drain cap (`maxRequestsPerSecond`)
 * is a separate gate in front of this one (see {@link capped}).
 *
 * On a 429 every user of the gate pauses until the window resets (`Burst-RateLimit-Reset`,
 * else `Retry-After`, else one second), then continues; a 2xx that says the window is spent
 * (`Burst-RateLimit-Remaining: 0` with a reset ahead) pauses the same way.
 *
 * The account is shared: the gate paces by what the service says is left in the current window
 * (`Burst-RateLimit-Remaining`), and when others (other clients, other processes draining the
 * same account) use part of every window, at the share they leave (see `burstShare.ts`).
 *
 * The daily limit: a 429 that `RateLimit-Remaining: 0` explains, or whose reset lies beyond the
 * cap on all waits, marks the account's day as spent; every request waiting at the gate and
 * every later one is refused with `SVC_DAILY_LIMIT` at once, without being sent, until the
 * reset. {@link RateGate.dailyRequests} tells what the last answer said is left of the day.
 *
 * @packageDocumentation
 */
import * as crypto from "node:crypto";
import { BurstShare } from "./burstShare";
import { DailyBudget } from "./dailyBudget";
import { SvcError, dailyLimitError, type SpentDailyLimit } from "../client/errors";
import { spacingGate, type RequestGate } from "../client/requestSpacing";
import {
  DEFAULT_RETRY_POLICY,
  parseDailyLimitHeaders,
  parseRateLimitHeaders,
  spentUntil,
  type ResponseHeaders,
} from "../client/retry";
import type { GateStatus } from "./types";

/** Requests per second before anything is known about the limit. */
export const CAUTIOUS_START_RATE = 10;
/**
 * Requests released at once before the first answer when no limit is known: a drain's first
 * round trip (a ladder's four rungs, four `dlqIds` batches) goes out together, not 100 ms apart;
 * every plan allows at least 100 a second.
 */
export const START_BURST = 4;
/** Above this learnt-by-probing rate the gate stops limiting. */
export const MAX_PROBED_RATE = 10_000;
/** The longest a waiting gate sleeps before it looks at its rate again, ms. */
const MAX_SLEEP_MS = 25;
/** Pause after a 429 that names no reset or retry time, ms. */
const DEFAULT_PAUSE_MS = 1_000;

/** Options of a {@link RateGate}. */
export interface RateGateOptions {
  /** Known limit, requests per second (the account's `max_requests_per_second`). */
  limit?: number;
  /** Rate to start at when no limit is known. Default {@link CAUTIOUS_START_RATE}. */
  startRate?: number;
  /** Clock, unix ms. Default `Date.now`. */
  now?: () => number;
  /** Waits the given milliseconds. Default: a `setTimeout` promise. */
  sleep?: (ms: number) => Promise<void>;
}

/** Counters of a gate, for progress and benchmarks. */
export interface RateGateStats {
  /** Requests released. */
  released: number;
  /** Responses observed. */
  responses: number;
  /** 429 responses observed. */
  limited: number;
  /** Pauses until a window reset (after a 429 or a spent window). */
  pauses: number;
  /** Attempts that ended without an answer (told as status 0). */
  unanswered: number;
  /** Requests refused at the gate, unsent, because the account's day is spent. */
  refusedUnsent: number;
  /** The explicit limit, if any. */
  explicitLimit?: number;
  /** The limit learnt from `Burst-RateLimit-Limit`, if any. */
  learntLimit?: number;
}

function checkRate(value: unknown, name: string): void {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new SvcError("SVC_INVALID_ARGUMENT", `\`${name}\` must be a positive number; got ${String(value)}`);
  }
}

/** What the last answer said is left of the account's daily limit. */
export interface DailyRequests {
  /** `RateLimit-Limit`, if sent. */
  limit?: number;
  /** `RateLimit-Remaining`. */
  remaining: number;
  /** `RateLimit-Reset` as unix ms, if sent. */
  resetAt?: number;
}

/** A request waiting at the gate. */
interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Paces the requests of one account. See the module comment. */
export class RateGate implements GateStatus {
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly queue: Waiter[] = [];
  private readonly share = new BurstShare();
  private readonly day = new DailyBudget();
  /** Woken by the next answer (the pump waits for it while the day has no room). */
  private answerWaiters: (() => void)[] = [];
  private spent: (SpentDailyLimit & { why: string }) | undefined;
  private daily: DailyRequests | undefined;
  private pumping = false;
  private lastSlot = -Infinity;
  /** When each request in flight was released, oldest first (answers come back about in order). */
  private readonly sentAt: number[] = [];
  private pausedUntil = -Infinity;
  private explicit: number | undefined;
  private learnt: number | undefined;
  private probe: number;
  private probeSince: number;
  private limitedSinceProbe = false;
  private readonly counters = {
    released: 0,
    responses: 0,
    limited: 0,
    pauses: 0,
    unanswered: 0,
    refusedUnsent: 0,
  };

  /** @param options - limit, start rate, clock */
  constructor(options: RateGateOptions = {}) {
    if (options.limit !== undefined) checkRate(options.limit, "limit");
    if (options.startRate !== undefined) checkRate(options.startRate, "startRate");
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.explicit = options.limit;
    this.probe = options.startRate ?? CAUTIOUS_START_RATE;
    this.probeSince = this.now();
  }

  /** Awaited before every request attempt: resolves when the request may be sent. */
  readonly acquire: RequestGate = () =>
    new Promise<void>((resolve, reject) => {
      this.queue.push({ resolve, reject });
      void this.pump();
    });

  /** What the last answer said is left of the account's daily limit, if it said. */
  get dailyRequests(): DailyRequests | undefined {
    return this.daily;
  }

  /** Requests waiting now. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Requests per second let through now; `undefined` when the gate does not limit. */
  get ratePerSecond(): number | undefined {
    const known = this.knownLimit();
    const share = this.share.ratePerSecond;
    if (known !== undefined) return share === undefined ? known : Math.min(known, share);
    return this.probe > MAX_PROBED_RATE ? undefined : this.probe;
  }

  /** Sets (or clears) the explicit limit, e.g. from the account record. */
  setLimit(limit: number | undefined): void {
    if (limit !== undefined) checkRate(limit, "limit");
    this.explicit = limit;
  }

  /**
   * Forgets a spent day before its reset: for a caller that knows the day's count started over
   * (an emulator told to start a new day, in a test or a soak). Otherwise the gate forgets it at
   * the reset the service named.
   */
  clearSpentDay(): void {
    this.spent = undefined;
    this.day.forget();
  }

  /** Counters since the gate was made. */
  stats(): RateGateStats {
    return {
      ...this.counters,
      ...(this.explicit !== undefined ? { explicitLimit: this.explicit } : {}),
      ...(this.learnt !== undefined ? { learntLimit: this.learnt } : {}),
    };
  }

  /**
   * Learns from a response: the limit, what is left of the window and of the day from the
   * `Burst-RateLimit-*` and `RateLimit-*` headers; a 429 pauses every user until the window
   * resets, or, when the day is spent, refuses every waiting and later request. Status 0: the
   * attempt ended without an answer (counted, so the gate knows what is in flight).
   */
  observe(status: number, headers: ResponseHeaders): void {
    const t = this.now();
    const wake = this.answerWaiters.splice(0);
    // After the answer is learnt from (below), in a microtask.
    if (wake.length > 0) queueMicrotask(() => wake.forEach((w) => w()));
    const sent = this.sentAt.shift() ?? t;
    if (status === 0) {
      this.counters.unanswered += 1;
      return;
    }
    this.counters.responses += 1;
    const burst = parseRateLimitHeaders(headers, t);
    if (burst.limit !== undefined) this.learnt = burst.limit;
    const { released, responses, unanswered } = this.counters;
    const inFlight = released - responses - unanswered;
    const daily = parseDailyLimitHeaders(headers, t);
    if (daily.remaining !== undefined) {
      this.daily = { ...daily, remaining: daily.remaining };
      this.day.observe(daily.remaining, daily.resetAt, inFlight);
    }
    const limit = burst.limit ?? this.knownLimit();
    // An answer that comes after its window reset still says how much of that window was used.
    if (limit !== undefined && burst.remaining !== undefined && burst.windowEndsAt !== undefined) {
      this.share.observe(limit, burst.remaining, burst.windowEndsAt, inFlight, {
        sent,
        answered: t,
        refused: status === 429,
      });
    }
    if (status === 429) {
      this.counters.limited += 1;
      this.limitedSinceProbe = true;
      const spent = spentUntil(headers, t, DEFAULT_RETRY_POLICY.maxTotalDelayMs);
      if (spent !== undefined) {
        this.spent = {
          ...spent,
          why: "a request of this account was refused with 429; this one was not sent",
        };
        // After this turn of the event loop: the refused request's own error (which names it)
        // reaches its caller first, and is the one a drain reports.
        setImmediate(() => this.refuseWaiting());
        return;
      }
      if (this.knownLimit() === undefined) this.probe = Math.max(1, this.probe / 2);
      this.pauseUntil(t + (burst.resetInMs ?? burst.retryAfterMs ?? DEFAULT_PAUSE_MS));
    } else if (burst.remaining === 0 && burst.resetInMs !== undefined && burst.resetInMs > 0) {
      this.pauseUntil(t + burst.resetInMs);
    }
  }

  /** The refusal of a request while the day is spent, or `undefined` when it is not. */
  private spentError(): SvcError | undefined {
    const t = this.now();
    if (this.spent === undefined) return undefined;
    if (t >= this.spent.resetAt) {
      this.spent = undefined;
      return undefined;
    }
    return dailyLimitError(this.spent, t, this.spent.why);
  }

  /** Refuses every waiting request while the day is spent. */
  private refuseWaiting(): void {
    const error = this.spentError();
    if (error === undefined) return;
    for (const waiter of this.queue.splice(0)) {
      this.counters.refusedUnsent += 1;
      waiter.reject(error);
    }
  }

  /**
   * Whether the day has room for one more request at `t`: "open", "wait" (the answers in flight
   * will tell), or "spent" (an answer said none is left: the day is marked spent, so the waiting
   * requests are refused at the next turn of the pump, unsent).
   */
  private dayLeft(t: number): "open" | "wait" | "spent" {
    const { released, responses, unanswered } = this.counters;
    const state = this.day.state(t, released - responses - unanswered);
    if (state === "spent" && this.spent === undefined) {
      const limit = this.daily?.limit;
      this.spent = {
        ...(limit !== undefined ? { limit } : {}),
        resetAt: this.day.reset ?? t,
        why: "the service's last answer said none of the day's requests is left; this request was not sent",
      };
    }
    return state;
  }

  private knownLimit(): number | undefined {
    if (this.explicit === undefined) return this.learnt;
    if (this.learnt === undefined) return this.explicit;
    return Math.min(this.explicit, this.learnt);
  }

  private pauseUntil(at: number): void {
    if (at <= this.pausedUntil || at <= this.now()) return;
    this.pausedUntil = at;
    this.counters.pauses += 1;
  }

  private interval(t: number): number {
    if (this.knownLimit() === undefined && this.probe <= MAX_PROBED_RATE && t - this.probeSince >= 1_000) {
      // A second at the probing rate with requests waiting and no 429: try twice as fast.
      if (!this.limitedSinceProbe) this.probe *= 2;
      this.limitedSinceProbe = false;
      this.probeSince = t;
    }
    const rate = this.ratePerSecond;
    if (rate === undefined || this.startBurst()) return 0;
    return 1_000 / rate;
  }

  /** Whether the gate is in its start burst: no limit known, no answer, under {@link START_BURST} sent. */
  private startBurst(): boolean {
    const { released, responses, unanswered } = this.counters;
    return this.knownLimit() === undefined && responses + unanswered === 0 && released < START_BURST;
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queue.length > 0) {
        this.refuseWaiting();
        if (this.queue.length === 0) break;
        const t = this.now();
        if (this.dayLeft(t) !== "open") {
          // The answers in flight say whether the day has room; the next one wakes the pump.
          if (this.spent === undefined)
            await new Promise<void>((resolve) => this.answerWaiters.push(resolve));
          continue;
        }
        const interval = this.interval(t);
        // The window's room only ever delays a release (to its reset): when it has room it leaves
        // the schedule alone, so a timer that fired late is caught up below (with `t` here,
        // every late wake-up slipped the schedule: about 95 of 100 requests a second).
        const full = this.share.releasableAt(t);
        const at = Math.max(this.lastSlot + interval, this.pausedUntil, full > t ? full : -Infinity);
        if (at > t) {
          await this.sleep(Math.min(Math.ceil(at - t), MAX_SLEEP_MS));
          continue;
        }
        // Keep to the schedule when a timer fired late by up to one interval (so a busy event
        // loop does not lower the rate); after an idle spell start anew (no burst to catch up).
        this.lastSlot = at >= t - interval ? at : t;
        this.counters.released += 1;
        this.sentAt.push(t);
        // One release time a request in flight: an attempt that was never reported leaves no trace.
        const { released, responses, unanswered } = this.counters;
        if (this.sentAt.length > released - responses - unanswered) this.sentAt.shift();
        this.share.released(t);
        this.day.released(t);
        (this.queue.shift() as Waiter).resolve();
      }
    } finally {
      this.pumping = false;
    }
  }
}

/**
 * A gate that passes `cap` (a per-drain `maxRequestsPerSecond`) first, then the account's
 * shared gate.
 */
export function capped(
  gate: RequestGate,
  cap: number | undefined,
  now: () => number = Date.now,
  sleep?: (ms: number) => Promise<void>,
): RequestGate {
  if (cap === undefined) return gate;
  const spacing = spacingGate(cap, now, sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))));
  return async () => {
    await spacing();
    await gate();
  };
}

/**
 * The key of an account's gate: the base URL (origin and path) and a short SHA-256 of the
 * token. The token itself never appears in a key.
 */
export function accountKey(baseUrl: string, token: string): string {
  let where = baseUrl;
  try {
    const u = new URL(baseUrl);
    where = `${u.origin}${u.pathname.replace(/\/+$/, "")}`;
  } catch {
    // not a URL: the client refuses it before sending; the key only has to be stable
  }
  const tokenHash = crypto.createHash("sha256").update(token, "utf8").digest("hex").slice(0, 16);
  return `${where}#${tokenHash}`;
}

/** The gates of a process, one per account. */
export class RateGateRegistry {
  private readonly gates = new Map<string, RateGate>();

  /** @param defaults - options of every gate made (clock, start rate) */
  constructor(private readonly defaults: Omit<RateGateOptions, "limit"> = {}) {}

  /**
   * The gate of the account of `baseUrl` and `token`, made on first use. A `limit` given sets
   * the gate's explicit limit (the account record is the same for every caller).
   */
  forAccount(baseUrl: string, token: string, limit?: number): RateGate {
    const key = accountKey(baseUrl, token);
    let gate = this.gates.get(key);
    if (gate === undefined) {
      gate = new RateGate({ ...this.defaults, ...(limit !== undefined ? { limit } : {}) });
      this.gates.set(key, gate);
    } else if (limit !== undefined) {
      gate.setLimit(limit);
    }
    return gate;
  }

  /** Number of accounts with a gate. */
  get size(): number {
    return this.gates.size;
  }
}

/** The process-wide registry: every drain of the process shares the gate of its account. */
export const accountRateGates = new RateGateRegistry();
