/**
 * The fault configuration: its shape ({@link FaultConfig}) and its validation. What the
 * configuration does to each request is decided by the injector in `faults.ts`.
 */
import { show } from "./http";

/** The `/v2` endpoints faults can apply to. */
export type FaultEndpoint = "resume" | "account";

/** Rate limiting: either every Nth request, or at most `burst` requests per fixed window. */
export interface RateLimitFault {
  /** Every Nth in-scope request gets 429 (N, 2N, …). */
  readonly every?: number;
  /** Requests allowed per window (with `windowMs`). */
  readonly burst?: number;
  /** Window length in ms (with `burst`). */
  readonly windowMs?: number;
  /** `Retry-After` seconds in `every` mode (default 1); in burst mode it is the time to the window end. */
  readonly retryAfterSeconds?: number;
  /** How `Retry-After` is written: "seconds" (default), "http-date", or "none" (header omitted). */
  readonly retryAfter?: "seconds" | "http-date" | "none";
}

/** The fault configuration (all optional; `{}` = no faults). */
export interface FaultConfig {
  /** Seed of the random faults; without one a random seed is used. */
  readonly seed?: number;
  /** Endpoints the faults apply to (default both). */
  readonly endpoints?: readonly FaultEndpoint[];
  /** Probability 0..1 of a 5xx `{"error": …}` before anything is committed. */
  readonly error5xxRate?: number;
  /** Statuses picked from for `error5xxRate` (default 500, 502, 503). */
  readonly error5xxStatuses?: readonly number[];
  /** 429 with `Retry-After` and `Burst-RateLimit-*` headers, nothing committed. */
  readonly rateLimit?: RateLimitFault;
  /** Added latency per request, ms. */
  readonly latencyMs?: number;
  /** Extra uniformly random latency 0..latencyJitterMs, ms. */
  readonly latencyJitterMs?: number;
  /** Probability 0..1 of a latency spike. */
  readonly latencySpikeRate?: number;
  /** Length of a spike, ms. */
  readonly latencySpikeMs?: number;
  /** Probability 0..1 of destroying the socket without a response, before committing. */
  readonly dropConnectionRate?: number;
  /** Probability 0..1 of committing a resume and then destroying the socket (resume only). */
  readonly loseResponseAfterCommitRate?: number;
  /** 200 with a broken JSON body, nothing committed: true = always, or a probability 0..1. */
  readonly malformedJson?: boolean | number;
  /** 502 with an HTML body, nothing committed: true = always, or a probability 0..1. */
  readonly htmlErrorPage?: boolean | number;
  /** Resume returns a non-empty cursor forever (runs are still resumed normally). */
  readonly endlessCursor?: boolean;
  /** Resume returns the request's cursor again with no runs, committing nothing. */
  readonly repeatingCursor?: boolean;
  /** In-scope request numbers (1-based) that fail with `failStatus`. */
  readonly failRequestNumbers?: readonly number[];
  /** Status for `failRequestNumbers` (default 500). */
  readonly failStatus?: number;
}

/** Keys accepted in a FaultConfig. */
const CONFIG_KEYS = new Set([
  "seed",
  "endpoints",
  "error5xxRate",
  "error5xxStatuses",
  "rateLimit",
  "latencyMs",
  "latencyJitterMs",
  "latencySpikeRate",
  "latencySpikeMs",
  "dropConnectionRate",
  "loseResponseAfterCommitRate",
  "malformedJson",
  "htmlErrorPage",
  "endlessCursor",
  "repeatingCursor",
  "failRequestNumbers",
  "failStatus",
]);
/** Longest accepted latency setting, ms. */
const MAX_LATENCY_MS = 600_000;

/**
 * Validate a fault configuration.
 *
 * @param input - parsed JSON or an object literal.
 * @returns the same configuration, typed.
 * @throws Error naming the field and the value.
 */
