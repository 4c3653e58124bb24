// size: RequestRunner is one retry loop (attempts, replay safety, waits, status mapping) over shared per-call state; its helpers are already small functions, and cutting the loop would split one decision across files
/**
 * Runs one logical request: attempts, retry decisions, waits, and the mapping of HTTP
 * statuses and transport failures to {@link SvcError}. Which failures are retried depends on
 * whether the request may be replayed (see {@link CallSpec.safeToReplay}).
 *
 * @packageDocumentation
 */
import { STATUS_CODES } from "node:http";
import { SvcError, dailyLimitError, type SvcErrorCode } from "./errors";
import { bodyExcerpt, type Redactor } from "./redact";
import { planRetry, serverWaitHint, spentUntil, type ResponseHeaders } from "./retry";
import type { RequestGate } from "./requestSpacing";
import { TransportFailure, type Endpoint, type IncomingResponse, type Transport } from "./transport";
import type { RetryEvent, RetryPolicy } from "./types";

/** One logical request. */
export interface CallSpec {
  /** Human name of the operation for messages, e.g. `"resume DLQ"`. */
  operation: string;
  method: "GET" | "POST";
  endpoint: Endpoint;
  /** API path, e.g. `"/v2/svc/user"` (appended to the endpoint's path prefix). */
  path: string;
  /** Query string with leading `?`, or `""`. */
  query: string;
  /** Request headers, credentials included. */
  headers: Record<string, string>;
  /** Advice appended to a 401 message, e.g. `"check the token"`. */
  credentialHint: string;
  /** The request changes state on the service: a lost attempt makes the outcome ambiguous. */
  hasSideEffects: boolean;
  /**
   * Replaying the request after a failure that may have been processed cannot do harm.
   * Without it, only failures known to be unprocessed (429, 408, connect errors) are retried.
   */
  safeToReplay: boolean;
  /** Return a `404` instead of failing when an earlier attempt was ambiguous. */
  accept404AfterAmbiguous?: boolean;
  /** Awaited before every attempt (rate limiting). */
  gate?: RequestGate;
  /** Checked before every retry wait; stops with `SVC_ABORTED`. */
  signal?: AbortSignal;
  /**
   * Told the status and headers of every response, before it is interpreted (a rate gate
   * learns the limit from it), and status 0 with no headers when an attempt ends without an
   * answer (so a gate knows what is still in flight). A throw is ignored.
   */
  onResponse?: (status: number, headers: ResponseHeaders) => void;
}

/** Mutable record of a call's attempts; still meaningful when the call throws. */
export interface CallState {
  attempts: number;
  /** An attempt failed in a way that may have been processed by the service. */
  ambiguous: boolean;
}

/** A successful (or accepted) response with its parsed JSON body. */
export interface CallResult {
  status: number;
  /** Parsed body; `undefined` for an accepted 404. */
  json: unknown;
}

/** Dependencies of {@link RequestRunner}. */
export interface RunnerDeps {
  transport: Transport;
  policy: RetryPolicy;
  redactor: Redactor;
  random: () => number;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
  onRetry?: (event: RetryEvent) => void;
}

interface Failure {
  error: SvcError;
  retryable: boolean;
  /** This attempt may have been processed. */
  ambiguous: boolean;
  reason: string;
  hintMs?: number;
}

/** Executes {@link CallSpec}s with retries. */
export class RequestRunner {
  /** @param deps - transport, policy, clock and hooks */
  constructor(private readonly deps: RunnerDeps) {}

