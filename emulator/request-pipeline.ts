/**
 * The request pipeline of the service API under `/v2`, shared by both endpoints:
 * log → route and method check → read body → fault plan → auth → account daily limit and rate
 * limit (resume only) → latency → pre-commit fault → endpoint → post-commit fault → response.
 * Errors become `{"error": …}` with credentials redacted. Every answer after authentication
 * carries the rate limit's `Burst-RateLimit-*` headers (when the limit is on) and the daily
 * limit's `RateLimit-*` headers (when that is on).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { handleAccount } from "./account-endpoint";
import { requireBasic, requireBearer } from "./auth";
import type { V2Context, V2Result } from "./endpoint";
import type { FaultEndpoint } from "./fault-config";
import { HttpError, readBody, sendJson, sendRaw } from "./http";
import { rawOverrideHeaders } from "./overrides";
import { dailyLimitMessage } from "./daily-limit";
import { rateLimitMessage } from "./rate-limit";
import type { LoggedRequest } from "./request-log";
import { handleResume } from "./resume-endpoint";
import type { EmulatorState } from "./state";

/** Largest accepted `/v2` request body. */
export const MAX_V2_BODY_BYTES = 1_048_576;

/** One `/v2` route. */
interface V2Route {
  readonly method: string;
  readonly endpoint: FaultEndpoint;
  /** Whether the account's rate limit applies (`max_requests_per_second`). */
  readonly rateLimited: boolean;
  readonly authenticate: (state: EmulatorState, req: IncomingMessage) => void;
  readonly handle: (ctx: V2Context) => V2Result;
}

/** The routes by path. */
const ROUTES: Readonly<Record<string, V2Route>> = {
  "/v2/workflows/dlq/resume": {
    method: "POST",
    endpoint: "resume",
    rateLimited: true,
    authenticate: (state, req) => requireBearer(req, state.account.token),
    handle: handleResume,
  },
  "/v2/svc/user": {
    method: "GET",
    endpoint: "account",
    rateLimited: false,
    authenticate: (state, req) => requireBasic(req, state.account.username, state.account.password),
    handle: handleAccount,
  },
};

/**
 * The query of a URL as an object; repeated parameters become arrays.
 *
 * @param url - the URL.
 * @param redact - applied to every value.
 */
function queryObject(url: URL, redact: (text: string) => string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key).map(redact);
    query[redact(key)] = values.length === 1 ? values[0] : values;
  }
  return query;
}

/** Adds a request to the request log (credentials redacted), its outcome still open. */
function logRequest(state: EmulatorState, req: IncomingMessage, url: URL): LoggedRequest {
  const redact = (text: string): string => state.redact(text);
  const overrideHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(rawOverrideHeaders(req))) overrideHeaders[name] = redact(value);
  return state.log.add({
    time: state.now(),
    method: req.method ?? "",
    path: redact(url.pathname),
    query: queryObject(url, redact),
    overrideHeaders,
    status: null,
    resumed: 0,
  });
}

/**
 * Counts a resume request against the account's daily limit, then its per-second limit.
 *
 * @param state - the emulator state.
 * @param faultHeaders - headers of a `rateLimit` fault, which speak over the account's own.
 * @param logEntry - the request's log entry (marked when refused).
 * @returns the headers of the answer.
 * @throws HttpError 429 when either limit refuses the request.
 */
function accountLimits(
  state: EmulatorState,
  faultHeaders: Readonly<Record<string, string>>,
  logEntry: { time: number; rateLimited?: boolean; dailyLimited?: boolean },
): Readonly<Record<string, string>> {
  const daily = state.dailyLimit.take(state.account.id, logEntry.time);
  if (daily !== undefined && !daily.allowed) {
    logEntry.dailyLimited = true;
    throw new HttpError(429, dailyLimitMessage(daily), daily.headers);
  }
  const decision = state.rateLimit.take(state.account.id, state.account.maxRequestsPerSecond, logEntry.time);
  const headers = { ...daily?.headers, ...decision?.headers };
  if (decision !== undefined && !decision.allowed) {
    logEntry.rateLimited = true;
    throw new HttpError(429, rateLimitMessage(decision), headers);
  }
  return { ...headers, ...faultHeaders };
}

/**
 * Authenticates a request and counts it against the account's limits, on its arrival.
 *
 * @returns the headers of its answer and, when it is refused, why (thrown once its latency has
 *   passed)
 */
function count(
  state: EmulatorState,
  route: V2Route,
  req: IncomingMessage,
  faultHeaders: Readonly<Record<string, string>>,
  logEntry: { time: number; rateLimited?: boolean; dailyLimited?: boolean },
): { headers: Readonly<Record<string, string>>; refused?: unknown } {
  try {
    route.authenticate(state, req);
  } catch (refused) {
    return { headers: {}, refused };
  }
  try {
    return { headers: route.rateLimited ? accountLimits(state, faultHeaders, logEntry) : faultHeaders };
  } catch (refused) {
    return { headers: faultHeaders, refused };
  }
}

/**
 * Handle a request whose path starts with `/v2`.
 *
 * @param state - the emulator state.
 * @param req - the request.
 * @param res - the response.
 * @param url - the parsed request URL.
 * @param signal - aborted when the server closes (cuts injected latency short).
 */
export async function handleV2(
  state: EmulatorState,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  signal: AbortSignal,
): Promise<void> {
  const redact = (text: string): string => state.redact(text);
  const logEntry = logRequest(state, req, url);
  // Headers of every answer once the request is authenticated (rate-limit headers).
  let answerHeaders: Readonly<Record<string, string>> = {};
  try {
    const route = ROUTES[url.pathname];
    if (route === undefined) throw new HttpError(404, `no such endpoint: ${req.method} ${url.pathname}`);
    if (req.method !== route.method) {
      throw new HttpError(405, `${req.method} is not allowed on ${url.pathname}; use ${route.method}`, {
        allow: route.method,
      });
    }
    const body = await readBody(req, MAX_V2_BODY_BYTES);
    const plan = state.faults.plan(route.endpoint, state.now());
    // The service counts a request when it arrives and answers a round trip later: where round
    // trips vary, answers come back in another order than the requests were counted.
    const counted = count(state, route, req, plan.rateLimitHeaders, logEntry);
    if (plan.delayMs > 0) await sleep(plan.delayMs, undefined, { signal });
    answerHeaders = counted.headers;
    if ("refused" in counted) throw counted.refused;

    const fault = plan.preCommit;
    if (fault !== undefined) {
      logEntry.fault = fault.fault;
      if (fault.kind === "drop") {
        req.socket.destroy();
        return;
      }
      logEntry.status = fault.status;
      sendRaw(res, fault.status, fault.body, fault.contentType, { ...answerHeaders, ...fault.headers });
      return;
    }

    const result = route.handle({ state, req, url, body, plan, logEntry });
    if (result.kind === "lost") {
      logEntry.fault = "loseResponseAfterCommit";
      req.socket.destroy();
      return;
    }
    logEntry.status = result.status;
    sendJson(res, result.status, result.body, answerHeaders);
  } catch (error) {
    if (signal.aborted) {
      req.socket.destroy();
      return;
    }
    const status = error instanceof HttpError ? error.status : 500;
    const message = redact(error instanceof Error ? error.message : String(error));
    const headers = { ...answerHeaders, ...(error instanceof HttpError ? error.headers : {}) };
    logEntry.status = status;
    logEntry.error ??= message;
    sendJson(res, status, { error: message }, headers);
  }
}
