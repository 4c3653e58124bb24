/**
 * The client's one error type, {@link SvcError}, and its stable codes (a drain's `DrainError`, in
 * `drain/errors.ts`, adds the partial progress of a multi-request operation).
 *
 * @packageDocumentation
 */

/**
 * Stable error codes. Code against these, not against messages.
 *
 * - `SVC_UNAUTHORIZED` – 401: credentials were rejected.
 * - `SVC_BAD_REQUEST` – 400: the service refused the request; see `serviceMessage`.
 * - `SVC_NOT_FOUND` – 404, e.g. unknown DLQ IDs.
 * - `SVC_RATE_LIMITED` – 429 after the retry budget was spent.
 * - `SVC_DAILY_LIMIT` – 429 the account's daily limit explains (`RateLimit-Remaining: 0`), or any
 *   429 whose reset lies beyond the cap on all waits: not retried; `dailyLimit` and `resetAt` say
 *   what was spent and when it resets.
 * - `SVC_SERVER_ERROR` – 5xx (after retries where they are allowed).
 * - `SVC_HTTP_ERROR` – any other unexpected status.
 * - `SVC_TIMEOUT` – connect, header or body timeout (or 408).
 * - `SVC_UNREACHABLE` – connection refused, DNS failure, host or network unreachable.
 * - `SVC_CONNECTION_LOST` – the connection closed before the response was complete.
 * - `SVC_MALFORMED_RESPONSE` – the response is not JSON or not the documented shape.
 * - `SVC_INSECURE_TRANSPORT` – credentials would travel over `http://` to a non-loopback host.
 * - `SVC_INVALID_ARGUMENT` – the caller passed something the client refuses to send.
 * - `SVC_CURSOR_LOOP` – a drain's cursor repeats or never ends.
 * - `SVC_MISSING_CREDENTIALS` – token, username or password not configured.
 * - `SVC_ABORTED` – the caller's `AbortSignal` stopped a drain or batch run.
 * - `SVC_CALLBACK_FAILED` – the caller's `onPage` callback threw; the original is the `cause`.
 */
export type SvcErrorCode =
  | "SVC_UNAUTHORIZED"
  | "SVC_BAD_REQUEST"
  | "SVC_NOT_FOUND"
  | "SVC_RATE_LIMITED"
  | "SVC_DAILY_LIMIT"
  | "SVC_SERVER_ERROR"
  | "SVC_HTTP_ERROR"
  | "SVC_TIMEOUT"
  | "SVC_UNREACHABLE"
  | "SVC_CONNECTION_LOST"
  | "SVC_MALFORMED_RESPONSE"
  | "SVC_INSECURE_TRANSPORT"
  | "SVC_INVALID_ARGUMENT"
  | "SVC_CURSOR_LOOP"
  | "SVC_MISSING_CREDENTIALS"
  | "SVC_ABORTED"
  | "SVC_CALLBACK_FAILED";

/** Optional HTTP context of an {@link SvcError}. */
export interface SvcErrorDetails {
  /** HTTP status, when a response arrived. */
  status?: number;
  /** The service's own error message (`{"error": "..."}`), scrubbed of credentials. */
  serviceMessage?: string;
  /** HTTP method of the failed request. */
  method?: string;
  /** URL of the failed request, without credentials (the query carries none). */
  url?: string;
  /** Whether the failure is of a kind that is worth retrying (the budget may be spent). */
  retryable?: boolean;
  /** The request may have been processed although no usable response came back. */
  ambiguous?: boolean;
  /** Attempts made, retries included. */
  attempts?: number;
  /** Underlying error, already scrubbed of credentials. */
  cause?: unknown;
  /** `SVC_DAILY_LIMIT`: the account's daily limit (`RateLimit-Limit`), when the service said it. */
  dailyLimit?: number;
  /** `SVC_DAILY_LIMIT`: when the limit resets, unix ms. */
  resetAt?: number;
}

/** The error every client operation rejects with. Messages never contain credentials. */
export class SvcError extends Error {
  /** Stable machine-readable code. */
  readonly code: SvcErrorCode;
  /** HTTP status, when a response arrived. */
  readonly status?: number;
  /** The service's own error message, when it sent one. */
  readonly serviceMessage?: string;
  /** HTTP method of the failed request. */
  readonly method?: string;
  /** Request URL without credentials. */
  readonly url?: string;
  /** Whether this kind of failure is transient (the client has already retried it). */
  readonly retryable: boolean;
  /** `true` when the failed request may have been processed by the service. */
  readonly ambiguous: boolean;
  /** Attempts made, retries included, when known. */
  readonly attempts?: number;
  /** `SVC_DAILY_LIMIT`: the account's daily limit, when the service said it. */
  readonly dailyLimit?: number;
  /** `SVC_DAILY_LIMIT`: when the limit resets, unix ms. */
  readonly resetAt?: number;

