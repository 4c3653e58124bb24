// size: the grammar of every wire field of a resume request, with its table, written once; the client, the provider and the component share it, and splitting it would scatter the grammar
/**
 * The wire contract: the grammar of every field and header of a resume request
 * (`POST /v2/workflows/dlq/resume`, spec 4.1), written once.
 *
 * Each rule is a function that returns the problems by field name. The client's builders
 * (`overrideHeaders`, `resumeQuery`) throw on them; the `DlqRecovery` provider's `check` and the
 * `Workflow` component turn them into check failures or errors. So `pulumi preview` refuses
 * exactly what `pulumi up` would send and the service would refuse. The emulator parses the
 * same grammar with its own code, on purpose: it is the check on this one.
 *
 * | field | wire | grammar |
 * | --- | --- | --- |
 * | `flowControl.key` | `Svc-Flow-Control-Key` | 1 to 256 visible ASCII characters (U+0021..U+007E): no spaces, control or non-ASCII characters |
 * | `flowControl.parallelism`, `.rate` | `Svc-Flow-Control-Value` | integers 1 .. 2,147,483,647 |
 * | `flowControl.period` | `Svc-Flow-Control-Value` | whole seconds 1 .. 999,999,999 (sent as `<n>s`), or `/^[1-9][0-9]{0,8}[smhd]$/` |
 * | `retries` | `Svc-Retries` | integer 0 .. 2,147,483,647 |
 * | `dlqIds` | query | non-empty list, no repeats, at most 50 per request; each a non-empty string without leading/trailing whitespace or control characters |
 * | `fromDate`, `toDate`, `workflowCreatedAt` | query | integers 0 .. 2^53-1 (unix ms); `fromDate <= toDate` |
 * | `workflowUrl`, `workflowRunId` | query | non-empty strings without leading/trailing whitespace or control characters |
 *
 * `Svc-Flow-Control-Value` is `parallelism=P, rate=R, period=T`: the set parts only, in that
 * order. `period` needs `parallelism` or `rate`; a key-only override sends no value header; a
 * `flowControl` that sets nothing is refused.
 *
 * @packageDocumentation
 */
import { SvcError } from "./errors";
import { formatValue } from "./messageText";

/** What kind of problem a value has (stable, for callers that add their own rules). */
export type ProblemCode =
  /** The value does not match the field's grammar. */
  | "invalid"
  /** A `flowControl` that sets nothing, or an empty `dlqIds` list. */
  | "empty"
  /** `flowControl.period` without `flowControl.parallelism` or `flowControl.rate`. */
  | "needs-limit"
  /** A DLQ ID listed twice. */
  | "repeated"
  /** More DLQ IDs than one request takes. */
  | "too-many"
  /** `fromDate` after `toDate`. */
  | "order"
  /** A field the resource does not know, such as `flowControl.burst`. */
  | "unknown-field";

/** One problem of a request value. */
export interface Problem {
  /** The field as the caller wrote it: `flowControl.key`, `dlqIds[3]`, `retries`. */
  readonly field: string;
  /** The kind of problem. */
  readonly code: ProblemCode;
  /** A sentence naming the field in backticks and the value. */
  readonly message: string;
}

/** Options of the problem functions. */
export interface ProblemOptions {
  /**
   * True for a value that is not known yet (an unknown preview value, an unresolved Output): it
   * is skipped, and so is every rule that needs it.
   */
  isPending?: (value: unknown) => boolean;
}

