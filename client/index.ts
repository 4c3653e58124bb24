/**
 * Typed HTTP client of the svc bulk-resume and account APIs, and the wire grammar it sends. The
 * drains (cursor, windows, by IDs), the rate gates and the planner are in `pulumi-svc/drain`,
 * whose `DrainClient` wraps this entry point's {@link SvcClient}; nothing of them is exported here.
 *
 * @packageDocumentation
 */
import "./requireNode"; // first: one clear error on a Node.js older than 22.19
export { SvcClient, RESUME_PATH, ACCOUNT_PATH } from "./SvcClient";
export type { ResumeRequest } from "./SvcClient";
export type { CallState } from "./request";
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
