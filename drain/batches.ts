/**
 * Resuming a list of DLQ IDs: concurrent, rate-limited batches of at most 50, each followed with
 * {@link drainPages}. A batch answered 404 ("Some DLQ messages were not found") is narrowed: its
 * halves are resent, down to the single IDs the service does not find (at most 12 extra requests
 * per unknown ID in a batch of 50), so every other ID is resumed. Past `maxNotFound` unknown IDs
 * the list is likely wrong: a batch still answered 404 is not narrowed, its IDs are not resumed,
 * and the call fails with `SVC_NOT_FOUND` once every other batch is done. A batch answered 200
 * with fewer runs than IDs is not resent (the IDs it resumed have left the DLQ): it is reported as
 * a short batch. A batch answered 404 after an attempt whose answer was lost is taken as resumed
 * by that attempt (`unconfirmedDlqIds`) only when both its halves are answered 404 too: if either
 * is resumed, the lost attempt resumed nothing and the batch is narrowed as any other. `maxRuns`
 * stops starting batches at a cap of runs.
 *
 * @packageDocumentation
 */
import {
  DEFAULT_CONCURRENCY,
  MAX_NOT_FOUND_NARROWED,
  PartialFailure,
  checkCount,
  drainPages,
} from "./cursorDrain";
import { SvcError } from "../client/errors";
import { MAX_RUNS_PER_REQUEST } from "../client/contract";
import { TaskPool, type Outcome } from "./pool";
import type { CallState } from "../client/request";
import type { ResumePage } from "../client/types";
import type { DrainProgress, ResumeBatchEvent, ResumeByIdsOptions, ShortBatch } from "./types";
import { MAX_IN_FLIGHT, RoundTripFloor, checkConcurrency, inFlightFor } from "./inFlight";

/** Sends one batch of DLQ IDs, continuing after `cursor` (normally `undefined`). */
export type BatchStep = (
  dlqIds: string[],
  cursor: string | undefined,
  state: CallState,
) => Promise<ResumePage>;

/** What narrowing found over every batch of one call. */
interface Findings {
  /** IDs the service did not find, each narrowed down to itself. */
  notFound: string[];
  /** IDs of batches still answered 404 once `maxNotFound` IDs were found: not resumed. */
  unresolved: string[];
  /** The last "not found" answer (its service message names the failure of unresolved batches). */
  lastNotFound?: SvcError;
  /** Batches answered 200 with fewer runs than IDs. */
  short: ShortBatch[];
}

/** Progress with nothing done. */
function none(): DrainProgress {
  return { runs: [], requestCount: 0, resumedCount: 0, ambiguousRequests: 0, cursor: undefined };
}

/** Two progresses of parts of one batch, added up. */
function add(a: DrainProgress, b: DrainProgress): DrainProgress {
  const unconfirmed = [...(a.unconfirmedDlqIds ?? []), ...(b.unconfirmedDlqIds ?? [])];
  return {
    runs: [...a.runs, ...b.runs],
    requestCount: a.requestCount + b.requestCount,
    resumedCount: a.resumedCount + b.resumedCount,
    ambiguousRequests: a.ambiguousRequests + b.ambiguousRequests,
    ...(unconfirmed.length > 0 ? { unconfirmedDlqIds: unconfirmed } : {}),
    cursor: undefined,
  };
}

/**
 * The service's answer to DLQ IDs it does not find: 404 `{"error": "Some DLQ messages were not
 * found"}`. Another 404 (a wrong `baseUrl` path, say) is not narrowed: every request would fail.
 */
export const UNKNOWN_IDS_MESSAGE = /\bDLQ\b.*\bnot found\b/i;

/**
 * True for the service's "not found" answer to the first request of a batch (nothing resumed).
 */
