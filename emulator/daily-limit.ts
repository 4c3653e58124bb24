/**
 * The account's daily limit on the resume API: at most `limit` requests per account and UTC day.
 * Off unless enabled: whether the real service counts bulk-resume requests against its daily
 * limit is not documented (see README).
 *
 * When on, every resume answer carries `RateLimit-Limit`, `RateLimit-Remaining` (after this
 * request) and `RateLimit-Reset` (the unix second of the next UTC midnight); a request past the
 * limit is refused with 429, `RateLimit-Remaining: 0` and `Retry-After` (seconds to midnight),
 * and is not counted (nor is it counted against the per-second limit). {@link DailyLimiter.newDay}
 * starts a new day at once (tests cannot wait for midnight); the reset header still names the
 * next midnight.
 */
import { show } from "./http";

/** Milliseconds in a day. */
const DAY_MS = 86_400_000;

/** What the daily limit decided for one request. */
export interface DailyDecision {
  /** Whether the request may go on; false means 429. */
  readonly allowed: boolean;
  /** The limit, requests per UTC day. */
  readonly limit: number;
  /** Requests left today after this one. */
  readonly remaining: number;
  /** Unix second of the next UTC midnight. */
  readonly reset: number;
  /** The `RateLimit-*` headers, plus `Retry-After` when refused. */
  readonly headers: Readonly<Record<string, string>>;
}

/** Counters and settings served by `GET /admin/daily-limit`. */
export interface DailyLimitView {
  /** Requests per UTC day, or null when the limit is off. */
  readonly limit: number | null;
  /** Requests counted against the limit since the start or the last reset. */
  readonly counted: number;
  /** Requests refused with 429 because the day was spent. */
  readonly refused: number;
  /** New days started through the admin API or the programmatic API. */
  readonly newDays: number;
}

/** Validates a daily limit: a positive integer, or null/undefined for off. */
export function checkDailyLimit(value: unknown, name = "dailyLimit"): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new Error(
      `${name} must be a positive integer (requests per UTC day) or null for off, got ${show(value)}`,
    );
  }
  return value;
}

/** Requests per account and UTC day. */
export class DailyLimiter {
  private max: number | undefined;
  /** Per account: the day (UTC days since the epoch, plus the new days started) and its count. */
  private readonly days = new Map<string, { day: number; count: number }>();
  private started = 0;
  private counted = 0;
  private refused = 0;

  /** @param limit - requests per UTC day; `undefined` for off. */
  constructor(limit?: number) {
    this.max = checkDailyLimit(limit);
  }

  /** The limit, or `undefined` when off. */
  get limit(): number | undefined {
    return this.max;
  }

  /**
   * Sets the limit (`null`/`undefined` turns it off). The day's count stays.
   *
   * @throws Error naming the value when it is not a positive integer or null.
   */
  setLimit(limit: unknown): number | undefined {
    this.max = checkDailyLimit(limit, "limit");
    return this.max;
  }

  /** Starts a new day for every account now: the counts start over. */
  newDay(): void {
    this.started += 1;
  }

  /**
   * Counts one request against an account's day.
   *
   * @param account - the account's identity.
   * @param nowMs - when the request arrived, unix ms.
   * @returns the decision, or `undefined` when the limit is off.
   */
  take(account: string, nowMs: number): DailyDecision | undefined {
    const limit = this.max;
    if (limit === undefined) return undefined;
    const day = Math.floor(nowMs / DAY_MS) + this.started;
    let today = this.days.get(account);
    if (today === undefined || today.day !== day) {
      today = { day, count: 0 };
      this.days.set(account, today);
    }
    const reset = (Math.floor(nowMs / DAY_MS) + 1) * (DAY_MS / 1000);
    const allowed = today.count < limit;
    if (allowed) {
      today.count += 1;
      this.counted += 1;
    } else {
      this.refused += 1;
    }
    const remaining = limit - today.count;
    const headers: Record<string, string> = {
      "ratelimit-limit": String(limit),
      "ratelimit-remaining": String(remaining),
      "ratelimit-reset": String(reset),
    };
    if (!allowed) headers["retry-after"] = String(Math.max(1, Math.ceil(reset - nowMs / 1000)));
    return { allowed, limit, remaining, reset, headers };
  }

  /** Settings and counters. */
  view(): DailyLimitView {
    return { limit: this.max ?? null, counted: this.counted, refused: this.refused, newDays: this.started };
  }

  /** Forgets the days and the counters (the limit stays). */
  clear(): void {
    this.days.clear();
    this.counted = 0;
    this.refused = 0;
  }
}

/**
 * The `{"error": …}` message of a 429 from the daily limit.
 *
 * @param decision - the refusing decision.
 */
export function dailyLimitMessage(decision: DailyDecision): string {
  return (
    `daily limit exceeded: this account allows ${decision.limit} requests per day; ` +
    `the day resets at unix second ${decision.reset} (UTC midnight)`
  );
}
