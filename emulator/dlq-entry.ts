/**
 * The DLQ entry model: a failed workflow run held in the dead letter queue, its steps, and the
 * validation of partial entries supplied through `POST /admin/entries`.
 */
import { randomBytes } from "node:crypto";
import { show } from "./http";

/** States of one workflow step (as named by the service). */
export type StepState = "STEP_SUCCESS" | "STEP_RETRY" | "STEP_FAILED" | "STEP_PROGRESS" | "STEP_CANCELED";

/** All step states, for validation. */
export const STEP_STATES: readonly StepState[] = [
  "STEP_SUCCESS",
  "STEP_RETRY",
  "STEP_FAILED",
  "STEP_PROGRESS",
  "STEP_CANCELED",
];

/** States of a workflow run (as named by the service). */
export type RunState = "RUN_STARTED" | "RUN_SUCCESS" | "RUN_FAILED" | "RUN_CANCELED";

/** One step of a workflow run. */
export interface WorkflowStep {
  /** Step name, unique within the run. */
  readonly name: string;
  /** Step state. */
  readonly state: StepState;
  /** Result of a completed step (any JSON value); absent for steps that did not complete. */
  readonly result?: unknown;
}

/** A failed workflow run held in the DLQ. */
export interface DlqEntry {
  /** Insertion sequence number, assigned by {@link DlqStore.insert}; strictly increasing. */
  seq: number;
  /** DLQ ID, unique among live entries. */
  readonly dlqId: string;
  /** ID of the failed run. */
  readonly workflowRunId: string;
  /** URL of the workflow (exact-match filter `workflowUrl`). */
  readonly workflowUrl: string;
  /** Creation time of the failed run, unix ms (filter `workflowCreatedAt`). */
  readonly workflowCreatedAt: number;
  /** When the entry entered the DLQ, unix ms. */
  readonly createdAt: number;
  /** When the run failed, unix ms (filters `fromDate`/`toDate`). */
  readonly failedAt: number;
  /** URL of the failed step's request. */
  readonly url: string;
  /** HTTP method of the failed step's request. */
  readonly method: string;
  /** Headers of the failed step's request. */
  readonly header: Readonly<Record<string, readonly string[]>>;
  /** Body of the failed step's request. */
  readonly body: string;
  /** Retries configured for the run's steps. */
  readonly maxRetries: number;
  /** Status of the last failed delivery. */
  readonly responseStatus: number;
  /** Body of the last failed delivery. */
  readonly responseBody: string;
  /** Flow-control key of the run, if any. */
  readonly flowControlKey: string | undefined;
  /** Flow-control parallelism, if set. */
  readonly parallelism: number | undefined;
  /** Flow-control rate, if set. */
  readonly rate: number | undefined;
  /** Flow-control period such as "1s", if set. */
  readonly period: string | undefined;
  /** Run state of the failed run (always `RUN_FAILED`). */
  readonly runState: RunState;
  /** Steps of the failed run, in execution order. */
  readonly steps: readonly WorkflowStep[];
}

/** Fields accepted in a partial entry; every one is optional. */
const ENTRY_FIELDS = new Set([
  "dlqId",
  "workflowRunId",
  "workflowUrl",
  "workflowCreatedAt",
  "createdAt",
  "failedAt",
  "url",
  "method",
  "header",
  "body",
  "maxRetries",
  "responseStatus",
  "responseBody",
  "flowControlKey",
  "parallelism",
  "rate",
  "period",
  "steps",
]);

/** Period syntax of flow control, e.g. "1s", "10s", "1m", "2h", "1d". */
export const PERIOD_PATTERN = /^[1-9][0-9]{0,8}[smhd]$/;

/**
 * Generate a random ID with a prefix, e.g. `wfr_3f9c…`.
 *
 * @param prefix - such as "wfr" or "dlq".
 */
