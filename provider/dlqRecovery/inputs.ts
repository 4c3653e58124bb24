/**
 * The inputs and outputs of a `DlqRecovery` as its logic takes and returns them, the role of each
 * input ({@link INPUT_ROLES}: which inputs decide what is resumed; their hash tells a continuation
 * from a new drain), and the check of every input. The grammar of the selection and the
 * overrides is the client's wire contract (`client/contract.ts`); this module adds only the rules
 * of the resource itself.
 *
 * @packageDocumentation
 */
import "../../client/requireNode"; // first: one clear error on a Node.js older than 22.19
import * as crypto from "node:crypto";
import type * as pulumi from "@pulumi/pulumi";
import {
  FILTER_FIELDS,
  SELECTION_FIELDS,
  SELECTION_FIELD_KINDS,
  flowControlProblems,
  isSet,
  retriesProblems,
  selectionProblems,
  unknownFlowControlFields,
  type DlqSelection,
  type ResumeOverrides,
} from "../../client";
import {
  DLQ_RECOVERY_COMPONENT_INPUT_NAMES,
  DLQ_RECOVERY_INPUT_NAMES,
  DLQ_RECOVERY_RESULT_NAMES,
  type DlqRecoveryArgs,
  type DlqRecoveryComponentInputs,
  type DlqRecoveryResults,
} from "../../core/resources/dlqRecovery";
import { accountProblem } from "../../core/accountRef";
import { Failures, checkBoolean, checkInteger, checkString, checkUrl } from "../../core/inputChecks";
import { formatValue } from "../../client/messageText";
import { MAX_IN_FLIGHT } from "../../drain";
import { unknownInputsProblem } from "../../core/inputNames";
import { isUnknown } from "../../core/unknownValue";
import type { StoredWindowState } from "./storedState";

/**
 * A `DlqRecoveryArgs` input as the provider receives it: the value itself (`pulumi.Unwrap`);
 * `account` is the string the component records (an `Account`'s URN or an account ID,
 * `core/accountRef.ts`) and `triggers` any list.
 */
type Resolved<K extends keyof DlqRecoveryArgs> = K extends "account"
  ? string
  : K extends "triggers"
    ? unknown[]
    : pulumi.Unwrap<NonNullable<DlqRecoveryArgs[K]>>;

/** Inputs of the DlqRecovery provider: `DlqRecoveryArgs` resolved, and what the component adds. */
export type DlqRecoveryInputs = { [K in keyof DlqRecoveryArgs]?: Resolved<K> } & DlqRecoveryComponentInputs;

/**
 * What a change of an input does on the next up:
 * - `selection`, `override`, `trigger`: decide what is resumed and how (their hash,
 *   {@link specHash}); a change resumes again;
 * - `connection`, `tuning`: where, as whom, how fast, what is recorded; a change is shown and
 *   sends nothing (the state takes the new value);
 * - `credential`: a connection setting never stored nor compared (`token`, a secret): a new one
 *   is used by the next drain;
 * - `copied`: copied by the component from the bound `Account` (its outputs), never compared.
 */
export type InputRole =
  "selection" | "override" | "trigger" | "connection" | "tuning" | "credential" | "copied";

/**
 * The role of every input: the compiler refuses an input of `DlqRecoveryArgs` (or one the
 * component adds) that is missing here, so a new input cannot be silently ignored by `diff`.
 */
export const INPUT_ROLES = {
  dlqIds: "selection",
  fromDate: "selection",
  toDate: "selection",
  workflowUrl: "selection",
  workflowRunId: "selection",
  workflowCreatedAt: "selection",
  all: "selection",
  flowControl: "override",
  retries: "override",
  triggers: "trigger",
  baseUrl: "connection",
  token: "credential",
  account: "connection",
  accountLimits: "copied",
  allowInsecureHttp: "connection",
  concurrency: "tuning",
  maxRequestsPerSecond: "tuning",
  maxRuns: "tuning",
  maxRecordedRuns: "tuning",
  runLogFile: "tuning",
  recoveryName: "tuning",
} as const satisfies Record<keyof DlqRecoveryInputs, InputRole>;

/** The inputs of the given roles, in the order of {@link INPUT_ROLES}. */
function inputsOf(...roles: InputRole[]): (keyof DlqRecoveryInputs)[] {
  return (Object.keys(INPUT_ROLES) as (keyof DlqRecoveryInputs)[]).filter((k) =>
    roles.includes(INPUT_ROLES[k]),
  );
}

/**
 * Names a DlqRecovery's inputs may hold beside {@link DLQ_RECOVERY_INPUT_NAMES}: what the
 * component adds (`accountLimits`, `recoveryName`) and its outputs (the class sets each to
 * undefined, the generated SDKs to none). The engine's own keys (`__provider`, ...) pass too.
 */
