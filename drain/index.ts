/**
 * The drains of the svc client: the cursor drain, the resume of DLQ IDs in batches and the
 * windowed drain (its planner, `windowPlan.ts`, and runner, `windowDrain.ts`), with the
 * per-account rate gates that pace them. They send their requests through the HTTP client of
 * `pulumi-svc/client`: {@link DrainClient} wraps its `SvcClient`.
 *
 * @packageDocumentation
 */
import "../client/requireNode"; // first: one clear error on a Node.js older than 22.19
export { DrainClient } from "./DrainClient";
export { DrainError } from "./errors";
export { DEFAULT_CONCURRENCY, DEFAULT_MAX_EMPTY_PAGES, MAX_NOT_FOUND_NARROWED } from "./cursorDrain";
export { drainWindows, DEFAULT_WINDOW_CONCURRENCY } from "./windowDrain";
export { MAX_IN_FLIGHT } from "./inFlight";
export type { WindowStep, WindowDrainProgress } from "./windowDrain";
export {
  DEFAULT_HORIZON_MS,
  DEFAULT_WINDOW_ALLOWANCE,
  WINDOW_OVERHEAD,
  DAILY_LIMIT_SHARE,
  LARGE_DRAIN_CREDIT,
  SMALL_DRAIN_RUNS,
  MAX_SAVED_WINDOWS,
} from "./planKnobs";
export { requestAllowance, windowAllowance, validateWindowState } from "./windows";
export { RateGate, RateGateRegistry, accountRateGates, accountKey, CAUTIOUS_START_RATE } from "./rateGate";
export type { RateGateOptions, RateGateStats } from "./rateGate";
export type {
  AccountGate,
  DrainOptions,
  DrainPageEvent,
  DrainProgress,
  DrainResult,
  DrainWindow,
  DrainWindowsOptions,
  GateStatus,
  OpenWindow,
  ResumeBatchEvent,
  ResumeByIdsOptions,
  ShortBatch,
  UnpacedWindowDrainOptions,
  WindowDrainOptions,
  WindowDrainState,
  WindowPageEvent,
} from "./types";
