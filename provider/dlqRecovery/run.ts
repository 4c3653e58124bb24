// size: DrainRun is one drain's bookkeeping (counts, recorded runs, run log, progress, engine check) on shared private fields, with the end-of-drain messages it alone writes; inputs, state and change handling are already files of their own
/**
 * One drain of a `DlqRecovery` resource, once its connection is set up (`controller.ts`): it
 * sends the requests through `DrainClient` (windows for filters and `all`, batches for `dlqIds`),
 * records the runs (state, run log, progress lines, engine check), and builds the outputs: the
 * complete ones, or the partial state a cut-off drain continues from.
 */
import "../../client/requireNode"; // first: one clear error on a Node.js older than 22.19
import { MAX_RUNS_PER_REQUEST, overrideHeaders, type ResumedRun } from "../../client";
import {
  DrainClient,
  DrainError,
  type RateGate,
  type RateGateRegistry,
  type DrainProgress,
  type DrainWindow,
  type WindowDrainState,
} from "../../drain";
import type { AccountLimits } from "../../core/accountClient";
import type { Resolved } from "../../core/connection";
import { describeOrigins, explainServiceError, nextStep } from "../../core/serviceErrors";
import {
  maxRecordedOf,
  overridesOf,
  publicInputs,
  recoveryLabel,
  selectionOf,
  specHash,
  type DlqRecoveryInputs,
  type DlqRecoveryOutputs,
} from "./inputs";
import { Progress, count, openRunLog, type RunLog } from "./progress";
import { notFoundOutputs, notFoundWarning, tooManyNotFound } from "./notFound";
import { fromStoredWindowState, toStoredWindowState } from "./storedState";
import { EngineGoneError } from "../engine";
import { ResourceInitError } from "../resource";

/** Milliseconds between two checks that the engine is still there, during a drain. */
export const ENGINE_CHECK_MS = 1_000;

/** What a drain needs from its provider: clock, log, folder, engine check and rate gates. */
export interface DrainDeps {
  now: () => number;
  log: (line: string) => void;
  /**
   * Prints one progress line, which the next replaces: on the resource's row, not in the update's
   * diagnostics (the svc provider's ephemeral log). Unset: `log`.
   */
  status?: (line: string) => void;
  /** Prints one warning of the update (the engine's, in the provider the CLI loads). */
  warn: (line: string) => void;
  cwd: () => string;
  /** False once the engine that started this process is gone (the CLI was killed). */
  engineAlive: () => Promise<boolean>;
  /** Ends the provider process once the engine is gone (`exitOrphanedProvider`). */
  exitOrphaned: () => void;
  /**
   * The rate gates of the thread the drain runs in, one per account, so the drains of one account
   * share its pacing (`ProviderProcess.rateGates`, or the drain thread's own).
   */
  rateGates: RateGateRegistry;
  /**
   * Stops the drain when aborted (the engine's `Cancel`: Ctrl-C, or a `customTimeouts` that ran
   * out): no request is sent after it, those in flight are answered and recorded, and the drain
   * rejects with the partial state, which the next up continues.
   */
  signal?: AbortSignal;
}

/**
 * One drain as the provider hands it over, once its settings and limits are resolved: plain
 * data, so that it can run in the provider's thread or in the drain thread (`drainThread.ts`).
 */
export interface DrainJob {
  /** The resource's ID. */
  id: string;
  inputs: DlqRecoveryInputs;
  /** The outputs of the cut-off drain this one continues, if any. */
  previous: DlqRecoveryOutputs | undefined;
  /** `dlqIds` a new drain does not send: this resource resumed them before (`resumedBefore`). */
  skipDlqIds?: string[];
  /** The `runLogMark` of the resource's state (its last drain that reached the state), if any. */
  savedRunLogMark?: string;
  /** The resume URL and the token, with where they came from. */
  baseUrl: string;
  token: Resolved;
  /** The account's limits, when read. */
  limits: AccountLimits;
}

/**
 * Runs one drain: its client, the account's rate gate (one per account and thread, shared by
 * the drains of that account), then {@link DrainRun}.
 */
