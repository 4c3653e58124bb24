/**
 * The DlqRecovery's logic (`DlqRecoveryController`), served by the svc provider through
 * `adapter.ts` and to a stack written by 0.2 through `dynamic/dlqRecovery.ts`: it resumes failed
 * workflow runs from the DLQ with
 * `POST {baseUrl}/v2/workflows/dlq/resume` (spec 4.1), at most 50 runs a request.
 *
 * - `check` validates every input and that a URL and token are configured (preview
 *   fails early, naming the field and the value).
 * - `diff` reports a change when the selection, an override or `triggers` changed (the
 *   next up resumes again; a new `dlqIds` list skips the IDs this resource already resumed),
 *   when `baseUrl`, `account` or a tuning input changed (the next up sends nothing), or when the
 *   last drain did not finish (the next up continues it, unless it stopped at a `maxRuns` the
 *   inputs keep); what the next up will do is printed (`change.ts`). A new
 *   `token` alone is no change: it is used by the next drain and never stored in outputs; nor
 *   are new `accountLimits` (the bound Account's pacing limits, copied by the component).
 * - `create` drains through `DrainClient`: with filters (or `all`) in parallel failure-time
 *   windows (`drainWindows`; `concurrency: 1` follows one cursor, ceil(N/50) requests for N
 *   entries); with `dlqIds` in batches of at most 50 (`resumeByIds`). Every request passes the
 *   account's rate gate, one per account in the process, so all the DlqRecovery resources of an
 *   up (one provider process) share it; its limit is the account's `max_requests_per_second`:
 *   a bound `Account`'s (its output, with its record's token when no `token` is given), else
 *   the stack's account (read once per process when account settings are configured, and not
 *   for an `account` ID that names another account), else learnt from the `Burst-RateLimit-*`
 *   headers. `maxRequestsPerSecond` caps one drain lower.
 * - `update` drains again when the selection, overrides or triggers changed, continues
 *   from the saved windows (or cursor) when the last drain was cut off, and sends nothing otherwise.
 * - `read` returns the state as it is (the service has nothing to read back).
 * - `delete` leaves the service untouched: resumed runs are not undone.
 *
 * A fatal error mid-drain rejects with the partial state (runs resumed so far, the open
 * windows and their cursors), which the engine saves; the next `up` continues where it stopped.
 *
 * The inputs and their checks are in `inputs.ts`, progress lines and the run log in
 * `progress.ts`, the drain itself (requests, records, outputs) in `run.ts`.
 *
 * @packageDocumentation
 */
import "../../client/requireNode"; // first: one clear error on a Node.js older than 22.19
import * as crypto from "node:crypto";
import type * as pulumi from "@pulumi/pulumi";
import { SvcError } from "../../client";
import { resolveEndpoint } from "../../client/transport";
import type { AccountLimits } from "../../core/accountClient";
import { parseAccountRef } from "../../core/accountRef";
import {
  MissingSettingError,
  RESUME_SETTINGS,
  Settings,
  type StackConfigReader,
} from "../../core/connection";
import { DLQ_RECOVERY_RESULT_NAMES } from "../../core/resources/dlqRecovery";
import { UNKNOWN, containsUnknown } from "../../core/unknownValue";
import {
  maxRecordedOf,
  RESULT_FIELDS,
  TUNING_FIELDS,
  publicInputs,
  recoveryLabel,
  specHash,
  stable,
  validateInputs,
  type DlqRecoveryInputs,
  type DlqRecoveryOutputs,
} from "./inputs";
import { changedLine, heldAtMaxRuns, resumedBefore, unfinishedLine } from "./change";
import { runDrainJob, type DrainDeps, type DrainJob } from "./run";
import { ProviderProcess } from "../providerProcess";
import type { Operation } from "../resource";

export type { DlqRecoveryInputs, DlqRecoveryOutputs } from "./inputs";

/** Environment and what a drain needs (clock, log, folder, engine check), injectable for tests. */
export interface DlqRecoveryDeps extends Omit<DrainDeps, "rateGates" | "signal"> {
  env: NodeJS.ProcessEnv;
  /**
   * What the provider process shares between its operations: rate gates, account limits, drain
   * thread. A provider built without one has its own; the svc provider passes its process's.
   */
  providerProcess: ProviderProcess;
  /**
   * Where drains run: in this thread (the default of a provider built in code, such as a test's),
   * or in the provider process's drain thread (`drainThread.ts`), as the provider the CLI loads
   * does: its young generation stays small beside the SDK's (docs/benchmarks.md section 7).
   */
  drainIn: "this thread" | "drain thread";
}

/**
 * The DlqRecovery's logic: its operations on typed inputs and outputs. The svc provider serves it
 * through `DlqRecoveryAdapter` (`adapter.ts`), a 0.2 stack through `dynamic/dlqRecovery.ts`;
 * tests call its methods directly.
 */