  /**
   * Runs the call to a 2xx response with a JSON body.
   *
   * @param state - updated as attempts are made, so a caller learns about ambiguous attempts
   * even when the call throws
   * @throws SvcError for any final failure; `ambiguous` is set when the request may have been
   * processed
   */
  async run(spec: CallSpec, state: CallState = { attempts: 0, ambiguous: false }): Promise<CallResult> {
    const { policy, random, sleep } = this.deps;
    let spentMs = 0;
    for (;;) {
      if (spec.gate) await untilAborted(spec.gate(), spec.signal);
      // A request whose signal fired while it waited at the gate is not sent: nothing of it reached the service.
      if (spec.signal?.aborted) throw this.aborted(spec, state);
      state.attempts += 1;
      const failure = await this.attempt(spec, state);
      if (!("error" in failure)) return failure;
      if (failure.ambiguous) state.ambiguous = true;

      const plan = failure.retryable
        ? planRetry(state.attempts, spentMs, policy, random, failure.hintMs)
        : ({ retry: false, why: "" } as const);
      if (!plan.retry) throw this.finalError(failure, state, plan.why);
      if (spec.signal?.aborted) throw this.aborted(spec, state);
      this.report({
        attempt: state.attempts,
        delayMs: plan.delayMs,
        reason: failure.reason,
        ...(failure.error.status !== undefined ? { status: failure.error.status } : {}),
        ambiguous: failure.ambiguous,
        operation: `${spec.method} ${spec.path}`,
      });
      spentMs += plan.delayMs;
      if (plan.delayMs > 0) await sleep(plan.delayMs);
      if (spec.signal?.aborted) throw this.aborted(spec, state);
    }
  }

  private async attempt(spec: CallSpec, state: CallState): Promise<CallResult | Failure> {
    const { transport } = this.deps;
    const fullPath = `${spec.endpoint.pathPrefix}${spec.path}${spec.query}`;
    const ctx = { method: spec.method, url: `${spec.endpoint.origin}${fullPath}` };
    const label = `svc ${spec.operation} (${spec.method} ${spec.path})`;
    let res: IncomingResponse;
    try {
      res = await transport.send({
        origin: spec.endpoint.origin,
        path: fullPath,
        method: spec.method,
        headers: spec.headers,
      });
    } catch (e) {
      notify(spec, 0, {});
      if (!(e instanceof TransportFailure)) throw e;
      return this.transportFailure(spec, e, label, ctx);
    }
    notify(spec, res.status, res.headers);

    const { status } = res;
    if (status >= 200 && status < 300) {
      return { status, json: this.parseJson(res, spec, label, state) };
    }
    if (status === 404 && spec.accept404AfterAmbiguous && state.ambiguous) {
      return { status, json: undefined };
    }
    return this.statusFailure(spec, res, state, label, ctx);
  }