export async function runDrainJob(job: DrainJob, deps: DrainDeps): Promise<DlqRecoveryOutputs> {
  const { inputs, baseUrl: url, token } = job;
  const run = new DrainRun(deps, job.id, inputs, job.previous, job.skipDlqIds, job.savedRunLogMark);
  const client = new DrainClient({
    baseUrl: url,
    token: token.value,
    allowInsecureHttp: inputs.allowInsecureHttp === true,
  });
  try {
    const gate = deps.rateGates.forAccount(url, token.value, job.limits.maxRequestsPerSecond);
    return await run.run({ client, gate, limits: job.limits, url, origins: { token } });
  } finally {
    await client.close();
  }
}

/** The connection of a drain, as `dlqRecovery.ts` sets it up. */
export interface DrainConnection {
  client: DrainClient;
  /** The account's rate gate, shared by every drain of the account in the process. */
  gate: RateGate;
  /** The account's limits, when read. */
  limits: AccountLimits;
  /** The resume URL (for messages). */
  url: string;
  /** Where the token came from (for messages), as `describeOrigins` takes it. */
  origins: Parameters<typeof describeOrigins>[0];
}

/** One drain (or its continuation): the runs recorded so far and the outputs it produces. */
export class DrainRun {
  private readonly label: string;
  private readonly started: number;
  private readonly base: { resumed: number; requests: number; ambiguous: number };
  private readonly recorded: ResumedRun[];
  private readonly unconfirmed: string[];
  private readonly maxRecorded: number;
  private readonly runLog: RunLog | undefined;
  private readonly progress: Progress;
  private lastEngineCheck: number;

  /**
   * @param id - the resource's ID
   * @param inputs - the resource's inputs
   * @param previous - the outputs of the cut-off drain this one continues, if any
   * @param skipDlqIds - `dlqIds` this resource resumed before, not sent again by a new drain
   * @param savedRunLogMark - the `runLogMark` of the resource's state, if any
   */
  constructor(
    private readonly deps: DrainDeps,
    private readonly id: string,
    private readonly inputs: DlqRecoveryInputs,
    private readonly previous: DlqRecoveryOutputs | undefined,
    private readonly skipDlqIds: string[] = [],
    savedRunLogMark?: string,
  ) {
    this.label = recoveryLabel(inputs);
    this.started = deps.now();
    this.lastEngineCheck = this.started;
    this.runLog = openRunLog(inputs, deps.cwd(), savedRunLogMark);
    const unrecorded = this.runLog?.unrecorded ?? 0;
    const unrecordedRequests = this.runLog?.unrecordedRequests ?? 0;
    if (unrecorded > 0 || unrecordedRequests > 0) {
      deps.warn(unrecordedRuns(this.label, unrecorded, unrecordedRequests));
    }
    this.base = {
      resumed: (previous?.resumedCount ?? 0) + unrecorded,
      requests: (previous?.requestCount ?? 0) + unrecordedRequests,
      ambiguous: previous?.ambiguousRequests ?? 0,
    };
    this.maxRecorded = maxRecordedOf(inputs);
    // A continued drain keeps what it recorded, within today's `maxRecordedRuns` (a state of an
    // older version may hold up to 1,000).
    this.recorded = previous ? previous.resumedRuns.slice(0, this.maxRecorded) : [];
    this.unconfirmed = previous ? [...previous.unconfirmedDlqIds] : [];
    this.progress = new Progress(inputs.recoveryName ?? id, this.started, this.base, deps.now, {
      final: deps.log,
      progress: deps.status ?? deps.log,
    });
  }

