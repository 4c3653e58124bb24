/**
 * Typed HTTP client of the svc bulk-resume and account APIs.
 *
 * @packageDocumentation
 */
export { SvcClient, RESUME_PATH, ACCOUNT_PATH } from "./SvcClient";
export { SvcError, DrainError, isSvcError } from "./errors";
export type { SvcErrorCode, SvcErrorDetails } from "./errors";
export {
  flowControlHeaderValue,
  overrideHeaders,
  FLOW_CONTROL_KEY_HEADER,
  FLOW_CONTROL_VALUE_HEADER,
  RETRIES_HEADER,
} from "./headers";
export { validateAccountRecord, validateResumePage } from "./validate";
export { DEFAULT_RETRY_POLICY, parseRetryAfter, parseRateLimitReset } from "./retry";
export { isLoopbackHost } from "./transport";
export { MAX_RUNS_PER_REQUEST } from "./query";
export { DEFAULT_MAX_EMPTY_PAGES, DEFAULT_CONCURRENCY } from "./drain";
export type {
  AccountRecord,
  DlqSelection,
  DrainOptions,
  DrainPageEvent,
  DrainProgress,
  DrainResult,
  FlowControlOverride,
  ResumeBatchEvent,
  ResumeByIdsOptions,
  ResumedRun,
  ResumeOverrides,
  ResumePage,
  RetryEvent,
  RetryPolicy,
  SvcClientOptions,
} from "./types";
