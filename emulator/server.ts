/**
 * The node:http server: parses the URL and hands `/v2/…` to the service pipeline and `/admin…`
 * to the admin API; anything else is a JSON 404.
 */
import type { Server } from "node:http";
import { createServer } from "node:http";
import { handleAdmin } from "./admin";
import { sendJson } from "./http";
import type { EmulatorState } from "./state";
import { handleV2 } from "./request-pipeline";

/**
 * Create (but do not start) the HTTP server for a state.
 *
 * @param state - the emulator state.
 * @param signal - aborted when the emulator closes; cuts injected latency short.
 */
export function createEmulatorServer(state: EmulatorState, signal: AbortSignal): Server {
  return createServer((req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://emulator.invalid");
    } catch {
      sendJson(res, 400, { error: `request target ${JSON.stringify(req.url)} is not a valid path` });
      return;
    }
    const path = url.pathname;
    const work =
      path === "/v2" || path.startsWith("/v2/")
        ? handleV2(state, req, res, url, signal)
        : path === "/admin" || path.startsWith("/admin/")
          ? handleAdmin(state, req, res, url)
          : Promise.resolve(sendJson(res, 404, { error: `no such endpoint: ${req.method} ${path}` }));
    work.catch((error: unknown) => {
      sendJson(res, 500, { error: state.redact(`internal emulator error: ${(error as Error).message}`) });
    });
  });
}