  /**
   * Drains through `c`; resolves to the complete outputs.
   *
   * @throws ResourceInitError with the outputs to save when the drain was cut off
   */
  async run(c: DrainConnection): Promise<DlqRecoveryOutputs> {
    let res: DrainProgress;
    try {
      res = this.inputs.dlqIds ? await this.byIds(c) : await this.inWindows(c);
    } catch (e) {
      const error = this.cutOff(e, c);
      // Where the engine is gone, or a cancel may be followed by the CLI's end (a second Ctrl-C),
      // the state may never record this drain: its start mark stays for the next.
      const gone = e instanceof EngineGoneError || (e instanceof Error && e.cause instanceof EngineGoneError);
      if (!gone && this.deps.signal?.aborted !== true) this.runLog?.close();
      throw error;
    }
    const capped = res.stoppedAtMaxRuns === true;
    if (!capped) this.progress.page({ resumed: res.resumedCount, requests: res.requestCount }, true);
    if (!(await this.exitIfEngineGone())) this.runLog?.close();
    const outs = this.outputs(res, !capped);
    if (capped) this.deps.log(atMaxRuns(this.inputs, outs));
    const warning = notFoundWarning(this.inputs, outs, res);
    if (warning !== undefined) this.deps.warn(warning);
    return outs;
  }

  /** The cap of this continuation: `maxRuns` less the runs of the drain before it. */
  private runsLeft(): { maxRuns?: number } {
    const cap = this.inputs.maxRuns;
    return cap === undefined ? {} : { maxRuns: Math.max(cap - this.base.resumed, 0) };
  }

  /**
   * Records the runs of one page: state (up to `maxRecordedRuns`), run log (with `requests`, this
   * continuation's requests answered so far, in its start mark), engine check.
   */
  private async record(runs: ResumedRun[], requests: number): Promise<void> {
    const room = this.maxRecorded - this.recorded.length;
    if (room > 0) this.recorded.push(...runs.slice(0, room));
    this.runLog?.append(runs, requests);
    // A killed CLI leaves this process behind: stop resuming runs no state will record.
    if (this.deps.now() - this.lastEngineCheck < ENGINE_CHECK_MS) return;
    this.lastEngineCheck = this.deps.now();
    if (await this.deps.engineAlive()) return;
    throw new EngineGoneError(
      `${this.label}: the Pulumi engine is gone (was \`pulumi up\` killed?); the drain stops here. ` +
        `Runs resumed so far are in the run log${this.inputs.runLogFile === "" ? " (disabled)" : ""}.`,
    );
  }

  /**
   * A drain that ended after the CLI was killed, between two engine checks: nobody will record
   * it and nobody will call this process again, so it ends (the runs are in the run log).
   *
   * @returns true when the engine is gone
   */
  private async exitIfEngineGone(): Promise<boolean> {
    if (await this.deps.engineAlive()) return false;
    this.deps.log(
      `${this.label}: the Pulumi engine is gone (was \`pulumi up\` killed?); the drain had finished. ` +
        `Runs resumed are in the run log${this.inputs.runLogFile === "" ? " (disabled)" : ""}.`,
    );
    this.deps.exitOrphaned();
    return true;
  }

  /** The rate the drain may go at now: the gate's, capped by `maxRequestsPerSecond`. */
  private allowed(gate: RateGate): number | undefined {
    const a = gate.ratePerSecond;
    const b = this.inputs.maxRequestsPerSecond;
    if (a === undefined) return b;
    return b === undefined ? a : Math.min(a, b);
  }

  /** The IDs this drain sends: those a cut-off drain left, or the list less those resumed before. */
  private idsToSend(): string[] {
    if (this.previous?.remainingDlqIds !== undefined) return this.previous.remainingDlqIds;
    const ids = [...new Set(this.inputs.dlqIds ?? [])];
    if (this.skipDlqIds.length === 0) return ids;
    const skip = new Set(this.skipDlqIds);
    const send = ids.filter((id) => !skip.has(id));
    if (send.length < ids.length) {
      this.deps.log(
        `${this.label}: skipping ${count(ids.length - send.length, "ID")} of the ${ids.length} \`dlqIds\` that this ` +
          `resource already resumed (or found missing) in its last drain; resuming the other ${send.length}.`,
      );
    }
    return send;
  }

