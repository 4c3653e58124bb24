/**
 * The `DlqRecovery` provider: resumes failed workflow runs from the DLQ with
 * `POST {baseUrl}/v2/workflows/dlq/resume` (spec 4.1), at most 50 runs a request.
 *
 * - `check` validates every input and that a URL and token are configured (preview
 *   fails early, naming the field and the value).
 * - `diff` reports a change when the selection, an override or `triggers` changed (the
 *   next up resumes again), when `baseUrl` or a tuning input changed (the next up sends
 *   nothing), or when the last drain did not finish (the next up continues it). A new
 *   `token` alone is no change: it is used by the next drain and never stored in outputs.
 * - `create` drains: with filters (or `all`) it follows the cursor until none is
 *   returned, ceil(N/50) requests for N entries; with `dlqIds` it sends batches of at
 *   most 50 concurrently, within `max_requests_per_second` when known.
 * - `update` drains again when the selection, overrides or triggers changed, continues
 *   from the saved cursor when the last drain was cut off, and sends nothing otherwise.
 * - `read` returns the state as it is (the service has nothing to read back).
 * - `delete` leaves the service untouched: resumed runs are not undone.
 *
 * A fatal error mid-drain rejects with the partial state (runs resumed so far, the
 * cursor), which the engine saves; the next `up` continues where it stopped.
 */
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import { SvcClient, isSvcError, overrideHeaders } from "../../client";
import { resolveEndpoint } from "../../client/transport";
import type {
  DlqSelection,
  DrainProgress,
  DrainResult,
  ResumedRun,
  ResumeOverrides,
  ResumePage,
} from "../../client";
import { resolveSetting, resolveSettings, setStackConfig, type StackConfigReader } from "../connection";
import { EngineGoneError, engineAddress, exitOrphanedProvider, isListening } from "./engine";
import {
  Failures,
  checkBoolean,
  checkString,
  checkUrl,
  containsUnknown,
  describeOrigins,
  explainServiceError,
  isUnknown,
  show,
} from "./common";

/** The filters of a selection (everything but `dlqIds`). */
export const FILTER_FIELDS = [
  "fromDate",
  "toDate",
  "workflowUrl",
  "workflowRunId",
  "workflowCreatedAt",
] as const;

/** Inputs that decide what is resumed and how: a change resumes again. */
export const SPEC_FIELDS = ["dlqIds", ...FILTER_FIELDS, "all", "flowControl", "retries", "triggers"] as const;

/** Outputs computed by a drain (everything else in the outputs is an input). */
export const RESULT_FIELDS = [
  "resumedCount",
  "requestCount",
  "resumedRuns",
  "resumedRunsTruncated",
  "ambiguousRequests",
  "unconfirmedDlqIds",
  "overrideHeaders",
  "startedAt",
  "finishedAt",
  "complete",
  "cursor",
  "remainingDlqIds",
  "lastError",
  "specHash",
] as const satisfies readonly (keyof DlqRecoveryOutputs)[];

/** Default and upper bound of `maxRecordedRuns`. */
export const DEFAULT_MAX_RECORDED_RUNS = 1000;
export const MAX_RECORDED_RUNS_LIMIT = 10_000;

/** Timestamps below this many milliseconds (1973-03-03) are taken for seconds by mistake. */
const MIN_PLAUSIBLE_MS = 100_000_000_000;

/** Inputs of the DlqRecovery provider, resolved. */
export interface DlqRecoveryInputs {
  dlqIds?: string[];
  fromDate?: number;
  toDate?: number;
  workflowUrl?: string;
  workflowRunId?: string;
  workflowCreatedAt?: number;
  all?: boolean;
  flowControl?: { key?: string; parallelism?: number; rate?: number; period?: number | string };
  retries?: number;
  triggers?: unknown[];
  baseUrl?: string;
  token?: string;
  allowInsecureHttp?: boolean;
  concurrency?: number;
  maxRequestsPerSecond?: number;
  maxRecordedRuns?: number;
  runLogFile?: string;
  /** The resource's name, for messages and the default run log file. */
  recoveryName?: string;
}

