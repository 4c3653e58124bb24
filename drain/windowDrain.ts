/**
 * The scheduler of a windowed drain: it keeps up to `concurrency` failure-time windows of a
 * filter (or `all`) selection in flight and splits a window that keeps returning a cursor while
 * slots sit idle, so failures clustered in one burst drain as fast as evenly spread ones.
 *
 * Guarantees, per window the same as {@link drainPages} for a whole drain:
 * - the windows partition the selection (see `windows.ts`); requests in flight at any moment
 *   target pairwise disjoint windows, and a window is split only between its pages;
 * - a cursor is followed within its window only, with the same loop checks ({@link CursorChain});
 * - `requestCount`, `resumedCount`, `ambiguousRequests` count exactly as in `drainPages`
 *   (ambiguous: a request with a lost attempt, answered or not);
 * - on a failure no request is started any more, the requests in flight finish and are
 *   recorded, and a {@link PartialFailure} carries the progress and the state to continue from;
 * - requests answered stay within `ceil(N/50) + 4` for N ≤ 500 and `1.10 × ceil(N/50) + 24 +
 *   min(⌈rate × round trip⌉, ceil(N/50))` above (with the default `windowAllowance`, the gate's
 *   rate and the measured round trip, reported as `budgetNet`; see `windowRoom`), and within `ceil(N/50)` plus 2 % of
 *   the account's daily limit when that is known (`dailyLimit`, or `RateLimit-Limit` read by the
 *   gate); `concurrency: 1` is the sequential drain: one window, one cursor, ceil(N/50) requests.
 *
 * Which windows are opened, split or closed is decided by the pure planner (`windowPlan.ts`);
 * this file is the runner: it sends the planner's windows through a {@link TaskPool} and tells
 * the planner what came back. Where the range starts when the selection has no `fromDate`: the
 * first and last windows stay open-ended, so nothing older than the horizon or newer than now is
 * missed; the horizon only decides where splits fall.
 *
 * @packageDocumentation
 */
import { PartialFailure, DEFAULT_MAX_EMPTY_PAGES, checkCount } from "./cursorDrain";
import { SvcError, isSvcError } from "../client/errors";
import { MAX_RUNS_PER_REQUEST, type DlqSelection } from "../client/contract";
import type { CallState } from "../client/request";
import { TaskPool, type Outcome } from "./pool";
import type { ResumedRun, ResumePage } from "../client/types";
import type {
  DrainProgress,
  DrainWindow,
  GateStatus,
  UnpacedWindowDrainOptions,
  WindowDrainState,
} from "./types";
import { WindowPlan, type PlannedWindow } from "./windowPlan";
import { rootWindow, validateWindowState } from "./windows";
import { fitWindowState } from "./savedState";
import { MAX_IN_FLIGHT, checkConcurrency } from "./inFlight";
import { DEFAULT_HORIZON_MS } from "./planKnobs";

/**
 * Windows in flight at most by default: {@link MAX_IN_FLIGHT}. Below it the planner keeps about the
 * gate's rate times the measured round trip in flight (`targetWindows`).
 */
export const DEFAULT_WINDOW_CONCURRENCY = MAX_IN_FLIGHT;

/**
 * Sends one resume request for `window`, continuing after `cursor`. Updates `state` as attempts
 * are made (so an ambiguous attempt is known even when it throws). The provider builds it from
 * `SvcClient`; tests use an in-memory DLQ.
 */
export type WindowStep = (
  window: DrainWindow,
  cursor: string | undefined,
  state: CallState,
) => Promise<ResumePage>;

/** Progress of a windowed drain, with the state to continue from and how the windows went. */
export interface WindowDrainProgress extends DrainProgress {
  /** Windows still open (none when complete) and the budget counters. */
  windowState: WindowDrainState;
  /** Windows this call opened by splitting. */
  splits: number;
  /** Most windows in flight at once. */
  maxInFlight: number;
  /**
   * The largest rate (requests a second, as the gate knew it) and round trip (ms, as the drain
   * measured it) the window budget credited, when both were known: the requests of the drain
   * stay within `requestAllowance(N, { ratePerSecond, roundTripMs })` with these.
   */
  budgetNet?: { ratePerSecond: number; roundTripMs: number };
}

