/**
 * Multi-request resume loops: following a cursor to the end (with loop detection) and
 * resuming a list of DLQ IDs in concurrent, rate-limited batches. Both keep every resumed run
 * they saw, and a failure carries that progress ({@link DrainError.partial}).
 *
 * @packageDocumentation
 */
import { DrainError, SvcError } from "./errors";
import { MAX_RUNS_PER_REQUEST } from "./contract";
import { TaskPool, type Outcome } from "./pool";
import type { CallState } from "./request";
import type {
  DrainOptions,
  DrainProgress,
  DrainResult,
  ResumeBatchEvent,
  ResumeByIdsOptions,
  ResumedRun,
  ResumePage,
} from "./types";

/** Consecutive pages that carry a cursor but no runs before a drain counts as endless. */
export const DEFAULT_MAX_EMPTY_PAGES = 3;
/** Batches in flight at once in `resumeByIds` by default. */
export const DEFAULT_CONCURRENCY = 4;

/**
 * Sends one resume request continuing after `cursor`. Updates `state` as attempts are made
 * (so an ambiguous attempt is known even when it throws).
 */
export type ResumeStep = (cursor: string | undefined, state: CallState) => Promise<ResumePage>;

/** A failure inside a loop together with the progress made before it. */
export class PartialFailure extends Error {
  /**
   * @param error - the failure (an SvcError, or anything a callback threw)
   * @param progress - progress made before the failure
   */
  constructor(
    readonly error: unknown,
    readonly progress: DrainProgress,
  ) {
    super("partial failure");
    this.name = "PartialFailure";
  }
}

/** Options of {@link drainPages}. */
export interface DrainLoopOptions extends DrainOptions {
  /** Pages with a cursor and no runs in a row before giving up. Default {@link DEFAULT_MAX_EMPTY_PAGES}. */
  maxEmptyPages?: number;
}

/**
 * The loop checks of one cursor chain (a drain, or one window of a windowed drain): a cursor
 * that was already used, or `maxEmptyPages` pages in a row with a cursor and no runs.
 */
export class CursorChain {
  private readonly seen = new Set<string>();
  private emptyPagesInARow = 0;

  /**
   * @param startCursor - the cursor the chain starts from, if any
   * @param maxEmptyPages - pages with a cursor and no runs in a row before giving up
   */
  constructor(
    startCursor: string | undefined,
    private readonly maxEmptyPages: number,
  ) {
    if (startCursor !== undefined) this.seen.add(startCursor);
  }

  /**
   * Records a page that carried the cursor `next` and `runs` runs.
   *
   * @returns why following `next` would loop, or `undefined` when it may be followed
   */
  loopReason(next: string, runs: number): string | undefined {
    if (this.seen.has(next)) {
      return (
        `The service returned a cursor (length ${next.length}) that was already used in this drain; ` +
        "following it would repeat forever"
      );
    }
    this.seen.add(next);
    this.emptyPagesInARow = runs === 0 ? this.emptyPagesInARow + 1 : 0;
    if (this.emptyPagesInARow >= this.maxEmptyPages) {
      return (
        `${this.emptyPagesInARow} pages in a row returned a cursor (last one of length ${next.length}) but no runs; ` +
        "the cursor does not seem to end"
      );
    }
    return undefined;
  }
}

/**
 * Checks an optional count option.
 *
 * @throws SvcError `SVC_INVALID_ARGUMENT` when it is set and not an integer ≥ `min`
 */
export function checkCount(value: number | undefined, name: string, min: number): void {
  if (value !== undefined && (typeof value !== "number" || !Number.isSafeInteger(value) || value < min)) {
    throw new SvcError("SVC_INVALID_ARGUMENT", `\`${name}\` must be an integer ≥ ${min}`);
  }
}

/**
 * Calls `step` until the cursor is exhausted, awaiting `onPage` after every page.
 *
 * Stops with `SVC_CURSOR_LOOP` when a cursor comes back that was already used, when
 * `maxEmptyPages` pages in a row carry a cursor but no runs, or when `maxRequests` pages did
 * not finish the work.
 *
 * @throws PartialFailure wrapping the failure and the progress made before it
 */