/** Largest integer of a header value (`parallelism`, `rate`, `retries`): 2^31 - 1. */
export const MAX_HEADER_INTEGER = 2_147_483_647;
/** Longest flow-control key. */
export const MAX_FLOW_CONTROL_KEY_LENGTH = 256;
/** A flow-control key: 1 to 256 visible ASCII characters (no space). */
export const FLOW_CONTROL_KEY_PATTERN = /^[\x21-\x7e]{1,256}$/;
/** Seconds per unit of the service's durations (`"10s"`, `"1m"`, `"2h"`, `"1d"`). */
export const DURATION_UNITS: Readonly<Record<"s" | "m" | "h" | "d", number>> = {
  s: 1,
  m: 60,
  h: 3_600,
  d: 86_400,
};
/** Largest number of a period (in its unit). */
export const MAX_PERIOD = 999_999_999;
/** A period string: 1 to 9 digits without a leading zero, and one unit. */
export const PERIOD_PATTERN = /^[1-9][0-9]{0,8}[smhd]$/;
/** The service resumes at most this many runs, and takes at most this many `dlqIds`, per request (spec 8). */
export const MAX_RUNS_PER_REQUEST = 50;

/** The fields of a flow-control override, in header order after the key. */
export const FLOW_CONTROL_FIELDS = ["key", "parallelism", "rate", "period"] as const;

/**
 * The fields of a selection and the kind of each: the one list of them. `DlqSelection`, the
 * `DlqRecovery` inputs and arguments, the query string and the grammar all derive from it.
 */
export const SELECTION_FIELD_KINDS = {
  /** Exact DLQ IDs. */
  dlqIds: "ids",
  /** Runs that failed at or after this time, unix milliseconds (inclusive). */
  fromDate: "timestamp",
  /** Runs that failed at or before this time, unix milliseconds (inclusive). */
  toDate: "timestamp",
  /** Runs of this workflow URL. */
  workflowUrl: "text",
  /** Runs whose run ID equals or starts with this value. */
  workflowRunId: "text",
  /** Runs created at this time, unix milliseconds. */
  workflowCreatedAt: "timestamp",
} as const;

/** A field of a selection. */
export type SelectionField = keyof typeof SELECTION_FIELD_KINDS;
/** A filter: a selection field other than `dlqIds`. */
export type FilterField = Exclude<SelectionField, "dlqIds">;

/** The TypeScript type of each kind of selection field. */
interface SelectionKindTypes {
  ids: string[];
  timestamp: number;
  text: string;
}

/** The selection fields, in query order. */
export const SELECTION_FIELDS = Object.keys(SELECTION_FIELD_KINDS) as readonly SelectionField[];
/** The filters (every selection field but `dlqIds`), in query order. */
export const FILTER_FIELDS = SELECTION_FIELDS.filter(
  (k): k is FilterField => k !== "dlqIds",
) as readonly FilterField[];

/**
 * Which DLQ entries a resume request targets; fields in {@link SELECTION_FIELD_KINDS}. All are
 * optional; an empty selection targets every entry in the DLQ. The service ignores the filters
 * when `dlqIds` is given.
 */
export type DlqSelection = {
  -readonly [K in keyof typeof SELECTION_FIELD_KINDS]?: SelectionKindTypes[(typeof SELECTION_FIELD_KINDS)[K]];
};

/** Flow-control override of the resumed runs. */
export interface FlowControlOverride {
  /** Sent as `Svc-Flow-Control-Key`: 1 to 256 visible ASCII characters, no spaces. */
  key?: string;
  /** Integer 1 .. 2,147,483,647; part of `Svc-Flow-Control-Value`. */
  parallelism?: number;
  /** Integer 1 .. 2,147,483,647; part of `Svc-Flow-Control-Value`. */
  rate?: number;
  /** Whole seconds 1 .. 999,999,999 (sent as `"<n>s"`), or a duration string such as `"1m"`. */
  period?: number | string;
}

/** Overrides applied to the resumed runs; an unset override keeps the original run's setting. */
export interface ResumeOverrides {
  /** Flow-control override. */
  flowControl?: FlowControlOverride;
  /** Retries for the steps of the resumed runs: integer 0 .. 2,147,483,647, sent as `Svc-Retries`. */
  retries?: number;
}

