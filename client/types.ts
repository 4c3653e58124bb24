/**
 * Public data types of the svc client: options and the shapes the service returns. The request
 * side (selections, overrides) is in `contract.ts`, with its grammar. Behaviour lives in the
 * other files of this folder.
 *
 * @packageDocumentation
 */
import type { Dispatcher } from "undici";

/**
 * Retry budget of one logical request. Every wait is capped by `maxDelayMs`; the sum of the
 * waits of one logical request is capped by `maxTotalDelayMs`.
 */
export interface RetryPolicy {
  /** Retries after the first attempt (so at most `maxRetries + 1` attempts). Default `5`. */
  maxRetries: number;
  /** Base of the exponential backoff, in milliseconds. Default `200`. */
  baseDelayMs: number;
  /** Cap of any single wait, including waits asked for by `Retry-After`. Default `10_000`. */
  maxDelayMs: number;
  /** Cap of the sum of all waits of one logical request. Default `60_000`. */
  maxTotalDelayMs: number;
}

/** Reported to {@link SvcClientOptions.onRetry} before the client waits and tries again. */
export interface RetryEvent {
  /** 1-based number of the attempt that just failed; the next attempt is `attempt + 1`. */
  attempt: number;
  /** How long the client waits before the next attempt, in milliseconds. */
  delayMs: number;
  /** Short, credential-free description of the failure, e.g. `"429 Too Many Requests"`. */
  reason: string;
  /** HTTP status of the failed attempt, when a response arrived. */
  status?: number;
  /**
   * `true` when the failed attempt may have been processed by the service although its
   * result never came back (a resume request that hit a 5xx, a timeout or a lost connection).
   * Runs resumed by such an attempt are not reported by the retry.
   */
  ambiguous: boolean;
  /** Method and path of the request, e.g. `"POST /v2/workflows/dlq/resume"`. */
  operation?: string;
}

/** Options of {@link SvcClient}. */
export interface SvcClientOptions {
  /** Base URL of the resume API, e.g. `"http://127.0.0.1:4000"`. A path prefix is kept. */
  baseUrl?: string;
  /** Base URL of the account API (the client calls `/v2/svc/user` under it). */
  accountApiUrl?: string;
  /** Bearer token for the resume API. */
  token?: string;
  /** User name for HTTP Basic authentication against the account API. */
  username?: string;
  /** Password (API key) for HTTP Basic authentication against the account API. */
  password?: string;
  /**
   * Allow credentials over plain `http://` to a host that is not loopback
   * (127.0.0.0/8, `::1`, `localhost`). Default `false`.
   */
  allowInsecureHttp?: boolean;
  /** Timeout for establishing a TCP/TLS connection. Default `10_000`. */
  connectTimeoutMs?: number;
  /** Timeout of one attempt, from sending to the last byte of the response. Default `30_000`. */
  requestTimeoutMs?: number;
  /** Retry budget; unset fields take the defaults of {@link DEFAULT_RETRY_POLICY}. */
  retry?: Partial<RetryPolicy>;
  /**
   * Dispatcher to send every request through (tests inject a `MockAgent`). The client never
   * closes a dispatcher it was given. Without it the client keeps one keep-alive pool per origin.
   */
  dispatcher?: Dispatcher;
  /** Called before every retry wait. Errors thrown by the callback are ignored. */
  onRetry?: (event: RetryEvent) => void;
  /** Source of randomness for jitter, returning `[0, 1)`. Default `Math.random`. */
  random?: () => number;
  /** Waits the given number of milliseconds. Default: a `setTimeout` promise. */
  sleep?: (ms: number) => Promise<void>;
  /** Current time in unix milliseconds. Default `Date.now`. */
  now?: () => number;
}

/** A workflow run created by a resume. */
export interface ResumedRun {
  /** ID of the new run. */
  workflowRunId: string;
  /** Creation time of the new run, unix milliseconds. */
  workflowCreatedAt: number;
}

/** One response of the resume endpoint. */
export interface ResumePage {
  /** Cursor to continue with; `undefined` when all matching entries are processed. */
  cursor: string | undefined;
  /** Runs resumed by this request (at most 50). */
  workflowRuns: ResumedRun[];
  /**
   * Set to `true` when an earlier attempt of this request failed in a way that may have
   * resumed runs whose IDs never came back (see {@link RetryEvent.ambiguous}).
   */
  ambiguous?: boolean;
  /**
   * DLQ IDs that were probably resumed by a lost attempt but whose new run IDs are unknown:
   * set when a `dlqIds` request is answered `404` after an ambiguous failure.
   */
  unconfirmedDlqIds?: string[];
}

// The account record's type follows from its one table, in `accountRecord.ts`.
export type { AccountRecord } from "./accountRecord";