  /** The failure a non-2xx answer is: its code, message, and whether to retry. */
  private statusFailure(
    spec: CallSpec,
    res: IncomingResponse,
    state: CallState,
    label: string,
    ctx: { method: string; url: string },
  ): Failure {
    const { redactor, now } = this.deps;
    const { status } = res;
    const serviceMessage = this.serviceMessage(res);
    const statusText = STATUS_CODES[status] ?? "";
    const detail = serviceMessage !== undefined ? `: ${serviceMessage}` : this.unexpectedBody(res);
    const details = { ...ctx, status, ...(serviceMessage !== undefined ? { serviceMessage } : {}) };
    const reason = `${status} ${statusText}`.trim();
    let code: SvcErrorCode;
    let message: string;
    let retryable = false;
    let ambiguous = false;
    let hintMs: number | undefined;
    const spent =
      status === 429 ? spentUntil(res.headers, now(), this.deps.policy.maxTotalDelayMs) : undefined;
    if (spent !== undefined) {
      // The daily limit (or a wait beyond the cap on all waits): a retry before the reset only
      // spends more refused requests.
      const error = dailyLimitError(
        spent,
        now(),
        `${label} was refused with 429`,
        { ...details, attempts: state.attempts },
        spec.hasSideEffects,
      );
      return { error, retryable: false, ambiguous: false, reason };
    }
    if (status === 401 || status === 403) {
      code = "SVC_UNAUTHORIZED";
      message =
        status === 401
          ? `Credentials were rejected (401) for ${label}: ${spec.credentialHint}${detail}`
          : `Credentials are not permitted (403) to use ${label}: ${spec.credentialHint}${detail}`;
    } else if (status === 400) {
      code = "SVC_BAD_REQUEST";
      message = `${label} was refused as a bad request (400)${detail}`;
    } else if (status === 404) {
      code = "SVC_NOT_FOUND";
      message = `${label} failed: 404 Not Found${detail}`;
    } else if (status === 429) {
      // Rate limited: the service did not process the request, a retry is always safe.
      code = "SVC_RATE_LIMITED";
      message = `${label} was rate limited (429)${detail}`;
      retryable = true;
      hintMs = serverWaitHint(res.headers, now());
    } else if (status === 408) {
      // The server gave up waiting for the request: it was not processed.
      code = "SVC_TIMEOUT";
      message = `${label} failed: 408 Request Timeout${detail}`;
      retryable = true;
    } else if (status >= 500) {
      code = "SVC_SERVER_ERROR";
      message = `${label} failed with a server error: ${reason}${detail}`;
      // 501/505 will not change on retry; other 5xx are transient. A 5xx may come after the
      // service did (part of) the work, so for a state-changing request it is ambiguous.
      const transient = status !== 501 && status !== 505;
      ambiguous = spec.hasSideEffects;
      retryable = transient && (spec.safeToReplay || !spec.hasSideEffects);
      if (status === 503) hintMs = serverWaitHint(res.headers, now());
    } else {
      code = "SVC_HTTP_ERROR";
      message = `${label} failed with unexpected status ${reason}${detail}`;
    }
    return {
      error: new SvcError(code, redactor.scrub(message), { ...details, retryable, ambiguous }),
      retryable,
      ambiguous,
      reason,
      ...(hintMs !== undefined ? { hintMs } : {}),
    };
  }

  private transportFailure(
    spec: CallSpec,
    failure: TransportFailure,
    label: string,
    ctx: { method: string; url: string },
  ): Failure {
    const cause = this.deps.redactor.sanitizeError(failure.original);
    const ambiguous = spec.hasSideEffects && failure.mayHaveBeenProcessed;
    const replayable = !failure.mayHaveBeenProcessed || spec.safeToReplay || !spec.hasSideEffects;
    let code: SvcErrorCode;
    let what: string;
    let retryable = false;
    switch (failure.kind) {
      case "unreachable":
        code = "SVC_UNREACHABLE";
        what = "could not connect to the service";
        retryable = true;
        break;
      case "connect-timeout":
        code = "SVC_TIMEOUT";
        what = "timed out while connecting";
        retryable = true;
        break;
      case "timeout":
        code = "SVC_TIMEOUT";
        what = "timed out waiting for the response";
        retryable = replayable;
        break;
      case "connection-lost":
        code = "SVC_CONNECTION_LOST";
        what = "the connection closed before the response was complete";
        retryable = replayable;
        break;
      case "too-large":
        code = "SVC_MALFORMED_RESPONSE";
        what = "the response body is larger than the client accepts";
        break;
      case "closed":
        code = "SVC_CONNECTION_LOST";
        what = "the client was closed";
        break;
      case "invalid":
        code = "SVC_INVALID_ARGUMENT";
        what = "the HTTP library refused the request";
        break;
      default:
        code = "SVC_CONNECTION_LOST";
        what = "the request failed";
    }
    const message = `${label} failed: ${what} (${cause.message})${
      ambiguous ? "; the service may have processed the request" : ""
    }`;
    return {
      error: new SvcError(code, this.deps.redactor.scrub(message), { ...ctx, retryable, ambiguous, cause }),
      retryable,
      ambiguous,
      reason: `${what} (${cause.message})`,
    };
  }