/** Message of an empty `dlqIds` list. */
export const EMPTY_DLQ_IDS_MESSAGE =
  "`dlqIds` is empty: to target every entry, say so explicitly (omit `dlqIds` and the filters; " +
  "in DlqRecovery, `all: true`).";

const notPending = (): boolean => false;

/** True for a value that is set (`undefined` and `null` are not). */
export function isSet<T>(value: T): value is NonNullable<T> {
  return value !== undefined && value !== null;
}

function problem(field: string, code: ProblemCode, message: string): Problem {
  return { field, code, message };
}

function isIntegerIn(v: unknown, min: number, max: number): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= min && v <= max;
}

/** `must be <what>` for an integer field, or `must be at most <max>` when only too big. */
function integerProblem(field: string, v: unknown, min: number, max: number): Problem | undefined {
  if (isIntegerIn(v, min, max)) return undefined;
  if (typeof v === "number" && Number.isInteger(v) && v > max) {
    return problem(field, "invalid", `\`${field}\` must be at most ${max}; got ${formatValue(v)}.`);
  }
  const what = min === 1 ? "a positive integer" : "a non-negative integer";
  return problem(field, "invalid", `\`${field}\` must be ${what}; got ${formatValue(v)}.`);
}

function keyProblem(v: unknown): Problem | undefined {
  if (typeof v === "string" && FLOW_CONTROL_KEY_PATTERN.test(v)) return undefined;
  const length =
    typeof v === "string" && v.length > MAX_FLOW_CONTROL_KEY_LENGTH ? ` (${v.length} characters)` : "";
  return problem(
    "flowControl.key",
    "invalid",
    `\`flowControl.key\` must be a string of 1 to ${MAX_FLOW_CONTROL_KEY_LENGTH} visible ASCII characters ` +
      `(no spaces, control or non-ASCII characters); got ${formatValue(v)}${length}.`,
  );
}

function periodProblem(v: unknown): Problem | undefined {
  const ok =
    typeof v === "number" ? isIntegerIn(v, 1, MAX_PERIOD) : typeof v === "string" && PERIOD_PATTERN.test(v);
  if (ok) return undefined;
  let hint = "";
  if (typeof v === "string" && /^0+[1-9][0-9]*[smhd]$/.test(v)) hint = ", without leading zeros";
  else if (
    (typeof v === "number" && Number.isInteger(v) && v > MAX_PERIOD) ||
    (typeof v === "string" && /^[1-9][0-9]{9,}[smhd]$/.test(v))
  ) {
    hint = `, at most ${MAX_PERIOD}`;
  }
  return problem(
    "flowControl.period",
    "invalid",
    '`flowControl.period` must be a positive whole number of seconds or a duration such as "1m" ' +
      `(units s, m, h, d${hint}); got ${formatValue(v)}.`,
  );
}

/**
 * The rule of both resources that take a `flowControl` (`Workflow`, `DlqRecovery`): a field
 * other than {@link FLOW_CONTROL_FIELDS} is refused (a typo is not silently ignored), one
 * problem a field. A value that is not an object has no fields: {@link flowControlProblems}
 * refuses it.
 *
 * @param fc - the `flowControl` value
 * @param resource - the resource's type name, for the message (`Workflow`, `DlqRecovery`)
 */
export function unknownFlowControlFields(fc: unknown, resource: string): Problem[] {
  if (!isSet(fc) || typeof fc !== "object" || Array.isArray(fc)) return [];
  return Object.keys(fc)
    .filter((k) => !(FLOW_CONTROL_FIELDS as readonly string[]).includes(k))
    .map((k) =>
      problem(
        `flowControl.${k}`,
        "unknown-field",
        `\`flowControl.${k}\` is not an argument of ${resource}; expected ${FLOW_CONTROL_FIELDS.join(", ")}.`,
      ),
    );
}