/** Outputs of the DlqRecovery provider. */
export interface DlqRecoveryOutputs extends Omit<DlqRecoveryInputs, "token"> {
  /** Runs resumed with known new run IDs, over the drain (and its continuations). */
  resumedCount: number;
  /** Resume requests answered. */
  requestCount: number;
  /** New runs, `workflowRunId` and `workflowCreatedAt`: all of them up to `maxRecordedRuns`, then the first ones. */
  resumedRuns: ResumedRun[];
  /** True when `resumedRuns` holds fewer runs than `resumedCount` (the full list is in `runLogFile`). */
  resumedRunsTruncated: boolean;
  /** Requests whose response was lost after the service may have resumed runs (at most 50 runs each). */
  ambiguousRequests: number;
  /** DLQ IDs resumed by a lost response, whose new run IDs never came back. */
  unconfirmedDlqIds: string[];
  /** The override headers sent with every request (none when no override is set). */
  overrideHeaders: Record<string, string>;
  /** ISO times of the drain's start and end. */
  startedAt: string;
  finishedAt: string;
  /** False when the drain was cut off; the next up continues it. */
  complete: boolean;
  /** Where to continue a cut-off cursor drain. */
  cursor?: string;
  /** DLQ IDs not yet resumed by a cut-off `dlqIds` drain. */
  remainingDlqIds?: string[];
  /** Why the last drain was cut off. */
  lastError?: string;
  /** Hash of the inputs in {@link SPEC_FIELDS}, to tell a continuation from a new drain. */
  specHash: string;
}

/** Stable JSON (sorted keys), for comparing inputs. */
function stable(v: unknown): string {
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

function isInt(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v);
}

function checkTimestamp(f: Failures, field: string, v: unknown): void {
  if (v === undefined || v === null || isUnknown(v)) return;
  if (!isInt(v) || v < 0) {
    f.add(
      field,
      `\`${field}\` must be a unix timestamp in milliseconds (a non-negative integer); got ${show(v)}.`,
    );
  } else if (v > 0 && v < MIN_PLAUSIBLE_MS) {
    f.add(
      field,
      `\`${field}\` must be a unix timestamp in milliseconds; got ${v}, which looks like seconds (did you mean ${v * 1000}?).`,
    );
  }
}

function checkPositiveInt(
  f: Failures,
  field: string,
  v: unknown,
  min = 1,
  max = Number.MAX_SAFE_INTEGER,
): void {
  if (v === undefined || v === null || isUnknown(v)) return;
  if (!isInt(v) || v < min || v > max) {
    const range =
      max === Number.MAX_SAFE_INTEGER ? `an integer ≥ ${min}` : `an integer from ${min} to ${max}`;
    f.add(field, `\`${field}\` must be ${range}; got ${show(v)}.`);
  }
}

