/**
 * The client's one error type, {@link SvcError}, its stable codes, and {@link DrainError}
 * which adds the partial progress of a multi-request operation.
 *
 * @packageDocumentation
 */
import type { DrainProgress } from "./types";

/**
 * Stable error codes. Code against these, not against messages.
 *
 * - `SVC_UNAUTHORIZED` – 401: credentials were rejected.
 * - `SVC_BAD_REQUEST` – 400: the service refused the request; see `serviceMessage`.
 * - `SVC_NOT_FOUND` – 404, e.g. unknown DLQ IDs.
 * - `SVC_RATE_LIMITED` – 429 after the retry budget was spent.
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
    this.retryable = details.retryable ?? false;
    this.ambiguous = details.ambiguous ?? false;
  }

  /** A plain, credential-free representation (used by `JSON.stringify`). */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name, code: this.code, message: this.message };
    for (const key of ["status", "serviceMessage", "method", "url", "attempts"] as const) {
      if (this[key] !== undefined) out[key] = this[key];
    }
    out.retryable = this.retryable;
    out.ambiguous = this.ambiguous;
    if (this.cause !== undefined) out.cause = describeCause(this.cause);
    return out;
  }
}

/**
 * A failure in the middle of {@link SvcClient.drain} or {@link SvcClient.resumeByIds}.
 * `partial` holds everything that was resumed before the failure. The code, status and
 * HTTP context are those of the underlying failure, which is also the `cause`.
 */
export class DrainError extends SvcError {
  /** What was done before the failure: the runs, counts, and where to continue. */
  readonly partial: DrainProgress;

  /**
   * @param code - stable error code (usually that of the cause)
   * @param message - credential-free message
   * @param partial - progress made before the failure
   * @param details - HTTP context
   */
  constructor(code: SvcErrorCode, message: string, partial: DrainProgress, details: SvcErrorDetails = {}) {
    super(code, message, details);
    this.name = "DrainError";
    this.partial = partial;
  }

  /**
   * Wraps a failure that happened mid-drain, keeping the underlying code and HTTP context.
   *
   * @param error - the failure (an {@link SvcError}, or anything thrown by a callback)
   * @param partial - progress made before the failure
   * @param what - the operation, e.g. `"drain"`
   */
  static wrap(error: unknown, partial: DrainProgress, what: string): DrainError {
    const summary =
      `${what} stopped after ${partial.requestCount} request(s) and ${partial.resumedCount} resumed run(s)` +
      (partial.ambiguousRequests > 0 ? `, ${partial.ambiguousRequests} ambiguous request(s)` : "") +
      "; the progress so far is in `partial`";
    if (error instanceof SvcError) {
      return new DrainError(error.code, `${error.message} (${summary})`, partial, {
        status: error.status,
        serviceMessage: error.serviceMessage,
        method: error.method,
        url: error.url,
        retryable: error.retryable,
        ambiguous: error.ambiguous,
        attempts: error.attempts,
        cause: error,
      });
    }
    return new DrainError("SVC_CALLBACK_FAILED", `The onPage callback threw (${summary})`, partial, {
      cause: error,
    });
  }

  /** @inheritDoc */
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), partial: this.partial };
  }
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