/** One request of the drain: its window and the attempts it made. */
interface Job {
  w: PlannedWindow;
  state: CallState;
  /** When it was handed to the pool, unix ms. */
  sent: number;
}

/** The checked options of a drain, with its plan. */
interface Setup {
  plan: WindowPlan;
  concurrency: number;
  keepRuns: boolean;
  now: () => number;
  root: DrainWindow;
}

/**
 * The most ladder rungs a drain may start with under its caps: each is a request of up to 50 runs,
 * sent together, so `maxRuns: 50` or `maxRequests: 1` starts with the whole selection.
 */
function startRungs(opts: UnpacedWindowDrainOptions): number {
  const byRuns = opts.maxRuns === undefined ? Infinity : Math.floor(opts.maxRuns / MAX_RUNS_PER_REQUEST);
  return Math.min(opts.maxRequests ?? Infinity, byRuns);
}

/**
 * Checks the options and builds the plan (saved state, start cursor or the whole selection). The
 * daily limit is the smaller of `dailyLimit` and what the gate learnt from earlier answers
 * (another drain's, in a shared gate): the first requests, sent together, count against it too.
 */
function setUp(selection: DlqSelection, opts: UnpacedWindowDrainOptions, learnt?: number): Setup {
  if (selection.dlqIds !== undefined) {
    throw new SvcError("SVC_INVALID_ARGUMENT", "`dlqIds` cannot be drained in windows; use resumeByIds");
  }
  checkConcurrency(opts.concurrency);
  checkCount(opts.maxRequests, "maxRequests", 1);
  checkCount(opts.maxEmptyPages, "maxEmptyPages", 1);
  checkCount(opts.windowAllowance, "windowAllowance", 1);
  checkCount(opts.horizonMs, "horizonMs", 1);
  checkCount(opts.maxRuns, "maxRuns", 0);
  checkCount(opts.dailyLimit, "dailyLimit", 1);
  if (opts.startCursor !== undefined && typeof opts.startCursor !== "string") {
    throw new SvcError("SVC_INVALID_ARGUMENT", "`startCursor` must be a string");
  }
  const saved = opts.state === undefined ? undefined : validateWindowState(opts.state, selection);
  const startCursor = opts.startCursor === "" ? undefined : opts.startCursor;
  if (saved !== undefined && startCursor !== undefined) {
    throw new SvcError("SVC_INVALID_ARGUMENT", "`state` and `startCursor` cannot both be given");
  }
  const concurrency = opts.concurrency ?? DEFAULT_WINDOW_CONCURRENCY;
  const now = opts.now ?? Date.now;
  const dailyLimit = Math.min(opts.dailyLimit ?? Infinity, learnt ?? Infinity);
  const plan = WindowPlan.start(
    selection,
    saved,
    startCursor,
    {
      concurrency,
      maxEmptyPages: opts.maxEmptyPages ?? DEFAULT_MAX_EMPTY_PAGES,
      horizonMs: opts.horizonMs ?? DEFAULT_HORIZON_MS,
      ...(opts.windowAllowance !== undefined ? { allowance: opts.windowAllowance } : {}),
      ...(dailyLimit !== Infinity ? { dailyLimit } : {}),
    },
    { now: now(), most: startRungs(opts) },
  );
  return {
    plan,
    concurrency,
    keepRuns: opts.keepRuns !== false,
    now,
    root: rootWindow(selection),
  };
}

/** The counts of a drain: exactly as `drainPages` counts them. */
class Tally {
  readonly runs: ResumedRun[] = [];
  requestCount = 0;
  resumedCount = 0;
  ambiguousRequests = 0;