function notFoundAtOnce(e: unknown): e is PartialFailure & { error: SvcError } {
  return (
    e instanceof PartialFailure &&
    e.error instanceof SvcError &&
    e.error.code === "SVC_NOT_FOUND" &&
    UNKNOWN_IDS_MESSAGE.test(e.error.serviceMessage ?? "") &&
    e.progress.requestCount === 0
  );
}

/** `ids` in two halves, the first one the larger. */
function halves(ids: string[]): [string[], string[]] {
  const half = Math.ceil(ids.length / 2);
  return [ids.slice(0, half), ids.slice(half)];
}

/** Resumes the IDs of one batch, narrowing a 404 down to the IDs the service does not find. */
class Narrowing {
  /**
   * @param send - resumes a set of IDs, following its cursor (throws {@link PartialFailure})
   * @param found - what the call found so far, over every batch
   * @param maxNotFound - unknown IDs after which a 404 is no longer narrowed
   * @param answered404 - counts a 404 answer as a request answered
   */
  constructor(
    private readonly send: (ids: string[]) => Promise<DrainProgress>,
    private readonly found: Findings,
    private readonly maxNotFound: number,
    private readonly answered404: () => void,
  ) {}

  /**
   * Resumes `ids` (a batch or a part of one).
   *
   * @throws PartialFailure whose progress lists, in `remainingDlqIds`, the IDs of `ids` not resumed
   */
  async resume(ids: string[]): Promise<DrainProgress> {
    const answer = await this.sendOnce(ids);
    if (answer.notFound) return this.after404(ids, answer.progress);
    const p = answer.progress;
    if (ids.length > 1 && (p.unconfirmedDlqIds?.length ?? 0) === ids.length && p.resumedCount === 0) {
      return this.checkUnconfirmed(ids, p);
    }
    const accounted = p.resumedCount + (p.unconfirmedDlqIds?.length ?? 0);
    if (p.ambiguousRequests === 0 && accounted < ids.length) {
      this.found.short.push({ dlqIds: ids, runs: p.resumedCount });
    }
    return p;
  }

  /** Sends `ids` once: its progress, and whether the service answered "not found" (nothing resumed). */
  private async sendOnce(ids: string[]): Promise<{ progress: DrainProgress; notFound: boolean }> {
    try {
      return { progress: await this.send(ids), notFound: false };
    } catch (e) {
      if (notFoundAtOnce(e)) {
        this.answered404();
        this.found.lastNotFound = e.error;
        return { progress: { ...e.progress, requestCount: e.progress.requestCount + 1 }, notFound: true };
      }
      if (e instanceof PartialFailure)
        throw new PartialFailure(e.error, { ...e.progress, remainingDlqIds: ids });
      throw e;
    }
  }

  /** `ids` were answered "not found" (`acc`): a single unknown ID, a batch left unresolved, or its halves. */
  private async after404(ids: string[], acc: DrainProgress): Promise<DrainProgress> {
    if (ids.length === 1) {
      this.found.notFound.push(ids[0]);
      return acc;
    }
    if (this.found.notFound.length >= this.maxNotFound) {
      this.found.unresolved.push(...ids);
      return acc;
    }
    return this.each(halves(ids), acc, (part) => this.resume(part));
  }

  /**
   * A batch answered 404 after a lost answer (`p`: every ID unconfirmed): did the lost attempt
   * resume it, or does it hold IDs not in the DLQ? Each half is sent once: when both are answered
   * "not found", the lost attempt took them (they stay unconfirmed); otherwise it resumed nothing,
   * a half answered "not found" is narrowed, and the halves' results replace the unconfirmed IDs.
   */
  private async checkUnconfirmed(ids: string[], p: DrainProgress): Promise<DrainProgress> {
    const parts = halves(ids);
    const answers: { progress: DrainProgress; notFound: boolean }[] = [];
    const acc = await this.each(parts, { ...p, unconfirmedDlqIds: undefined }, async (part) => {
      const answer = await this.sendOnce(part);
      answers.push(answer);
      return answer.progress;
    });
    if (answers.every((a) => a.notFound)) return { ...acc, unconfirmedDlqIds: ids };
    const notFound = parts.filter((_, i) => answers[i].notFound);
    return this.each(notFound, acc, (part) => this.after404(part, none()));
  }

