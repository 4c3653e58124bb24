/**
 * Typed HTTP client of the svc bulk-resume and account APIs. The drains (cursor, windows, by IDs),
 * the rate gates and the planner are in `pulumi-svc/drain`; what of them this entry point
 * exported in 0.2 is re-exported at the end, so that code written for 0.2 keeps working.
 *
 * @packageDocumentation
 */
import "./requireNode"; // first: one clear error on a Node.js older than 22.19
export { RESUME_PATH, ACCOUNT_PATH } from "./SvcClient";
export { SvcError, isSvcError } from "./errors";
export type { SvcErrorCode, SvcErrorDetails } from "./errors";
export {
  flowControlHeaderValue,
  overrideHeaders,
  FLOW_CONTROL_KEY_HEADER,
  FLOW_CONTROL_VALUE_HEADER,
  RETRIES_HEADER,
} from "./headers";
export { validateAccountRecord, validateResumePage } from "./validate";
export { ACCOUNT_RECORD_FIELDS, ACCOUNT_FIELD_LIST, SECRET_ACCOUNT_OUTPUTS } from "./accountRecord";
export type {
  AccountFieldKind,
  AccountFieldSpec,
  AccountFieldUnit,
  AccountFieldValue,
  AccountOutputName,
  AccountRecordField,
} from "./accountRecord";
export { DEFAULT_RETRY_POLICY, parseRetryAfter, parseRateLimitReset, parseRateLimitHeaders } from "./retry";
export type { RateLimitHeaders } from "./retry";
export { isLoopbackHost } from "./transport";
export {
  DURATION_UNITS,
  FILTER_FIELDS,
  FLOW_CONTROL_FIELDS,
  MAX_FLOW_CONTROL_KEY_LENGTH,
  MAX_HEADER_INTEGER,
  MAX_PERIOD,
  MAX_RUNS_PER_REQUEST,
  SELECTION_FIELDS,
  SELECTION_FIELD_KINDS,
  flowControlProblems,
  isSet,
  retriesProblems,
  selectionProblems,
  unknownFlowControlFields,
  usernameProblem,
} from "./contract";
export type {
  DlqSelection,
  FilterField,
  FlowControlOverride,
  Problem,
  ProblemCode,
  ProblemOptions,
  ResumeOverrides,
  SelectionField,
  SelectionProblemOptions,
} from "./contract";
export { resumeQuery } from "./query";
export { formatValue, sentences, typeName } from "./messageText";
export type { FormatValueOptions } from "./messageText";
/** @deprecated Since 0.3.0: renamed {@link formatValue} (it formats a value for a message). */
export { formatValue as show } from "./messageText";
/** @deprecated Since 0.3.0: renamed {@link FormatValueOptions}. */
export type { FormatValueOptions as ShowOptions } from "./messageText";
export type {
  AccountRecord,
  ResumedRun,
  ResumePage,
  RetryEvent,
  RetryPolicy,
  SvcClientOptions,
} from "./types";

// Re-exported from `pulumi-svc/drain` for code written for 0.2: import them from there.
/** The HTTP client with the drains: `DrainClient` of `pulumi-svc/drain`. */
export { DrainClient as SvcClient } from "../drain/DrainClient";
export { DrainError } from "../drain/errors";
/** @deprecated Since 0.3.0: import it from `pulumi-svc/drain`. */
export { drainWindows } from "../drain/windowDrain";
/** @deprecated Since 0.3.0: import it from `pulumi-svc/drain`. */
export { RateGateRegistry } from "../drain/rateGate";
/** @deprecated Since 0.3.0: import it from `pulumi-svc/drain`. */
export { accountRateGates } from "../drain/rateGate";
/** @deprecated Since 0.3.0: import it from `pulumi-svc/drain`. */
export { DEFAULT_CONCURRENCY } from "../drain/cursorDrain";
export { RateGate, accountKey, CAUTIOUS_START_RATE } from "../drain/rateGate";
export type { RateGateOptions, RateGateStats } from "../drain/rateGate";
export { DEFAULT_WINDOW_CONCURRENCY } from "../drain/windowDrain";
export type { WindowStep, WindowDrainProgress } from "../drain/windowDrain";
export {
  DEFAULT_HORIZON_MS,
  DEFAULT_WINDOW_ALLOWANCE,
  WINDOW_OVERHEAD,
  DAILY_LIMIT_SHARE,
  LARGE_DRAIN_CREDIT,
  SMALL_DRAIN_RUNS,
  MAX_SAVED_WINDOWS,
} from "../drain/planKnobs";
export { requestAllowance, windowAllowance, validateWindowState } from "../drain/windows";
export { DEFAULT_MAX_EMPTY_PAGES, MAX_NOT_FOUND_NARROWED } from "../drain/cursorDrain";
export type {
  AccountGate,
  DrainWindow,
  DrainWindowsOptions,
  GateStatus,
  OpenWindow,
  UnpacedWindowDrainOptions,
  WindowDrainOptions,
  WindowDrainState,
  WindowPageEvent,
  DrainOptions,
  DrainPageEvent,
  DrainProgress,
  DrainResult,
  ResumeBatchEvent,
  ResumeByIdsOptions,
  ShortBatch,
} from "../drain/types";
