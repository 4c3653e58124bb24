/**
 * Public data types of the drains: their options, progress events, results and saved state, and
 * what a drain reads from its rate gate. The HTTP client's types (options, the service's answers)
 * are in `client/types.ts`.
 *
 * @packageDocumentation
 */
import type { ResumedRun, ResumePage } from "../client/types";

/** Progress of {@link DrainClient.drain}, as handed to `onPage`. */
export interface DrainPageEvent {
  /** The page just received. */
  page: ResumePage;
  /** Resume requests answered so far, this one included. */
  requestCount: number;
  /** Runs resumed so far (with known IDs), this page included. */
  resumedCount: number;
  /** The cursor to continue from; `undefined` when done. */
  cursor: string | undefined;
}

/** Options of {@link DrainClient.drain}. */
export interface DrainOptions {
  /** Continue a drain from a checkpointed cursor. */
  startCursor?: string;
  /**
   * Keep every resumed run in the result (default true). A caller that records runs in
   * `onPage` passes false, so a drain of a million entries does not hold them all in memory;
   * `runs` is then empty and the counts stay exact.
   */
  keepRuns?: boolean;
  /** Awaited after every page, e.g. to checkpoint the cursor. A throw stops the drain. */
  onPage?: (p: DrainPageEvent) => void | Promise<void>;
  /** Stop with `SVC_CURSOR_LOOP` when more pages than this would be needed. Default: no limit. */
  maxRequests?: number;
  /**
   * Stops the drain between requests (`SVC_ABORTED`, with partial progress). A request
   * already sent is allowed to finish so the runs it resumed are not lost.
   */
  signal?: AbortSignal;
}

/** Progress of {@link DrainClient.resumeByIds}, as handed to `onPage`. */
export interface ResumeBatchEvent {
  /** 0-based index of the batch. */
  batchIndex: number;
  /** The DLQ IDs of the batch. */
  dlqIds: string[];
  /** The page received for the batch. */
  page: ResumePage;
  /** Resume requests answered so far, over all batches. */
  requestCount: number;
  /** Runs resumed so far, over all batches. */
  resumedCount: number;
}

/** Options of {@link DrainClient.resumeByIds}. */
export interface ResumeByIdsOptions {
  /**
   * Batches in flight at most (1 to 256, `MAX_IN_FLIGHT`). Below it the call keeps about the rate
   * (the gate's, or `maxRequestsPerSecond`) times the measured round trip in flight, plus 2; until
   * a round trip is measured, or with neither a gate nor `maxRequestsPerSecond`, this many, or 4
   * when unset.
   */
  concurrency?: number;
  /**
   * Upper bound of request starts per second (retries included), in front of `gate` when one is
   * given. Default: no bound.
   */
  maxRequestsPerSecond?: number;
  /**
   * The account's rate gate (see `RateGate`), shared with every other drain of the account in
   * the process: every attempt passes it and every response teaches it. Default: none.
   */
  gate?: AccountGate;
  /** Awaited after every answered batch (in completion order). A throw stops new batches. */
  onPage?: (p: ResumeBatchEvent) => void | Promise<void>;
  /** Stops launching new batches (`SVC_ABORTED`, with partial progress). */
  signal?: AbortSignal;
  /** As in {@link DrainOptions.keepRuns}. */
  keepRuns?: boolean;
  /**
   * IDs found missing (404) after which a batch still answered 404 is no longer narrowed: its
   * IDs are not resumed and the call fails with `SVC_NOT_FOUND` once every other batch is done.
   * Default 20 (`MAX_NOT_FOUND_NARROWED`). Narrowing one unknown ID out of a batch of 50
   * costs at most 12 requests.
   */
  maxNotFound?: number;
  /** Clock, unix ms (the round trips). Default `Date.now`. */
  now?: () => number;
  /**
   * Start no batch once the runs resumed plus the IDs of the batches in flight reach this many:
   * the call returns with `stoppedAtMaxRuns` and the IDs not sent in `remainingDlqIds`.
   * Default: no cap.
   */
  maxRuns?: number;
}

