/**
 * Shared pieces of the dynamic providers: unknown values at preview, check failures
 * collected and reported together, and service errors turned into messages that say
 * what to do. Nothing here ever prints a credential.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { SvcError } from "../../client";
import type { Resolved } from "../connection";

/** The value the engine puts in place of an input that is unknown during preview. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** True for an input that is unknown during preview. */
export function isUnknown(v: unknown): boolean {
  return v === UNKNOWN;
}

/** True when the value or anything inside it is unknown. */
export function containsUnknown(v: unknown): boolean {
  if (isUnknown(v)) return true;
  if (Array.isArray(v)) return v.some(containsUnknown);
  if (v && typeof v === "object") return Object.values(v).some(containsUnknown);
  return false;
}

/** Shows a value in a message: strings quoted, objects as JSON, cut to 80 characters. */
export function show(v: unknown): string {
  let s: string;
  if (v === undefined) s = "undefined";
  else if (typeof v === "string") s = JSON.stringify(v);
  else {
    try {
      s = JSON.stringify(v) ?? String(v);
    } catch {
      s = String(v);
    }
  }
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** Collects check failures, so that every problem is reported at once. */
export class Failures {
  readonly list: pulumi.dynamic.CheckFailure[] = [];

  /** Adds a failure for `property`; `reason` names the field in backticks and the value. */
  add(property: string, reason: string): void {
    this.list.push({ property, reason });
  }

  /** The failures, or undefined when there are none. */
  result(): pulumi.dynamic.CheckFailure[] | undefined {
    return this.list.length > 0 ? this.list : undefined;
  }
}

/** Checks an optional URL input: http(s), no credentials, query or fragment. */
export function checkUrl(f: Failures, field: string, v: unknown): void {
  if (v === undefined || v === null || isUnknown(v)) return;
  if (typeof v !== "string" || v === "") {
    f.add(field, `\`${field}\` must be a URL such as "http://127.0.0.1:8080"; got ${show(v)}.`);
    return;
  }
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    f.add(field, `\`${field}\` must be a URL such as "http://127.0.0.1:8080"; got ${show(v)}.`);
    return;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    f.add(field, `\`${field}\` must use http or https; got ${show(v)}.`);
  } else if (u.username || u.password) {
    f.add(field, `\`${field}\` must not carry credentials; use the credential inputs or config instead.`);
  } else if (u.search || u.hash) {
    f.add(field, `\`${field}\` must not have a query or fragment; got ${show(v)}.`);
  }
}

/** Checks an optional string input (a credential's value is never shown). */
export function checkString(f: Failures, field: string, v: unknown, secret = false): void {
  if (v === undefined || v === null || isUnknown(v)) return;
  if (typeof v !== "string" || v.trim() === "") {
    const got = secret ? (v === "" ? "an empty string" : `a ${typeof v}`) : show(v);
    f.add(field, `\`${field}\` must be a non-empty string; got ${got}.`);
  }
}

/** Checks an optional boolean input. */
export function checkBoolean(f: Failures, field: string, v: unknown): void {
  if (v === undefined || v === null || isUnknown(v)) return;
  if (typeof v !== "boolean") f.add(field, `\`${field}\` must be true or false; got ${show(v)}.`);
}

/** Where each credential came from, for an "unauthorized" message. */
export function describeOrigins(resolved: Record<string, Resolved>): string {
  return Object.entries(resolved)
    .map(([name, r]) => `\`${name}\` from the ${r.origin}`)
    .join(", ");
}

/**
 * Turns a client error into a message that says what happened and what to check.
 * The client's errors never carry credentials; neither does this.
 */
export function explainServiceError(
  err: unknown,
  what: string,
  url: string,
  credentialOrigins: string,
): Error {
  const e = err as Partial<SvcError> & Error;
  let message: string;
  switch (e.code) {
    case "SVC_UNAUTHORIZED":
      message =
        `${what}: the service at ${url} rejected the credentials (HTTP ${e.status ?? 401}). ` +
        `They came from: ${credentialOrigins}. Check those values.`;
      break;
    case "SVC_UNREACHABLE":
      message = `${what}: cannot reach the service at ${url} (${e.message}). Is it running, and is the URL right?`;
      break;
    case "SVC_TIMEOUT":
      message = `${what}: the service at ${url} did not answer in time (${e.message}).`;
      break;
    case "SVC_MALFORMED_RESPONSE":
      message = `${what}: the service at ${url} sent a malformed answer: ${e.message}`;
      break;
    case undefined:
      message = `${what}: ${e.message ?? String(err)}`;
      break;
    default:
      message = `${what}: ${e.message} [${e.code}]`;
  }
  const out = new Error(message);
  (out as Error & { code?: string }).code = e.code;
  return out;
}