/**
 * The problems of a flow-control override (`Svc-Flow-Control-Key`, `Svc-Flow-Control-Value`).
 * Unset (`undefined`/`null`) means no override: no problem. Properties other than
 * {@link FLOW_CONTROL_FIELDS} are not looked at (the resources refuse them as unknown arguments).
 *
 * @param fc - the `flowControl` value
 * @param options - which values are not known yet
 */
export function flowControlProblems(fc: unknown, options: ProblemOptions = {}): Problem[] {
  const pending = options.isPending ?? notPending;
  if (!isSet(fc) || pending(fc)) return [];
  if (typeof fc !== "object" || Array.isArray(fc)) {
    return [
      problem(
        "flowControl",
        "invalid",
        `\`flowControl\` must be an object such as { key: "orders", parallelism: 5 }; got ${formatValue(fc)}.`,
      ),
    ];
  }
  const o = fc as Record<string, unknown>;
  const known = (k: string): boolean => !pending(o[k]);
  const given = (k: string): boolean => known(k) && isSet(o[k]);
  const unset = (k: string): boolean => known(k) && !isSet(o[k]);
  const problems: (Problem | undefined)[] = [
    given("key") ? keyProblem(o.key) : undefined,
    given("parallelism")
      ? integerProblem("flowControl.parallelism", o.parallelism, 1, MAX_HEADER_INTEGER)
      : undefined,
    given("rate") ? integerProblem("flowControl.rate", o.rate, 1, MAX_HEADER_INTEGER) : undefined,
    given("period") ? periodProblem(o.period) : undefined,
  ];
  if (given("period") && unset("parallelism") && unset("rate")) {
    problems.push(
      problem(
        "flowControl.period",
        "needs-limit",
        "`flowControl.period` needs `flowControl.parallelism` or `flowControl.rate`.",
      ),
    );
  }
  if (FLOW_CONTROL_FIELDS.every(unset)) {
    problems.push(
      problem(
        "flowControl",
        "empty",
        "`flowControl` is empty: set `key`, `parallelism` or `rate`, or leave `flowControl` out to keep the original settings.",
      ),
    );
  }
  return problems.filter((p): p is Problem => p !== undefined);
}

/**
 * The problems of a retries override (`Svc-Retries`): an integer 0 .. 2,147,483,647.
 *
 * @param retries - the `retries` value; unset means no override
 * @param options - which values are not known yet
 */
export function retriesProblems(retries: unknown, options: ProblemOptions = {}): Problem[] {
  if (!isSet(retries) || (options.isPending ?? notPending)(retries)) return [];
  const p = integerProblem("retries", retries, 0, MAX_HEADER_INTEGER);
  return p ? [p] : [];
}

/** Options of {@link selectionProblems}. */
export interface SelectionProblemOptions extends ProblemOptions {
  /**
   * Most `dlqIds` allowed: {@link MAX_RUNS_PER_REQUEST} for one request (the default);
   * `Infinity` for a list that is sent in batches.
   */
  maxDlqIds?: number;
}

function textProblem(field: string, v: unknown): Problem | undefined {
  // eslint-disable-next-line no-control-regex
  const ok = typeof v === "string" && v !== "" && !/^\s|\s$/.test(v) && !/[\x00-\x1f\x7f]/.test(v);
  return ok
    ? undefined
    : problem(
        field,
        "invalid",
        `\`${field}\` must be a non-empty string without leading or trailing whitespace or control characters; got ${formatValue(v)}.`,
      );
}

function timestampProblem(field: string, v: unknown): Problem | undefined {
  return isIntegerIn(v, 0, Number.MAX_SAFE_INTEGER)
    ? undefined
    : problem(
        field,
        "invalid",
        `\`${field}\` must be a unix timestamp in milliseconds (a non-negative integer); got ${formatValue(v)}.`,
      );
}