const ADDED_INPUT_NAMES: readonly string[] = [
  ...DLQ_RECOVERY_COMPONENT_INPUT_NAMES,
  ...DLQ_RECOVERY_RESULT_NAMES,
];

/**
 * The inputs given that a DlqRecovery does not take (a misspelled `workflowURL` would otherwise
 * be dropped, and the selection widened): one message naming each, with the input it is nearest
 * to and the inputs there are; undefined when there are none.
 *
 * @param names - the names of the inputs as given (new inputs only: never a stored state's)
 */
export function unknownDlqRecoveryInputs(names: Iterable<string>): string | undefined {
  return unknownInputsProblem("DlqRecovery", names, DLQ_RECOVERY_INPUT_NAMES, ADDED_INPUT_NAMES);
}

/** Inputs that decide what is resumed and how: a change resumes again. */
export const SPEC_FIELDS: readonly (keyof DlqRecoveryInputs)[] = inputsOf("selection", "override", "trigger");

/**
 * Inputs whose change sends nothing (only the state is updated). `token` and `accountLimits`
 * (the bound Account's outputs) are not compared at all: the next drain uses them.
 */
export const TUNING_FIELDS: readonly (keyof DlqRecoveryInputs)[] = inputsOf("connection", "tuning");

/** What a drain saves beside its results, to continue a cut-off drain and to tell it from a new one. */
export interface DlqRecoveryDrainState {
  /** Where to continue a cut-off drain whose only open window is the whole selection. */
  cursor?: string;
  /** The windows a cut-off filter drain left open, with their cursors (at most 64, a few kB). */
  windowState?: StoredWindowState;
  /** DLQ IDs not yet resumed by a cut-off `dlqIds` drain. */
  remainingDlqIds?: string[];
  /** Why the last drain was cut off. */
  lastError?: string;
  /** True when the last drain stopped at `maxRuns` (not an error); absent otherwise. */
  stoppedAtMaxRuns?: boolean;
  /** Hash of the inputs in {@link SPEC_FIELDS}, to tell a continuation from a new drain. */
  specHash: string;
  /**
   * The start mark of the drain that wrote these outputs in its run log (`progress.ts`):
   * a later drain that finds a mark of another drain knows that drain's runs reached no state.
   */
  runLogMark?: string;
}

/** The names of {@link DlqRecoveryDrainState}; the compiler refuses one missing or extra. */
const DRAIN_STATE_TABLE = {
  cursor: true,
  windowState: true,
  remainingDlqIds: true,
  lastError: true,
  stoppedAtMaxRuns: true,
  specHash: true,
  runLogMark: true,
} as const satisfies Record<keyof DlqRecoveryDrainState, true>;

/**
 * Outputs of the DlqRecovery provider: the inputs but `token`, the results of the public
 * outputs (`DlqRecoveryResults`) and the drain's own state.
 */
export type DlqRecoveryOutputs = Omit<DlqRecoveryInputs, "token"> &
  DlqRecoveryResults &
  DlqRecoveryDrainState;

/** Outputs computed by a drain (everything else in the outputs is an input). */
export const RESULT_FIELDS: readonly (keyof DlqRecoveryResults | keyof DlqRecoveryDrainState)[] = [
  ...DLQ_RECOVERY_RESULT_NAMES,
  ...(Object.keys(DRAIN_STATE_TABLE) as (keyof DlqRecoveryDrainState)[]),
];

/**
 * Default and upper bound of `maxRecordedRuns`. The default keeps a DlqRecovery's state small
 * (about 7 kB) and `pulumi up --diff` short; every run is in the run log.
 */
export const DEFAULT_MAX_RECORDED_RUNS = 10;
export const MAX_RECORDED_RUNS_LIMIT = 10_000;

/** The `maxRecordedRuns` of the inputs, or its default: the one place the default is applied. */
export function maxRecordedOf(inputs: DlqRecoveryInputs): number {
  return inputs.maxRecordedRuns ?? DEFAULT_MAX_RECORDED_RUNS;
}
/** Most IDs `notFoundDlqIds` keeps in state (`notFoundCount` counts them all). */
export const NOT_FOUND_IDS_KEPT = 20;
/**
 * Upper bound of `concurrency`: the drains' own cap of requests in flight (`MAX_IN_FLIGHT`, for
 * sockets and memory). Unset, a drain keeps about the account's rate times the round trip in flight.
 */
export const MAX_CONCURRENCY = MAX_IN_FLIGHT;

/** What the bad-input message of `concurrency` says it is. */
const CONCURRENCY_HINT =
  "requests in flight at most; leave it unset for as many as the account's rate and round trip need";

