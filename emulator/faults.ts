/**
 * Fault injection for the `/v2` endpoints, switchable at run time and deterministic for a given
 * `seed`: every random fault draws from its own seeded stream, so enabling one fault does not
 * change when another fires.
 *
 * Per in-scope request {@link FaultInjector.plan} decides everything up front; the request
 * pipeline then applies the plan. Pre-commit faults win in this order: failRequestNumbers,
 * rateLimit, dropConnectionRate, error5xxRate, htmlErrorPage, malformedJson. Requests are
 * numbered from 1 since the configuration was last set.
 */
import { show } from "./http";
import type { Prng } from "./prng";
import { mixSeed, mulberry32 } from "./prng";

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

/** A response (or non-response) that replaces the normal handling. */
export type FaultAction =
  | {
      readonly kind: "respond";
      /** Name of the fault, for the request log. */
      readonly fault: string;
      readonly status: number;
      readonly contentType: string;
      readonly body: string;
      readonly headers: Readonly<Record<string, string>>;
    }
  | { readonly kind: "drop"; readonly fault: "dropConnection" };

/** Everything the faults decided for one request. */
export interface FaultPlan {
  /** In-scope request number (1-based), or 0 when the endpoint is out of scope. */
  readonly requestNumber: number;
  /** Delay before handling, ms. */
  readonly delayMs: number;
  /** Replaces normal handling when set. */
  readonly preCommit?: FaultAction;
  /** Destroy the socket after committing the resume. */
  readonly loseResponseAfterCommit: boolean;
  /** Never return an empty cursor. */
  readonly endlessCursor: boolean;
  /** Return the request's cursor with no runs. */
  readonly repeatingCursor: boolean;
  /** `Burst-RateLimit-*` headers for the normal response (rate limiting configured). */
  readonly rateLimitHeaders: Readonly<Record<string, string>>;
}

/** Counters served by `GET /admin/faults`. */
export interface FaultStats {
  /** In-scope requests seen since the configuration was set. */
  readonly requests: number;
  /** How often each fault fired. */
  readonly fired: Readonly<Record<string, number>>;
}

/** Names of the random streams, in a fixed order (the index seeds the stream). */
const STREAMS = [
  "error5xx",
  "error5xxStatus",
  "drop",
  "loseResponse",
  "malformed",
  "html",
  "jitter",
  "spike",
] as const;
type StreamName = (typeof STREAMS)[number];

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

/**
 * A JSON error response action.
 *
 * @param fault - fault name.
 * @param status - HTTP status.
 * @param message - the error message.
 * @param headers - extra headers.
 */
function jsonError(
  fault: string,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): FaultAction {
  return {
    kind: "respond",
    fault,
    status,
    contentType: "application/json",
    body: JSON.stringify({ error: message }),
    headers,
  };
}

/** Holds the current fault configuration and decides the faults of each request. */
export class FaultInjector {
  private current: FaultConfig = {};
  private streams = new Map<StreamName, Prng>();
  private requests = 0;
  private fired: Record<string, number> = {};
  private windowStart = -1;
  private windowCount = 0;

  /** Starts with no faults. */
  constructor() {
    this.configure({});
  }

  /** The current configuration. */
  get config(): FaultConfig {
    return this.current;
  }

  /**
   * Replace the configuration; restarts request numbering, counters and random streams.
   *
   * @param config - the new configuration (validated).
   * @throws Error naming the field and the value when invalid.
   */
  configure(config: unknown): FaultConfig {
    const valid = validateFaultConfig(config);
    this.current = structuredClone(valid);
    const seed = valid.seed ?? Math.floor(Math.random() * 4294967296);
    this.streams = new Map(STREAMS.map((name, i) => [name, mulberry32(mixSeed(seed, i + 1))]));
    this.requests = 0;
    this.fired = {};
    this.windowStart = -1;
    this.windowCount = 0;
    return this.current;
  }

  /** Counters since the configuration was set. */
  stats(): FaultStats {
    return { requests: this.requests, fired: { ...this.fired } };
  }