  /**
   * Runs `step` on each part in turn, adding up the progress from `acc`.
   *
   * @throws PartialFailure whose `remainingDlqIds` are the failed part's and the parts after it
   */
  private async each(
    parts: string[][],
    acc: DrainProgress,
    step: (part: string[]) => Promise<DrainProgress>,
  ): Promise<DrainProgress> {
    for (let i = 0; i < parts.length; i++) {
      try {
        acc = add(acc, await step(parts[i]));
      } catch (f) {
        if (!(f instanceof PartialFailure)) throw f;
        const remainingDlqIds = [...(f.progress.remainingDlqIds ?? parts[i]), ...parts.slice(i + 1).flat()];
        throw new PartialFailure(f.error, { ...add(acc, f.progress), remainingDlqIds });
      }
    }
    return acc;
  }
}

/** The outcome of every batch of a {@link resumeBatches} call, and the first failure. */
class BatchResults {
  readonly results: (DrainProgress | undefined)[];
  /** The IDs of each failed batch that were not resumed. */
  readonly failed = new Map<number, string[]>();
  readonly found: Findings = { notFound: [], unresolved: [], short: [] };
  stop = false;
  firstError: unknown;
  /** Batches `[taken, batches.length)` were never started. */
  taken = 0;
  /** True when a batch was held back by `maxRuns`. */
  capped = false;
  /** A 404 answer that was narrowed or left unresolved, counted as a request answered. */
  extraRequests = 0;

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
    this.failed.set(index, outcome.error.progress.remainingDlqIds ?? this.batches[index]);
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
    const progress = done.reduce(add, none());
    const { notFound, unresolved, short } = this.found;
    if (notFound.length > 0) progress.notFoundDlqIds = [...notFound];
    if (short.length > 0) progress.shortBatches = [...short];
    const notSent = this.batches.slice(this.taken).flat();
    const failed = [...this.failed.keys()].sort((a, b) => a - b).flatMap((i) => this.failed.get(i) ?? []);
    const remaining = [...failed, ...unresolved, ...notSent];
    if (remaining.length > 0) progress.remainingDlqIds = remaining;
    if (!this.stop && unresolved.length > 0) this.halt(this.unresolvedFailure());
    if (this.stop) throw new PartialFailure(this.firstError, progress);
    if (this.capped && notSent.length > 0) progress.stoppedAtMaxRuns = true;
    return progress;
  }

  /** The failure of a call that left batches answered 404 unresolved. */
  private unresolvedFailure(): SvcError {
    const { notFound, unresolved, lastNotFound: unresolvedError } = this.found;
    return new SvcError(
      "SVC_NOT_FOUND",
      `${unresolved.length} DLQ IDs were not resumed: their batches were answered 404 ` +
        `(${unresolvedError?.serviceMessage ?? "not found"}) after ${notFound.length} IDs had been found ` +
        "missing, so they were not narrowed down (the list is likely wrong)",
      {
        status: 404,
        ...(unresolvedError?.serviceMessage !== undefined
          ? { serviceMessage: unresolvedError.serviceMessage }
          : {}),
        retryable: false,
      },
    );
  }
}

/**
 * Batches in flight now: about the rate times the measured round trip (see `inFlight.ts`), the
 * rate being the gate's (or `maxRequestsPerSecond`, the smaller), at most `concurrency` (default
 * {@link MAX_IN_FLIGHT}). Until a round trip is measured, or without a rate, `concurrency`, or
 * {@link DEFAULT_CONCURRENCY} when it is not given (no rate: nothing says more would not be refused).
 */