  /**
   * @param code - stable error code
   * @param message - human-readable, credential-free message
   * @param details - HTTP context
   */
  constructor(code: SvcErrorCode, message: string, details: SvcErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "SvcError";
    this.code = code;
    if (details.status !== undefined) this.status = details.status;
    if (details.serviceMessage !== undefined) this.serviceMessage = details.serviceMessage;
    if (details.method !== undefined) this.method = details.method;
    if (details.url !== undefined) this.url = details.url;
    if (details.attempts !== undefined) this.attempts = details.attempts;
    if (details.dailyLimit !== undefined) this.dailyLimit = details.dailyLimit;
    if (details.resetAt !== undefined) this.resetAt = details.resetAt;
    this.retryable = details.retryable ?? false;
    this.ambiguous = details.ambiguous ?? false;
  }

  /** A plain, credential-free representation (used by `JSON.stringify`). */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name, code: this.code, message: this.message };
    for (const key of [
      "status",
      "serviceMessage",
      "method",
      "url",
      "attempts",
      "dailyLimit",
      "resetAt",
    ] as const) {
      if (this[key] !== undefined) out[key] = this[key];
    }
    out.retryable = this.retryable;
    out.ambiguous = this.ambiguous;
    if (this.cause !== undefined) out.cause = describeCause(this.cause);
    return out;
  }
}

/** What a spent daily limit is known by: the limit (when the service said it) and the reset. */
export interface SpentDailyLimit {
  /** The account's daily limit (`RateLimit-Limit`), if known. */
  limit?: number;
  /** When it resets, unix ms. */
  resetAt: number;
}

/** "6 h 31 min", "4 min 10 s", "12 s": a wait in words, rounded up to the unit shown last. */
export function waitInWords(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.ceil(s / 60);
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(min / 60)} h ${min % 60} min`;
}

/** "2025-06-16 00:00:00 UTC": a time for messages, such as when a daily limit resets. */
export function utcTime(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d{3}Z$/, " UTC");
}

/**
 * The message of `SVC_DAILY_LIMIT`: the daily limit (the number), that it is spent, when it
 * resets (UTC time and how long from now), and that `pulumi up` after that continues.
 *
 * @param spent - the limit and its reset
 * @param nowMs - the time now, unix ms
 * @param what - what happened, e.g. "svc resume DLQ (POST …) was refused with 429"
 * @param drain - the request was part of a drain (resume requests): say how it continues
 */
export function dailyLimitMessage(spent: SpentDailyLimit, nowMs: number, what: string, drain = true): string {
  const at = utcTime(spent.resetAt);
  const head =
    spent.limit !== undefined
      ? `The account's daily limit of ${spent.limit} requests is spent`
      : "The service refuses requests for longer than the client waits for a retry";
  return (
    `${head} (${what}); nothing is retried before it resets at ${at} ` +
    `(in ${waitInWords(spent.resetAt - nowMs)}). ` +
    (drain
      ? "`pulumi up` after that continues where the drain stopped and resumes nothing twice."
      : "Try again after that.")
  );
}

/**
 * The `SVC_DAILY_LIMIT` error: not retryable, with the limit and the reset time.
 *
 * @param spent - the limit and its reset
 * @param nowMs - the time now, unix ms
 * @param what - what happened to the request
 * @param details - HTTP context of the refused request, if one was sent
 * @param drain - the request was part of a drain (resume requests): say how it continues
 */
export function dailyLimitError(
  spent: SpentDailyLimit,
  nowMs: number,
  what: string,
  details: SvcErrorDetails = {},
  drain = true,
): SvcError {
  return new SvcError("SVC_DAILY_LIMIT", dailyLimitMessage(spent, nowMs, what, drain), {
    ...details,
    retryable: false,
    ...(spent.limit !== undefined ? { dailyLimit: spent.limit } : {}),
    resetAt: spent.resetAt,
  });
}

/** Type guard for {@link SvcError}. */
export function isSvcError(value: unknown): value is SvcError {
  return value instanceof SvcError;
}

function describeCause(cause: unknown): unknown {
  if (cause instanceof SvcError) return cause.toJSON();
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return { name: cause.name, message: cause.message, ...(typeof code === "string" ? { code } : {}) };
  }
  return String(cause);
}
