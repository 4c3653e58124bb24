/**
 * Retry arithmetic: the default policy, exponential backoff with full jitter, and parsing of
 * the server's wait hints (`Retry-After`, `Burst-RateLimit-Reset`). Every wait is capped.
 *
 * @packageDocumentation
 */
import { SvcError } from "./errors";
import type { RetryPolicy } from "./types";

/** Defaults: 5 retries, 200 ms base, each wait ≤ 10 s, all waits of one request ≤ 60 s. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 5,
  baseDelayMs: 200,
  maxDelayMs: 10_000,
  maxTotalDelayMs: 60_000,
});

/**
 * Merges a partial policy over {@link DEFAULT_RETRY_POLICY} and validates it.
 *
 * @throws SvcError `SVC_INVALID_ARGUMENT` when a value is negative, not finite, or
 * `maxRetries` is not an integer
 */
export function resolveRetryPolicy(partial: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY };
  for (const key of Object.keys(DEFAULT_RETRY_POLICY) as (keyof RetryPolicy)[]) {
    const value = partial[key];
    if (value === undefined) continue;
    const ok =
      typeof value === "number" &&
      Number.isFinite(value) &&
      value >= 0 &&
      (key !== "maxRetries" || Number.isInteger(value));
    if (!ok) {
      throw new SvcError(
        "SVC_INVALID_ARGUMENT",
        `retry.${key} must be a non-negative ${key === "maxRetries" ? "integer" : "finite number"}`,
      );
    }
    policy[key] = value;
  }
  return policy;
}

/**
 * Full-jitter backoff: a uniformly random wait in `[0, min(maxDelayMs, baseDelayMs · 2^(n-1)))`
 * after the n-th failed attempt.
 *
 * @param failedAttempt - 1-based number of the attempt that failed
 */
export function backoffDelay(failedAttempt: number, policy: RetryPolicy, random: () => number): number {
  const exponent = Math.min(Math.max(failedAttempt - 1, 0), 30);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** exponent);
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.floor(r * ceiling);
}

/**
 * Parses `Retry-After`: delay-seconds or an HTTP date. Returns the wait in milliseconds
 * (never negative) or `undefined` when the value is absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (v === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.ceil(Number(v) * 1000);
  // An HTTP date always names a weekday or month; refuse bare numbers Date.parse would accept.
  if (!/[a-z]/i.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/**
 * Parses `Burst-RateLimit-Reset` (also `RateLimit-Reset`): the unix time, in seconds, when the
 * limit resets. Returns the wait in milliseconds or `undefined`.
 */
export function parseRateLimitReset(value: string | undefined, nowMs: number): number | undefined {
  const atMs = parseResetAt(value);
  return atMs === undefined ? undefined : Math.max(0, Math.ceil(atMs - nowMs));
}

/** `Burst-RateLimit-Reset` (or `RateLimit-Reset`) as unix ms, past or not; else `undefined`. */
function parseResetAt(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (!/^\d+(\.\d+)?$/.test(v)) return undefined;
  const n = Number(v);
  // Tolerate a server that sends milliseconds: no unix-seconds value is this large for centuries.
  return n > 1e11 ? n : n * 1000;
}

