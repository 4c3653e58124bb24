/**
 * {@link DrainClient}: the drains that send many resume requests (the cursor drain, the resume of
 * DLQ IDs in batches, and the windowed drain) through the HTTP client it wraps, `SvcClient` of
 * `client/`.
 *
 * @packageDocumentation
 */
import { SvcClient } from "../client/SvcClient";
import type { AccountRecord, ResumePage, SvcClientOptions } from "../client/types";
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
 * The drains of the svc client: {@link drain}, {@link resumeByIds} and {@link drainWindows}, each
 * delegating to its module of `drain/` and sending its requests through the {@link SvcClient} it
 * wraps (as undici's `RetryAgent` wraps a dispatcher). {@link resumeDlq}, {@link getAccount} and
 * {@link close} pass through to that client.
 *
 * @example
 * ```ts
 * const client = new DrainClient({ baseUrl: "http://127.0.0.1:4000", token });
 * const { resumedCount } = await client.drainWindows({ fromDate: 0 }, { retries: 3 });
 * await client.close();
 * ```
 */
export class DrainClient {
  /** The HTTP client every request of the drains is sent through. */
  readonly client: SvcClient;

  /**
   * @param clientOrOptions - the HTTP client to send through, or the options to build one with;
   *   the DrainClient owns it either way ({@link close} closes it)
   * @throws SvcError `SVC_INVALID_ARGUMENT` for an invalid retry policy or timeout (options)
   */
  constructor(clientOrOptions: SvcClient | SvcClientOptions = {}) {
    this.client = clientOrOptions instanceof SvcClient ? clientOrOptions : new SvcClient(clientOrOptions);
  }

  /** One resume request: {@link SvcClient.resumeDlq} of the wrapped client. */
  resumeDlq(selection: DlqSelection, overrides?: ResumeOverrides, cursor?: string): Promise<ResumePage> {
    return this.client.resumeDlq(selection, overrides, cursor);
  }

  /** The account record: {@link SvcClient.getAccount} of the wrapped client. */
  getAccount(): Promise<AccountRecord> {
    return this.client.getAccount();
  }

  /** Closes the wrapped client's connection pools (an injected dispatcher is left open). */
  close(): Promise<void> {
    return this.client.close();
  }

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
    const send = this.client.resumeSender(overrides);
    return withPartialProgress("the drain", () =>
      drainPages(
        (cursor, state) =>
          send({
            query: query(cursor),
            dlqIds: selection.dlqIds,
            state,
            gate: OPEN_GATE,
            signal: opts.signal,
          }),
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
    const { now, sleep } = this.client;
    const shared = opts.gate;
    const gate: RequestGate = shared
      ? capped(() => shared.acquire(), opts.maxRequestsPerSecond, now, sleep)
      : opts.maxRequestsPerSecond === undefined
        ? OPEN_GATE
        : spacingGate(opts.maxRequestsPerSecond, now, sleep);
    const observe = shared
      ? (status: number, headers: ResponseHeaders): void => shared.observe(status, headers)
      : undefined;
    const send = this.client.resumeSender(overrides);
    return withPartialProgress("the resume of the DLQ IDs", () =>
      resumeBatches(
        ids,
        (dlqIds, cursor, state) =>
          send({
            query: selectionQuery({ dlqIds }, { trusted: true })(cursor),
            dlqIds,
            state,
            gate,
            signal: opts.signal,
            onResponse: observe,
          }),
        { ...opts, now: opts.now ?? now },
      ),
    );
  }

  /**
   * Resumes every entry matching `selection` (filters or `{}` for all) in parallel failure-time
   * windows, as fast as the account's rate gate allows (see `drain/windowDrain.ts`): every
   * entry once, at most 50 runs a request, requests within the allowance (`requestAllowance`:
   * ceil(N/50) + 4 up to 500 entries, 1.10 × ceil(N/50) + 24 + min(⌈rate × round trip⌉, ceil(N/50))
   * above).
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
    const { now, sleep } = this.client;
    const send = this.client.resumeSender(overrides);
    const account = this.client.resumeAccount();
    const gate = opts.gate ?? accountRateGates.forAccount(account.baseUrl, account.token, opts.accountLimit);
    const acquire = capped(() => gate.acquire(), opts.maxRequestsPerSecond, now, sleep);
    const observe = (status: number, headers: ResponseHeaders): void => gate.observe(status, headers);
    try {
      return await drainWindows(
        selection,
        (window, cursor, state) =>
          send({
            query: selectionQuery(windowSelection(selection, window), { trusted: true })(cursor),
            dlqIds: selection.dlqIds,
            state,
            gate: acquire,
            signal: opts.signal,
            onResponse: observe,
          }),
        gate,
        { now, ...opts },
      );
    } catch (error) {
      if (error instanceof PartialFailure) throw DrainError.wrap(error.error, error.progress, "the drain");
      throw error;
    }
  }
}