/** Result of {@link DrainClient.drain} and {@link DrainClient.resumeByIds}. */
export interface DrainResult {
  /** Resumed runs in page order (for `resumeByIds`: in batch order). */
  runs: ResumedRun[];
  /** Resume requests answered (retries of one request count once). */
  requestCount: number;
  /** Runs resumed with known IDs (`runs.length`). */
  resumedCount: number;
  /** Requests that had an ambiguous failed attempt: they may have resumed runs not in `runs`. */
  ambiguousRequests: number;
  /** DLQ IDs probably resumed by a lost attempt, whose new run IDs are unknown. */
  unconfirmedDlqIds?: string[];
  /**
   * DLQ IDs the service did not find (`resumeByIds`): each narrowed down from a batch answered
   * 404 by resending its halves (at most `maxNotFound` a call, see {@link ResumeByIdsOptions}).
   */
  notFoundDlqIds?: string[];
  /**
   * Batches answered 200 with fewer runs than IDs (`resumeByIds`): the service resumed the IDs
   * it found and left out the others, without saying which. They are not resent (the resumed
   * ones have left the DLQ); `dlqIds.length - runs` IDs of each were not found.
   */
  shortBatches?: ShortBatch[];
  /**
   * True when the drain stopped at `maxRuns` (not an error): `cursor`, `windowState` or
   * `remainingDlqIds` say where it continues.
   */
  stoppedAtMaxRuns?: boolean;
  /**
   * DLQ IDs not resumed (`resumeByIds` only): in a failure's progress those whose batch did not
   * complete; in a result, those a call stopped at `maxRuns` did not send.
   */
  remainingDlqIds?: string[];
}

/** A `dlqIds` batch answered 200 with fewer runs than IDs. */
export interface ShortBatch {
  /** The IDs of the batch, as sent. */
  dlqIds: string[];
  /** Runs the answer carried. */
  runs: number;
}

/** Progress carried by a {@link DrainError} so no resumed run is forgotten. */
export interface DrainProgress extends DrainResult {
  /**
   * Cursor to resume the drain from (`drain` only; a windowed drain sets it while its only open
   * window is the whole selection); `undefined` when none is known or done.
   */
  cursor: string | undefined;
  /** The windows still open, to continue from (`drainWindows` only). */
  windowState?: WindowDrainState;
}

/** A failure-time window, inclusive unix milliseconds; an unset bound is open. */
export interface DrainWindow {
  /** First millisecond of the window (sent as `fromDate`); unset: open below. */
  from?: number;
  /** Last millisecond of the window (sent as `toDate`); unset: open above. */
  to?: number;
  /**
   * The run-ID prefix of the window's entries (sent as `workflowRunId`); unset: the selection's.
   * No planner rule sets it (a fan-out by run-ID hex digit pays on hex run IDs only); never
   * saved.
   */
  runIdPrefix?: string;
}

/** A window that is not finished, with the cursor of its last answered page. */
export interface OpenWindow extends DrainWindow {
  /** Where the window continues; unset: from its start. */
  cursor?: string;
}

/**
 * What a cut-off windowed drain continues from: the windows still open (with their cursors) and
 * the counters of the window budget. Bounded: at most `MAX_SAVED_WINDOWS` (64) windows, a few kB
 * (a drain with more open merges neighbours to save them). Plain JSON.
 */
export interface WindowDrainState {
  /** Format version, `1`. */
  version: 1;
  /** Windows not finished yet, pairwise disjoint, in failure-time order. Empty when done. */
  windows: OpenWindow[];
  /** Runs reported by the drain so far, continuations included (the window budget's credit). */
  runs: number;
  /** Σ (50 − runs) over the pages that were not full, in runs (the window budget's debit). */
  shortfall: number;
}

/** What a windowed drain reads from its rate gate (see `RateGate`). */
export interface GateStatus {
  /** Requests waiting for the gate now: more than 0 means the rate, not latency, bounds the drain. */
  readonly waiting: number;
  /** Requests per second the gate lets through now; `undefined` when it does not limit. */
  readonly ratePerSecond: number | undefined;
  /** What the last answer said of the account's daily limit (`RateLimit-Limit`), if it said. */
  readonly dailyRequests?: { readonly limit?: number } | undefined;
}

/** A per-account rate gate as the client uses it (see `RateGate`). */
export interface AccountGate extends GateStatus {
  /** Awaited before every request attempt. */
  acquire(): Promise<void>;
  /** Told the status and headers of every response. */
  observe(status: number, headers: Record<string, string | string[] | undefined>): void;
}

/**
 * Options of {@link DrainClient.drainWindows}: the windowed drain's own options
 * ({@link UnpacedWindowDrainOptions}) and its pacing (the account's rate gate and the caps below it).
 */
export interface DrainWindowsOptions extends UnpacedWindowDrainOptions {
  /**
   * The account's rate gate. Default: the process-wide gate of this client's base URL and token
   * (`accountRateGates`), so every drain of the process shares it.
   */
  gate?: AccountGate;
  /** The account's `max_requests_per_second`, when known: set as the default gate's limit. */
  accountLimit?: number;
  /** Upper bound of this drain's request starts per second (retries included), below the gate. */
  maxRequestsPerSecond?: number;
}