export function validateFaultConfig(input: unknown): FaultConfig {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new Error(`fault config must be a JSON object, got ${show(input)}`);
  }
  const c = input as Record<string, unknown>;
  for (const key of Object.keys(c)) {
    if (!CONFIG_KEYS.has(key))
      throw new Error(`unknown fault ${show(key)}; known: ${[...CONFIG_KEYS].join(", ")}`);
  }
  const fail = (field: string, want: string): never => {
    throw new Error(`${field} must be ${want}, got ${show(c[field])}`);
  };
  const isInt = (v: unknown, min: number, max = Number.MAX_SAFE_INTEGER): boolean =>
    typeof v === "number" && Number.isSafeInteger(v) && v >= min && v <= max;
  const isRate = (v: unknown): boolean => typeof v === "number" && v >= 0 && v <= 1;

  if (c.seed !== undefined && !isInt(c.seed, 0)) fail("seed", "a non-negative integer");
  if (
    c.endpoints !== undefined &&
    (!Array.isArray(c.endpoints) || !c.endpoints.every((e) => e === "resume" || e === "account"))
  ) {
    fail("endpoints", 'an array of "resume" and/or "account"');
  }
  for (const field of [
    "error5xxRate",
    "latencySpikeRate",
    "dropConnectionRate",
    "loseResponseAfterCommitRate",
  ]) {
    if (c[field] !== undefined && !isRate(c[field])) fail(field, "a number from 0 to 1");
  }
  for (const field of ["malformedJson", "htmlErrorPage"]) {
    if (c[field] !== undefined && typeof c[field] !== "boolean" && !isRate(c[field])) {
      fail(field, "a boolean or a number from 0 to 1");
    }
  }
  for (const field of ["endlessCursor", "repeatingCursor"]) {
    if (c[field] !== undefined && typeof c[field] !== "boolean") fail(field, "a boolean");
  }
  if (c.endlessCursor === true && c.repeatingCursor === true) {
    throw new Error("endlessCursor and repeatingCursor cannot both be true");
  }
  for (const field of ["latencyMs", "latencyJitterMs", "latencySpikeMs"]) {
    if (c[field] !== undefined && !isInt(c[field], 0, MAX_LATENCY_MS)) {
      fail(field, `an integer number of ms from 0 to ${MAX_LATENCY_MS}`);
    }
  }
  if (
    c.error5xxStatuses !== undefined &&
    (!Array.isArray(c.error5xxStatuses) ||
      c.error5xxStatuses.length === 0 ||
      !c.error5xxStatuses.every((s) => isInt(s, 500, 599)))
  ) {
    fail("error5xxStatuses", "a non-empty array of integers from 500 to 599");
  }
  if (
    c.failRequestNumbers !== undefined &&
    (!Array.isArray(c.failRequestNumbers) || !c.failRequestNumbers.every((n) => isInt(n, 1)))
  ) {
    fail("failRequestNumbers", "an array of request numbers (integers >= 1)");
  }
  if (c.failStatus !== undefined && !isInt(c.failStatus, 400, 599))
    fail("failStatus", "an integer from 400 to 599");
  if (c.rateLimit !== undefined) validateRateLimit(c.rateLimit);
  return c as FaultConfig;
}

/**
 * Validate the `rateLimit` part of a fault configuration.
 *
 * @param input - the value of `rateLimit`.
 */
function validateRateLimit(input: unknown): void {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new Error(`rateLimit must be {every: N} or {burst: k, windowMs: ms}, got ${show(input)}`);
  }
  const r = input as Record<string, unknown>;
  const known = new Set(["every", "burst", "windowMs", "retryAfterSeconds", "retryAfter"]);
  for (const key of Object.keys(r)) {
    if (!known.has(key))
      throw new Error(`unknown rateLimit field ${show(key)}; known: ${[...known].join(", ")}`);
  }
  const positive = (v: unknown): boolean => typeof v === "number" && Number.isSafeInteger(v) && v >= 1;
  const hasEvery = r.every !== undefined;
  const hasBurst = r.burst !== undefined || r.windowMs !== undefined;
  if (hasEvery === hasBurst) {
    throw new Error(`rateLimit must have either every, or burst and windowMs, got ${show(input)}`);
  }
  if (hasEvery && !positive(r.every))
    throw new Error(`rateLimit.every must be an integer >= 1, got ${show(r.every)}`);
  if (hasBurst && !positive(r.burst))
    throw new Error(`rateLimit.burst must be an integer >= 1, got ${show(r.burst)}`);
  if (hasBurst && !positive(r.windowMs)) {
    throw new Error(`rateLimit.windowMs must be an integer >= 1, got ${show(r.windowMs)}`);
  }
  if (
    r.retryAfterSeconds !== undefined &&
    (typeof r.retryAfterSeconds !== "number" ||
      !Number.isSafeInteger(r.retryAfterSeconds) ||
      r.retryAfterSeconds < 0)
  ) {
    throw new Error(
      `rateLimit.retryAfterSeconds must be a non-negative integer, got ${show(r.retryAfterSeconds)}`,
    );
  }
  if (r.retryAfter !== undefined && !["seconds", "http-date", "none"].includes(r.retryAfter as string)) {
    throw new Error(
      `rateLimit.retryAfter must be "seconds", "http-date" or "none", got ${show(r.retryAfter)}`,
    );
  }
}