export async function drainPages(step: ResumeStep, opts: DrainLoopOptions = {}): Promise<DrainProgress> {
  checkCount(opts.maxRequests, "maxRequests", 1);
  checkCount(opts.maxEmptyPages, "maxEmptyPages", 1);
  if (opts.startCursor !== undefined && typeof opts.startCursor !== "string") {
    throw new SvcError("SVC_INVALID_ARGUMENT", "`startCursor` must be a string");
  }
  const maxEmptyPages = opts.maxEmptyPages ?? DEFAULT_MAX_EMPTY_PAGES;
  const runs: ResumedRun[] = [];
  const unconfirmedDlqIds: string[] = [];
  let requestCount = 0;
  let ambiguousRequests = 0;
  let cursor = opts.startCursor === "" ? undefined : opts.startCursor;
  const chain = new CursorChain(cursor, maxEmptyPages);
  const keepRuns = opts.keepRuns !== false;
  let resumedCount = 0;

  const progress = (): DrainProgress => ({
    runs: [...runs],
    requestCount,
    resumedCount,
    ambiguousRequests,
    ...(unconfirmedDlqIds.length > 0 ? { unconfirmedDlqIds: [...unconfirmedDlqIds] } : {}),
    cursor,
  });
  const loop = (message: string): PartialFailure =>
    new PartialFailure(new SvcError("SVC_CURSOR_LOOP", message), progress());

  for (;;) {
    if (opts.signal?.aborted) {
      throw new PartialFailure(
        new SvcError("SVC_ABORTED", "The drain was aborted by its signal"),
        progress(),
      );
    }
    const state: CallState = { attempts: 0, ambiguous: false };
    let page: ResumePage;
    try {
      page = await step(cursor, state);
    } catch (error) {
      if (state.ambiguous) ambiguousRequests += 1;
      throw new PartialFailure(error, progress());
    }
    requestCount += 1;
    if (page.ambiguous || state.ambiguous) ambiguousRequests += 1;
    if (keepRuns) runs.push(...page.workflowRuns);
    resumedCount += page.workflowRuns.length;
    unconfirmedDlqIds.push(...(page.unconfirmedDlqIds ?? []));
    const next = page.cursor;
    cursor = next;

    if (opts.onPage) {
      try {
        await opts.onPage({ page, requestCount, resumedCount, cursor: next });
      } catch (error) {
        throw new PartialFailure(error, progress());
      }
    }
    if (next === undefined) return progress();

    const loopReason = chain.loopReason(next, page.workflowRuns.length);
    if (loopReason !== undefined) throw loop(loopReason);
    if (opts.maxRequests !== undefined && requestCount >= opts.maxRequests) {
      throw loop(
        `The drain did not finish within maxRequests=${opts.maxRequests}: a cursor (length ${next.length}) ` +
          "is still pending",
      );
    }
  }
}

/** Sends one batch of DLQ IDs, continuing after `cursor` (normally `undefined`). */
export type BatchStep = (
  dlqIds: string[],
  cursor: string | undefined,
  state: CallState,
) => Promise<ResumePage>;

/** The outcome of every batch of a {@link resumeBatches} call, and the first failure. */
class BatchResults {
  readonly results: (DrainProgress | undefined)[];
  readonly failed = new Set<number>();
  stop = false;
  firstError: unknown;

  constructor(readonly batches: string[][]) {
    this.results = new Array<DrainProgress | undefined>(batches.length).fill(undefined);
  }

  /** Records how batch `index` ended: its progress, or the failure with the progress before it. */
  settle(index: number, outcome: Outcome<DrainProgress>): void {
    if (outcome.ok) {
      this.results[index] = outcome.value;
      return;
    }
    if (!(outcome.error instanceof PartialFailure)) throw outcome.error;
    this.results[index] = outcome.error.progress;
    this.failed.add(index);
    this.halt(outcome.error.error);
  }

  /** No batch starts any more; `error` is reported unless an earlier failure was. */
  halt(error: unknown): void {
    if (this.stop) return;
    this.stop = true;
    this.firstError = error;
  }

