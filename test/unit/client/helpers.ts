/**
 * Shared fixtures for the client and drain unit tests: a MockAgent with net connect disabled, a
 * client wired to it with deterministic randomness and a recorded (instant) sleep, the drains on
 * that client, and a fake DLQ that pages like the service.
 */
import { MockAgent, type Interceptable } from "undici";
import { SvcClient } from "../../../client";
import type { AccountRecord, RetryEvent, SvcClientOptions } from "../../../client";
import { DrainClient } from "../../../drain";

export const ORIGIN = "http://127.0.0.1:4000";
export const RESUME_PATH = "/v2/workflows/dlq/resume";
export const ACCOUNT_PATH = "/v2/svc/user";
export const TOKEN = "tok_SUPERSECRET_8f3a91c2d4";
export const USERNAME = "ops@svc.invalid";
export const PASSWORD = "pw_SUPERSECRET_77e01b";
export const BASIC = Buffer.from(`${USERNAME}:${PASSWORD}`).toString("base64");
/** A whole-second unix-ms instant, so HTTP dates round-trip exactly. */
export const T0 = 1_750_000_000_000;

/** What a mocked endpoint saw. */
export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  body: unknown;
}

/** Lower-cases header names of a MockAgent callback's headers. */
export function normHeaders(h: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (h && typeof h === "object") {
    for (const [k, v] of Object.entries(h as Record<string, unknown>)) out[k.toLowerCase()] = String(v);
  }
  return out;
}

/** Converts a MockAgent reply-callback argument into a {@link SeenRequest}. */
export function seen(opts: { path: string; method: string; headers?: unknown; body?: unknown }): SeenRequest {
  const [path, qs = ""] = opts.path.split("?", 2);
  return {
    method: opts.method,
    path,
    query: new URLSearchParams(qs),
    headers: normHeaders(opts.headers),
    body: opts.body,
  };
}

/** A MockAgent-backed client and the records of what happened. */
export interface Harness {
  agent: MockAgent;
  pool: Interceptable;
  client: SvcClient;
  /** The drains, sending through {@link client}. */
  drains: DrainClient;
  sleeps: number[];
  retries: RetryEvent[];
  clock: { now: number };
  close(): Promise<void>;
}

/** Creates a client on a MockAgent (net connect disabled), `random` fixed at 0.5, instant sleep. */
export function harness(options: Partial<SvcClientOptions> = {}, origin = ORIGIN): Harness {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(origin);
  const sleeps: number[] = [];
  const retries: RetryEvent[] = [];
  const clock = { now: T0 };
  const client = new SvcClient({
    baseUrl: origin,
    accountApiUrl: origin,
    token: TOKEN,
    username: USERNAME,
    password: PASSWORD,
    dispatcher: agent,
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock.now += ms;
    },
    now: () => clock.now,
    onRetry: (e) => retries.push(e),
    ...options,
  });
  return {
    agent,
    pool,
    client,
    drains: new DrainClient(client),
    sleeps,
    retries,
    clock,
    async close() {
      await client.close();
      await agent.close();
    },
  };
}

/** Matches the resume path with any query. */
export const resumePath = (p: string): boolean => p.split("?")[0] === RESUME_PATH;

/** A JSON reply with the right content type. */
export function json(statusCode: number, data: unknown, headers: Record<string, string> = {}) {
  return {
    statusCode,
    data: JSON.stringify(data),
    responseOptions: { headers: { "content-type": "application/json", ...headers } },
  };
}

/**
 * A fake DLQ of `n` entries answering resume requests like the service: at most 50 runs per
 * request, entries removed when resumed, cursor = next offset, `""` when done.
 */
export function pagingDlq(pool: Interceptable, n: number) {
  const requests: SeenRequest[] = [];
  let remaining = n;
  let next = 0;
  pool
    .intercept({ path: resumePath, method: "POST" })
    .reply((opts) => {
      const req = seen(opts);
      requests.push(req);
      const take = Math.min(50, remaining);
      const workflowRuns = Array.from({ length: take }, (_, i) => ({
        workflowRunId: `wfr_${next + i}`,
        workflowCreatedAt: T0 + next + i,
      }));
      next += take;
      remaining -= take;
      return json(200, { cursor: remaining > 0 ? `c${next}` : "", workflowRuns });
    })
    .persist();
  return { requests };
}

/** A valid account record (the documented free plan, with placeholder identity values). */
export function accountRecord(): AccountRecord {
  return {
    customer_id: USERNAME,
    id: "6f1c2a1e-7d1b-4f4e-9c7a-2b0a8e0c9d11",
    password: PASSWORD,
    token: TOKEN,
    active: true,
    state: "active",
    last_plan_upgrade_time: 1_700_000_000,
    max_message_size: 1_048_576,
    max_requests_per_day: 1000,
    max_requests_per_day_hard: 1000,
    max_endpoints_per_topic: 100,
    max_requests_per_second: 100,
    max_dlq_size: 1_000_000,
    max_retries: 999,
    max_topics: 1,
    max_schedules: 10,
    max_events_size: 10_000,
    max_dlq_retention_time_milis: 259_200_000,
    max_delay: 604_800,
    max_parallelism: 2,
    max_global_parallelism: 10,
    max_queues: 10,
    prod_pack_enabled: false,
    timeout: 900,
    type: "free",
    reserved_type: "",
    reserved_price: 0,
    created_by: USERNAME,
    creation_time: 1_690_000_000,
  };
}

/** Awaits a promise expected to reject and returns the rejection. */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected the promise to reject");
}