  constructor(private readonly keepRuns: boolean) {}

  /** Counts one answered request. */
  answered(page: ResumePage, state: CallState): void {
    this.requestCount += 1;
    if (page.ambiguous || state.ambiguous) this.ambiguousRequests += 1;
    if (this.keepRuns) for (const r of page.workflowRuns) this.runs.push(r);
    this.resumedCount += page.workflowRuns.length;
  }
}

/**
 * Resumes every entry of `selection` through `step`, in parallel failure-time windows.
 *
 * @param selection - a filter (or empty, `all`) selection; `dlqIds` is refused
 * @param step - sends one request for a window
 * @param gate - the rate gate's status, read to split only while latency (not the rate) bounds
 * the drain; the step itself passes every attempt through the gate
 * @throws PartialFailure wrapping the failure and the progress (with `windowState`)
 */
export async function drainWindows(
  selection: DlqSelection,
  step: WindowStep,
  gate: GateStatus | undefined,
  opts: UnpacedWindowDrainOptions = {},
): Promise<WindowDrainProgress> {
  const setup = setUp(selection, opts, gate?.dailyRequests?.limit);
  return new WindowRunner(setup, step, gate, opts).run();
}

/** Sends the plan's windows through a {@link TaskPool} and tells the plan what came back. */
class WindowRunner {
  private readonly pool: TaskPool;
  private readonly tally: Tally;
  private readonly started: number;
  private failure: { error: unknown } | undefined;
  /** The floor of recent round trips of a request, ms. */
  private roundTripMs: number | undefined;
  /** The shortest round trip measured, ms: what the budget credits. */
  private shortestMs: number | undefined;
  /** The largest rate and round trip the plan's budget was given (see `budgetNet`). */
  private peak: { ratePerSecond: number; roundTripMs: number } | undefined;

  constructor(
    private readonly setup: Setup,
    private readonly step: WindowStep,
    private readonly gate: GateStatus | undefined,
    private readonly opts: UnpacedWindowDrainOptions,
  ) {
    this.pool = new TaskPool(setup.concurrency);
    this.tally = new Tally(setup.keepRuns);
    this.started = setup.now();
  }

  async run(): Promise<WindowDrainProgress> {
    await this.pool.run<Job, ResumePage>({
      take: () => this.take(),
      start: (job) => this.step(job.w.window, job.w.cursor, job.state),
      settle: (job, outcome) => this.settle(job, outcome),
    });
    if (this.failure !== undefined) throw new PartialFailure(this.failure.error, this.progress());
    if (!this.setup.plan.done && this.atMaxRuns(0)) return { ...this.progress(), stoppedAtMaxRuns: true };
    if (!this.setup.plan.done) {
      const open = this.setup.plan.open.length;
      const message = `The drain did not finish within maxRequests=${this.opts.maxRequests}: ${open} window(s) still pending`;
      throw new PartialFailure(new SvcError("SVC_CURSOR_LOOP", message), this.progress());
    }
    return this.progress();
  }

  /** The next request to send, unless the drain stops (failure, signal, `maxRequests`). */
  private take(): Job | undefined {
    if (this.failure !== undefined || this.setup.plan.waiting === 0) return undefined;
    if (this.opts.signal?.aborted) {
      this.fail(new SvcError("SVC_ABORTED", "The drain was aborted by its signal"));
      return undefined;
    }
    const max = this.opts.maxRequests;
    if (max !== undefined && this.tally.requestCount + this.pool.inFlight >= max) return undefined;
    if (this.atMaxRuns(this.pool.inFlight)) return undefined;
    const w = this.setup.plan.take();
    return w && { w, state: { attempts: 0, ambiguous: false }, sent: this.setup.now() };
  }

  /** True when `maxRuns` holds back another request: the runs resumed and 50 per request in flight reach it. */
  private atMaxRuns(inFlight: number): boolean {
    const cap = this.opts.maxRuns;
    return cap !== undefined && this.tally.resumedCount + MAX_RUNS_PER_REQUEST * inFlight >= cap;
  }