function dlqIdsProblems(ids: unknown, maxIds: number, pending: (v: unknown) => boolean): Problem[] {
  if (!Array.isArray(ids)) {
    return [problem("dlqIds", "invalid", `\`dlqIds\` must be a list of DLQ IDs; got ${formatValue(ids)}.`)];
  }
  if (ids.length === 0) return [problem("dlqIds", "empty", EMPTY_DLQ_IDS_MESSAGE)];
  const problems: Problem[] = [];
  if (ids.length > maxIds) {
    problems.push(
      problem(
        "dlqIds",
        "too-many",
        `\`dlqIds\` has ${ids.length} IDs; one request takes at most ${maxIds} ` +
          "(the DlqRecovery resource and `resumeByIds` send a longer list in batches).",
      ),
    );
  }
  const seen = new Set<string>();
  ids.forEach((id: unknown, i) => {
    if (pending(id)) return;
    const p = textProblem(`dlqIds[${i}]`, id);
    if (p) problems.push(p);
    else if (seen.has(id as string)) {
      problems.push(
        problem(
          `dlqIds[${i}]`,
          "repeated",
          `\`dlqIds[${i}]\` repeats the DLQ ID ${formatValue(id)}; list each ID once.`,
        ),
      );
    } else seen.add(id as string);
  });
  return problems;
}

/**
 * The problems of a selection (the query string of a resume request).
 *
 * @param selection - the selection
 * @param options - which values are not known yet; how many `dlqIds` are allowed
 */
export function selectionProblems(selection: unknown, options: SelectionProblemOptions = {}): Problem[] {
  const pending = options.isPending ?? notPending;
  if (pending(selection)) return [];
  if (selection === null || typeof selection !== "object" || Array.isArray(selection)) {
    return [
      problem("selection", "invalid", `the selection must be an object; got ${formatValue(selection)}.`),
    ];
  }
  const s = selection as Record<string, unknown>;
  const problems: Problem[] = [];
  for (const field of SELECTION_FIELDS) {
    const v = s[field];
    if (!isSet(v) || pending(v)) continue;
    const kind = SELECTION_FIELD_KINDS[field];
    if (kind === "ids")
      problems.push(...dlqIdsProblems(v, options.maxDlqIds ?? MAX_RUNS_PER_REQUEST, pending));
    const p =
      kind === "timestamp" ? timestampProblem(field, v) : kind === "text" ? textProblem(field, v) : undefined;
    if (p) problems.push(p);
  }
  const { fromDate, toDate } = s;
  if (
    isIntegerIn(fromDate, 0, Number.MAX_SAFE_INTEGER) &&
    isIntegerIn(toDate, 0, Number.MAX_SAFE_INTEGER) &&
    fromDate > toDate
  ) {
    problems.push(
      problem(
        "toDate",
        "order",
        `\`fromDate\` is after \`toDate\` (fromDate ${fromDate}, toDate ${toDate}): the window selects nothing.`,
      ),
    );
  }
  return problems;
}

/**
 * Throws when there is any problem.
 *
 * @throws SvcError `SVC_INVALID_ARGUMENT` whose message lists every problem
 */
export function throwIfProblems(problems: readonly Problem[]): void {
  if (problems.length > 0) {
    throw new SvcError("SVC_INVALID_ARGUMENT", problems.map((p) => p.message).join(" "));
  }
}

/**
 * The HTTP Basic username rule: no `:` (it separates the username from the password in
 * `username:password`). The one rule for the client, before it sends (at up), and the `Account`
 * provider's check (at preview), for the input and for the value from stack config or the
 * environment.
 *
 * @param username - the username (anything that is not a string has no problem here)
 * @param origin - where the value came from, for the message, e.g. "stack config `svc:username`"
 */
export function usernameProblem(username: unknown, origin?: string): Problem | undefined {
  if (typeof username !== "string" || !username.includes(":")) return undefined;
  const from = origin === undefined ? "" : ` (from the ${origin})`;
  return problem(
    "username",
    "invalid",
    `\`username\`${from} must not contain ":" (HTTP Basic uses it as the separator); got ${formatValue(username)}.`,
  );
}