export class DlqRecoveryController {
  private readonly deps: DlqRecoveryDeps;
  /** Stack config and environment; replaced by `configure`. */
  private settings: Settings;

  /**
   * @param deps - environment, clock, log, folder and engine check (injectable for tests)
   * @param config - the stack config, until `configure` hands over the engine's
   */
  constructor(deps: Partial<DlqRecoveryDeps> = {}, config?: StackConfigReader) {
    const log = deps.log ?? ((line: string) => console.log(line));
    this.deps = {
      env: deps.env ?? process.env,
      now: deps.now ?? Date.now,
      log,
      warn: deps.warn ?? ((line) => log(`warning: ${line}`)),
      cwd: deps.cwd ?? (() => process.cwd()),
      engineAlive: deps.engineAlive ?? (async () => true),
      exitOrphaned: deps.exitOrphaned ?? (() => undefined),
      drainIn: deps.drainIn ?? "this thread",
      providerProcess: deps.providerProcess ?? new ProviderProcess(),
      ...(deps.status ? { status: deps.status } : {}),
    };
    this.settings = new Settings(this.deps.env, config);
  }

  /** Takes the provider's configuration (the engine's stack config, or an explicit provider's inputs). */
  async configure(config: StackConfigReader): Promise<void> {
    this.settings = new Settings(this.deps.env, config);
  }

  async check(
    _olds: DlqRecoveryInputs,
    news: DlqRecoveryInputs,
  ): Promise<pulumi.dynamic.CheckResult<DlqRecoveryInputs>> {
    const f = validateInputs(news);
    if (f.list.length === 0 && !containsUnknown(news)) {
      try {
        const s = this.settings.require(RESUME_SETTINGS, news, recoveryLabel(news));
        // The same transport rule the client applies at up, reported at preview.
        resolveEndpoint(s.baseUrl.value, "baseUrl", news.allowInsecureHttp === true);
      } catch (e) {
        // A setting in no source (or only empty): a failure of the resource, not of an input it did not set.
        if (e instanceof MissingSettingError) f.add("", e.message);
        else if (e instanceof SvcError) f.addForSetting("baseUrl", news.baseUrl, e.message);
        else throw e;
      }
    }
    return { inputs: news, failures: f.result() };
  }

  async diff(
    _id: string,
    olds: DlqRecoveryOutputs,
    news: DlqRecoveryInputs,
  ): Promise<pulumi.dynamic.DiffResult> {
    const specChanged = containsUnknown(news) || specHash(news) !== olds.specHash;
    const pick = (o: Partial<DlqRecoveryInputs>) =>
      stable(Object.fromEntries(TUNING_FIELDS.map((k) => [k, o[k]])));
    if (olds.complete === false) {
      this.deps.log(unfinishedLine(olds, news, specChanged));
      // Held at the same `maxRuns`: nothing to send; a tuning change is still recorded.
      return { changes: specChanged || !heldAtMaxRuns(olds, news) || pick(olds) !== pick(news) };
    }
    if (specChanged) {
      this.deps.log(changedLine(olds, news));
      return { changes: true };
    }
    if (pick(olds) !== pick(news)) {
      this.deps.log(
        `${recoveryLabel(news)}: only connection or tuning inputs changed; the next up sends nothing.`,
      );
      return { changes: true };
    }
    const recorded = olds.resumedRuns?.length ?? 0;
    if (recorded > maxRecordedOf(news)) {
      // A state that keeps more runs than the cap (a lowered `maxRecordedRuns`, or a state written
      // by 0.1, which kept up to 1,000): the next up trims it, sending nothing.
      this.deps.log(
        `${recoveryLabel(news)}: the state keeps ${recorded} resumed runs, more than \`maxRecordedRuns\` ` +
          `(${maxRecordedOf(news)}); the next up trims it and sends nothing (every run stays in the run log).`,
      );
      return { changes: true };
    }
    return { changes: false };
  }

  /**
   * Drains the selection (a preview sends nothing: the outputs are the inputs, the results
   * unknown); `op.signal` stops the drain, which rejects with the state to save.
   *
   * @throws ResourceInitError with the partial state when the drain was cut off
   */
  async create(
    inputs: DlqRecoveryInputs,
    op: Operation = {},
  ): Promise<pulumi.dynamic.CreateResult<DlqRecoveryOutputs>> {
    if (op.preview === true) return { id: "", outs: previewOutputs(inputs) };
    const id = `dlqr-${crypto.randomBytes(8).toString("hex")}`;
    const outs = await this.drain({ id, inputs, signal: op.signal });
    return { id, outs };
  }

