/**
 * The account's rate limit on the resume API, as the service enforces it: at most
 * `max_requests_per_second` requests (from the account record, so a plan change applies at once)
 * per fixed one-second window aligned to unix seconds, counted per account.
 *
 * Every counted request gets `Burst-RateLimit-Limit`, `Burst-RateLimit-Remaining` (after this
 * request) and `Burst-RateLimit-Reset` (the unix second when the window resets); a request over
 * the limit is refused with 429 and `Retry-After` (seconds). Only authenticated requests count
 * (an unauthenticated one names no account). Every counted request counts, the refused ones too.
 *
 * Another client of the account can be simulated ({@link AccountRateLimiter.setOtherClientLoad}):
 * it uses `load` requests of every window, spread evenly over the second, so at a request
 * arriving `f` of the way into a window `floor(load · f)` of them are counted already.
 *
 * This is service behaviour, separate from the `rateLimit` fault of `faults.ts` (which injects
 * 429s on a schedule for tests). The clock is passed in, so tests need no timing.
 */

import { show } from "./http";

/** What the limiter decided for one request. */
export interface RateDecision {
  /** Whether the request may go on; false means 429. */
  readonly allowed: boolean;
  /** The limit applied (requests per second). */
  readonly limit: number;
  /** Requests left in the window after this one (never negative). */
  readonly remaining: number;
  /** Unix second at which the window resets. */
  readonly reset: number;
  /** Seconds to wait before retrying (only when refused), at least 1. */
  readonly retryAfterSeconds?: number;
  /** Response headers: the three `Burst-RateLimit-*` headers, plus `Retry-After` when refused. */
  readonly headers: Readonly<Record<string, string>>;
}

/** Counters served by `GET /admin/rate-limit`. */
export interface RateLimitStats {
  /** Requests counted against an account. */
  readonly counted: number;
  /** Requests refused with 429. */
  readonly limited: number;
}

/** One account's current window. */
interface Window {
  /** Unix second of the window. */
  second: number;
  /** Requests counted in it. */
  count: number;
}

/** Fixed one-second windows per account. */
export class AccountRateLimiter {
  private on: boolean;
  private readonly windows = new Map<string, Window>();
  private counted = 0;
  private limited = 0;
  private otherLoad = 0;

  /**
   * @param enabled - whether the limit is enforced (default true).
   * @param otherClientLoad - requests of every window another client uses (default 0).
   */
  constructor(enabled = true, otherClientLoad = 0) {
    this.on = enabled;
    this.setOtherClientLoad(otherClientLoad);
  }

  /** Requests of every one-second window the simulated other client uses. */
  get otherClientLoad(): number {
    return this.otherLoad;
  }

  /**
   * Simulates another client of every account that uses `load` requests of every window.
   *
   * @param load - a non-negative integer; 0 for none.
   * @throws Error naming the value when it is not a non-negative integer.
   */
  setOtherClientLoad(load: unknown): number {
    if (typeof load !== "number" || !Number.isSafeInteger(load) || load < 0) {
      throw new Error(
        `otherClientLoad must be a non-negative integer (requests per second), got ${show(load)}`,
      );
    }
    this.otherLoad = load;
    return load;
  }

  /** Whether the limit is enforced. */
  get enabled(): boolean {
    return this.on;
  }

  /**
   * Turn the limit on or off. Turning it off forgets the windows.
   *
   * @param enabled - true to enforce.
   * @throws Error naming the value when it is not a boolean.
   */
  setEnabled(enabled: unknown): boolean {
    if (typeof enabled !== "boolean") {
      throw new Error(`enabled must be a boolean, got ${show(enabled)}`);
    }
    this.on = enabled;
    if (!enabled) this.windows.clear();
    return this.on;
  }

  /**
   * Count one request against an account.
   *
   * @param account - the account's identity (its `id`).
   * @param limit - the account's `max_requests_per_second`; a value that is not a non-negative
   *   integer (a field deleted through the admin API) means no limit is known: nothing is counted.
   * @param nowMs - when the request arrived, unix ms. A request that reaches the limiter after its
   *   window has passed (held up by injected latency) counts in the current window.
   * @returns the decision, or `undefined` when the limit is off or unknown (no headers then).
   */
  take(account: string, limit: unknown, nowMs: number): RateDecision | undefined {
    if (!this.on) return undefined;
    if (typeof limit !== "number" || !Number.isSafeInteger(limit) || limit < 0) return undefined;
    const second = Math.floor(nowMs / 1000);
    let window = this.windows.get(account);
    if (window === undefined || second > window.second) {
      window = { second, count: 0 };
      this.windows.set(account, window);
    }
    window.count++;
    this.counted++;
    const reset = window.second + 1;
    const others = Math.floor((this.otherLoad * Math.max(0, nowMs - second * 1000)) / 1000);
    const used = window.count + others;
    const allowed = used <= limit;
    const headers: Record<string, string> = {
      "burst-ratelimit-limit": String(limit),
      "burst-ratelimit-remaining": String(Math.max(0, limit - used)),
      "burst-ratelimit-reset": String(reset),
    };
    if (allowed) return { allowed, limit, remaining: limit - used, reset, headers };
    this.limited++;
    const retryAfterSeconds = Math.max(1, Math.ceil((reset * 1000 - nowMs) / 1000));
    headers["retry-after"] = String(retryAfterSeconds);
    return { allowed, limit, remaining: 0, reset, retryAfterSeconds, headers };
  }

  /** Counters since the start or the last {@link AccountRateLimiter.clear}. */
  stats(): RateLimitStats {
    return { counted: this.counted, limited: this.limited };
  }

  /** Forget the windows and the counters (the on/off setting stays). */
  clear(): void {
    this.windows.clear();
    this.counted = 0;
    this.limited = 0;
  }
}

/**
 * The `{"error": …}` message of a 429 from the account's rate limit.
 *
 * @param decision - the refusing decision.
 */
export function rateLimitMessage(decision: RateDecision): string {
  return (
    `rate limit exceeded: this account allows ${decision.limit} requests per second ` +
    `(max_requests_per_second); the window resets at unix second ${decision.reset}`
  );
}
