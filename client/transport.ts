// size: one Transport class and the failure classification only it uses (which socket errors mean not sent, which lost); apart, the retry-safety rule would be read away from the code it guards
/**
 * Transport: endpoint checks (scheme, embedded credentials, plain HTTP to a non-loopback host),
 * one keep-alive undici `Pool` per origin, and single HTTP attempts whose failures are
 * classified by whether the request could have reached the service.
 *
 * @packageDocumentation
 */
import { isIP } from "node:net";
import type { Dispatcher, Pool as UndiciPool } from "undici";
import { SvcError } from "./errors";

/**
 * undici's `Pool`, loaded on first use and from its own module. undici's index also loads `fetch`,
 * WebSocket, caches and their WebAssembly, about twice the RSS of the pool alone in every thread
 * that loads it, and a thread that never sends a request (the provider's own thread when its
 * drains run in the drain thread, a policy pack that reads no account) loads neither
 * (docs/benchmarks.md section 7). undici 8 has no `exports` map; the module is the one its index
 * re-exports as `Pool` (a test checks they are the same class); should a later undici move it,
 * the index's `Pool` is used.
 */
function poolClass(): typeof UndiciPool {
  try {
    return require("undici/lib/dispatcher/pool") as typeof UndiciPool;
  } catch {
    return (require("undici") as typeof import("undici")).Pool;
  }
}

/** Default connect timeout, milliseconds. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** Default timeout of one attempt, milliseconds. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** Largest response body the client reads; the documented bodies are a few KiB. */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** A validated base URL. */
export interface Endpoint {
  /** `scheme://host[:port]`. */
  origin: string;
  /** Path prefix of the base URL without a trailing slash (`""` for none). */
  pathPrefix: string;
}

/**
 * Whether a URL hostname is loopback: `localhost`, 127.0.0.0/8, `::1` (also IPv4-mapped
 * `::ffff:127.x.x.x`). Bracketed IPv6 hostnames as produced by `URL` are accepted.
 */
export function isLoopbackHost(hostname: string): boolean {
  let host = hostname.toLowerCase();
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  if (host.endsWith(".")) host = host.slice(0, -1);
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  if (isIP(host) === 6) {
    if (host === "::1" || host === "0:0:0:0:0:0:0:1") return true;
    const mapped = /^(?:0:0:0:0:0:|::)ffff:(.+)$/.exec(host);
    if (mapped) {
      const tail = mapped[1];
      if (isIP(tail) === 4) return tail.startsWith("127.");
      // URL normalises ::ffff:127.0.0.1 to ::ffff:7f00:1
      return /^7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(tail);
    }
  }
  return false;
}

/**
 * The rule of a URL a credential is sent to (`baseUrl`, `accountApiUrl`), called by the input
 * checks at preview (`checkUrl` in `core/inputChecks.ts`) and by {@link resolveEndpoint}: a URL,
 * http or https, no user info, no query or fragment. The problem never echoes the value, which
 * may carry a credential even when malformed; only its scheme. (A workflow's own `url` carries
 * no credential and has a rule of its own, `workflowUrlProblem` in `core/resources/workflow.ts`.)
 *
 * @param value - the URL as given
 * @param field - the input's name, for the message
 * @returns the parsed URL, or the problem as a sentence naming the field
 */
export function parseCredentialUrl(value: string, field: string): URL | string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `\`${field}\` must be a URL such as "http://127.0.0.1:8080"; the value given is not one (not shown: it may carry a credential).`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `\`${field}\` must use http or https; got ${JSON.stringify(url.protocol)}.`;
  }
  if (url.username !== "" || url.password !== "") {
    return `\`${field}\` must not carry credentials; use the credential inputs or config instead.`;
  }
  if (url.search !== "" || url.hash !== "") {
    return `\`${field}\` must not have a query or fragment (not shown: it may carry a credential).`;
  }
  return url;
}

/**
 * Parses and checks a base URL before credentials are sent to it.
 *
 * @param base - the configured base URL
 * @param optionName - option name for messages, e.g. `"baseUrl"`
 * @param allowInsecureHttp - allow `http://` to a non-loopback host
 * @throws SvcError `SVC_INVALID_ARGUMENT` when unset, unparsable, not http(s), or carrying
 * user info, query or fragment; `SVC_INSECURE_TRANSPORT` for `http://` to a non-loopback host
 */
