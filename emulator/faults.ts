/**
 * Fault injection for the `/v2` endpoints, switchable at run time and deterministic for a given
 * `seed`: every random fault draws from its own seeded stream, so enabling one fault does not
 * change when another fires. The configuration and its validation are in `fault-config.ts`.
 *
 * Per in-scope request {@link FaultInjector.plan} decides everything up front; the request
 * pipeline then applies the plan. Pre-commit faults win in this order: failRequestNumbers,
 * rateLimit, dropConnectionRate, error5xxRate, htmlErrorPage, malformedJson. Requests are
 * numbered from 1 since the configuration was last set.
 */
import type { FaultConfig, FaultEndpoint } from "./fault-config";
import { validateFaultConfig } from "./fault-config";
import type { Prng } from "./prng";
import { mixSeed, mulberry32 } from "./prng";

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