/** Validates the inputs; every problem is reported, each naming the field and the value. */
export function validateInputs(news: DlqRecoveryInputs): Failures {
  const f = new Failures();
  const name = news.recoveryName ? `DlqRecovery \`${news.recoveryName}\`` : "DlqRecovery";

  // Selection.
  const ids = news.dlqIds;
  if (ids !== undefined && ids !== null && !isUnknown(ids)) {
    if (!Array.isArray(ids)) {
      f.add("dlqIds", `\`dlqIds\` must be a list of DLQ IDs; got ${show(ids)}.`);
    } else if (ids.length === 0) {
      f.add(
        "dlqIds",
        "`dlqIds` is empty: it would resume nothing. List the DLQ IDs to resume, or use a filter, or `all: true` to resume every entry.",
      );
    } else {
      const seen = new Set<string>();
      ids.forEach((id, i) => {
        if (isUnknown(id)) return;
        if (typeof id !== "string" || id.trim() === "") {
          f.add(`dlqIds[${i}]`, `\`dlqIds[${i}]\` must be a non-empty string; got ${show(id)}.`);
        } else if (seen.has(id)) {
          f.add(`dlqIds[${i}]`, `\`dlqIds[${i}]\` repeats the DLQ ID ${show(id)}; list each ID once.`);
        } else {
          seen.add(id);
        }
      });
    }
  }
  for (const k of ["fromDate", "toDate", "workflowCreatedAt"] as const) checkTimestamp(f, k, news[k]);
  checkString(f, "workflowUrl", news.workflowUrl);
  checkString(f, "workflowRunId", news.workflowRunId);
  checkBoolean(f, "all", news.all);
  if (isInt(news.fromDate) && isInt(news.toDate) && news.fromDate > news.toDate) {
    f.add(
      "toDate",
      `\`toDate\` (${news.toDate}) is before \`fromDate\` (${news.fromDate}): the window selects nothing.`,
    );
  }
  const filters = FILTER_FIELDS.filter((k) => news[k] !== undefined && news[k] !== null);
  const hasIds = ids !== undefined && ids !== null;
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
      `${name} selects nothing: give \`dlqIds\`, a filter (\`fromDate\`, \`toDate\`, \`workflowUrl\`, ` +
        "`workflowRunId`, `workflowCreatedAt`), or `all: true` to resume every entry in the DLQ.",
    );
  }

  // Overrides.
  const fc = news.flowControl;
  if (fc !== undefined && fc !== null && !isUnknown(fc)) {
    if (typeof fc !== "object" || Array.isArray(fc)) {
      f.add(
        "flowControl",
        `\`flowControl\` must be an object { key?, parallelism?, rate?, period? }; got ${show(fc)}.`,
      );
    } else {
      const known = ["key", "parallelism", "rate", "period"];
      for (const k of Object.keys(fc)) {
        if (!known.includes(k))
          f.add(`flowControl.${k}`, `\`flowControl.${k}\` is not an option; use ${known.join(", ")}.`);
      }
      checkString(f, "flowControl.key", fc.key);
      if (
        typeof fc.key === "string" &&
        fc.key.trim() !== "" &&
        !/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(fc.key)
      ) {
        f.add(
          "flowControl.key",
          `\`flowControl.key\` must be printable ASCII without leading or trailing spaces (it travels in a header); got ${show(fc.key)}.`,
        );
      }
      checkPositiveInt(f, "flowControl.parallelism", fc.parallelism);
      checkPositiveInt(f, "flowControl.rate", fc.rate);
      const p = fc.period;
      if (p !== undefined && p !== null && !isUnknown(p)) {
        const ok = (isInt(p) && p > 0) || (typeof p === "string" && /^[1-9]\d*[smhd]$/.test(p));
        if (!ok)
          f.add(
            "flowControl.period",
            `\`flowControl.period\` must be whole seconds (a positive integer) or a duration such as "1s", "1m", "1h", "1d"; got ${show(p)}.`,
          );
      }
      const hasLimit = fc.parallelism !== undefined || fc.rate !== undefined;
      if (!hasLimit && p !== undefined) {
        f.add(
          "flowControl.period",
          "`flowControl.period` needs `flowControl.parallelism` or `flowControl.rate`.",
        );
      }
      if (!hasLimit && fc.key === undefined && p === undefined) {
        f.add(
          "flowControl",
          "`flowControl` is empty: set `key`, `parallelism` or `rate`, or leave `flowControl` out to keep the original settings.",
        );
      }
    }
  }
  checkPositiveInt(f, "retries", news.retries, 0);

  // Re-running and tuning.
  if (
    news.triggers !== undefined &&
    news.triggers !== null &&
    !isUnknown(news.triggers) &&
    !Array.isArray(news.triggers)
  ) {
    f.add(
      "triggers",
      `\`triggers\` must be a list (change any element to resume again); got ${show(news.triggers)}.`,
    );
  }
  checkUrl(f, "baseUrl", news.baseUrl);
  checkString(f, "token", news.token, true);
  checkBoolean(f, "allowInsecureHttp", news.allowInsecureHttp);
  checkPositiveInt(f, "concurrency", news.concurrency, 1, 32);
  checkPositiveInt(f, "maxRequestsPerSecond", news.maxRequestsPerSecond, 1);
  checkPositiveInt(f, "maxRecordedRuns", news.maxRecordedRuns, 0, MAX_RECORDED_RUNS_LIMIT);
  if (
    news.runLogFile !== undefined &&
    news.runLogFile !== null &&
    !isUnknown(news.runLogFile) &&
    typeof news.runLogFile !== "string"
  ) {
    f.add("runLogFile", `\`runLogFile\` must be a file path, or "" for none; got ${show(news.runLogFile)}.`);
  }
  return f;
}

