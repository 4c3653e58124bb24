/**
 * The admin API under `/admin/` (no auth; the server only listens on loopback). Lets tests and
 * tools inspect and steer the emulator: entries, ledger, request log, seeding, plan, account
 * fields, faults, reset. Every response is JSON; every error is `{"error": …}` naming the field.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { entryToJson } from "./dlq-entry";
import { HttpError, parseJsonBody, readBody, sendJson, show } from "./http";
import type { EmulatorState } from "./state";

/** Largest accepted admin request body. */
export const MAX_ADMIN_BODY_BYTES = 64 * 1_048_576;

/** Endpoint list served by `GET /admin`. */
export const ADMIN_ENDPOINTS: readonly string[] = [
  "GET /admin/entries?limit=100&offset=0",
  "POST /admin/entries  [partial entries]",
  "DELETE /admin/entries/:dlqId",
  "GET /admin/ledger?dlqId=",
  "GET /admin/requests?since=0&limit=",
  "GET /admin/stats",
  "POST /admin/reset",
  "POST /admin/seed  {count, seed, runIds}",
  "GET /admin/account",
  "PUT /admin/plan  {plan}",
  "PATCH /admin/account  {field: value}",
  "GET /admin/faults",
  "PUT /admin/faults  FaultConfig",
  "GET /admin/rate-limit",
  "PUT /admin/rate-limit  {enabled}",
  "PUT /admin/other-client  {requestsPerSecond}",
  "GET /admin/daily-limit",
  "PUT /admin/daily-limit  {limit: n | null}",
  "POST /admin/daily-limit/new-day",
];

/**
 * A non-negative integer query parameter.
 *
 * @param url - the request URL.
 * @param name - parameter name.
 * @param fallback - value when absent.
 * @param max - largest accepted value.
 */
function intParam(url: URL, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = url.searchParams.get(name);
  if (raw === null) return fallback;
  if (!/^[0-9]+$/.test(raw) || Number(raw) > max) {
    throw new HttpError(400, `${name} must be an integer from 0 to ${max}, got ${show(raw)}`);
  }
  return Number(raw);
}

/**
 * Run a state change that throws plain Errors for bad input, turning them into 400s.
 *
 * @param change - the change.
 */
function badRequestOnError<T>(change: () => T): T {
  try {
    return change();
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw new HttpError(400, (error as Error).message);
  }
}

/**
 * The body of `GET /admin/rate-limit`: whether the limit is on, the limit now in force (the
 * account's `max_requests_per_second`) and the counters.
 *
 * @param state - the emulator state.
 */
function rateLimitView(state: EmulatorState): Record<string, unknown> {
  return {
    enabled: state.rateLimit.enabled,
    maxRequestsPerSecond: state.account.maxRequestsPerSecond ?? null,
    otherClientLoad: state.rateLimit.otherClientLoad,
    stats: state.rateLimit.stats(),
  };
}

/**
 * The one field of an admin body `{"<field>": value}`, refusing any other field.
 *
 * @param input - the parsed body.
 * @param field - the expected field.
 * @param what - the endpoint, for messages.
 */
function onlyField(input: unknown, field: string, what: string): unknown {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new HttpError(400, `${what} body must be {"${field}": …}, got ${show(input)}`);
  }
  const extra = Object.keys(input).filter((k) => k !== field);
  if (extra.length > 0) throw new HttpError(400, `unknown ${what} field ${show(extra[0])}; known: ${field}`);
  if (!(field in input)) throw new HttpError(400, `${what} body must have ${show(field)}`);
  return (input as Record<string, unknown>)[field];
}

/**
 * The account limits' admin routes: the per-second limit, the other client's load and the
 * daily limit.
 *
 * @returns status and body, or `undefined` when the route is not one of them.
 */
function dispatchLimits(
  state: EmulatorState,
  route: string,
  body: () => unknown,
): [number, unknown] | undefined {
  switch (route) {
    case "GET /admin/rate-limit":
      return [200, rateLimitView(state)];
    case "PUT /admin/rate-limit":
      return [200, setRateLimit(state, body())];
    case "PUT /admin/other-client": {
      const load = onlyField(body(), "requestsPerSecond", "other-client");
      badRequestOnError(() => state.rateLimit.setOtherClientLoad(load));
      return [200, rateLimitView(state)];
    }
    case "GET /admin/daily-limit":
      return [200, state.dailyLimit.view()];
    case "PUT /admin/daily-limit": {
      const limit = onlyField(body(), "limit", "daily-limit");
      badRequestOnError(() => state.dailyLimit.setLimit(limit));
      return [200, state.dailyLimit.view()];
    }
    case "POST /admin/daily-limit/new-day":
      state.dailyLimit.newDay();
      return [200, state.dailyLimit.view()];
    default:
      return undefined;
  }
}

/**
 * Handle a request whose path starts with `/admin`.
 *
 * @param state - the emulator state.
 * @param req - the request.
 * @param res - the response.
 * @param url - the parsed request URL.
 */