  private async byIds(c: DrainConnection): Promise<DrainProgress> {
    const ids = this.idsToSend();
    const total = Math.ceil(new Set(ids).size / MAX_RUNS_PER_REQUEST);
    const res = await c.client.resumeByIds(ids, overridesOf(this.inputs), {
      ...this.runsLeft(),
      keepRuns: false, // recorded in onPage: a huge drain does not hold every run in memory
      concurrency: this.inputs.concurrency,
      maxRequestsPerSecond: this.inputs.maxRequestsPerSecond,
      gate: c.gate,
      ...(this.deps.signal ? { signal: this.deps.signal } : {}),
      onPage: async (e) => {
        const requestsLeft = Math.max(total - e.requestCount, 0);
        const allowedPerSecond = this.allowed(c.gate);
        this.progress.page({
          resumed: e.resumedCount,
          requests: e.requestCount,
          allowedPerSecond,
          requestsLeft,
          daily: c.gate.dailyRequests,
        });
        await this.record(e.page.workflowRuns, e.requestCount);
      },
    });
    return { ...res, cursor: undefined };
  }

  private async inWindows(c: DrainConnection): Promise<DrainProgress> {
    const inputs = this.inputs;
    return c.client.drainWindows(selectionOf(inputs), overridesOf(inputs), {
      ...continueFrom(this.previous, inputs, this.deps.log),
      ...this.runsLeft(),
      keepRuns: false, // recorded in onPage: a huge drain does not hold every run in memory
      concurrency: inputs.concurrency,
      maxRequestsPerSecond: inputs.maxRequestsPerSecond,
      gate: c.gate,
      ...(c.limits.dlqRetentionMs !== undefined ? { horizonMs: c.limits.dlqRetentionMs } : {}),
      ...(c.limits.maxRequestsPerDay !== undefined ? { dailyLimit: c.limits.maxRequestsPerDay } : {}),
      ...(this.deps.signal ? { signal: this.deps.signal } : {}),
      onCursorRefused: (w) => this.deps.log(cursorRefused(inputs, w)),
      onPage: async (e) => {
        this.progress.page({
          resumed: e.resumedCount,
          requests: e.requestCount,
          // Open windows are in flight or next in line at the gate, up to `concurrency` at once.
          windowsInFlight: Math.min(e.windowsOpen, e.concurrency),
          allowedPerSecond: this.allowed(c.gate),
          daily: c.gate.dailyRequests,
        });
        await this.record(e.page.workflowRuns, e.requestCount);
      },
    });
  }

  /** The outputs after `p`: complete, or with what a cut-off drain continues from. */
  private outputs(p: DrainProgress, complete: boolean, err?: string): DlqRecoveryOutputs {
    const inputs = this.inputs;
    const resumedCount = this.base.resumed + p.resumedCount;
    const out: DlqRecoveryOutputs = {
      ...publicInputs(inputs),
      resumedCount,
      requestCount: this.base.requests + p.requestCount,
      resumedRuns: this.recorded,
      resumedRunsTruncated: this.recorded.length < resumedCount,
      ambiguousRequests: this.base.ambiguous + p.ambiguousRequests,
      unconfirmedDlqIds: [...this.unconfirmed, ...(p.unconfirmedDlqIds ?? [])],
      overrideHeaders: overrideHeaders(overridesOf(inputs)),
      startedAt: this.previous?.startedAt ?? new Date(this.started).toISOString(),
      finishedAt: new Date(this.deps.now()).toISOString(),
      complete,
      ...notFoundOutputs(this.previous, p),
      specHash: specHash(inputs),
      ...(this.runLog ? { runLogMark: this.runLog.mark } : {}),
    };
    if (!complete) {
      if (p.stoppedAtMaxRuns === true) out.stoppedAtMaxRuns = true;
      // One cursor over the whole selection is saved as such (`cursor`); split windows as `windowState`.
      if (p.cursor !== undefined) out.cursor = p.cursor;
      else if (p.windowState !== undefined) out.windowState = toStoredWindowState(p.windowState);
      if (p.remainingDlqIds !== undefined) out.remainingDlqIds = p.remainingDlqIds;
      if (err) out.lastError = err;
    }
    return out;
  }