  /**
   * Decide the faults of one request.
   *
   * @param endpoint - the endpoint being called.
   * @param now - current time, unix ms.
   */
  plan(endpoint: FaultEndpoint, now: number): FaultPlan {
    const c = this.current;
    const inScope = (c.endpoints ?? ["resume", "account"]).includes(endpoint);
    if (!inScope || Object.keys(c).every((k) => k === "seed" || k === "endpoints")) {
      return {
        requestNumber: 0,
        delayMs: 0,
        loseResponseAfterCommit: false,
        endlessCursor: false,
        repeatingCursor: false,
        rateLimitHeaders: {},
      };
    }
    const n = ++this.requests;
    // Draw every configured random decision, in a fixed order, whether or not it ends up used.
    const drop = this.chance("drop", c.dropConnectionRate);
    const error5xx = this.chance("error5xx", c.error5xxRate);
    const statuses = c.error5xxStatuses ?? [500, 502, 503];
    const status5xx = error5xx ? statuses[Math.floor(this.draw("error5xxStatus") * statuses.length)] : 0;
    const html = this.chance("html", c.htmlErrorPage);
    const malformed = this.chance("malformed", c.malformedJson);
    const lose = endpoint === "resume" && this.chance("loseResponse", c.loseResponseAfterCommitRate);
    let delayMs = c.latencyMs ?? 0;
    if (c.latencyJitterMs !== undefined) delayMs += Math.floor(this.draw("jitter") * (c.latencyJitterMs + 1));
    if (this.chance("spike", c.latencySpikeRate)) delayMs += c.latencySpikeMs ?? 0;

    const limited = this.rateLimit(n, now);
    let action: FaultAction | undefined;
    if (c.failRequestNumbers?.includes(n)) {
      const status = c.failStatus ?? 500;
      action = jsonError(
        "failRequestNumbers",
        status,
        `injected failure of request #${n}`,
        status === 429 ? { "retry-after": "1" } : {},
      );
    } else if (limited.action !== undefined) action = limited.action;
    else if (drop) action = { kind: "drop", fault: "dropConnection" };
    else if (error5xx) action = jsonError("error5xx", status5xx, `injected server error ${status5xx}`);
    else if (html) {
      action = {
        kind: "respond",
        fault: "htmlErrorPage",
        status: 502,
        contentType: "text/html; charset=utf-8",
        body: "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><p>svc edge proxy</p></body></html>\n",
        headers: {},
      };
    } else if (malformed) {
      action = {
        kind: "respond",
        fault: "malformedJson",
        status: 200,
        contentType: "application/json",
        body: '{"cursor": "", "workflowRuns": [{"workflowRunId": "wfr_',
        headers: {},
      };
    }
    if (action !== undefined) this.count(action.fault);
    const endless = endpoint === "resume" && c.endlessCursor === true;
    const repeating = endpoint === "resume" && c.repeatingCursor === true;
    if (action === undefined && lose) this.count("loseResponseAfterCommit");
    if (action === undefined && endless) this.count("endlessCursor");
    if (action === undefined && repeating) this.count("repeatingCursor");
    if (delayMs > 0) this.count("latency");
    return {
      requestNumber: n,
      delayMs,
      ...(action !== undefined ? { preCommit: action } : {}),
      loseResponseAfterCommit: lose,
      endlessCursor: endless,
      repeatingCursor: repeating,
      rateLimitHeaders: limited.headers,
    };
  }

  /**
   * Apply the rate limit to request `n`.
   *
   * @param n - in-scope request number.
   * @param now - current time, unix ms.
   */
  private rateLimit(n: number, now: number): { action?: FaultAction; headers: Record<string, string> } {
    const r = this.current.rateLimit;
    if (r === undefined) return { headers: {} };
    let limit: number;
    let remaining: number;
    let resetMs: number;
    let limited: boolean;
    if (r.every !== undefined) {
      limit = r.every - 1;
      limited = n % r.every === 0;
      remaining = limited ? 0 : r.every - 1 - (n % r.every);
      resetMs = now + (r.retryAfterSeconds ?? 1) * 1000;
    } else {
      const windowMs = r.windowMs as number;
      const start = Math.floor(now / windowMs) * windowMs;
      if (start !== this.windowStart) {
        this.windowStart = start;
        this.windowCount = 0;
      }
      this.windowCount++;
      limit = r.burst as number;
      limited = this.windowCount > limit;
      remaining = Math.max(0, limit - this.windowCount);
      resetMs = start + windowMs;
    }
    const headers: Record<string, string> = {
      "burst-ratelimit-limit": String(limit),
      "burst-ratelimit-remaining": String(remaining),
      "burst-ratelimit-reset": String(Math.ceil(resetMs / 1000)),
    };
    if (!limited) return { headers };
    const waitSeconds =
      r.every !== undefined ? (r.retryAfterSeconds ?? 1) : Math.max(1, Math.ceil((resetMs - now) / 1000));
    const format = r.retryAfter ?? "seconds";
    if (format === "seconds") headers["retry-after"] = String(waitSeconds);
    if (format === "http-date") headers["retry-after"] = new Date(now + waitSeconds * 1000).toUTCString();
    return { action: jsonError("rateLimit", 429, "rate limit exceeded; retry later", headers), headers };
  }

  /**
   * Draw a boolean from a stream, when a rate is configured.
   *
   * @param stream - stream name.
   * @param rate - probability, `true` (always) or undefined/false (never, no draw).
   */
  private chance(stream: StreamName, rate: number | boolean | undefined): boolean {
    if (rate === undefined || rate === false) return false;
    if (rate === true) return true;
    return this.draw(stream) < rate;
  }

  /**
   * Next number of a stream.
   *
   * @param stream - stream name.
   */
  private draw(stream: StreamName): number {
    return (this.streams.get(stream) as Prng)();
  }

  /**
   * Count a fired fault.
   *
   * @param fault - fault name.
   */
  private count(fault: string): void {
    this.fired[fault] = (this.fired[fault] ?? 0) + 1;
  }
}