  private parseJson(res: IncomingResponse, spec: CallSpec, label: string, state: CallState): unknown {
    try {
      if (res.body.trim() === "") throw new Error("empty body");
      return JSON.parse(res.body) as unknown;
    } catch {
      // The service did the work but its answer is unreadable: for a state-changing request,
      // whatever it did is unknown to us.
      if (spec.hasSideEffects) state.ambiguous = true;
      const contentType = headerValue(res.headers, "content-type") ?? "(none)";
      const excerpt = bodyExcerpt(res.body, this.deps.redactor, 80);
      throw new SvcError(
        "SVC_MALFORMED_RESPONSE",
        `Malformed response from ${label}: expected JSON, got content-type ${contentType} with status ${res.status}` +
          (excerpt === "" ? " and an empty body" : `: "${excerpt}"`),
        {
          status: res.status,
          method: spec.method,
          url: `${spec.endpoint.origin}${spec.endpoint.pathPrefix}${spec.path}${spec.query}`,
          ambiguous: spec.hasSideEffects,
          attempts: state.attempts,
        },
      );
    }
  }

  /** The service's `{"error": "..."}` message, scrubbed and shortened. */
  private serviceMessage(res: IncomingResponse): string | undefined {
    try {
      const parsed = JSON.parse(res.body) as unknown;
      if (parsed !== null && typeof parsed === "object") {
        const { error, message } = parsed as { error?: unknown; message?: unknown };
        const text = typeof error === "string" ? error : typeof message === "string" ? message : undefined;
        if (text !== undefined) return bodyExcerpt(text, this.deps.redactor, 300);
      }
    } catch {
      // not JSON
    }
    return undefined;
  }

  private unexpectedBody(res: IncomingResponse): string {
    const contentType = headerValue(res.headers, "content-type") ?? "(none)";
    const excerpt = bodyExcerpt(res.body, this.deps.redactor, 80);
    return excerpt === ""
      ? ` (content-type ${contentType}, empty body)`
      : ` (content-type ${contentType}: "${excerpt}")`;
  }

  private finalError(failure: Failure, state: CallState, why: string): SvcError {
    const e = failure.error;
    const gaveUp = failure.retryable ? ` (gave up after ${state.attempts} attempts: ${why})` : "";
    return new SvcError(e.code, `${e.message}${gaveUp}`, {
      status: e.status,
      serviceMessage: e.serviceMessage,
      method: e.method,
      url: e.url,
      retryable: e.retryable,
      ambiguous: state.ambiguous,
      attempts: state.attempts,
      dailyLimit: e.dailyLimit,
      resetAt: e.resetAt,
      cause: e.cause,
    });
  }

  private aborted(spec: CallSpec, state: CallState): SvcError {
    return new SvcError("SVC_ABORTED", `svc ${spec.operation} was aborted while retrying`, {
      method: spec.method,
      url: `${spec.endpoint.origin}${spec.endpoint.pathPrefix}${spec.path}${spec.query}`,
      ambiguous: state.ambiguous,
      attempts: state.attempts,
    });
  }

  private report(event: RetryEvent): void {
    try {
      this.deps.onRetry?.(event);
    } catch {
      // A logging hook must not change the outcome of a request.
    }
  }
}

/** Tells the spec's response observer; its throw is ignored. */
function notify(spec: CallSpec, status: number, headers: ResponseHeaders): void {
  if (!spec.onResponse) return;
  try {
    spec.onResponse(status, headers);
  } catch {
    // An observer must not change the outcome of a request.
  }
}

function headerValue(
  headers: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(", ") : v;
}

/**
 * Waits for `wait` (a gate's release), or less when `signal` fires first: a stopped drain does
 * not wait for the turns of requests it will not send (the gate's turn is then left unused).
 */
function untilAborted(wait: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return wait;
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const stop = () => resolve();
    signal.addEventListener("abort", stop, { once: true });
    wait.then(
      () => (signal.removeEventListener("abort", stop), resolve()),
      (e: unknown) => (signal.removeEventListener("abort", stop), reject(e)),
    );
  });
}