export function randomId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString("hex")}`;
}

/**
 * Turn a partial entry (from `POST /admin/entries`) into a full entry, filling defaults.
 *
 * Defaults: random `dlqId`/`workflowRunId`, `workflowUrl` "http://127.0.0.1/workflows/default",
 * `failedAt` = `createdAt` = now, `workflowCreatedAt` = failedAt - 60 s, `url` = workflowUrl,
 * `method` "POST", empty header and body, `maxRetries` 3, `responseStatus` 500, no flow control,
 * steps `[{name: "step-1", state: "STEP_FAILED"}]`.
 *
 * @param input - the partial entry as parsed from JSON.
 * @param where - how to name the input in error messages, e.g. `entries[3]`.
 * @param now - current time, unix ms.
 * @returns an entry with `seq` 0 (assigned on insertion).
 * @throws Error naming the field and the value when a field is unknown or has the wrong type.
 */
export function entryFromInput(input: unknown, where: string, now: number): DlqEntry {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new Error(`${where} must be a JSON object, got ${show(input)}`);
  }
  const record = input as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!ENTRY_FIELDS.has(key)) {
      throw new Error(`${where}.${key} is not a DLQ entry field (known: ${[...ENTRY_FIELDS].join(", ")})`);
    }
  }
  const text = (field: string, fallback: string, allowEmpty = false): string => {
    const value = record[field];
    if (value === undefined) return fallback;
    if (typeof value !== "string" || (!allowEmpty && value === "")) {
      throw new Error(
        `${where}.${field} must be a ${allowEmpty ? "" : "non-empty "}string, got ${show(value)}`,
      );
    }
    return value;
  };
  const integer = (field: string, fallback: number | undefined, min = 0): number | undefined => {
    const value = record[field];
    if (value === undefined) return fallback;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) {
      throw new Error(`${where}.${field} must be an integer >= ${min}, got ${show(value)}`);
    }
    return value;
  };
  const failedAt = integer("failedAt", now) as number;
  const workflowUrl = text("workflowUrl", "http://127.0.0.1/workflows/default");
  const period = record.period === undefined ? undefined : text("period", "");
  if (period !== undefined && !PERIOD_PATTERN.test(period)) {
    throw new Error(`${where}.period must look like "1s", "10s" or "1m", got ${show(period)}`);
  }
  return {
    seq: 0,
    dlqId: text("dlqId", randomId("dlq")),
    workflowRunId: text("workflowRunId", randomId("wfr")),
    workflowUrl,
    workflowCreatedAt: integer("workflowCreatedAt", Math.max(0, failedAt - 60_000)) as number,
    createdAt: integer("createdAt", failedAt) as number,
    failedAt,
    url: text("url", workflowUrl),
    method: text("method", "POST"),
    header: headerFromInput(record.header, `${where}.header`),
    body: text("body", "", true),
    maxRetries: integer("maxRetries", 3) as number,
    responseStatus: integer("responseStatus", 500, 100) as number,
    responseBody: text("responseBody", "", true),
    flowControlKey: record.flowControlKey === undefined ? undefined : text("flowControlKey", ""),
    parallelism: integer("parallelism", undefined, 1),
    rate: integer("rate", undefined, 1),
    period,
    runState: "RUN_FAILED",
    steps: stepsFromInput(record.steps, `${where}.steps`),
  };
}

/**
 * Validate a header map; values may be a string or an array of strings.
 *
 * @param input - the value of the `header` field.
 * @param where - name used in error messages.
 */
function headerFromInput(input: unknown, where: string): Record<string, string[]> {
  if (input === undefined) return {};
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new Error(
      `${where} must be an object of header name to string or string array, got ${show(input)}`,
    );
  }
  const header: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(input as Record<string, unknown>)) {
    const values = typeof value === "string" ? [value] : value;
    if (!Array.isArray(values) || !values.every((v) => typeof v === "string")) {
      throw new Error(`${where}.${name} must be a string or an array of strings, got ${show(value)}`);
    }
    header[name] = values as string[];
  }
  return header;
}

/**
 * Validate a step list; defaults to one failed step.
 *
 * @param input - the value of the `steps` field.
 * @param where - name used in error messages.
 */
function stepsFromInput(input: unknown, where: string): WorkflowStep[] {
  if (input === undefined) return [{ name: "step-1", state: "STEP_FAILED" }];
  if (!Array.isArray(input)) throw new Error(`${where} must be an array of steps, got ${show(input)}`);
  return input.map((step: unknown, i): WorkflowStep => {
    if (typeof step !== "object" || step === null || Array.isArray(step)) {
      throw new Error(`${where}[${i}] must be an object {name, state, result?}, got ${show(step)}`);
    }
    const { name, state, result, ...rest } = step as Record<string, unknown>;
    const extra = Object.keys(rest);
    if (extra.length > 0)
      throw new Error(`${where}[${i}].${extra[0]} is not a step field (known: name, state, result)`);
    if (typeof name !== "string" || name === "") {
      throw new Error(`${where}[${i}].name must be a non-empty string, got ${show(name)}`);
    }
    if (!STEP_STATES.includes(state as StepState)) {
      throw new Error(`${where}[${i}].state must be one of ${STEP_STATES.join(", ")}, got ${show(state)}`);
    }
    return result === undefined
      ? { name, state: state as StepState }
      : { name, state: state as StepState, result };
  });
}

/**
 * The JSON view of an entry (as served by `GET /admin/entries`).
 *
 * @param entry - the entry.
 */
export function entryToJson(entry: DlqEntry): Record<string, unknown> {
  return { ...entry };
}