  /** The error a failed drain rejects with: the partial state to save when it was cut off. */
  private cutOff(e: unknown, c: DrainConnection): Error {
    const gone = e instanceof EngineGoneError ? e : e instanceof Error ? e.cause : undefined;
    if (gone instanceof EngineGoneError) {
      this.deps.log(gone.message);
      this.deps.exitOrphaned();
    }
    const explained = explainServiceError(e, this.label, c.url, describeOrigins(c.origins));
    if (!(e instanceof DrainError)) return explained;
    const outs = this.outputs(e.partial, false, explained.message);
    const message =
      this.inputs.dlqIds !== undefined && e.code === "SVC_NOT_FOUND" && e.partial.notFoundDlqIds !== undefined
        ? tooManyNotFound(this.inputs, outs)
        : e.code === "SVC_ABORTED" && this.deps.signal?.aborted === true
          ? stoppedByCancel(this.label, outs)
          : `${explained.message}\n${this.label} was cut off after resuming ${count(outs.resumedCount, "run")} in ${count(outs.requestCount, "request")}; ` +
            `they are recorded in the state. ${nextStep(e.code, e.resetAt)}`;
    return new ResourceInitError(message, this.id, { ...outs });
  }
}

/**
 * Where a cut-off filter drain continues: its stored windows (the provider's format,
 * `storedState.ts`, read as the client's state), else (state of an older version, or a
 * sequential drain) its cursor. A saved state that is not valid is dropped and the drain starts
 * over, which resumes nothing twice: resumed entries have left the DLQ.
 */
export function continueFrom(
  previous: DlqRecoveryOutputs | undefined,
  inputs: DlqRecoveryInputs,
  log: (line: string) => void,
): { state?: WindowDrainState; startCursor?: string } {
  if (previous?.windowState !== undefined) {
    try {
      return { state: fromStoredWindowState(previous.windowState, selectionOf(inputs)) };
    } catch (e) {
      log(
        `${recoveryLabel(inputs)}: the saved window state is not valid (${(e as Error).message}); starting the drain over.`,
      );
      return {};
    }
  }
  if (previous?.cursor !== undefined) return { startCursor: previous.cursor };
  return {};
}

/** The log line of a saved cursor the service refused (its window starts over). */
function cursorRefused(inputs: DlqRecoveryInputs, w: DrainWindow): string {
  const label = recoveryLabel(inputs);
  if (w.from === inputs.fromDate && w.to === inputs.toDate) {
    return `${label}: the saved cursor was refused; starting the drain over.`;
  }
  return `${label}: the saved cursor of window [${w.from ?? "…"}, ${w.to ?? "…"}] was refused; that window starts over.`;
}

/** The warning of runs in the run log that no state recorded (the drain that wrote them died). */
function unrecordedRuns(label: string, runs: number, requests: number): string {
  return (
    `${label}: the run log holds ${count(runs, "run")} resumed by a drain that stopped before its state was ` +
    `saved (a second Ctrl-C, or a killed \`pulumi\`), in ${count(requests, "request")}; they are counted in ` +
    "`resumedCount` and `requestCount`. The requests that drain had in flight (up to 50 runs each, at most " +
    "`concurrency` requests) are in neither."
  );
}

/** The message of a drain the engine's `Cancel` stopped (Ctrl-C, or its `customTimeouts`). */
function stoppedByCancel(label: string, outs: DlqRecoveryOutputs): string {
  return (
    `${label} was stopped (Ctrl-C, or its \`customTimeouts\`) after resuming ${count(outs.resumedCount, "run")} ` +
    `in ${count(outs.requestCount, "request")}: the requests in flight were answered and every run is recorded ` +
    "in the state; the rest stays in the DLQ. Run `pulumi up` to continue where it stopped, each entry once."
  );
}

/** The line of a drain that stopped at `maxRuns`: where, what is left, and how to go on. */
function atMaxRuns(inputs: DlqRecoveryInputs, outs: DlqRecoveryOutputs): string {
  const left =
    outs.remainingDlqIds === undefined ? "" : ` (${count(outs.remainingDlqIds.length, "ID")} of \`dlqIds\`)`;
  return (
    `${recoveryLabel(inputs)}: stopped at \`maxRuns\` (${inputs.maxRuns}) after resuming ${count(outs.resumedCount, "run")} ` +
    `in ${count(outs.requestCount, "request")}; the rest${left} stays in the DLQ and where the drain stopped is saved. ` +
    "Raise or remove `maxRuns` and run `pulumi up` to continue it, each entry once."
  );
}
