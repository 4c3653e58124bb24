/**
 * The multi-request resume loop: following a cursor to the end (with loop detection). It keeps
 * every resumed run it saw, and a failure carries that progress ({@link DrainError.partial}).
 * A list of DLQ IDs is resumed in batches by `batches.ts`, each batch with this loop.
 *
 * @packageDocumentation
 */
import { SvcError } from "../client/errors";
import { DrainError } from "./errors";
import type { CallState } from "../client/request";
import type { ResumedRun, ResumePage } from "../client/types";
import type { DrainOptions, DrainProgress, DrainResult } from "./types";

/** Consecutive pages that carry a cursor but no runs before a drain counts as endless. */
export const DEFAULT_MAX_EMPTY_PAGES = 3;
/** Batches in flight at once in `resumeByIds` by default. */
export const DEFAULT_CONCURRENCY = 4;
/** Unknown DLQ IDs a `resumeByIds` call narrows down before it stops narrowing (`maxNotFound`). */
export const MAX_NOT_FOUND_NARROWED = 20;

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

/** Converts a loop's progress into the public result shape. */
export function toDrainResult(p: DrainProgress): DrainResult {
  return {
    runs: p.runs,
    requestCount: p.requestCount,
    resumedCount: p.resumedCount,
    ambiguousRequests: p.ambiguousRequests,
    ...(p.unconfirmedDlqIds ? { unconfirmedDlqIds: p.unconfirmedDlqIds } : {}),
    ...(p.notFoundDlqIds ? { notFoundDlqIds: p.notFoundDlqIds } : {}),
    ...(p.shortBatches ? { shortBatches: p.shortBatches } : {}),
    ...(p.stoppedAtMaxRuns ? { stoppedAtMaxRuns: true } : {}),
    ...(p.stoppedAtMaxRuns && p.remainingDlqIds ? { remainingDlqIds: p.remainingDlqIds } : {}),
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
