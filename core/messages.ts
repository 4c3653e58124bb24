/**
 * Messages of the components, their providers and the policy pack, in one neutral module:
 * the value formatter, check failures collected and reported together, the checks of plain
 * inputs, and service errors explained in words that say what to do. Nothing here ever prints a
 * credential.
 *
 * @packageDocumentation
 */
import type * as pulumi from "@pulumi/pulumi";
// The client's leaf modules, not its index: the policy pack loads these without the HTTP stack.
import { isSet, type Problem } from "../client/contract";
import { SvcError, utcTime, type SvcErrorCode } from "../client/errors";
import { show } from "../client/show";
import { parseCredentialUrl } from "../client/transport";
import { SETTINGS, type Resolved, type SettingName } from "./connection";
import { isUnknown } from "./unknownValue";

export { show };

/** Collects check failures, so that every problem is reported at once. */
export class Failures {
  readonly list: pulumi.dynamic.CheckFailure[] = [];

  /** Adds a failure for `property`; `reason` names the field in backticks and the value. */
  add(property: string, reason: string): void {
    this.list.push({ property, reason });
  }

  /**
   * Adds a failure of a connection setting (`baseUrl`, `token`, ...): on its property when the
   * resource's input holds it, else on the resource as a whole. The engine prints a property
   * failure with the input's value, which for a setting taken from the stack config or the
   * environment (or set nowhere) reads "property baseUrl value {<nil>} has a problem".
   *
   * @param setting - the setting's input name
   * @param input - the resource's input for it
   * @param reason - the message, naming the setting and where to set it
   */
  addForSetting(setting: string, input: unknown, reason: string): void {
    this.add(isSet(input) ? setting : "", reason);
  }

  /** Adds a failure per problem of the wire contract (`client/contract.ts`). */
  addProblems(problems: readonly Problem[]): void {
    for (const p of problems) this.add(p.field, p.message);
  }

  /** The failures, or undefined when there are none. */
  result(): pulumi.dynamic.CheckFailure[] | undefined {
    return this.list.length > 0 ? this.list : undefined;
  }
}

/** True for an input that is not set or not known yet: the checks below skip it. */
function skipped(v: unknown): boolean {
  return !isSet(v) || isUnknown(v);
}

/**
 * Checks an optional URL input a credential is sent to: the rule of `parseCredentialUrl`
 * (`client/transport.ts`), which never echoes a URL that may carry a credential.
 */
export function checkUrl(f: Failures, field: string, v: unknown): void {
  if (skipped(v)) return;
  if (typeof v !== "string" || v === "") {
    f.add(
      field,
      `\`${field}\` must be a URL such as "http://127.0.0.1:8080"; got ${show(v)}.${otherSources(field)}`,
    );
    return;
  }
  const checked = parseCredentialUrl(v, field);
  if (typeof checked === "string") f.add(field, checked);
}

/** Checks an optional string input (a credential's value is never shown). */
export function checkString(f: Failures, field: string, v: unknown, secret = false): void {
  if (skipped(v)) return;
  if (typeof v !== "string" || v.trim() === "") {
    const got = secret ? (v === "" ? "an empty string" : `a ${typeof v}`) : show(v);
    f.add(field, `\`${field}\` must be a non-empty string; got ${got}.${otherSources(field)}`);
  }
}

/**
 * For an input that is a connection setting: " Or leave `token` unset to take the stack config
 * `svc:token` or the environment variable `SVC_TOKEN`." (an empty input is refused, not taken as unset).
 */
function otherSources(field: string): string {
  if (!(field in SETTINGS)) return "";
  const s = SETTINGS[field as SettingName];
  return ` Or leave \`${field}\` unset to take the stack config \`${s.config}\` or the environment variable \`${s.env}\`.`;
}

/** Checks an optional boolean input. */
export function checkBoolean(f: Failures, field: string, v: unknown): void {
  if (skipped(v)) return;
  if (typeof v !== "boolean") f.add(field, `\`${field}\` must be true or false; got ${show(v)}.`);
}

/**
 * Checks an optional integer input within a range.
 *
 * @param min - smallest allowed value
 * @param max - largest allowed value; default `Number.MAX_SAFE_INTEGER` (no upper bound named)
 */
export function checkInteger(
  f: Failures,
  field: string,
  v: unknown,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): void {
  if (skipped(v)) return;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min || v > max) {
    const range =
      max === Number.MAX_SAFE_INTEGER ? `an integer ≥ ${min}` : `an integer from ${min} to ${max}`;
    f.add(field, `\`${field}\` must be ${range}; got ${show(v)}.`);
  }
}

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
      detail = `cannot reach the service at ${url} (${err.message}). Is it running, and is the URL right?`;
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

/**
 * Joins clauses into one text of sentences: each part ends with its own full stop, question
 * mark or exclamation mark, or gets a full stop; each part after the first starts with a
 * capital. So "… Is it running, and is the URL right?" and "there is no Account resource"
 * read as two sentences, not as "right?, and there is".
 *
 * @param parts - clauses or sentences, the first as it should start (e.g. lower case in a list)
 */
export function sentences(...parts: readonly string[]): string {
  return parts
    .map((p) => p.trim())
    .filter((p) => p !== "")
    .map((p, i) => {
      const ended = /[.?!]$/.test(p) ? p : `${p}.`;
      return i === 0 ? ended : ended.charAt(0).toUpperCase() + ended.slice(1);
    })
    .join(" ");
}