  /** The progress of every batch, in batch order; throws it with the first failure if any. */
  progress(): DrainProgress {
    const done = this.results.filter((r): r is DrainProgress => r !== undefined);
    const progress: DrainProgress = {
      runs: done.flatMap((r) => r.runs),
      requestCount: done.reduce((n, r) => n + r.requestCount, 0),
      resumedCount: done.reduce((n, r) => n + r.resumedCount, 0),
      ambiguousRequests: done.reduce((n, r) => n + r.ambiguousRequests, 0),
      cursor: undefined,
    };
    const unconfirmed = done.flatMap((r) => r.unconfirmedDlqIds ?? []);
    if (unconfirmed.length > 0) progress.unconfirmedDlqIds = unconfirmed;
    if (!this.stop) return progress;
    const left = (_: string[], i: number) => this.results[i] === undefined || this.failed.has(i);
    progress.remainingDlqIds = this.batches.filter(left).flat();
    throw new PartialFailure(this.firstError, progress);
  }
}

/**
 * Splits `ids` into batches of at most {@link MAX_RUNS_PER_REQUEST}, runs up to `concurrency`
 * batches at once (on the {@link TaskPool} the windowed drain uses too), and returns the runs in
 * batch order. On the first failure no new batch is started; batches in flight finish and are
 * recorded; then the failure is thrown with the progress, including the IDs whose batch did not
 * complete.
 *
 * @throws PartialFailure wrapping the first failure and the progress
 */
export async function resumeBatches(
  ids: string[],
  step: BatchStep,
  opts: Omit<ResumeByIdsOptions, "maxRequestsPerSecond"> = {},
): Promise<DrainProgress> {
  // Each ID's grammar is checked by the caller (`SvcClient.resumeByIds`, contract.ts).
  if (!Array.isArray(ids)) throw new SvcError("SVC_INVALID_ARGUMENT", "`ids` must be an array of strings");
  checkCount(opts.concurrency, "concurrency", 1);
  const unique = [...new Set(ids)];
  const batches: string[][] = [];
  for (let i = 0; i < unique.length; i += MAX_RUNS_PER_REQUEST) {
    batches.push(unique.slice(i, i + MAX_RUNS_PER_REQUEST));
  }
  const out = new BatchResults(batches);
  let nextBatch = 0;
  let requestCount = 0;
  let resumedCount = 0;
  const runBatch = (index: number): Promise<DrainProgress> =>
    drainPages((cursor, state) => step(batches[index], cursor, state), {
      keepRuns: opts.keepRuns,
      onPage: async ({ page }) => {
        requestCount += 1;
        resumedCount += page.workflowRuns.length;
        const event: ResumeBatchEvent = {
          batchIndex: index,
          dlqIds: batches[index],
          page,
          requestCount,
          resumedCount,
        };
        await opts.onPage?.(event);
      },
    });
  const take = (): number | undefined => {
    if (out.stop || nextBatch >= batches.length) return undefined;
    if (opts.signal?.aborted) {
      out.halt(new SvcError("SVC_ABORTED", "resumeByIds was aborted by its signal"));
      return undefined;
    }
    return nextBatch++;
  };
  const pool = new TaskPool(opts.concurrency ?? DEFAULT_CONCURRENCY);
  await pool.run({ take, start: runBatch, settle: (i, outcome) => out.settle(i, outcome) });
  return out.progress();
}

/** Converts a loop's progress into the public result shape. */
export function toDrainResult(p: DrainProgress): DrainResult {
  return {
    runs: p.runs,
    requestCount: p.requestCount,
    resumedCount: p.resumedCount,
    ambiguousRequests: p.ambiguousRequests,
    ...(p.unconfirmedDlqIds ? { unconfirmedDlqIds: p.unconfirmedDlqIds } : {}),
  };
}

/**
 * Runs a loop and converts a {@link PartialFailure} into a {@link DrainError}.
 *
 * @param what - operation name for the message, e.g. `"drain"`
 */
export async function withPartialProgress(
  what: string,
  loop: () => Promise<DrainProgress>,
): Promise<DrainResult> {
  try {
    return toDrainResult(await loop());
  } catch (error) {
    if (error instanceof PartialFailure) throw DrainError.wrap(error.error, error.progress, what);
    throw error;
  }
}
