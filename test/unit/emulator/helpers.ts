/**
 * Shared helpers of the emulator tests: start/stop an emulator per test, call its endpoints over
 * real loopback HTTP with the global fetch.
 */
import type { EmulatorOptions, RunningEmulator } from "../../../emulator";
import { startEmulator } from "../../../emulator";

/** Default bearer token of the emulator. */
export const TOKEN = "emulator-token";
/** Default Basic username. */
export const USERNAME = "emulator@example.com";
/** Default Basic password. */
export const PASSWORD = "emulator-password";

/** Parsed resume response. */
export interface ResumeBody {
  cursor: string;
  workflowRuns: { workflowRunId: string; workflowCreatedAt: number }[];
}

/**
 * Start an emulator for the current test and stop it in `afterEach`.
 *
 * @param options - emulator options.
 * @returns a getter for the running emulator.
 */
export function useEmulator(options: EmulatorOptions = {}): () => RunningEmulator {
  let emulator: RunningEmulator | undefined;
  beforeEach(async () => {
    emulator = await startEmulator(options);
  });
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });
  return () => {
    if (emulator === undefined) throw new Error("emulator not started");
    return emulator;
  };
}

/** Query parameters: repeated parameters as arrays. */
export type Query = Record<string, string | number | readonly (string | number)[]>;

/**
 * Build a query string.
 *
 * @param query - parameters.
 */
export function queryString(query: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v));
  }
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

/**
 * POST to the resume endpoint.
 *
 * @param emu - the emulator.
 * @param query - query fields.
 * @param headers - extra headers (Authorization defaults to the bearer token).
 * @param body - optional JSON body.
 */
export async function resumeRaw(
  emu: RunningEmulator,
  query: Query = {},
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<Response> {
  return fetch(`${emu.url}/v2/workflows/dlq/resume${queryString(query)}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/**
 * POST to the resume endpoint and expect a 200.
 *
 * @param emu - the emulator.
 * @param query - query fields.
 * @param headers - extra headers.
 */
export async function resumeOk(
  emu: RunningEmulator,
  query: Query = {},
  headers: Record<string, string> = {},
): Promise<ResumeBody> {
  const res = await resumeRaw(emu, query, headers);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${text}`);
  return JSON.parse(text) as ResumeBody;
}

/**
 * Drain with a cursor loop; returns the number of requests and all run IDs.
 *
 * @param emu - the emulator.
 * @param query - filter fields.
 */
export async function drain(
  emu: RunningEmulator,
  query: Query = {},
): Promise<{ requests: number; runs: string[] }> {
  let cursor = "";
  let requests = 0;
  const runs: string[] = [];
  do {
    const body = await resumeOk(emu, cursor === "" ? query : { ...query, cursor });
    requests++;
    runs.push(...body.workflowRuns.map((r) => r.workflowRunId));
    cursor = body.cursor;
    if (requests > 10_000) throw new Error("drain does not end");
  } while (cursor !== "");
  return { requests, runs };
}

/**
 * `Authorization: Basic …` value.
 *
 * @param username - user.
 * @param password - password.
 */
export function basic(username = USERNAME, password = PASSWORD): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;
}

/**
 * Call an admin endpoint and parse the JSON answer.
 *
 * @param emu - the emulator.
 * @param method - HTTP method.
 * @param path - path under the base URL, e.g. "/admin/entries".
 * @param body - optional JSON body.
 */
export async function admin(
  emu: RunningEmulator,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/**
 * Expect an error response: status, JSON content type, `{"error": …}` matching a pattern.
 *
 * @param res - the response.
 * @param status - expected status.
 * @param pattern - expected message pattern.
 */
export async function expectError(res: Response, status: number, pattern: RegExp): Promise<string> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
  if (!(res.headers.get("content-type") ?? "").startsWith("application/json")) {
    throw new Error(`expected JSON content type, got ${res.headers.get("content-type")}`);
  }
  const body = JSON.parse(text) as { error?: unknown };
  if (typeof body.error !== "string" || !pattern.test(body.error)) {
    throw new Error(`error ${JSON.stringify(body.error)} does not match ${pattern}`);
  }
  return body.error;
}