export function resolveEndpoint(
  base: string | undefined,
  optionName: string,
  allowInsecureHttp: boolean,
): Endpoint {
  if (base === undefined || base === "") {
    throw new SvcError("SVC_INVALID_ARGUMENT", `\`${optionName}\` is not set`);
  }
  const checked = parseCredentialUrl(base, optionName);
  if (typeof checked === "string") throw new SvcError("SVC_INVALID_ARGUMENT", checked);
  const url = checked;
  if (url.protocol === "http:" && !allowInsecureHttp && !isLoopbackHost(url.hostname)) {
    throw new SvcError(
      "SVC_INSECURE_TRANSPORT",
      `Refusing to send credentials over plain http to ${url.host} (\`${optionName}\`): ` +
        "use https, a loopback host, or set allowInsecureHttp: true",
      { url: url.origin },
    );
  }
  return { origin: url.origin, pathPrefix: url.pathname.replace(/\/+$/, "") };
}

/** One HTTP request to send. */
export interface OutgoingRequest {
  origin: string;
  /** Path with query string. */
  path: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
}

/** A complete HTTP response (any status). */
export interface IncomingResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** How a failed attempt failed, as far as the service is concerned. */
export type FailureKind =
  /** Connection refused, DNS failure, unreachable: the request never left. */
  | "unreachable"
  /** Connect timed out: the request never left. */
  | "connect-timeout"
  /** Header/body timeout or our overall deadline: the request may have been processed. */
  | "timeout"
  /** The connection closed before the response was complete: may have been processed. */
  | "connection-lost"
  /** The response exceeded {@link MAX_RESPONSE_BYTES}. */
  | "too-large"
  /** The client was closed; the request was not sent or was abandoned. */
  | "closed"
  /** undici refused the request (e.g. an invalid header): never sent. */
  | "invalid"
  /** Anything else; treated as possibly processed. */
  | "unknown";

/** A failed attempt, classified. `original` must be scrubbed before it is exposed. */
export class TransportFailure extends Error {
  /** Classification of the failure. */
  readonly kind: FailureKind;
  /** Whether the service may have received (and processed) the request. */
  readonly mayHaveBeenProcessed: boolean;
  /** The error undici (or Node) reported. */
  readonly original: unknown;

  /**
   * @param kind - classification
   * @param original - the underlying error
   */
  constructor(kind: FailureKind, original: unknown) {
    super(`transport failure: ${kind}`);
    this.name = "TransportFailure";
    this.kind = kind;
    this.original = original;
    this.mayHaveBeenProcessed = !["unreachable", "connect-timeout", "invalid"].includes(kind);
  }
}

/** Marks our own per-attempt deadline (the abort reason). */
class DeadlineExceeded extends Error {
  readonly code = "SVC_DEADLINE";
  constructor(ms: number) {
    super(`no complete response within ${ms} ms`);
    this.name = "DeadlineExceeded";
  }
}

const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_NONAME",
  "EAI_FAIL",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "ENETDOWN",
  "EADDRNOTAVAIL",
]);
const LOST_CODES = new Set([
  "UND_ERR_SOCKET",
  "ECONNRESET",
  "EPIPE",
  "ECONNABORTED",
  "ETIMEDOUT",
  "UND_ERR_RES_CONTENT_LENGTH_MISMATCH",
  "UND_ERR_INFO",
  "UND_ERR_ABORTED",
]);

/** Classifies an error thrown by an undici request. */
export function classifyTransportError(error: unknown): FailureKind {
  if (error instanceof DeadlineExceeded) return "timeout";
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") {
    const errors = (error as { errors?: unknown } | null)?.errors;
    // Happy-eyeballs connects report an AggregateError of per-address failures.
    if (
      Array.isArray(errors) &&
      errors.length > 0 &&
      errors.every((e) => classifyTransportError(e) === "unreachable")
    ) {
      return "unreachable";
    }
    return "unknown";
  }
  const syscall = (error as { syscall?: unknown }).syscall;
  if (syscall === "connect" || syscall === "getaddrinfo") {
    // Failed while connecting or resolving: the request never left.
    return code === "ETIMEDOUT" ? "connect-timeout" : "unreachable";
  }
  if (NOT_SENT_CODES.has(code)) return "unreachable";
  if (code === "UND_ERR_CONNECT_TIMEOUT") return "connect-timeout";
  if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") return "timeout";
  if (code === "UND_ERR_RES_EXCEEDED_MAX_SIZE") return "too-large";
  if (code === "UND_ERR_DESTROYED" || code === "UND_ERR_CLOSED") return "closed";
  if (code === "UND_ERR_INVALID_ARG" || code === "ERR_INVALID_ARG_VALUE" || code === "ERR_INVALID_CHAR") {
    return "invalid";
  }
  if (LOST_CODES.has(code) || code.startsWith("HPE_")) return "connection-lost";
  return "unknown";
}

