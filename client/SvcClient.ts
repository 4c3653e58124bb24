// size: one class, the public surface of every resume mode (one page, cursor drain, windowed drain, by IDs) and the account read, each method delegating to its own module
/**
 * {@link SvcClient}: the typed client of the svc resume and account APIs.
 *
 * @packageDocumentation
 */
import { DrainError, SvcError } from "./errors";
import { resumeBatches } from "./batches";
import { PartialFailure, drainPages, withPartialProgress } from "./drain";
import {
  selectionProblems,
  throwIfProblems,
  usernameProblem,
  type DlqSelection,
  type ResumeOverrides,
} from "./contract";
import { overrideHeaders } from "./headers";
import { resumeQuery, selectionQuery, validateSelection } from "./query";
import { accountRateGates, capped } from "./rateGate";
import { OPEN_GATE, spacingGate, type RequestGate } from "./requestSpacing";
import { Redactor } from "./redact";
import { RequestRunner, type CallState } from "./request";
import { resolveRetryPolicy, type ResponseHeaders } from "./retry";
import { resolveEndpoint, Transport } from "./transport";
import type {
  AccountRecord,
  DrainOptions,
  DrainResult,
  DrainWindowsOptions,
  ResumeByIdsOptions,
  ResumePage,
  SvcClientOptions,
} from "./types";
import { validateAccountRecord, validateResumePage } from "./validate";
import { drainWindows, type WindowDrainProgress } from "./windowDrain";
import { windowSelection } from "./windows";

/** Path of the bulk-resume endpoint under `baseUrl`. */
export const RESUME_PATH = "/v2/workflows/dlq/resume";
/** Path of the account endpoint under `accountApiUrl`. */
export const ACCOUNT_PATH = "/v2/svc/user";

const USER_AGENT = "pulumi-svc-client/0.1";

/**
 * Typed client of the svc resume and account APIs.
 *
 * - One keep-alive connection pool per origin, reused across calls; call {@link close} when done.
 * - Credentials are only sent over https or to a loopback host (unless `allowInsecureHttp`), and
 *   never appear in error messages, causes or `JSON.stringify(error)`.
 * - Transient failures are retried with capped, jittered exponential backoff honouring
 *   `Retry-After` and `Burst-RateLimit-Reset`.
 *
 * @example
 * ```ts
 * const client = new SvcClient({ baseUrl: "http://127.0.0.1:4000", token });
 * const { runs, ambiguousRequests } = await client.drain({ fromDate: 0 }, { retries: 3 });
 * await client.close();
 * ```
 */
export class SvcClient {
  private readonly options: SvcClientOptions;
  private readonly transport: Transport;
  private readonly runner: RequestRunner;
  private readonly redactor: Redactor;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;

  /**
   * @param options - endpoints, credentials, timeouts, retry policy and test hooks
   * @throws SvcError `SVC_INVALID_ARGUMENT` for an invalid retry policy or timeout
   */
  constructor(options: SvcClientOptions = {}) {
    this.options = { ...options };
    const policy = resolveRetryPolicy(options.retry);
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = options.now ?? Date.now;
    this.transport = new Transport({
      dispatcher: options.dispatcher,
      connectTimeoutMs: options.connectTimeoutMs,
      requestTimeoutMs: options.requestTimeoutMs,
    });
    const basic =
      typeof options.username === "string" && typeof options.password === "string"
        ? Buffer.from(`${options.username}:${options.password}`, "utf8").toString("base64")
        : undefined;
    this.redactor = new Redactor([options.token, options.password, basic]);
    this.runner = new RequestRunner({
      transport: this.transport,
      policy,
      redactor: this.redactor,
      random: options.random ?? Math.random,
      sleep: this.sleep,
      now: this.now,
      onRetry: options.onRetry,
    });
  }

