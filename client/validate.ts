/**
 * Validation of the service's JSON responses into typed values. Messages name the field, the
 * expected type and what came instead — except for secret fields, whose values are never
 * echoed.
 *
 * @packageDocumentation
 */
import { SvcError } from "./errors";
import { Redactor } from "./redact";
import { formatValue, typeName } from "./messageText";
import { ACCOUNT_FIELD_LIST, SECRET_ACCOUNT_FIELDS, type AccountFieldKind } from "./accountRecord";
import type { AccountRecord, ResumedRun, ResumePage } from "./types";

/** Operation named in account-record validation messages. */
export const ACCOUNT_OPERATION = "GET /v2/svc/user";
/** Operation named in resume-page validation messages. */
export const RESUME_OPERATION = "POST /v2/workflows/dlq/resume";

type Kind = AccountFieldKind;

/** Wire names of the fields whose values must never appear in a message. */
const SECRET_FIELDS: ReadonlySet<string> = new Set(SECRET_ACCOUNT_FIELDS);

function shown(value: unknown, secret: boolean): string {
  return formatValue(value, { withType: true, secret });
}

function kindText(kind: Kind): string {
  if (typeof kind === "object") return `one of ${kind.enum.map((e) => JSON.stringify(e)).join(", ")}`;
  return kind === "integer" ? "an integer" : `a ${kind}`;
}

function matches(value: unknown, kind: Kind): boolean {
  if (typeof kind === "object") return typeof value === "string" && kind.enum.includes(value);
  switch (kind) {
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    case "integer":
      return typeof value === "number" && Number.isSafeInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
  }
}

function problem(field: string, kind: Kind, value: unknown, secret = false): string {
  return `field \`${field}\` must be ${kindText(kind)}; got ${shown(value, secret)}`;
}

function malformed(what: string, problems: string[], redactor?: Redactor): SvcError {
  const [first, ...rest] = problems;
  const more = rest.length === 0 ? "" : ` (and ${rest.length} more: ${rest.join(" | ")})`;
  const message = `Malformed ${what}: ${first}${more}.`;
  return new SvcError("SVC_MALFORMED_RESPONSE", redactor ? redactor.scrub(message) : message);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Checks a parsed `GET /v2/svc/user` body against the spec's account record (the table of
 * `accountRecord.ts`). Every field is type-checked; unknown extra fields are tolerated and dropped
 * from the result.
 *
 * @throws SvcError `SVC_MALFORMED_RESPONSE`, e.g. "Malformed account record from
 * GET /v2/svc/user: field `max_retries` must be an integer; got "abc" (string)."
 */
export function validateAccountRecord(body: unknown): AccountRecord {
  const what = `account record from ${ACCOUNT_OPERATION}`;
  if (!isPlainObject(body)) {
    throw malformed(what, [`expected a JSON object; got ${typeName(body)}`]);
  }
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  for (const { wire, kind, secret } of ACCOUNT_FIELD_LIST) {
    const value = body[wire];
    if (matches(value, kind)) out[wire] = value;
    else problems.push(problem(wire, kind, value, secret === true));
  }
  if (problems.length > 0) {
    // The record's own secrets must not leak through another, malformed field either.
    const secrets = [...SECRET_FIELDS].map((f) => body[f]).filter((v): v is string => typeof v === "string");
    throw malformed(what, problems, new Redactor(secrets));
  }
  return out as unknown as AccountRecord;
}

/** How many own enumerable keys `o` has, without allocating an array of them. */
function ownKeys(o: object): number {
  let n = 0;
  for (const k in o) if (Object.prototype.hasOwnProperty.call(o, k)) n += 1;
  return n;
}

/**
 * Checks a parsed resume response. `workflowRuns` must be an array of
 * `{workflowRunId: string, workflowCreatedAt: integer}` (`null` or absent reads as empty);
 * `cursor` must be a string or absent, and `""` or `null` means done (`undefined`).
 *
 * @throws SvcError `SVC_MALFORMED_RESPONSE` naming the offending field
 */
export function validateResumePage(body: unknown): ResumePage {
  const what = `resume response from ${RESUME_OPERATION}`;
  if (!isPlainObject(body)) {
    throw malformed(what, [`expected a JSON object; got ${typeName(body)}`]);
  }
  const problems: string[] = [];
  const rawCursor = body.cursor;
  let cursor: string | undefined;
  if (typeof rawCursor === "string") cursor = rawCursor === "" ? undefined : rawCursor;
  else if (rawCursor !== undefined && rawCursor !== null) {
    problems.push(problem("cursor", "string", rawCursor));
  }
  const rawRuns = body.workflowRuns ?? [];
  const workflowRuns: ResumedRun[] = [];
  if (!Array.isArray(rawRuns)) {
    problems.push(`field \`workflowRuns\` must be an array; got ${shown(rawRuns, false)}`);
  } else {
    rawRuns.forEach((run: unknown, i) => {
      if (!isPlainObject(run)) {
        problems.push(`field \`workflowRuns[${i}]\` must be an object; got ${shown(run, false)}`);
        return;
      }
      const { workflowRunId, workflowCreatedAt } = run;
      let ok = true;
      if (typeof workflowRunId !== "string" || workflowRunId === "") {
        problems.push(
          `field \`workflowRuns[${i}].workflowRunId\` must be a non-empty string; got ${shown(workflowRunId, false)}`,
        );
        ok = false;
      }
      if (!matches(workflowCreatedAt, "integer")) {
        problems.push(problem(`workflowRuns[${i}].workflowCreatedAt`, "integer", workflowCreatedAt));
        ok = false;
      }
      if (!ok) return;
      // The parsed object itself when it has only these two fields (no copy a run: a drain reads
      // a million of them); a copy without the others when the service sent more.
      workflowRuns.push(
        ownKeys(run) === 2
          ? (run as unknown as ResumedRun)
          : { workflowRunId: workflowRunId as string, workflowCreatedAt: workflowCreatedAt as number },
      );
    });
  }
  if (problems.length > 0) throw malformed(what, problems);
  return { cursor, workflowRuns };
}
