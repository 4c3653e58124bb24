/**
 * {@link DrainClient}: the HTTP client (`SvcClient` of `client/`) with the drains that send many
 * resume requests: the cursor drain, the resume of DLQ IDs in batches, and the windowed drain.
 * `pulumi-svc/client`'s `SvcClient` is this class, so code written for 0.2 keeps working.
 *
 * @packageDocumentation
 */
import { SvcClient } from "../client/SvcClient";
import {
  selectionProblems,
  throwIfProblems,
  type DlqSelection,
  type ResumeOverrides,
} from "../client/contract";
import { overrideHeaders } from "../client/headers";
import { selectionQuery, validateSelection } from "../client/query";
import { OPEN_GATE, spacingGate, type RequestGate } from "../client/requestSpacing";
import type { ResponseHeaders } from "../client/retry";
import { resumeBatches } from "./batches";
import { PartialFailure, drainPages, withPartialProgress } from "./cursorDrain";
import { DrainError } from "./errors";
import { accountRateGates, capped } from "./rateGate";
import type { DrainOptions, DrainResult, DrainWindowsOptions, ResumeByIdsOptions } from "./types";
import { drainWindows, type WindowDrainProgress } from "./windowDrain";
import { windowSelection } from "./windows";

/**
 * The svc client with the drains: every method of {@link SvcClient}, and {@link drain},
 * {@link resumeByIds} and {@link drainWindows}, each delegating to its module of `drain/`.
 *
 * @example
 * ```ts
 * const client = new DrainClient({ baseUrl: "http://127.0.0.1:4000", token });
 * const { resumedCount } = await client.drainWindows({ fromDate: 0 }, { retries: 3 });
 * await client.close();
 * ```
 */
export class DrainClient extends SvcClient {
  /**
   * Resumes every entry matching `selection`, following the cursor until the service reports
   * no more. `onPage` is awaited after every page, so the caller can checkpoint `cursor`.
   *
   * @throws DrainError (an SvcError) with `partial` — the runs resumed so far, counts and the
   * cursor to continue from — when a request, `onPage` or the signal stops the drain, and
   * `SVC_CURSOR_LOOP` when the cursor repeats, pages stay empty, or `maxRequests` is exceeded
   */
  async drain(
    selection: DlqSelection,
    overrides?: ResumeOverrides,
    opts: DrainOptions = {},
  ): Promise<DrainResult> {
    // The selection and the overrides are validated once per drain, not on every page.
    const query = selectionQuery(selection);
    overrideHeaders(overrides);
    const prepare = this.preparedOnce(overrides);
    return withPartialProgress("the drain", () =>
      drainPages(
        (cursor, state) =>
          this.resumeOnce(query(cursor), selection.dlqIds, prepare, state, OPEN_GATE, opts.signal),
        opts,
      ),
    );
  }

  /**
   * Resumes the given DLQ IDs in batches of at most 50 (duplicates removed), up to
   * `concurrency` batches at once and at most `maxRequestsPerSecond` request starts per second
   * (retries included), through the account's shared `gate` when one is given. Runs are
   * returned in batch order. A batch the service answers "not found" (404) is narrowed to the IDs
   * it does not find (`notFoundDlqIds`), every other ID resumed; a batch answered with fewer runs
   * than IDs is reported in `shortBatches` and not resent; `maxRuns` stops at a cap
   * (`stoppedAtMaxRuns`, the IDs not sent in `remainingDlqIds`). See `batches.ts`.
   *
   * @throws DrainError with `partial` (including `remainingDlqIds`) when a batch fails (batches
   * already in flight are allowed to finish first), or `SVC_NOT_FOUND` when batches were still
   * answered 404 after `maxNotFound` IDs had been found missing
   */
  async resumeByIds(
    ids: string[],
    overrides?: ResumeOverrides,
    opts: ResumeByIdsOptions = {},
  ): Promise<DrainResult> {
    // Every ID is checked once here (a repeat is dropped, not refused); each batch is then a
    // selection of valid IDs and is not validated again.
    if (Array.isArray(ids) && ids.length > 0) {
      throwIfProblems(selectionProblems({ dlqIds: [...new Set(ids)] }, { maxDlqIds: Infinity }));
    }
    overrideHeaders(overrides);
    const shared = opts.gate;
    const gate: RequestGate = shared
      ? capped(() => shared.acquire(), opts.maxRequestsPerSecond, this.now, this.sleep)
      : opts.maxRequestsPerSecond === undefined
        ? OPEN_GATE
        : spacingGate(opts.maxRequestsPerSecond, this.now, this.sleep);
    const observe = shared
      ? (status: number, headers: ResponseHeaders): void => shared.observe(status, headers)
      : undefined;
    const prepare = this.preparedOnce(overrides);
    return withPartialProgress("the resume of the DLQ IDs", () =>
      resumeBatches(
        ids,
        (dlqIds, cursor, state) =>
          this.resumeOnce(
            selectionQuery({ dlqIds }, { trusted: true })(cursor),
            dlqIds,
            prepare,
            state,
            gate,
            opts.signal,
            observe,
          ),
        { ...opts, now: opts.now ?? this.now },
      ),
    );
  }

  /**
   * Resumes every entry matching `selection` (filters or `{}` for all) in parallel failure-time
   * windows, as fast as the account's rate gate allows (see `drain/windowDrain.ts`): every
   * entry once, at most 50 runs a request, requests within ceil(N/50) + 4 up to 2,500 entries, 1.10 × ceil(N/50) + 4 above.
   * `concurrency: 1` is the sequential drain of {@link drain}. `onPage` gets the state to
   * continue from after every page; pass it back as `state` to continue a cut-off drain.
   *
   * @throws DrainError with `partial` (including `windowState`) when a request, `onPage` or the
   * signal stops the drain; requests in flight finish and are counted first
   */
  async drainWindows(
    selection: DlqSelection,
    overrides?: ResumeOverrides,
    opts: DrainWindowsOptions = {},
  ): Promise<WindowDrainProgress> {
    validateSelection(selection);
    overrideHeaders(overrides);
    const prepare = this.preparedOnce(overrides);
    const gate =
      opts.gate ??
      accountRateGates.forAccount(this.options.baseUrl ?? "", this.options.token ?? "", opts.accountLimit);
    const acquire = capped(() => gate.acquire(), opts.maxRequestsPerSecond, this.now, this.sleep);
    const observe = (status: number, headers: ResponseHeaders): void => gate.observe(status, headers);
    try {
      return await drainWindows(
        selection,
        (window, cursor, state) =>
          this.resumeOnce(
            selectionQuery(windowSelection(selection, window), { trusted: true })(cursor),
            selection.dlqIds,
            prepare,
            state,
            acquire,
            opts.signal,
            observe,
          ),
        gate,
        { now: this.now, ...opts },
      );
    } catch (error) {
      if (error instanceof PartialFailure) throw DrainError.wrap(error.error, error.progress, "the drain");
      throw error;
    }
  }
}