/**
 * A rule of this resource, stricter than the wire grammar: a timestamp input (`fromDate`,
 * `toDate`, `workflowCreatedAt`) above 0 and below this many milliseconds (1973-03-03) is taken
 * for seconds by mistake and refused, naming the value in milliseconds. `0` is allowed.
 */
export const MIN_PLAUSIBLE_MS = 100_000_000_000;

/** "DlqRecovery `incident-42`", or "DlqRecovery" when the name is not known. */
export function recoveryLabel(inputs: DlqRecoveryInputs): string {
  return inputs.recoveryName ? `DlqRecovery \`${inputs.recoveryName}\`` : "DlqRecovery";
}

/** Stable JSON (sorted keys), for comparing inputs. */
export function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stable((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}

/** Hash of the inputs that decide what is resumed and how. */
export function specHash(inputs: Partial<DlqRecoveryInputs>): string {
  const spec: Record<string, unknown> = {};
  for (const k of SPEC_FIELDS) spec[k] = inputs[k];
  return crypto.createHash("sha256").update(stable(spec)).digest("hex").slice(0, 16);
}

/** The timestamp fields of a selection. */
const TIMESTAMP_FIELDS = SELECTION_FIELDS.filter((k) => SELECTION_FIELD_KINDS[k] === "timestamp");

/** An ISO 8601 date, with a time (minutes, seconds, milliseconds) and a zone, each optional. */
const ISO_DATE = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?)(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Why a timestamp given as a string is refused, with its value in unix milliseconds when the
 * string reads as one: an ISO 8601 date (UTC when it names no zone) or digits. A YAML program's
 * date is a string (the schema takes one for this message: `schema.ts`).
 */
function stringTimestampReason(k: string, v: string): string {
  const s = v.trim();
  if (/^\d{1,16}$/.test(s)) {
    return `\`${k}\` must be unix milliseconds, a number: ${formatValue(v)} is a string (write ${Number(s)} without quotes).`;
  }
  const iso = ISO_DATE.exec(s);
  const zone = iso?.[3]?.replace(/^([+-]\d{2})(\d{2})$/, "$1:$2");
  const ms = iso ? Date.parse(`${iso[1]}T${iso[2] ?? "00:00"}${zone ?? "Z"}`) : NaN;
  if (Number.isSafeInteger(ms)) {
    const utc = zone === undefined ? " (read as UTC)" : "";
    return `\`${k}\` must be unix milliseconds, a number: ${formatValue(v)}${utc} is ${ms}.`;
  }
  const example = 1_763_625_600_000;
  return (
    `\`${k}\` must be unix milliseconds, a number (${example} is ${new Date(example).toISOString()}); ` +
    `got ${formatValue(v)}, which is not an ISO 8601 date.`
  );
}

/** The date checks: a timestamp that looks like seconds, or given as a string. */
function checkTimestamps(f: Failures, news: DlqRecoveryInputs): void {
  for (const k of TIMESTAMP_FIELDS) {
    const v: unknown = news[k];
    if (typeof v === "number" && Number.isSafeInteger(v) && v > 0 && v < MIN_PLAUSIBLE_MS) {
      f.add(
        k,
        `\`${k}\` must be a unix timestamp in milliseconds; got ${v}, which looks like seconds (did you mean ${v * 1000}?).`,
      );
    }
    if (typeof v === "string" && !isUnknown(v)) {
      // In place of the wire grammar's failure of the field, which says the same without the conversion.
      const reason = stringTimestampReason(k, v);
      const i = f.list.findIndex((x) => x.property === k);
      if (i >= 0) f.list[i] = { property: k, reason };
      else f.add(k, reason);
    }
  }
}

/** The selection rules of this resource: dates, one kind of selection, and a selection at all. */
function checkSelection(f: Failures, news: DlqRecoveryInputs): void {
  checkTimestamps(f, news);
  checkBoolean(f, "all", news.all);
  const filters = FILTER_FIELDS.filter((k) => isSet(news[k]));
  const hasIds = isSet(news.dlqIds);
  if (hasIds && filters.length > 0) {
    f.add(
      "dlqIds",
      `\`dlqIds\` cannot be combined with filters (${filters.map((k) => `\`${k}\``).join(", ")}): ` +
        "the service ignores every filter when DLQ IDs are given. Use either `dlqIds` or filters.",
    );
  }
  if (news.all === true && (hasIds || filters.length > 0)) {
    f.add(
      "all",
      `\`all: true\` resumes every entry and cannot be combined with ${hasIds ? "`dlqIds`" : filters.map((k) => `\`${k}\``).join(", ")}.`,
    );
  }
  if (!hasIds && filters.length === 0 && news.all !== true && !isUnknown(news.all)) {
    f.add(
      "all",
      `${recoveryLabel(news)} selects nothing: give \`dlqIds\`, a filter (${FILTER_FIELDS.map((k) => `\`${k}\``).join(", ")}), ` +
        "or `all: true` to resume every entry in the DLQ.",
    );
  }
}

/**
 * Validates the inputs; every problem is reported, each naming the field and the value. Values
 * unknown during preview are skipped, with every rule that needs them. Names it does not take
 * are one failure of the resource as a whole (the engine would print a named property's value).
 */
export function validateInputs(news: DlqRecoveryInputs): Failures {
  const f = new Failures();
  const unknown = unknownDlqRecoveryInputs(Object.keys(news));
  if (unknown !== undefined) f.add("", `${recoveryLabel(news)}: ${unknown}`);
  const pending = { isPending: isUnknown };
  // Selection: the wire grammar (a long `dlqIds` list is sent in batches), then this resource's rules.
  f.addProblems(selectionProblems(news, { ...pending, maxDlqIds: Infinity }));
  checkSelection(f, news);
  // Overrides: exactly the grammar of the headers the client will send.
  if (!isUnknown(news.flowControl)) f.addProblems(unknownFlowControlFields(news.flowControl, "DlqRecovery"));
  f.addProblems(flowControlProblems(news.flowControl, pending));
  f.addProblems(retriesProblems(news.retries, pending));
  // Re-running, connection and tuning.
  if (isSet(news.triggers) && !isUnknown(news.triggers) && !Array.isArray(news.triggers)) {
    f.add(
      "triggers",
      `\`triggers\` must be a list (change any element to resume again); got ${formatValue(news.triggers)}.`,
    );
  }
  checkUrl(f, "baseUrl", news.baseUrl);
  checkString(f, "token", news.token, true);
  checkAccount(f, news);
  checkBoolean(f, "allowInsecureHttp", news.allowInsecureHttp);
  checkInteger(f, "concurrency", news.concurrency, 1, MAX_CONCURRENCY, CONCURRENCY_HINT);
  checkInteger(f, "maxRequestsPerSecond", news.maxRequestsPerSecond, 1);
  checkInteger(f, "maxRecordedRuns", news.maxRecordedRuns, 0, MAX_RECORDED_RUNS_LIMIT);
  checkInteger(f, "maxRuns", news.maxRuns, 1);
  if (isSet(news.runLogFile) && !isUnknown(news.runLogFile) && typeof news.runLogFile !== "string") {
    f.add(
      "runLogFile",
      `\`runLogFile\` must be a file path, or "" for none; got ${formatValue(news.runLogFile)}.`,
    );
  }
  return f;
}