  private fail(error: unknown): void {
    this.failure ??= { error };
  }

  private async settle(job: Job, outcome: Outcome<ResumePage>): Promise<void> {
    if (!outcome.ok) return this.settleError(job, outcome.error);
    const page = outcome.value;
    this.tally.answered(page, job.state);
    const now = this.setup.now();
    const rtt = now - job.sent;
    // The floor of recent round trips: what latency takes, without the time spent waiting at the
    // gate (rising slowly when every request takes longer).
    this.roundTripMs = Math.min(rtt, (this.roundTripMs ?? rtt) * 1.05);
    this.shortestMs = Math.min(rtt, this.shortestMs ?? rtt);
    this.notePeak(this.gate?.ratePerSecond, this.shortestMs);
    const decision = this.setup.plan.answer(job.w, page.workflowRuns.length, page.cursor, {
      inFlight: this.pool.inFlight,
      // After a failure the answer is recorded, but no window is split any more.
      gateWaiting: this.failure !== undefined ? Infinity : (this.gate?.waiting ?? 0),
      now,
      ratePerSecond: this.gate?.ratePerSecond,
      roundTripMs: this.roundTripMs,
      shortestRoundTripMs: this.shortestMs,
      dailyLimit: this.gate?.dailyRequests?.limit,
    });
    if (decision.kind === "loop") this.fail(new SvcError("SVC_CURSOR_LOOP", decision.reason));
    if (this.opts.onPage) await this.report(job.w.window, page);
  }

  /** Remembers the largest rate and round trip the budget is given. */
  private notePeak(rate: number | undefined, rtt: number): void {
    if (rate === undefined) return;
    this.peak = {
      ratePerSecond: Math.max(rate, this.peak?.ratePerSecond ?? 0),
      roundTripMs: Math.max(rtt, this.peak?.roundTripMs ?? 0),
    };
  }

  private settleError(job: Job, error: unknown): void {
    if (job.state.ambiguous) this.tally.ambiguousRequests += 1;
    const refusedCursor =
      !job.state.ambiguous &&
      this.failure === undefined &&
      isSvcError(error) &&
      error.code === "SVC_BAD_REQUEST" &&
      this.setup.plan.refused(job.w);
    if (refusedCursor) this.opts.onCursorRefused?.(job.w.window);
    else this.fail(error);
  }

  private async report(window: DrainWindow, page: ResumePage): Promise<void> {
    const { requestCount, resumedCount } = this.tally;
    const plan = this.setup.plan;
    try {
      await this.opts.onPage?.({
        page,
        window,
        requestCount,
        resumedCount,
        windowsOpen: plan.open.length,
        windowsInFlight: this.pool.inFlight,
        concurrency: this.setup.concurrency,
        requestsPerSecond: requestCount / Math.max((this.setup.now() - this.started) / 1000, 0.001),
        gateRatePerSecond: this.gate?.ratePerSecond,
        get state() {
          return fitWindowState(plan.snapshot());
        },
      });
    } catch (error) {
      this.fail(error);
    }
  }

  private progress(): WindowDrainProgress {
    const { plan, root } = this.setup;
    const only = plan.open.length === 1 ? plan.open[0] : undefined;
    const whole =
      only !== undefined &&
      only.window.from === root.from &&
      only.window.to === root.to &&
      only.window.runIdPrefix === undefined;
    return {
      runs: [...this.tally.runs],
      requestCount: this.tally.requestCount,
      resumedCount: this.tally.resumedCount,
      ambiguousRequests: this.tally.ambiguousRequests,
      cursor: whole ? only.cursor : undefined,
      windowState: fitWindowState(plan.snapshot()),
      splits: plan.splits,
      maxInFlight: this.pool.maxInFlight,
      ...(this.peak !== undefined ? { budgetNet: { ...this.peak } } : {}),
    };
  }
}
