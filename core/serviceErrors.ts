/**
 * Service errors explained for the components, their providers and the policy pack: what was
 * being done, what happened, what to check, and the next step of a failed drain. Nothing here
 * ever prints a credential.
 *
 * @packageDocumentation
 */
import { SvcError, utcTime, type SvcErrorCode } from "../client/errors";
import type { Resolved } from "./connection";

/** Where each credential came from, for an "unauthorized" message. */
export function describeOrigins(resolved: Record<string, Resolved>): string {
  return Object.entries(resolved)
    .map(([name, r]) => `\`${name}\` from the ${r.origin}`)
    .join(", ");
}

/**
 * A failed call to the service, explained: what was being done, what happened and what to
 * check. The original error is the `cause`; like it, the message never carries a credential.
 */
export class ServiceError extends Error {
  /** The client's stable code (`SVC_UNAUTHORIZED`, ...), when the cause was an `SvcError`. */
  readonly code?: SvcErrorCode;
  /** What was being done, e.g. "Account" or "DlqRecovery `incident-42`". */
  readonly what: string;
  /** The explanation, without the leading "what: ". */
  readonly detail: string;

  /**
   * @param what - what was being done
   * @param detail - what happened and what to check
   * @param code - the client's code, if any
   * @param cause - the original error
   */
  constructor(what: string, detail: string, code: SvcErrorCode | undefined, cause: unknown) {
    super(`${what}: ${detail}`, { cause });
    this.name = "ServiceError";
    this.what = what;
    this.detail = detail;
    if (code !== undefined) this.code = code;
  }
}

/**
 * Turns a client error into a {@link ServiceError} that says what happened and what to check.
 *
 * @param err - what the client threw
 * @param what - what was being done, the message's prefix
 * @param url - the service URL, for the message
 * @param credentialOrigins - where the credentials came from ({@link describeOrigins})
 */
export function explainServiceError(
  err: unknown,
  what: string,
  url: string,
  credentialOrigins: string,
): ServiceError {
  if (!(err instanceof SvcError)) {
    return new ServiceError(what, err instanceof Error ? err.message : String(err), undefined, err);
  }
  let detail: string;
  switch (err.code) {
    case "SVC_UNAUTHORIZED":
      detail =
        `the service at ${url} rejected the credentials (HTTP ${err.status ?? 401}). ` +
        `They came from: ${credentialOrigins}. Check those values.`;
      break;
    case "SVC_UNREACHABLE":
      detail = `cannot reach the service at ${url} (${unreachableReason(err)}). Is it running, and is the URL right?`;
      break;
    case "SVC_TIMEOUT":
      detail = `the service at ${url} did not answer in time (${err.message}).`;
      break;
    case "SVC_MALFORMED_RESPONSE":
      detail = `the service at ${url} sent a malformed answer: ${err.message}`;
      break;
    default:
      detail = `${err.message} [${err.code}]`;
  }
  return new ServiceError(what, detail, err.code, err);
}

/**
 * Why a connection failed, in one phrase: the socket's own error (`connect ECONNREFUSED …`) and the
 * attempts made, without the request's label and retry budget the client's message wraps it in.
 */
function unreachableReason(err: SvcError): string {
  const cause = err.cause instanceof Error && err.cause.message !== "" ? err.cause.message : err.message;
  return err.attempts !== undefined && err.attempts > 1 ? `${cause}; ${err.attempts} attempts` : cause;
}

/** What the user must fix first, per code: `pulumi up` run again as it is would fail the same way. */
const FIX_FIRST: Partial<Record<SvcErrorCode, string>> = {
  SVC_UNAUTHORIZED: "Fix the credentials named above",
  SVC_NOT_FOUND: "Check the URL and the selection named above",
  SVC_BAD_REQUEST: "Fix the input the service refused (above)",
  SVC_INVALID_ARGUMENT: "Fix the input named above",
  SVC_INSECURE_TRANSPORT: "Use https, or set `allowInsecureHttp: true`",
  SVC_MISSING_CREDENTIALS: "Configure the setting named above",
};

/**
 * The last sentence of a failed drain's message: "Run `pulumi up` again to continue where it
 * stopped." only where running it again can help (a rate limit, a server error, a lost
 * connection); after a spent daily limit, to run it after the reset, with its time (an earlier
 * run only gets refused requests); after a refusal (401, 403, 404, 400, a refused input) what to
 * fix first.
 *
 * @param code - the client's error code, when known
 * @param resetAt - `SVC_DAILY_LIMIT`: when the daily limit resets, unix ms
 */
export function nextStep(code: SvcErrorCode | undefined, resetAt?: number): string {
  if (code === "SVC_DAILY_LIMIT") {
    const when = resetAt === undefined ? "the reset named above" : `the reset at ${utcTime(resetAt)}`;
    return (
      `Run \`pulumi up\` after ${when} to continue where it stopped; ` +
      "before that, the service refuses every request it sends."
    );
  }
  const fix = code === undefined ? undefined : FIX_FIRST[code];
  if (fix === undefined) return "Run `pulumi up` again to continue where it stopped.";
  return `${fix}; running \`pulumi up\` again before that fails the same way. Then \`pulumi up\` continues where it stopped.`;
}
