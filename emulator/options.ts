/**
 * Options of {@link startEmulator}: their types, defaults and validation. The emulator only
 * listens on loopback addresses.
 */
import type { FaultConfig } from "./fault-config";
import { validateFaultConfig } from "./fault-config";
import { checkDailyLimit } from "./daily-limit";
import { show } from "./http";
import type { PlanName } from "./plans";
import { isPlanName, PLAN_NAMES } from "./plans";
import { MAX_SEED_COUNT } from "./state";
import { UNKNOWN_DLQ_IDS_MODES, type UnknownDlqIds } from "./unknown-dlq-ids";
import { DEFAULT_RUN_ID_SHAPE, RUN_ID_SHAPES, type RunIdShape } from "./run-ids";

/** Options of the emulator; all optional. */
export interface EmulatorOptions {
  /** TCP port; 0 (default) picks a free port. */
  readonly port?: number;
  /** Loopback address to listen on (default "127.0.0.1"). */
  readonly host?: string;
  /** Number of seeded failed runs at start (default 0). */
  readonly dlq?: number;
  /** Seed of the initial seeding (default 1). */
  readonly seed?: number;
  /** Account plan preset (default "free"). */
  readonly plan?: PlanName;
  /** Bearer token of the resume API (default "emulator-token"). */
  readonly token?: string;
  /** Basic username of the account API, also `customer_id` (default "emulator@example.com"). */
  readonly username?: string;
  /** Basic password of the account API (default "emulator-password"). */
  readonly password?: string;
  /** Initial fault configuration (default none). */
  readonly faults?: FaultConfig;
  /** Clock, unix ms (default `Date.now`); fix it to make seeding fully reproducible. */
  readonly now?: () => number;
  /** Request log capacity (default 100,000). */
  readonly logCapacity?: number;
  /**
   * Enforce the account's `max_requests_per_second` on the resume API, as the service does
   * (default true): 429 with `Retry-After` beyond it, `Burst-RateLimit-*` headers on every
   * authenticated answer. `false` turns it off (no counting, no headers). Not the `rateLimit`
   * fault of {@link FaultConfig}, which injects 429s on a schedule.
   */
  readonly rateLimit?: boolean;
  /**
   * The account's daily limit on resume requests, requests per UTC day (default: off). When set,
   * every resume answer carries `RateLimit-*` and a request past the limit gets 429. Off by
   * default: whether the service counts bulk resume against its daily limit is not documented.
   */
  readonly dailyLimit?: number;
  /**
   * Simulates another client of the account that uses this many requests of every one-second
   * window of the per-second limit, spread over the second (default 0).
   */
  readonly otherClientLoad?: number;
  /**
   * What a `dlqIds` batch that mixes known IDs and IDs not in the DLQ gets (default `"refuse"`:
   * 404, nothing resumed; `"resume-known"`: the known IDs are resumed, 200 with fewer runs).
   * The service's behaviour is not documented; see `resume.ts`.
   */
  readonly unknownDlqIds?: UnknownDlqIds;
  /**
   * The shape of the run IDs of seeded entries and of entries added without one (default
   * `"sdk"`, the official SDK's nanoid; `"app"`, `"mixed"`, `"numeric"`, `"hex"`: see `run-ids.ts`).
   */
  readonly runIds?: RunIdShape;
}

/** Options with every default filled in. */
export interface ResolvedOptions {
  readonly port: number;
  readonly host: string;
  readonly dlq: number;
  readonly seed: number;
  readonly plan: PlanName;
  readonly token: string;
  readonly username: string;
  readonly password: string;
  readonly faults: FaultConfig;
  readonly now: () => number;
  readonly logCapacity: number;
  readonly rateLimit: boolean;
  readonly dailyLimit?: number;
  readonly otherClientLoad: number;
  readonly unknownDlqIds: UnknownDlqIds;
  readonly runIds: RunIdShape;
}