/** The selection to send, from the inputs. */
export function selectionOf(inputs: DlqRecoveryInputs): DlqSelection {
  if (inputs.dlqIds) return { dlqIds: inputs.dlqIds };
  const s: DlqSelection = {};
  for (const k of FILTER_FIELDS)
    if (inputs[k] !== undefined && inputs[k] !== null) (s as Record<string, unknown>)[k] = inputs[k];
  return s;
}

/** The overrides to send, from the inputs. */
export function overridesOf(inputs: DlqRecoveryInputs): ResumeOverrides {
  const o: ResumeOverrides = {};
  if (inputs.flowControl) o.flowControl = inputs.flowControl;
  if (inputs.retries !== undefined && inputs.retries !== null) o.retries = inputs.retries;
  return o;
}

/** The inputs without the token, for outputs. */
function publicInputs(inputs: DlqRecoveryInputs): Omit<DlqRecoveryInputs, "token"> {
  const { token: _token, ...rest } = inputs;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rest)) if (v !== undefined) out[k] = v;
  return out as Omit<DlqRecoveryInputs, "token">;
}

/** Prints progress that `pulumi up` shows while a drain runs. */
class Progress {
  private lastPrint = 0;
  constructor(
    private readonly name: string,
    private readonly started: number,
    private readonly base: { resumed: number; requests: number },
    private readonly now: () => number,
    private readonly log: (line: string) => void,
  ) {}

  page(resumed: number, requests: number, final = false): void {
    const t = this.now();
    if (!final && t - this.lastPrint < 1000) return;
    this.lastPrint = t;
    const totalResumed = this.base.resumed + resumed;
    const secs = Math.max((t - this.started) / 1000, 0.001);
    this.log(
      `DlqRecovery \`${this.name}\`: ${totalResumed} runs resumed in ${this.base.requests + requests} requests ` +
        `(${Math.round(resumed / secs)} runs/s)${final ? ", done" : ""}`,
    );
  }
}

/** Environment and clock, injectable for tests. */
export interface DlqRecoveryDeps {
  env: NodeJS.ProcessEnv;
  now: () => number;
  log: (line: string) => void;
  cwd: () => string;
  /** False once the engine that started this process is gone (the CLI was killed). */
  engineAlive: () => Promise<boolean>;
}

/** Seconds between two checks that the engine is still there, during a drain. */
const ENGINE_CHECK_MS = 1_000;

function defaultEngineAlive(): () => Promise<boolean> {
  const address = engineAddress();
  return address ? () => isListening(address) : async () => true;
}

/** The DlqRecovery provider's implementation. Tests call its methods directly. */
export class DlqRecoveryProvider implements pulumi.dynamic.ResourceProvider {
  private readonly deps: DlqRecoveryDeps;
  private config?: StackConfigReader;

  constructor(deps: Partial<DlqRecoveryDeps> = {}, config?: StackConfigReader) {
    this.deps = {
      env: deps.env ?? process.env,
      now: deps.now ?? Date.now,
      log: deps.log ?? ((line) => console.log(line)),
      cwd: deps.cwd ?? (() => process.cwd()),
      engineAlive: deps.engineAlive ?? defaultEngineAlive(),
    };
    this.config = config;
  }