function batchesInFlight(opts: ResumeByIdsOptions, rtt: RoundTripFloor): () => number {
  return () => {
    const rates = [opts.gate?.ratePerSecond, opts.maxRequestsPerSecond].filter(
      (r): r is number => r !== undefined,
    );
    if (rates.length === 0 || rtt.ms === undefined) return opts.concurrency ?? DEFAULT_CONCURRENCY;
    return inFlightFor(Math.min(...rates), rtt.ms, opts.concurrency ?? MAX_IN_FLIGHT);
  };
}

/**
 * Splits `ids` into batches of at most {@link MAX_RUNS_PER_REQUEST}, runs about rate × round trip
 * batches at once (at most `concurrency`; see {@link batchesInFlight}) (on the {@link TaskPool} the windowed drain uses too), and returns the runs in
 * batch order. A batch answered 404 is narrowed (module comment). On the first other failure no
 * new batch is started; batches in flight finish and are recorded; then the failure is thrown
 * with the progress, including the IDs not resumed (`remainingDlqIds`).
 *
 * @throws PartialFailure wrapping the first failure (or `SVC_NOT_FOUND` for the batches left
 * answered 404) and the progress
 */
export async function resumeBatches(
  ids: string[],
  step: BatchStep,
  opts: Omit<ResumeByIdsOptions, "maxRequestsPerSecond"> = {},
): Promise<DrainProgress> {
  // Each ID's grammar is checked by the caller (`DrainClient.resumeByIds`, contract.ts).
  if (!Array.isArray(ids)) throw new SvcError("SVC_INVALID_ARGUMENT", "`ids` must be an array of strings");
  checkConcurrency(opts.concurrency);
  checkCount(opts.maxNotFound, "maxNotFound", 0);
  checkCount(opts.maxRuns, "maxRuns", 0);
  const unique = [...new Set(ids)];
  const batches: string[][] = [];
  for (let i = 0; i < unique.length; i += MAX_RUNS_PER_REQUEST) {
    batches.push(unique.slice(i, i + MAX_RUNS_PER_REQUEST));
  }
  const out = new BatchResults(batches);
  let requestCount = 0;
  let resumedCount = 0;
  let idsInFlight = 0;
  const now = opts.now ?? Date.now;
  const rtt = new RoundTripFloor();
  const timed: BatchStep = async (dlqIds, cursor, state) => {
    const sent = now();
    const page = await step(dlqIds, cursor, state);
    rtt.add(now() - sent);
    return page;
  };
  const send = (index: number) => (dlqIds: string[]) =>
    drainPages((cursor, state) => timed(dlqIds, cursor, state), {
      keepRuns: opts.keepRuns,
      onPage: async ({ page }) => {
        requestCount += 1;
        resumedCount += page.workflowRuns.length;
        const event: ResumeBatchEvent = { batchIndex: index, dlqIds, page, requestCount, resumedCount };
        await opts.onPage?.(event);
      },
    });
  const maxNotFound = opts.maxNotFound ?? MAX_NOT_FOUND_NARROWED;
  const runBatch = async (index: number): Promise<DrainProgress> => {
    idsInFlight += batches[index].length;
    try {
      const answered404 = () => void (requestCount += 1);
      return await new Narrowing(send(index), out.found, maxNotFound, answered404).resume(batches[index]);
    } finally {
      idsInFlight -= batches[index].length;
    }
  };
  const take = (): number | undefined => {
    if (out.stop || out.taken >= batches.length) return undefined;
    if (opts.signal?.aborted) {
      out.halt(new SvcError("SVC_ABORTED", "The resume of the DLQ IDs was stopped by its signal"));
      return undefined;
    }
    if (opts.maxRuns !== undefined && resumedCount + idsInFlight >= opts.maxRuns) {
      out.capped = true;
      return undefined;
    }
    return out.taken++;
  };
  const pool = new TaskPool(batchesInFlight(opts, rtt));
  await pool.run({ take, start: runBatch, settle: (i, outcome) => out.settle(i, outcome) });
  return out.progress();
}
