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
 *
 * The inputs and their checks are in `dlqRecoveryInputs.ts`, progress lines and the run log in
 * `dlqRecoveryProgress.ts`.
 */
import * as crypto from "node:crypto";
import type * as pulumi from "@pulumi/pulumi";
import {
  DrainError,
  SvcClient,
  SvcError,
  overrideHeaders,
  type DrainResult,
  type ResumedRun,
  type ResumePage,
} from "../../client";
import { resolveEndpoint } from "../../client/transport";
import { readAccount } from "../accountClient";
import { MissingSettingError, RESUME_SETTINGS, Settings, type StackConfigReader } from "../connection";
import { describeOrigins, explainServiceError } from "../messages";
import { containsUnknown } from "../tokens";
import {
  DEFAULT_MAX_RECORDED_RUNS,
  RESULT_FIELDS,
  TUNING_FIELDS,
  overridesOf,
  publicInputs,
  recoveryLabel,
  selectionOf,
  specHash,
  stable,
  validateInputs,
  type DlqRecoveryInputs,
  type DlqRecoveryOutputs,
} from "./dlqRecoveryInputs";
import { Progress, openRunLog } from "./dlqRecoveryProgress";
import {
  EngineGoneError,
  PartialStateError,
  engineAddress,
  exitOrphanedProvider,
  isListening,
} from "./engine";

export type { DlqRecoveryInputs, DlqRecoveryOutputs } from "./dlqRecoveryInputs";

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
  /** Stack config and environment; replaced by `configure`. */
  private settings: Settings;

  /**
   * @param deps - environment, clock, log, folder and engine check (injectable for tests)
   * @param config - the stack config, until `configure` hands over the engine's
   */
  constructor(deps: Partial<DlqRecoveryDeps> = {}, config?: StackConfigReader) {
    this.deps = {
      env: deps.env ?? process.env,
      now: deps.now ?? Date.now,
      log: deps.log ?? ((line) => console.log(line)),
      cwd: deps.cwd ?? (() => process.cwd()),
      engineAlive: deps.engineAlive ?? defaultEngineAlive(),
    };
    this.settings = new Settings(this.deps.env, config);
  }

  async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
    this.settings = new Settings(this.deps.env, req.config);
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
        if (e instanceof MissingSettingError) f.add(e.missing[0], e.message);
        else if (e instanceof SvcError) f.add("baseUrl", e.message);
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
    if (olds.complete === false) {
      this.deps.log(
        `${recoveryLabel(news)}: the last drain was cut off after ${olds.resumedCount} runs; the next up continues it.`,
      );
      return { changes: true };
    }
    if (containsUnknown(news) || specHash(news) !== olds.specHash) {
      this.deps.log(
        `${recoveryLabel(news)}: the selection, an override or \`triggers\` changed; the next up resumes again.`,
      );
      return { changes: true };
    }
    const pick = (o: Partial<DlqRecoveryInputs>) =>
      stable(Object.fromEntries(TUNING_FIELDS.map((k) => [k, o[k]])));
    if (pick(olds) !== pick(news)) {
      this.deps.log(
        `${recoveryLabel(news)}: only connection or tuning inputs changed; the next up sends nothing.`,
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

  /** Runs (or continues) a drain; on failure rejects with the partial state for the engine to save. */
  private async drain(
    id: string,
    inputs: DlqRecoveryInputs,
    previous: DlqRecoveryOutputs | undefined,
  ): Promise<DlqRecoveryOutputs> {
    const label = recoveryLabel(inputs);
    const s = this.settings.require(RESUME_SETTINGS, inputs, label);
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
    const runLog = openRunLog(inputs, this.deps.cwd());
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
          maxRequestsPerSecond: inputs.maxRequestsPerSecond ?? (await this.accountRateLimit(label)),
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
      const gone = e instanceof EngineGoneError ? e : e instanceof Error ? e.cause : undefined;
      if (gone instanceof EngineGoneError) {
        this.deps.log(gone.message);
        exitOrphanedProvider();
      }
      const explained = explainServiceError(e, label, url, describeOrigins({ token: s.token }));
      if (!(e instanceof DrainError)) throw explained;
      const outs = result(e.partial, false, explained.message);
      const message =
        `${explained.message}\n${label} was cut off after resuming ${outs.resumedCount} runs in ${outs.requestCount} requests; ` +
        "they are recorded in the state. Run `pulumi up` again to continue where it stopped.";
      throw new PartialStateError(
        message,
        id,
        { ...outs, __provider: (inputs as Record<string, unknown>).__provider },
        [message],
      );
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
      if (e instanceof DrainError && e.code === "SVC_BAD_REQUEST" && e.partial.requestCount === 0) {
        this.deps.log(`${recoveryLabel(inputs)}: the saved cursor was refused; starting the drain over.`);
        return run(undefined);
      }
      throw e;
    }
  }

  /** The account's `max_requests_per_second`, when account settings are configured; else undefined. */
  private async accountRateLimit(label: string): Promise<number | undefined> {
    try {
      return (await readAccount(this.settings, {}, label)).record.max_requests_per_second;
    } catch {
      return undefined; // no account settings, or no answer: no default bound
    }
  }
}

/** The instance the `DlqRecovery` resource's provider loads. */
export const provider = new DlqRecoveryProvider();