  async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
    this.config = req.config;
    setStackConfig(req.config);
  }

  async check(
    _olds: DlqRecoveryInputs,
    news: DlqRecoveryInputs,
  ): Promise<pulumi.dynamic.CheckResult<DlqRecoveryInputs>> {
    const f = validateInputs(news);
    if (f.list.length === 0 && !containsUnknown(news)) {
      try {
        const s = resolveSettings(
          ["baseUrl", "token"] as const,
          news,
          this.label(news),
          this.deps.env,
          this.config,
        );
        // The same transport rule the client applies at up, reported at preview.
        resolveEndpoint(s.baseUrl.value, "baseUrl", news.allowInsecureHttp === true);
      } catch (e) {
        f.add((e as { missing?: string[] }).missing?.[0] ?? "baseUrl", (e as Error).message);
      }
      try {
        // The exact header values the client will send: any value it would refuse fails here.
        overrideHeaders(overridesOf(news));
      } catch (e) {
        f.add("flowControl", (e as Error).message);
      }
    }
    return { inputs: news, failures: f.result() };
  }

  async diff(
    _id: string,
    olds: DlqRecoveryOutputs,
    news: DlqRecoveryInputs,
  ): Promise<pulumi.dynamic.DiffResult> {
    if (olds.complete === false) {
      this.deps.log(
        `${this.label(news)}: the last drain was cut off after ${olds.resumedCount} runs; the next up continues it.`,
      );
      return { changes: true };
    }
    if (containsUnknown(news) || specHash(news) !== olds.specHash) {
      this.deps.log(
        `${this.label(news)}: the selection, an override or \`triggers\` changed; the next up resumes again.`,
      );
      return { changes: true };
    }
    const tuning = [
      "baseUrl",
      "allowInsecureHttp",
      "concurrency",
      "maxRequestsPerSecond",
      "maxRecordedRuns",
      "runLogFile",
      "recoveryName",
    ] as const;
    const pick = (o: Partial<DlqRecoveryInputs>) => stable(Object.fromEntries(tuning.map((k) => [k, o[k]])));
    if (pick(olds) !== pick(news)) {
      this.deps.log(
        `${this.label(news)}: only connection or tuning inputs changed; the next up sends nothing.`,
      );
      return { changes: true };
    }
    return { changes: false };
  }

  async create(inputs: DlqRecoveryInputs): Promise<pulumi.dynamic.CreateResult<DlqRecoveryOutputs>> {
    const id = `dlqr-${crypto.randomBytes(8).toString("hex")}`;
    const outs = await this.drain(id, inputs, undefined);
    return { id, outs };
  }

  async update(
    id: string,
    olds: DlqRecoveryOutputs,
    news: DlqRecoveryInputs,
  ): Promise<pulumi.dynamic.UpdateResult<DlqRecoveryOutputs>> {
    const sameSpec = specHash(news) === olds.specHash;
    if (sameSpec && olds.complete !== false) {
      // Only connection or tuning inputs changed: nothing is sent. The drain's results are
      // kept; the inputs are the new ones (an input removed is gone from the outputs too).
      const results = Object.fromEntries(
        RESULT_FIELDS.filter((k) => olds[k] !== undefined).map((k) => [k, olds[k]]),
      );
      return { outs: { ...publicInputs(news), ...results } as DlqRecoveryOutputs };
    }
    return { outs: await this.drain(id, news, sameSpec ? olds : undefined) };
  }

  async read(id: string, props: DlqRecoveryOutputs): Promise<pulumi.dynamic.ReadResult<DlqRecoveryOutputs>> {
    return { id, props };
  }

  async delete(): Promise<void> {
    // Resumed runs cannot be un-resumed: deleting the resource leaves the service untouched.
  }

  private label(inputs: DlqRecoveryInputs): string {
    return inputs.recoveryName ? `DlqRecovery \`${inputs.recoveryName}\`` : "DlqRecovery";
  }

  /** Runs (or continues) a drain; on failure rejects with the partial state for the engine to save. */
  private async drain(
    id: string,
    inputs: DlqRecoveryInputs,
    previous: DlqRecoveryOutputs | undefined,
  ): Promise<DlqRecoveryOutputs> {
    const label = this.label(inputs);
    const s = resolveSettings(["baseUrl", "token"] as const, inputs, label, this.deps.env, this.config);
    const url = s.baseUrl.value;
    const maxRecorded = inputs.maxRecordedRuns ?? DEFAULT_MAX_RECORDED_RUNS;
    const started = this.deps.now();
    const base = {
      resumed: previous?.resumedCount ?? 0,
      requests: previous?.requestCount ?? 0,
      ambiguous: previous?.ambiguousRequests ?? 0,
    };
    const recorded: ResumedRun[] = previous ? [...previous.resumedRuns] : [];
    const unconfirmed: string[] = previous ? [...previous.unconfirmedDlqIds] : [];
    const runLog = this.openRunLog(inputs);
    const progress = new Progress(inputs.recoveryName ?? id, started, base, this.deps.now, this.deps.log);
    let lastEngineCheck = started;
    const record = async (runs: ResumedRun[]) => {
      for (const r of runs) if (recorded.length < maxRecorded) recorded.push(r);
      runLog?.(runs);
      // A killed CLI leaves this process behind: stop resuming runs no state will record.
      if (this.deps.now() - lastEngineCheck >= ENGINE_CHECK_MS) {
        lastEngineCheck = this.deps.now();
        if (!(await this.deps.engineAlive())) {
          throw new EngineGoneError(
            `${label}: the Pulumi engine is gone (was \`pulumi up\` killed?); the drain stops here. ` +
              `Runs resumed so far are in the run log${inputs.runLogFile === "" ? " (disabled)" : ""}.`,
          );
        }
      }
    };
    const client = new SvcClient({
      baseUrl: url,
      token: s.token.value,
      allowInsecureHttp: inputs.allowInsecureHttp === true,
    });
    const overrides = overridesOf(inputs);
    const result = (
      p: DrainResult & { cursor?: string; remainingDlqIds?: string[] },
      complete: boolean,
      err?: string,
    ): DlqRecoveryOutputs => {
      const resumedCount = base.resumed + p.resumedCount;
      const out: DlqRecoveryOutputs = {
        ...publicInputs(inputs),
        resumedCount,
        requestCount: base.requests + p.requestCount,
        resumedRuns: recorded,
        resumedRunsTruncated: recorded.length < resumedCount,
        ambiguousRequests: base.ambiguous + p.ambiguousRequests,
        unconfirmedDlqIds: [...unconfirmed, ...(p.unconfirmedDlqIds ?? [])],
        overrideHeaders: overrideHeaders(overrides),
        startedAt: previous?.startedAt ?? new Date(started).toISOString(),
        finishedAt: new Date(this.deps.now()).toISOString(),
        complete,
        specHash: specHash(inputs),
      };
      if (!complete) {
        if (p.cursor !== undefined) out.cursor = p.cursor;
        if (p.remainingDlqIds !== undefined) out.remainingDlqIds = p.remainingDlqIds;
        if (err) out.lastError = err;
      }
      return out;
    };
    try {
      let res: DrainResult;
      if (inputs.dlqIds) {
        const ids = previous?.remainingDlqIds ?? inputs.dlqIds;
        res = await client.resumeByIds(ids, overrides, {
          keepRuns: false, // recorded in onPage: a huge drain does not hold every run in memory
          concurrency: inputs.concurrency,
          maxRequestsPerSecond: inputs.maxRequestsPerSecond ?? (await this.accountRateLimit()),
          onPage: async (e) => {
            progress.page(e.resumedCount, e.requestCount);
            await record(e.page.workflowRuns);
          },
        });
      } else {
        res = await this.drainWithCursor(
          client,
          inputs,
          previous?.cursor,
          async (page: ResumePage, resumed: number, requests: number) => {
            progress.page(resumed, requests);
            await record(page.workflowRuns);
          },
        );
      }
      progress.page(res.resumedCount, res.requestCount, true);
      return result(res, true);
    } catch (e) {
      if (e instanceof EngineGoneError || (e as { cause?: unknown }).cause instanceof EngineGoneError) {
        this.deps.log(((e as { cause?: Error }).cause ?? (e as Error)).message);
        exitOrphanedProvider();
      }
      const partial: DrainProgress | undefined = (e as { partial?: DrainProgress }).partial;
      const explained = explainServiceError(e, label, url, describeOrigins({ token: s.token }));
      if (!partial) throw explained;
      const outs = result(partial, false, explained.message);
      const message =
        `${explained.message}\n${label} was cut off after resuming ${outs.resumedCount} runs in ${outs.requestCount} requests; ` +
        "they are recorded in the state. Run `pulumi up` again to continue where it stopped.";
      // The engine saves `properties` as the resource's state (with init errors), so no resumed run is lost.
      throw Object.assign(new Error(message), {
        id,
        properties: { ...outs, __provider: (inputs as Record<string, unknown>).__provider },
        reasons: [message],
      });
    } finally {
      await client.close();
    }
  }

  /**
   * Follows the cursor to the end. A saved cursor that the service no longer accepts
   * (400) is dropped and the drain starts over: resumed entries have left the DLQ, so
   * starting over cannot resume anything twice.
   */
  private async drainWithCursor(
    client: SvcClient,
    inputs: DlqRecoveryInputs,
    startCursor: string | undefined,
    onPage: (page: ResumePage, resumed: number, requests: number) => Promise<void>,
  ): Promise<DrainResult> {
    const run = (cursor: string | undefined) =>
      client.drain(selectionOf(inputs), overridesOf(inputs), {
        keepRuns: false, // recorded in onPage: a huge drain does not hold every run in memory
        startCursor: cursor,
        onPage: (e) => onPage(e.page, e.resumedCount, e.requestCount),
      });
    if (startCursor === undefined) return run(undefined);
    try {
      return await run(startCursor);
    } catch (e) {
      const partial = (e as { partial?: DrainProgress }).partial;
      if (isSvcError(e) && e.code === "SVC_BAD_REQUEST" && partial && partial.requestCount === 0) {
        this.deps.log(`${this.label(inputs)}: the saved cursor was refused; starting the drain over.`);
        return run(undefined);
      }
      throw e;
    }
  }

  /** The account's `max_requests_per_second`, when account settings are configured; else undefined. */
  private async accountRateLimit(): Promise<number | undefined> {
    const url = resolveSetting("accountApiUrl", undefined, this.deps.env, this.config);
    const user = resolveSetting("username", undefined, this.deps.env, this.config);
    const pass = resolveSetting("password", undefined, this.deps.env, this.config);
    if (!url || !user || !pass) return undefined;
    const client = new SvcClient({ accountApiUrl: url.value, username: user.value, password: pass.value });
    try {
      return (await client.getAccount()).max_requests_per_second;
    } catch {
      return undefined;
    } finally {
      await client.close();
    }
  }

  /** Appends every resumed run to a JSON Lines file; the full list of a huge drain lives there. */
  private openRunLog(inputs: DlqRecoveryInputs): ((runs: ResumedRun[]) => void) | undefined {
    if (inputs.runLogFile === "") return undefined;
    const rel =
      inputs.runLogFile ?? path.join("svc-recovery", `${inputs.recoveryName ?? "dlq-recovery"}.jsonl`);
    const file = path.resolve(this.deps.cwd(), rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    return (runs) => {
      if (runs.length === 0) return;
      fs.appendFileSync(file, runs.map((r) => JSON.stringify(r)).join("\n") + "\n");
    };
  }
}

/** The instance the `DlqRecovery` resource's provider loads. */
export const provider = new DlqRecoveryProvider();