  /**
   * Reads the account record: `GET {accountApiUrl}/v2/svc/user` with HTTP Basic auth.
   * Retries 429, transient 5xx, timeouts and connection failures (a GET changes nothing).
   *
   * @throws SvcError e.g. `SVC_MISSING_CREDENTIALS`, `SVC_UNAUTHORIZED`, `SVC_MALFORMED_RESPONSE`
   */
  async getAccount(): Promise<AccountRecord> {
    const { username, password } = this.options;
    const missing = [username ? undefined : "username", password ? undefined : "password"].filter(Boolean);
    if (missing.length > 0) {
      throw new SvcError(
        "SVC_MISSING_CREDENTIALS",
        `Cannot read the svc account record: ${missing.map((m) => `\`${m}\``).join(" and ")} ` +
          `${missing.length > 1 ? "are" : "is"} not set`,
      );
    }
    const endpoint = resolveEndpoint(
      this.options.accountApiUrl,
      "accountApiUrl",
      !!this.options.allowInsecureHttp,
    );
    const { json, status } = await this.runner.run({
      operation: "get account",
      method: "GET",
      endpoint,
      path: ACCOUNT_PATH,
      query: "",
      headers: {
        authorization: `Basic ${basicCredentials(username as string, password as string)}`,
        accept: "application/json",
        "user-agent": USER_AGENT,
      },
      credentialHint: "check `username` and `password`",
      hasSideEffects: false,
      safeToReplay: true,
    });
    try {
      return validateAccountRecord(json);
    } catch (e) {
      throw withContext(e, this.redactor, {
        status,
        method: "GET",
        url: `${endpoint.origin}${endpoint.pathPrefix}${ACCOUNT_PATH}`,
      });
    }
  }

  /**
   * Sends one bulk-resume request: `POST {baseUrl}/v2/workflows/dlq/resume` with every field in
   * the query string and no body. The service resumes at most 50 runs and returns a cursor
   * when more remain. See {@link drain} to follow the cursor.
   *
   * @param selection - which entries; `dlqIds` must hold 1–50 IDs when given
   * @param overrides - flow-control and retries overrides; unset overrides send no header
   * @param cursor - cursor of the previous page
   * @returns the page; `ambiguous` is set when a lost attempt may have resumed unreported runs
   * @throws SvcError e.g. `SVC_INVALID_ARGUMENT` (before sending), `SVC_BAD_REQUEST`, `SVC_NOT_FOUND`
   */
  async resumeDlq(
    selection: DlqSelection,
    overrides?: ResumeOverrides,
    cursor?: string,
  ): Promise<ResumePage> {
    const query = resumeQuery(selection, cursor);
    return this.resumeOnce(
      query,
      selection.dlqIds,
      () => this.prepareResume(overrides),
      { attempts: 0, ambiguous: false },
      OPEN_GATE,
    );
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
        opts,
      ),
    );
  }

  /**
   * Resumes every entry matching `selection` (filters or `{}` for all) in parallel failure-time
   * windows, as fast as the account's rate gate allows (see `client/windowDrain.ts`): every
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

  /** Closes the connection pools the client opened (an injected dispatcher is left open). */
  async close(): Promise<void> {
    await this.transport.close();
  }

  /**
   * What every request of one resume operation shares: the endpoint and the headers
   * (override headers validated, token checked). Prepared once per drain, not per request.
   */
  private prepareResume(overrides: ResumeOverrides | undefined): PreparedResume {
    const extra = overrideHeaders(overrides);
    const token = this.options.token;
    if (!token) {
      throw new SvcError("SVC_MISSING_CREDENTIALS", "Cannot resume DLQ entries: `token` is not set");
    }
    return {
      endpoint: resolveEndpoint(this.options.baseUrl, "baseUrl", !!this.options.allowInsecureHttp),
      headers: {
        ...extra,
        authorization: `Bearer ${token}`,
        accept: "application/json",
        "user-agent": USER_AGENT,
      },
    };
  }

  /** A getter that prepares on first use (inside the loop, so errors carry partial progress). */
  private preparedOnce(overrides: ResumeOverrides | undefined): () => PreparedResume {
    let prepared: PreparedResume | undefined;
    return () => (prepared ??= this.prepareResume(overrides));
  }

  /**
   * Sends one resume request.
   *
   * @param query - the query string, built from a validated selection
   * @param dlqIds - the request's DLQ IDs, when it selects by ID
   */
  private async resumeOnce(
    query: string,
    dlqIds: readonly string[] | undefined,
    prepare: () => PreparedResume,
    state: CallState,
    gate: RequestGate,
    signal?: AbortSignal,
    onResponse?: (status: number, headers: ResponseHeaders) => void,
  ): Promise<ResumePage> {
    const { endpoint, headers } = prepare();
    const byIds = dlqIds !== undefined;
    const { status, json } = await this.runner.run(
      {
        operation: "resume DLQ",
        method: "POST",
        endpoint,
        path: RESUME_PATH,
        query,
        headers,
        credentialHint: "check `token`",
        hasSideEffects: true,
        // Why replaying a resume is safe even after a failure that may have been processed
        // (5xx, timeout, connection lost after sending):
        // - the service removes a resumed entry from the DLQ, so the same request sent again
        //   can only select entries that are still there — no entry is resumed twice;
        // - a cursor means "continue after this point", so re-sending the same cursor never
        //   revisits entries before it.
        // Such a retry is still AMBIGUOUS: the lost attempt may have resumed up to 50 runs whose
        // new IDs never came back. It is reported (`onRetry` `ambiguous: true`, page
        // `ambiguous`, `DrainResult.ambiguousRequests`) so the caller knows the list of runs may
        // be incomplete. 429, 408 and connect failures are plain, unambiguous retries.
        safeToReplay: true,
        // A dlqIds request replayed after an ambiguous attempt may find its entries gone (the
        // lost attempt resumed them): the service answers 404. That batch is then taken as
        // resumed without known run IDs (`unconfirmedDlqIds`) instead of failing.
        accept404AfterAmbiguous: byIds,
        gate,
        ...(signal ? { signal } : {}),
        ...(onResponse ? { onResponse } : {}),
      },
      state,
    );
    if (status === 404) {
      return {
        cursor: undefined,
        workflowRuns: [],
        ambiguous: true,
        unconfirmedDlqIds: [...(dlqIds ?? [])],
      };
    }
    let page: ResumePage;
    try {
      page = validateResumePage(json);
    } catch (e) {
      // The service answered 2xx, so it did resume something we cannot read.
      state.ambiguous = true;
      throw withContext(e, this.redactor, {
        status,
        method: "POST",
        url: `${endpoint.origin}${endpoint.pathPrefix}${RESUME_PATH}${query}`,
        ambiguous: true,
        attempts: state.attempts,
      });
    }
    return state.ambiguous ? { ...page, ambiguous: true } : page;
  }
}

/** The endpoint and headers shared by the requests of one resume operation. */
interface PreparedResume {
  endpoint: ReturnType<typeof resolveEndpoint>;
  headers: Record<string, string>;
}

/** Base64 of `username:password` for HTTP Basic. */
function basicCredentials(username: string, password: string): string {
  if (typeof username !== "string" || typeof password !== "string") {
    throw new SvcError("SVC_INVALID_ARGUMENT", "`username` and `password` must be strings");
  }
  const colon = usernameProblem(username);
  if (colon) throw new SvcError("SVC_INVALID_ARGUMENT", colon.message);
  return Buffer.from(`${username}:${password}`, "utf8").toString("base64");
}

/** Re-creates a validation SvcError with the HTTP context of the response it came from. */
function withContext(
  e: unknown,
  redactor: Redactor,
  ctx: { status: number; method: string; url: string; ambiguous?: boolean; attempts?: number },
): unknown {
  if (!(e instanceof SvcError)) return e;
  return new SvcError(e.code, redactor.scrub(e.message), { ...ctx, retryable: false });
}