export async function handleAdmin(
  state: EmulatorState,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  try {
    const text = await readBody(req, MAX_ADMIN_BODY_BYTES);
    const body = (): unknown => parseJsonBody(text);
    const route = `${req.method} ${url.pathname.replace(/\/+$/, "")}`;
    const [status, result] = dispatch(state, route, url, body);
    sendJson(res, status, result);
  } catch (error) {
    const status = error instanceof HttpError ? error.status : 500;
    sendJson(res, status, { error: error instanceof Error ? error.message : String(error) });
  }
}

/**
 * Route an admin request.
 *
 * @param state - the emulator state.
 * @param route - "METHOD /path" without a trailing slash.
 * @param url - the request URL.
 * @param body - reads the JSON body.
 * @returns status and JSON body.
 */
function dispatch(state: EmulatorState, route: string, url: URL, body: () => unknown): [number, unknown] {
  const deleteMatch = /^DELETE \/admin\/entries\/([^/]+)$/.exec(route);
  if (deleteMatch !== null) return deleteEntry(state, decodeURIComponent(deleteMatch[1]));
  const limits = dispatchLimits(state, route, body);
  if (limits !== undefined) return limits;
  switch (route) {
    case "GET /admin":
      return [200, { endpoints: ADMIN_ENDPOINTS }];
    case "GET /admin/entries": {
      const limit = intParam(url, "limit", 100, 10_000);
      const offset = intParam(url, "offset", 0);
      const entries = state.dlq.page(offset, limit).map(entryToJson);
      return [200, { count: state.dlq.size, offset, limit, entries }];
    }
    case "POST /admin/entries": {
      const added = badRequestOnError(() => state.addEntries(body()));
      return [201, { added: added.length, dlqIds: added.map((e) => e.dlqId), count: state.dlq.size }];
    }
    case "GET /admin/ledger": {
      const only = url.searchParams.get("dlqId");
      const byDlqId: Record<string, unknown> = {};
      if (only !== null) byDlqId[only] = state.ledger.runsFor(only);
      else for (const [dlqId, runs] of state.ledger.entries()) byDlqId[dlqId] = runs;
      return [200, { ...state.ledger.totals(), byDlqId }];
    }
    case "GET /admin/requests": {
      const since = intParam(url, "since", 0);
      const limit = intParam(url, "limit", Number.MAX_SAFE_INTEGER);
      const requests = state.log.since(since, limit);
      const next =
        requests.length > 0
          ? requests[requests.length - 1].index + 1
          : Math.max(since, state.log.oldestIndex);
      return [200, { total: state.log.total, oldestIndex: state.log.oldestIndex, next, requests }];
    }
    case "GET /admin/stats":
      return [200, state.dlq.stats()];
    case "POST /admin/reset":
      state.reset();
      return [200, { reset: true }];
    case "POST /admin/seed": {
      const input = body();
      if (typeof input !== "object" || input === null || Array.isArray(input)) {
        throw new HttpError(
          400,
          `seed body must be {"count": n, "seed": s, "runIds": shape}, got ${show(input)}`,
        );
      }
      const { count, seed, runIds } = input as Record<string, unknown>;
      const added = badRequestOnError(() => state.seed(count, seed ?? 1, runIds ?? state.runIds));
      return [200, { added, count: state.dlq.size }];
    }
    case "GET /admin/account":
      return [200, state.account.record];
    case "PUT /admin/plan": {
      const input = body();
      const plan =
        typeof input === "object" && input !== null ? (input as Record<string, unknown>).plan : input;
      return [200, badRequestOnError(() => state.account.setPlan(plan, state.now()))];
    }
    case "PATCH /admin/account":
      return [200, badRequestOnError(() => state.account.patch(body()))];
    case "GET /admin/faults":
      return [200, { config: state.faults.config, stats: state.faults.stats() }];
    case "PUT /admin/faults":
      return [200, { config: badRequestOnError(() => state.faults.configure(body() ?? {})) }];
    default:
      throw new HttpError(404, `no such admin endpoint: ${route}; see GET /admin`);
  }
}

/** `DELETE /admin/entries/{dlqId}`: removes one entry (404 when it is not in the DLQ). */
function deleteEntry(state: EmulatorState, dlqId: string): [number, unknown] {
  if (!state.dlq.remove(dlqId)) throw new HttpError(404, `dlqId ${show(dlqId)} is not in the DLQ`);
  state.dlq.maybeCompact();
  return [200, { deleted: dlqId, count: state.dlq.size }];
}

/** `PUT /admin/rate-limit` with body `{"enabled": true|false}`: returns the new view. */
function setRateLimit(state: EmulatorState, input: unknown): unknown {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new HttpError(400, `rate-limit body must be {"enabled": true|false}, got ${show(input)}`);
  }
  const { enabled, ...rest } = input as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0)
    throw new HttpError(400, `unknown rate-limit field ${show(extra[0])}; known: enabled`);
  badRequestOnError(() => state.rateLimit.setEnabled(enabled));
  return rateLimitView(state);
}
