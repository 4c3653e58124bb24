/**
 * Local emulator of the svc workflow DLQ-resume and account API, for tests and local runs.
 *
 * `startEmulator()` starts a real HTTP server on loopback that serves both the resume API and the
 * account API at the same base URL, plus an admin API under `/admin/`. See `emulator/README.md`
 * for the file map.
 */
import type { AccountRecord } from "./account";
import type { DlqEntry } from "./dlq-entry";
import type { FaultConfig } from "./fault-config";
import type { EmulatorOptions } from "./options";
import { resolveOptions } from "./options";
import type { PlanName } from "./plans";
import type { RunIdShape } from "./run-ids";
import { createEmulatorServer } from "./server";
import { EmulatorState } from "./state";

export type { AccountRecord } from "./account";
export type { DlqEntry, StepState, WorkflowStep, RunState } from "./dlq-entry";
export type { FaultConfig, RateLimitFault, FaultEndpoint } from "./fault-config";
export type { LedgerTotals, ResumedRun, ResumedStep } from "./ledger";
export type { EffectiveSettings, FlowControlValue, Overrides } from "./overrides";
export type { LoggedRequest } from "./request-log";
export type { RateDecision, RateLimitStats } from "./rate-limit";
export type { DailyDecision, DailyLimitView } from "./daily-limit";
export type { EmulatorOptions } from "./options";
export type { PlanName, PlanLimits } from "./plans";
export { PLAN_PRESETS } from "./plans";
export type { RunIdShape } from "./run-ids";
export { RUN_ID_SHAPES, RunIdMaker } from "./run-ids";
export { EmulatorState } from "./state";
export { MAX_RUNS_PER_REQUEST } from "./resume-request";

/** A started emulator. */
export interface RunningEmulator {
  /** Base URL, e.g. "http://127.0.0.1:PORT"; serves the resume API, the account API and `/admin/`. */
  readonly url: string;
  /** The TCP port. */
  readonly port: number;
  /** The loopback host it listens on. */
  readonly host: string;
  /** URL of the admin API index, `${url}/admin`. */
  readonly adminUrl: string;
  /** Direct access to the DLQ, ledger, request log, faults and account. */
  readonly state: EmulatorState;
  /** Stop listening, drop open connections and cut pending latency short. Idempotent. */
  close(): Promise<void>;
  /**
   * Replace the fault configuration (restarts request numbering).
   *
   * @throws Error naming the field and the value when invalid.
   */
  setFaults(config: FaultConfig): FaultConfig;
  /**
   * Turn the account's rate limit on the resume API on or off (see `EmulatorOptions.rateLimit`).
   *
   * @throws Error naming the value when it is not a boolean.
   */
  setRateLimit(enabled: boolean): boolean;
  /**
   * Set the account's daily limit on resume requests (requests per UTC day); `undefined` turns
   * it off (see `EmulatorOptions.dailyLimit`).
   *
   * @throws Error naming the value when it is not a positive integer.
   */
  setDailyLimit(limit: number | undefined): number | undefined;
  /** Start a new day of the daily limit now: every account's count starts over. */
  newDay(): void;
  /**
   * Simulate another client that uses `load` requests of every one-second window (0: none).
   *
   * @throws Error naming the value when it is not a non-negative integer.
   */
  setOtherClientLoad(load: number): number;
  /** Switch the account to a plan preset; updates `last_plan_upgrade_time`; the rate limit follows. */
  setPlan(plan: PlanName): AccountRecord;
  /**
   * Add `count` deterministic failed runs, their run IDs of shape `runIds` (default: the
   * emulator's `runIds` option); returns the number added.
   */
  seed(count: number, seed?: number, runIds?: RunIdShape): number;
  /** Add entries from partial entries (see `POST /admin/entries`). */
  addEntries(entries: readonly Record<string, unknown>[]): DlqEntry[];
  /** Empty the DLQ, ledger and request log and clear faults. */
  reset(): void;
}

/**
 * Start the emulator.
 *
 * @param options - port, host, seeding, plan, credentials, faults, clock.
 * @returns the running emulator once it listens.
 * @throws Error naming the option and the value when an option is invalid, or the listen error.
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const resolved = resolveOptions(options);
  const state = new EmulatorState(resolved);
  state.faults.configure(resolved.faults);
  if (resolved.dlq > 0) state.seed(resolved.dlq, resolved.seed);

  const closing = new AbortController();
  const server = createEmulatorServer(state, closing.signal);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(resolved.port, resolved.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("server did not report a TCP address");
  const hostPart = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${hostPart}:${address.port}`;

  let closed: Promise<void> | undefined;
  return {
    url,
    port: address.port,
    host: address.address,
    adminUrl: `${url}/admin`,
    state,
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
    setFaults: (config) => state.faults.configure(config),
    setRateLimit: (enabled) => state.rateLimit.setEnabled(enabled),
    setDailyLimit: (limit) => state.dailyLimit.setLimit(limit),
    newDay: () => state.dailyLimit.newDay(),
    setOtherClientLoad: (load) => state.rateLimit.setOtherClientLoad(load),
    setPlan: (plan) => state.account.setPlan(plan, state.now()),
    seed: (count, seed = 1, runIds = state.runIds) => state.seed(count, seed, runIds),
    addEntries: (entries) => state.addEntries(entries),
    reset: () => state.reset(),
  };
}