/** The defaults. */
export const DEFAULT_OPTIONS = {
  port: 0,
  host: "127.0.0.1",
  dlq: 0,
  seed: 1,
  plan: "free",
  token: "emulator-token",
  username: "emulator@example.com",
  password: "emulator-password",
  runIds: DEFAULT_RUN_ID_SHAPE,
} as const;

/**
 * Is this a loopback host name or address?
 *
 * @param host - "127.0.0.1", "::1", "localhost", …
 */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Fill defaults and validate.
 *
 * @param options - the caller's options.
 * @throws Error naming the option and the value.
 */
export function resolveOptions(options: EmulatorOptions = {}): ResolvedOptions {
  const resolved: ResolvedOptions = {
    port: options.port ?? DEFAULT_OPTIONS.port,
    host: options.host ?? DEFAULT_OPTIONS.host,
    dlq: options.dlq ?? DEFAULT_OPTIONS.dlq,
    seed: options.seed ?? DEFAULT_OPTIONS.seed,
    plan: options.plan ?? DEFAULT_OPTIONS.plan,
    token: options.token ?? DEFAULT_OPTIONS.token,
    username: options.username ?? DEFAULT_OPTIONS.username,
    password: options.password ?? DEFAULT_OPTIONS.password,
    faults: options.faults ?? {},
    now: options.now ?? Date.now,
    logCapacity: options.logCapacity ?? 100_000,
    rateLimit: options.rateLimit ?? true,
    ...(options.dailyLimit !== undefined ? { dailyLimit: checkDailyLimit(options.dailyLimit) } : {}),
    otherClientLoad: options.otherClientLoad ?? 0,
    unknownDlqIds: options.unknownDlqIds ?? "refuse",
    runIds: options.runIds ?? DEFAULT_OPTIONS.runIds,
  };
  const int = (name: string, value: number, min: number, max: number): void => {
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new Error(`${name} must be an integer from ${min} to ${max}, got ${show(value)}`);
    }
  };
  int("port", resolved.port, 0, 65535);
  int("dlq", resolved.dlq, 0, MAX_SEED_COUNT);
  int("seed", resolved.seed, 0, Number.MAX_SAFE_INTEGER);
  int("logCapacity", resolved.logCapacity, 1, 10_000_000);
  int("otherClientLoad", resolved.otherClientLoad, 0, 1_000_000);
  if (typeof resolved.host !== "string" || !isLoopback(resolved.host)) {
    throw new Error(
      `host must be a loopback address (127.0.0.1, ::1 or localhost), got ${show(resolved.host)}`,
    );
  }
  if (!isPlanName(resolved.plan))
    throw new Error(`plan must be one of ${PLAN_NAMES.join(", ")}, got ${show(resolved.plan)}`);
  // Credential values are never echoed in messages.
  for (const name of ["token", "username", "password"] as const) {
    const value: unknown = resolved[name];
    if (typeof value !== "string" || value === "") throw new Error(`${name} must be a non-empty string`);
  }
  if (resolved.username.includes(":"))
    throw new Error("username must not contain a colon (HTTP Basic separator)");
  if (typeof resolved.rateLimit !== "boolean") {
    throw new Error(`rateLimit must be a boolean, got ${show(resolved.rateLimit)}`);
  }
  if (!UNKNOWN_DLQ_IDS_MODES.includes(resolved.unknownDlqIds)) {
    throw new Error(
      `unknownDlqIds must be one of ${UNKNOWN_DLQ_IDS_MODES.join(", ")}, got ${show(resolved.unknownDlqIds)}`,
    );
  }
  if (!RUN_ID_SHAPES.includes(resolved.runIds)) {
    throw new Error(`runIds must be one of ${RUN_ID_SHAPES.join(", ")}, got ${show(resolved.runIds)}`);
  }
  if (typeof resolved.now !== "function") throw new Error("now must be a function returning unix ms");
  validateFaultConfig(resolved.faults);
  return resolved;
}
