/**
 * The emulator in a child process of its own (emulator/cli.ts), so that on a 2-core machine the
 * service and the code under test each get a core and the bench never measures the emulator's
 * work as the client's. Steered through its admin API, outside every timed section.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { request } from "undici";

/** The repository root. */
export const REPO_ROOT = path.resolve(__dirname, "..", "..");

/** Credentials of every bench emulator (loopback only, throwaway). */
export const CREDS = {
  token: "bench-token-5f1c2a",
  username: "bench@example.com",
  password: "bench-password-7d3e",
} as const;

/** A running emulator child process. */
export interface EmulatorProcess {
  url: string;
  child: ChildProcess;
  /** Calls the admin API; throws on a non-2xx answer. */
  admin(method: "GET" | "POST" | "PUT", route: string, body?: unknown): Promise<unknown>;
  /** Empties the DLQ, ledger and request log and clears faults, then seeds `count` entries. */
  reseed(count: number, seed?: number): Promise<void>;
  /** Number of `/v2` requests since the last reset. */
  requestTotal(): Promise<number>;
  close(): Promise<void>;
}

/** The URL the emulator child prints once it listens; rejects when it exits first or takes over 120 s. */
function emulatorUrl(child: ChildProcess): Promise<string> {
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  return new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`emulator did not start in 120 s: ${stderr}`)), 120_000);
    child.stdout?.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`emulator exited with ${code}: ${stderr}`));
    });
  });
}

/**
 * Starts `emulator/cli.ts` with `dlq` seeded entries and waits for its URL. The account rate
 * limit is off unless `rateLimit` is true: most benchmarks measure the client, not the limit.
 */
export async function startEmulatorProcess(
  dlq = 0,
  plan = "payg",
  rateLimit = false,
): Promise<EmulatorProcess> {
  const child = spawn(
    process.execPath,
    [
      "-r",
      "ts-node/register/transpile-only",
      "emulator/cli.ts",
      "--port",
      "0",
      "--dlq",
      String(dlq),
      "--plan",
      plan,
      ...(rateLimit ? [] : ["--no-rate-limit"]),
      "--token",
      CREDS.token,
      "--username",
      CREDS.username,
      "--password",
      CREDS.password,
    ],
    { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  const url = await emulatorUrl(child);

  const admin = async (method: "GET" | "POST" | "PUT", route: string, body?: unknown): Promise<unknown> => {
    const res = await request(`${url}${route}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} ${route}: ${res.statusCode} ${text}`);
    return JSON.parse(text) as unknown;
  };
  let seedCounter = 1;
  return {
    url,
    child,
    admin,
    async reseed(count, seed) {
      await admin("POST", "/admin/reset");
      if (count > 0) await admin("POST", "/admin/seed", { count, seed: seed ?? seedCounter++ });
    },
    async requestTotal() {
      const r = (await admin("GET", "/admin/requests?since=0&limit=0")) as { total: number };
      return r.total;
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/**
 * CPU time of a process in ms, from /proc: the sum over its threads of the nanosecond run time in
 * `task/<tid>/schedstat` (GC and libuv threads included), or else utime + stime of `stat`
 * (10 ms ticks). NaN when neither is readable.
 */
export function processCpuMs(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    let ns = 0;
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      } catch {
        // the thread ended
      }
    }
    if (ns > 0) return ns / 1e6;
  } catch {
    // no schedstat: fall back to clock ticks
  }
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const rest = f.slice(f.lastIndexOf(")") + 2).split(" ");
    return (Number(rest[11]) + Number(rest[12])) * 10;
  } catch {
    return NaN;
  }
}