/** Options of {@link Transport}. */
export interface TransportOptions {
  /** Send everything through this dispatcher (never closed by the transport). */
  dispatcher?: Dispatcher;
  connectTimeoutMs?: number;
  requestTimeoutMs?: number;
}

/** Sends single HTTP attempts over one keep-alive pool per origin. */
export class Transport {
  private readonly injected?: Dispatcher;
  private readonly pools = new Map<string, UndiciPool>();
  private readonly connectTimeoutMs: number;
  private readonly requestTimeoutMs: number;
  private closed = false;

  /** @param options - dispatcher and timeouts */
  constructor(options: TransportOptions = {}) {
    this.injected = options.dispatcher;
    this.connectTimeoutMs = positive(
      options.connectTimeoutMs,
      DEFAULT_CONNECT_TIMEOUT_MS,
      "connectTimeoutMs",
    );
    this.requestTimeoutMs = positive(
      options.requestTimeoutMs,
      DEFAULT_REQUEST_TIMEOUT_MS,
      "requestTimeoutMs",
    );
  }

  /** The dispatcher used for an origin: the injected one, or this origin's (reused) pool. */
  dispatcherFor(origin: string): Dispatcher {
    if (this.injected) return this.injected;
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new (poolClass())(origin, {
        connectTimeout: this.connectTimeoutMs,
        headersTimeout: this.requestTimeoutMs,
        bodyTimeout: this.requestTimeoutMs,
        maxResponseSize: MAX_RESPONSE_BYTES,
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  /**
   * Sends one attempt and reads the whole response (any status).
   *
   * @throws TransportFailure when no complete response arrived
   */
  async send(req: OutgoingRequest): Promise<IncomingResponse> {
    if (this.closed) throw new TransportFailure("closed", new Error("the client is closed"));
    try {
      return await collect(
        this.dispatcherFor(req.origin),
        {
          origin: req.origin,
          path: req.path,
          method: req.method,
          headers: req.headers,
          headersTimeout: this.requestTimeoutMs,
          bodyTimeout: this.requestTimeoutMs,
        },
        this.requestTimeoutMs,
      );
    } catch (error) {
      throw new TransportFailure(classifyTransportError(error), error);
    }
  }

  /** Closes the pools this transport created (never an injected dispatcher). Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.close()));
  }
}

/**
 * Sends one request through `dispatcher` and reads the whole response, with undici's handler
 * interface rather than `request()`: `request()` wraps every response body in a Node stream whose
 * bookkeeping outlives a young-generation collection, so over a long drain V8 grows its young
 * generation to the maximum (docs/benchmarks.md section 7 has the peak RSS of each). Rejects
 * with the undici error, a too-large body, or {@link DeadlineExceeded} after `deadlineMs` (the
 * request is aborted then).
 */
function collect(
  dispatcher: Dispatcher,
  opts: Dispatcher.DispatchOptions,
  deadlineMs: number,
): Promise<IncomingResponse> {
  return new Promise((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    let settled = false;
    let status = 0;
    let headers: IncomingResponse["headers"] = {};
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(error);
      controller?.abort(error instanceof Error ? error : new Error(String(error)));
    };
    const timer = setTimeout(() => fail(new DeadlineExceeded(deadlineMs)), deadlineMs);
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (settled) c.abort(new DeadlineExceeded(deadlineMs));
      },
      onResponseStart(_c, statusCode, h) {
        status = statusCode;
        headers = h;
      },
      onResponseData(_c, chunk) {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) {
          throw Object.assign(new Error("response body too large"), {
            code: "UND_ERR_RES_EXCEEDED_MAX_SIZE",
          });
        }
        chunks.push(chunk);
      },
      onResponseEnd() {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ status, headers, body: Buffer.concat(chunks).toString("utf8") });
      },
      onResponseError(_c, error) {
        fail(error);
      },
    };
    try {
      dispatcher.dispatch(opts, handler);
    } catch (error) {
      fail(error);
    }
  });
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new SvcError("SVC_INVALID_ARGUMENT", `\`${name}\` must be a positive number of milliseconds`);
  }
  return value;
}
