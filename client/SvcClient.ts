/**
 * {@link SvcClient}: the typed HTTP client of the svc resume and account APIs: one resume request
 * and the account read. The drains that send many requests (cursor, windows, by IDs) are in
 * `drain/`, whose `DrainClient` wraps this class and sends them through {@link
 * SvcClient.resumeSender}.
 *
 * @packageDocumentation
 */
import { SvcError } from "./errors";
import { usernameProblem, type DlqSelection, type ResumeOverrides } from "./contract";
import { resumeQuery } from "./query";
import { overrideHeaders } from "./headers";
import { OPEN_GATE, type RequestGate } from "./requestSpacing";
import { Redactor } from "./redact";
import { RequestRunner, type CallState } from "./request";
import { resolveRetryPolicy, type ResponseHeaders } from "./retry";
import { resolveEndpoint, Transport } from "./transport";
import type { AccountRecord, ResumePage, SvcClientOptions } from "./types";
import { validateAccountRecord, validateResumePage } from "./validate";

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
 * const page = await client.resumeDlq({ fromDate: 0 }, { retries: 3 });
 * await client.close();
 * ```
 */
export class SvcClient {
  private readonly options: SvcClientOptions;
  private readonly transport: Transport;
  private readonly runner: RequestRunner;
  private readonly redactor: Redactor;
  /**
   * Waits the given number of milliseconds: the `sleep` option, or a `setTimeout` promise. The
   * retries wait with it, and a drain paces its requests with it, so that a test's fake clock
   * drives both.
   */
  readonly sleep: (ms: number) => Promise<void>;
  /** The clock, unix milliseconds: the `now` option, or `Date.now`. Read as {@link sleep} is. */
  readonly now: () => number;

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
   * when more remain. `DrainClient.drain` of `pulumi-svc/drain` follows the cursor.
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
    return this.resumeSender(overrides)({
      query,
      dlqIds: selection.dlqIds,
      state: { attempts: 0, ambiguous: false },
    });
  }

  /**
   * The sender of the requests of one resume operation of many requests (a drain of
   * `pulumi-svc/drain`): it validates the overrides, checks the token and resolves the endpoint
   * on its first request, not before, so that a drain's error carries the drain's partial
   * progress; and once, not on every request.
   *
   * @throws SvcError from the sender: as {@link resumeDlq}
   */
  resumeSender(overrides: ResumeOverrides | undefined): (request: ResumeRequest) => Promise<ResumePage> {
    let prepared: PreparedResume | undefined;
    return (request) => this.resumeOnce(request, () => (prepared ??= this.prepareResume(overrides)));
  }

  /**
   * The account a resume request is sent for: `baseUrl` and `token` as given (`""` when unset).
   * A drain keys the account's shared rate gate by it (`pulumi-svc/drain`, which hashes the
   * token); it is never put in a message.
   */
  resumeAccount(): { baseUrl: string; token: string } {
    return { baseUrl: this.options.baseUrl ?? "", token: this.options.token ?? "" };
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

  /** Sends one resume request, retried within its `state`, paced by its `gate`. */
  private async resumeOnce(
    { query, dlqIds, state, gate = OPEN_GATE, signal, onResponse }: ResumeRequest,
    prepare: () => PreparedResume,
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

/** One request of a resume operation, as the sender of {@link SvcClient.resumeSender} takes it. */
export interface ResumeRequest {
  /** The query string, built from a validated selection. */
  query: string;
  /**
   * The request's DLQ IDs, when it selects by ID: a 404 after an ambiguous attempt then means
   * the lost attempt resumed them (`unconfirmedDlqIds`), not a failure.
   */
  dlqIds?: readonly string[] | undefined;
  /** The attempts so far and whether one may have been processed; the retries share it. */
  state: CallState;
  /** Awaited before each attempt, retries included. Default: no wait. */
  gate?: RequestGate;
  /** Once it fires, no further attempt is sent (one waiting at the gate stops waiting). */
  signal?: AbortSignal | undefined;
  /** Called with every response's status and headers (a rate gate reads its limits from them). */
  onResponse?: ((status: number, headers: ResponseHeaders) => void) | undefined;
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