  /**
   * Drains again when the selection, overrides or triggers changed, continues a cut-off drain,
   * and sends nothing otherwise (nor in a preview); `op.signal` stops the drain.
   *
   * @throws ResourceInitError with the partial state when the drain was cut off
   */
  async update(
    id: string,
    olds: DlqRecoveryOutputs,
    news: DlqRecoveryInputs,
    op: Operation = {},
  ): Promise<pulumi.dynamic.UpdateResult<DlqRecoveryOutputs>> {
    if (op.preview === true) return { outs: previewOutputs(news) };
    const sameSpec = specHash(news) === olds.specHash;
    if (sameSpec && olds.complete !== false) {
      // Only connection or tuning inputs changed: nothing is sent. The drain's results are
      // kept; the inputs are the new ones (an input removed is gone from the outputs too).
      const results = Object.fromEntries(
        RESULT_FIELDS.filter((k) => olds[k] !== undefined).map((k) => [k, olds[k]]),
      );
      return { outs: trimRecorded({ ...publicInputs(news), ...results } as DlqRecoveryOutputs, news) };
    }
    // A new drain of a `dlqIds` list skips the IDs this resource already resumed.
    const skip = !sameSpec && news.dlqIds !== undefined ? resumedBefore(olds) : [];
    const previous = sameSpec ? olds : undefined;
    const mark = olds.runLogMark;
    return { outs: await this.drain({ id, inputs: news, previous, skip, mark, signal: op.signal }) };
  }

  async read(id: string, props: DlqRecoveryOutputs): Promise<pulumi.dynamic.ReadResult<DlqRecoveryOutputs>> {
    return { id, props };
  }

  async delete(): Promise<void> {
    // Resumed runs cannot be un-resumed: deleting the resource leaves the service untouched.
  }

  /**
   * The limits that pace a drain: none when `maxRequestsPerSecond` bounds it; the bound Account's
   * (its outputs); else the stack's `svc:` account, read once per process, unless `account` names
   * another account ID (its rate is then learnt from the rate-limit headers).
   */
  private async accountLimits(inputs: DlqRecoveryInputs, label: string): Promise<AccountLimits> {
    if (inputs.maxRequestsPerSecond !== undefined) return {};
    const ref = parseAccountRef(inputs.account);
    if (ref?.kind === "resource") return inputs.accountLimits ?? {};
    const limits = await this.deps.providerProcess.accountLimits.get(this.settings, label);
    return ref?.kind === "id" && limits.accountId !== ref.id ? {} : limits;
  }

  /** Runs (or continues) a drain; on failure rejects with the partial state for the engine to save. */
  private async drain(d: {
    id: string;
    inputs: DlqRecoveryInputs;
    /** The state the drain continues (a cut-off drain of the same selection). */
    previous?: DlqRecoveryOutputs;
    /** `dlqIds` this resource resumed already (a new list skips them). */
    skip?: string[];
    /** The `runLogMark` of the resource's state (its last drain that reached it). */
    mark?: string;
    signal?: AbortSignal;
  }): Promise<DlqRecoveryOutputs> {
    const { id, inputs } = d;
    const label = recoveryLabel(inputs);
    const s = this.settings.require(RESUME_SETTINGS, inputs, label);
    const limits = await this.accountLimits(inputs, label);
    const job: DrainJob = {
      id,
      inputs,
      previous: d.previous,
      skipDlqIds: d.skip ?? [],
      ...(d.mark !== undefined ? { savedRunLogMark: d.mark } : {}),
      baseUrl: s.baseUrl.value,
      token: s.token,
      limits,
    };
    const shared = this.deps.providerProcess;
    const deps = { ...this.deps, rateGates: shared.rateGates, ...(d.signal ? { signal: d.signal } : {}) };
    return this.deps.drainIn === "drain thread"
      ? shared.drainThread().run(job, deps)
      : runDrainJob(job, deps);
  }
}

/** The outputs with `resumedRuns` cut to `maxRecordedRuns` (state of an older version kept up to 1,000). */
function trimRecorded(outs: DlqRecoveryOutputs, inputs: DlqRecoveryInputs): DlqRecoveryOutputs {
  const max = maxRecordedOf(inputs);
  if (!Array.isArray(outs.resumedRuns) || outs.resumedRuns.length <= max) return outs;
  const resumedRuns = outs.resumedRuns.slice(0, max);
  return { ...outs, resumedRuns, resumedRunsTruncated: resumedRuns.length < outs.resumedCount };
}

/** The outputs of a preview: the inputs but the token, and every result unknown. */
function previewOutputs(inputs: DlqRecoveryInputs): DlqRecoveryOutputs {
  const { token: _token, ...values } = inputs as Record<string, unknown>;
  for (const k of DLQ_RECOVERY_RESULT_NAMES) values[k] = UNKNOWN;
  return values as unknown as DlqRecoveryOutputs;
}