/** Progress of a windowed drain, handed to `onPage` after every page. */
export interface WindowPageEvent {
  /** The page just received. */
  page: ResumePage;
  /** The window the page belongs to. */
  window: DrainWindow;
  /** Resume requests answered so far by this call, this one included. */
  requestCount: number;
  /** Runs resumed so far by this call (with known IDs), this page included. */
  resumedCount: number;
  /** Windows not finished. */
  windowsOpen: number;
  /** Windows with a request in flight now. */
  windowsInFlight: number;
  /** Requests in flight at most: the `concurrency` option, or its default (256). */
  concurrency: number;
  /** Requests answered per second since this call started. */
  requestsPerSecond: number;
  /** The gate's rate now (requests per second), when it limits. */
  gateRatePerSecond: number | undefined;
  /**
   * The state to continue from if the drain were cut off now. Computed when read, as it costs as
   * much as the windows open (up to 256) and most callbacks do not read it: read in the callback
   * (until it returns or its promise settles: the drain handles no other answer meanwhile), it is
   * the state as of this page; read after, the state as of then (also one to continue from).
   */
  readonly state: WindowDrainState;
}

/**
 * Options of a windowed drain apart from its pacing: what the windows do (concurrency, where to
 * continue, the horizon, the runs kept, `onPage`). {@link DrainClient.drainWindows} takes them with
 * the pacing in {@link DrainWindowsOptions}; the window runner (`windowDrain.ts`) takes them alone
 * and its rate gate beside them.
 */
export interface UnpacedWindowDrainOptions {
  /**
   * Windows with a request in flight at most (1 to 256, `MAX_IN_FLIGHT`). Below it the drain keeps
   * about the gate's rate times the measured round trip in flight, plus 2 (`GATE_BACKLOG`). `1` is
   * the sequential drain: one cursor over the whole selection, ceil(N/50) requests, no windows.
   * Default 256: as many as the rate and the round trip need.
   */
  concurrency?: number;
  /** Continue a cut-off windowed drain from the state it reported. */
  state?: WindowDrainState;
  /** Continue a cut-off sequential drain from its cursor (not with `state`). */
  startCursor?: string;
  /**
   * How far back from now failures may lie when the selection has no `fromDate`, ms (for
   * example the account's DLQ retention). Default 90 days. Only where windows split depends on it.
   */
  horizonMs?: number;
  /** Windows the drain may open before it resumed anything (the constant of the request bound). Default 4 (`DEFAULT_WINDOW_ALLOWANCE`). */
  windowAllowance?: number;
  /**
   * The account's daily request limit (`max_requests_per_day`), when known: the requests of the
   * drain beyond ceil(N/50) stay within 2 % of it (`DAILY_LIMIT_SHARE`). A `RateLimit-Limit`
   * the gate reads from an answer counts as well; the smaller one holds.
   */
  dailyLimit?: number;
  /** As in {@link DrainOptions.keepRuns}. */
  keepRuns?: boolean;
  /** Awaited after every page; a throw stops the drain (pages in flight are still recorded). */
  onPage?: (e: WindowPageEvent) => void | Promise<void>;
  /** Told when a saved cursor was refused (400) and its window restarted without it. */
  onCursorRefused?: (window: DrainWindow) => void;
  /** Stop with `SVC_CURSOR_LOOP` when more requests than this would be needed. Default: no limit. */
  maxRequests?: number;
  /** Pages with a cursor and no runs in a row, per window, before giving up. Default 3. */
  maxEmptyPages?: number;
  /** Stops launching requests (`SVC_ABORTED`); requests in flight finish and are recorded. */
  signal?: AbortSignal;
  /**
   * Start no request once the runs resumed plus 50 for each request in flight reach this many:
   * the drain stops at the first whole request at or past it and returns with
   * `stoppedAtMaxRuns` and the state to continue from. Default: no cap.
   */
  maxRuns?: number;
  /** Clock, unix ms (window bounds and rates). Default `Date.now`. */
  now?: () => number;
}

/**
 * The former name of {@link UnpacedWindowDrainOptions} (it read like {@link DrainWindowsOptions},
 * which adds the pacing).
 *
 * @deprecated Use {@link UnpacedWindowDrainOptions}, or {@link DrainWindowsOptions} for
 * `DrainClient.drainWindows`. Kept for one minor version.
 */
export type WindowDrainOptions = UnpacedWindowDrainOptions;