/** `account` (the rule of `core/accountRef.ts`) and the limits the component copies from an Account. */
function checkAccount(f: Failures, news: DlqRecoveryInputs): void {
  if (!isUnknown(news.account)) {
    const p = accountProblem(news.account);
    if (p !== undefined) f.add("account", p);
  }
  const limits = news.accountLimits;
  if (!isSet(limits) || isUnknown(limits)) return;
  if (typeof limits !== "object" || Array.isArray(limits)) {
    f.add("accountLimits", `\`accountLimits\` must be an object; got ${formatValue(limits)}.`);
    return;
  }
  checkInteger(f, "accountLimits.maxRequestsPerSecond", limits.maxRequestsPerSecond, 1);
  checkInteger(f, "accountLimits.dlqRetentionMs", limits.dlqRetentionMs, 1);
}

/** The selection to send, from the inputs: `dlqIds` alone, or the filters that are set. */
export function selectionOf(inputs: DlqRecoveryInputs): DlqSelection {
  if (inputs.dlqIds) return { dlqIds: inputs.dlqIds };
  const s: Record<string, unknown> = {};
  for (const k of FILTER_FIELDS) if (isSet(inputs[k])) s[k] = inputs[k];
  return s as DlqSelection;
}

/** The overrides to send, from the inputs. */
export function overridesOf(inputs: DlqRecoveryInputs): ResumeOverrides {
  const o: ResumeOverrides = {};
  if (inputs.flowControl) o.flowControl = inputs.flowControl;
  if (isSet(inputs.retries)) o.retries = inputs.retries;
  return o;
}

/** The inputs without the token, for outputs. */
export function publicInputs(inputs: DlqRecoveryInputs): Omit<DlqRecoveryInputs, "token"> {
  const { token: _token, ...rest } = inputs;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rest)) if (v !== undefined) out[k] = v;
  return out as Omit<DlqRecoveryInputs, "token">;
}