/** Response headers as the transport hands them over (lower-case names). */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** The first value of a response header (lower-case name). */
function firstHeader(headers: ResponseHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** What the rate-limit headers of one response say; each field only when readable. */
export interface RateLimitHeaders {
  /** `Burst-RateLimit-Limit`: requests allowed per one-second window, a positive integer. */
  limit?: number;
  /** `Burst-RateLimit-Remaining`: requests left in the current window, a non-negative integer. */
  remaining?: number;
  /** `Burst-RateLimit-Reset` (unix seconds) as the wait from `nowMs` until the window resets, ms. */
  resetInMs?: number;
  /**
   * `Burst-RateLimit-Reset` as unix ms: which window counted the request (an answer that comes
   * after its window reset names a time already past).
   */
  windowEndsAt?: number;
  /** `Retry-After` (seconds or an HTTP date) as a wait from `nowMs`, ms. */
  retryAfterMs?: number;
}

/** A non-negative integer header of at most 9 digits, at least `min`; else `undefined`. */
function intHeader(headers: ResponseHeaders, name: string, min: number): number | undefined {
  const v = firstHeader(headers, name)?.trim();
  if (v === undefined || !/^\d{1,9}$/.test(v)) return undefined;
  const n = Number(v);
  return n >= min ? n : undefined;
}

/** Copies the fields that are defined. */
function definedOnly<T extends object>(found: T): T {
  const out = {} as T;
  for (const k of Object.keys(found) as (keyof T)[]) {
    if (found[k] !== undefined) out[k] = found[k];
  }
  return out;
}

/**
 * Parses the rate-limit headers of a response: `Burst-RateLimit-Limit`, `-Remaining`,
 * `-Reset` and `Retry-After`. Unreadable values are left out.
 */
export function parseRateLimitHeaders(headers: ResponseHeaders, nowMs: number): RateLimitHeaders {
  return definedOnly<RateLimitHeaders>({
    limit: intHeader(headers, "burst-ratelimit-limit", 1),
    remaining: intHeader(headers, "burst-ratelimit-remaining", 0),
    resetInMs: parseRateLimitReset(firstHeader(headers, "burst-ratelimit-reset"), nowMs),
    windowEndsAt: parseResetAt(firstHeader(headers, "burst-ratelimit-reset")),
    retryAfterMs: parseRetryAfter(firstHeader(headers, "retry-after"), nowMs),
  });
}

/** What the daily-limit headers of one response say; each field only when readable. */
export interface DailyLimitHeaders {
  /** `RateLimit-Limit`: requests allowed per day, a positive integer. */
  limit?: number;
  /** `RateLimit-Remaining`: requests left today, a non-negative integer. */
  remaining?: number;
  /** `RateLimit-Reset` (unix seconds) as unix ms: when the day's count starts over. */
  resetAt?: number;
}

/** Parses the daily-limit headers `RateLimit-Limit`, `-Remaining` and `-Reset`. */
export function parseDailyLimitHeaders(headers: ResponseHeaders, nowMs: number): DailyLimitHeaders {
  const resetIn = parseRateLimitReset(firstHeader(headers, "ratelimit-reset"), nowMs);
  return definedOnly<DailyLimitHeaders>({
    limit: intHeader(headers, "ratelimit-limit", 1),
    remaining: intHeader(headers, "ratelimit-remaining", 0),
    resetAt: resetIn === undefined ? undefined : nowMs + resetIn,
  });
}

/**
 * Whether a 429 cannot succeed soon, and until when: the daily limit explains it
 * (`RateLimit-Remaining: 0` with `RateLimit-Reset`), or the server's wait hint lies beyond
 * `maxWaitMs` (the cap on all waits of one request). `undefined` for an ordinary 429.
 */
export function spentUntil(
  headers: ResponseHeaders,
  nowMs: number,
  maxWaitMs: number,
): { limit?: number; resetAt: number } | undefined {
  const daily = parseDailyLimitHeaders(headers, nowMs);
  if (daily.remaining === 0 && daily.resetAt !== undefined && daily.resetAt > nowMs) {
    return { ...(daily.limit !== undefined ? { limit: daily.limit } : {}), resetAt: daily.resetAt };
  }
  const hint = serverWaitHint(headers, nowMs);
  if (hint !== undefined && hint > maxWaitMs) return { resetAt: nowMs + hint };
  return undefined;
}

/**
 * The wait the server asked for, from the `Retry-After` and `Burst-RateLimit-Reset` headers
 * (the longer one wins), or `undefined` when there is no usable hint.
 */
export function serverWaitHint(headers: ResponseHeaders, nowMs: number): number | undefined {
  const { retryAfterMs, resetInMs } = parseRateLimitHeaders(headers, nowMs);
  const hints = [retryAfterMs, resetInMs].filter((h): h is number => h !== undefined);
  return hints.length === 0 ? undefined : Math.max(...hints);
}

/** What {@link planRetry} decided. */
export type RetryPlan = { retry: true; delayMs: number } | { retry: false; why: string };

/**
 * Decides whether to retry after the `failedAttempt`-th attempt and how long to wait.
 *
 * A positive server hint is used as the wait (it is a floor for the server, jitter would only
 * make us early); without one, full-jitter backoff. Either way the wait is capped by
 * `maxDelayMs`. When the remaining total budget cannot cover a server-mandated wait the client
 * gives up rather than retry early; a jittered wait is shortened to the remaining budget.
 *
 * @param failedAttempt - 1-based number of the attempt that failed
 * @param spentMs - sum of the waits already made for this request
 * @param hintMs - the server's wait hint, if any
 */
export function planRetry(
  failedAttempt: number,
  spentMs: number,
  policy: RetryPolicy,
  random: () => number,
  hintMs?: number,
): RetryPlan {
  if (failedAttempt > policy.maxRetries) {
    return { retry: false, why: `retry budget of ${policy.maxRetries} retries spent` };
  }
  const remaining = policy.maxTotalDelayMs - spentMs;
  if (hintMs !== undefined && hintMs > 0) {
    const wait = Math.min(hintMs, policy.maxDelayMs);
    if (wait > remaining) {
      return { retry: false, why: `the server asked to wait ${wait} ms, beyond the remaining retry budget` };
    }
    return { retry: true, delayMs: wait };
  }
  if (remaining <= 0) return { retry: false, why: `total retry wait of ${policy.maxTotalDelayMs} ms spent` };
  return { retry: true, delayMs: Math.min(backoffDelay(failedAttempt, policy, random), remaining) };
}
