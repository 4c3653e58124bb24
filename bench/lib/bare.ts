/**
 * The floor: bare undici requests on one keep-alive `Pool`, the way the client's transport
 * holds its connections, with nothing else — no retries, validation, redaction or timers.
 */
import { Pool } from "undici";
import { CREDS } from "./emulator";

/** Path of the resume endpoint. */
export const RESUME_PATH = "/v2/workflows/dlq/resume";

/** The headers the client sends on a resume request without overrides. */
export const RESUME_HEADERS = {
  authorization: `Bearer ${CREDS.token}`,
  accept: "application/json",
  "user-agent": "pulumi-svc-client/0.1",
} as const;

/** A keep-alive pool to `origin`. */
export function barePool(origin: string): Pool {
  return new Pool(origin);
}

/** One resume request; returns the raw body text (the status must be 200). */
export async function bareResume(pool: Pool, query = ""): Promise<string> {
  const res = await pool.request({ path: `${RESUME_PATH}${query}`, method: "POST", headers: RESUME_HEADERS });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`resume: ${res.statusCode} ${text}`);
  return text;
}

/**
 * A bare drain: sequential requests following the cursor until the service returns none
 * (the same requests on the wire as `DrainClient.drain` with no filter). Returns
 * [requests, runs resumed].
 */
export async function bareDrain(pool: Pool): Promise<[number, number]> {
  let cursor = "";
  let requests = 0;
  let runs = 0;
  do {
    const page = JSON.parse(
      await bareResume(pool, cursor === "" ? "" : `?cursor=${encodeURIComponent(cursor)}`),
    ) as { cursor: string; workflowRuns: unknown[] };
    requests += 1;
    runs += page.workflowRuns.length;
    cursor = page.cursor;
  } while (cursor !== "");
  return [requests, runs];
}
