/**
 * Parsing and validation of the fields of a resume request.
 *
 * Fields travel in the query string (`?dlqIds=a&dlqIds=b&fromDate=…`), as the official client
 * sends them; a JSON object body with the same fields is accepted too (`dlqIds` as an array). A
 * field may not appear in both places. Every problem is a 400 naming the field and the value.
 *
 * The grammar (docs/reference.md, "Wire grammar"), checked here independently of the client:
 * - `dlqIds`: 1 to 50 values, each a non-empty string without leading or trailing whitespace and
 *   without control characters (U+0000..U+001F, U+007F). Repeats are accepted and resumed once
 *   (the emulator de-duplicates, keeping the first occurrence; the client refuses repeats before
 *   sending, so a repeat reaches the emulator only from another client).
 * - `fromDate`, `toDate`, `workflowCreatedAt`: integers 0..Number.MAX_SAFE_INTEGER (unix ms);
 *   `fromDate <= toDate`.
 * - `workflowUrl`, `workflowRunId`: non-empty strings without leading or trailing whitespace and
 *   without control characters; non-ASCII is allowed.
 * - `cursor`: a string ("" counts as none); `count`: 1..50.
 */
import type { EntryFilter } from "./dlq";
import { HttpError, show } from "./http";

/** Most runs resumed by one request, and the largest accepted `count` / number of `dlqIds`. */
export const MAX_RUNS_PER_REQUEST = 50;

/** A validated resume request. */
export interface ResumeRequest {
  /** Distinct DLQ IDs in request order; when set, filters, cursor and count are ignored. */
  readonly dlqIds?: readonly string[];
  /** Filters (only the set ones). */
  readonly filter: EntryFilter;
  /** Cursor from a previous response (an empty cursor counts as none). */
  readonly cursor?: string;
  /** Most runs to resume, 1..50 (default 50). */
  readonly count: number;
}

/** Names of the integer fields. */
const INTEGER_FIELDS = ["fromDate", "toDate", "workflowCreatedAt", "count"] as const;
/** Names of the string fields (besides dlqIds). */
const STRING_FIELDS = ["workflowUrl", "workflowRunId", "cursor"] as const;
/** All request fields. */
const FIELDS = new Set<string>(["dlqIds", ...INTEGER_FIELDS, ...STRING_FIELDS]);

/** Field values gathered from query and body before type-specific checks. */
type RawFields = Map<string, { readonly values: readonly unknown[]; readonly from: "query" | "body" }>;

/**
 * Validate a resume request.
 *
 * @param query - the query string of the request.
 * @param body - the parsed JSON body, or `undefined` when there was none.
 * @returns the validated request.
 * @throws HttpError 400 naming the field and the value.
 */
export function parseResumeRequest(query: URLSearchParams, body: unknown): ResumeRequest {
  const raw: RawFields = new Map();
  for (const key of new Set(query.keys())) {
    if (!FIELDS.has(key)) throw unknownField(key, "query parameter");
    raw.set(key, { values: query.getAll(key), from: "query" });
  }
  if (body !== undefined) {
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new HttpError(400, `request body must be a JSON object of resume fields, got ${show(body)}`);
    }
    for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
      if (!FIELDS.has(key)) throw unknownField(key, "body field");
      if (raw.has(key)) throw new HttpError(400, `${key} is given both in the query string and in the body`);
      if (value === null || value === undefined) continue;
      raw.set(key, { values: key === "dlqIds" ? dlqIdsFromBody(value) : [value], from: "body" });
    }
  }

  const integers: Partial<Record<(typeof INTEGER_FIELDS)[number], number>> = {};
  for (const field of INTEGER_FIELDS) {
    const value = single(raw, field);
    if (value !== undefined) integers[field] = integerField(field, value);
  }
  const strings: Partial<Record<(typeof STRING_FIELDS)[number], string>> = {};
  for (const field of STRING_FIELDS) {
    const value = single(raw, field);
    if (value === undefined) continue;
    if (typeof value !== "string") throw new HttpError(400, `${field} must be a string, got ${show(value)}`);
    if (field !== "cursor") checkText(field, value);
    strings[field] = value;
  }

  const count = integers.count ?? MAX_RUNS_PER_REQUEST;
  if (count < 1 || count > MAX_RUNS_PER_REQUEST) {
    throw new HttpError(400, `count must be between 1 and ${MAX_RUNS_PER_REQUEST}, got ${count}`);
  }
  if (
    integers.fromDate !== undefined &&
    integers.toDate !== undefined &&
    integers.fromDate > integers.toDate
  ) {
    throw new HttpError(400, `fromDate ${integers.fromDate} is after toDate ${integers.toDate}`);
  }

  const filter: { -readonly [K in keyof EntryFilter]: EntryFilter[K] } = {};
  if (integers.fromDate !== undefined) filter.fromDate = integers.fromDate;
  if (integers.toDate !== undefined) filter.toDate = integers.toDate;
  if (strings.workflowUrl !== undefined) filter.workflowUrl = strings.workflowUrl;
  if (strings.workflowRunId !== undefined) filter.workflowRunId = strings.workflowRunId;
  if (integers.workflowCreatedAt !== undefined) filter.workflowCreatedAt = integers.workflowCreatedAt;

  const request: { -readonly [K in keyof ResumeRequest]: ResumeRequest[K] } = { filter, count };
  if (strings.cursor !== undefined && strings.cursor !== "") request.cursor = strings.cursor;
  const dlqIds = raw.get("dlqIds");
  if (dlqIds !== undefined) request.dlqIds = validateDlqIds(dlqIds.values);
  return request;
}

/**
 * 400 for a field the endpoint does not know.
 *
 * @param key - the field name.
 * @param kind - "query parameter" or "body field".
 */
function unknownField(key: string, kind: string): HttpError {
  return new HttpError(400, `unknown ${kind} ${show(key)}; known fields: ${[...FIELDS].join(", ")}`);
}

/**
 * The one value of a non-repeatable field.
 *
 * @param raw - gathered fields.
 * @param field - field name.
 */
function single(raw: RawFields, field: string): unknown {
  const entry = raw.get(field);
  if (entry === undefined) return undefined;
  if (entry.values.length !== 1) {
    throw new HttpError(
      400,
      `${field} must be given once, got ${entry.values.length} values ${show(entry.values)}`,
    );
  }
  return entry.values[0];
}

/**
 * A non-negative safe integer from a query string value, JSON number or digit string.
 *
 * @param field - field name for the error message.
 * @param value - the value.
 */
function integerField(field: string, value: unknown): number {
  const parsed =
    typeof value === "number"
      ? value
      : typeof value === "string" && /^[0-9]+$/.test(value)
        ? Number(value)
        : NaN;
  if (!Number.isSafeInteger(parsed) || parsed < 0) {
    throw new HttpError(400, `${field} must be a non-negative integer, got ${show(value)}`);
  }
  return parsed;
}

/**
 * The dlqIds of a JSON body: an array (a single string is accepted as a one-element array).
 *
 * @param value - the body's dlqIds value.
 */
function dlqIdsFromBody(value: unknown): unknown[] {
  if (typeof value === "string") return [value];
  if (!Array.isArray(value))
    throw new HttpError(400, `dlqIds must be an array of strings, got ${show(value)}`);
  if (value.length === 0) {
    throw new HttpError(400, "dlqIds is an empty array; omit dlqIds to select runs by filters");
  }
  return value;
}

/**
 * Check each DLQ ID and drop repeats (keeping the first occurrence, in request order).
 *
 * @param values - the raw values.
 */
function validateDlqIds(values: readonly unknown[]): string[] {
  if (values.length > MAX_RUNS_PER_REQUEST) {
    throw new HttpError(
      400,
      `dlqIds has ${values.length} values; at most ${MAX_RUNS_PER_REQUEST} per request`,
    );
  }
  values.forEach((value, i) => {
    if (typeof value !== "string")
      throw new HttpError(400, `dlqIds[${i}] must be a string, got ${show(value)}`);
    if (value.trim() === "") throw new HttpError(400, `dlqIds[${i}] is empty (${show(value)})`);
    checkText(`dlqIds[${i}]`, value);
    const first = values.indexOf(value);
    if (first !== i) throw new HttpError(400, `dlqIds[${i}] repeats dlqIds[${first}] (${show(value)})`);
  });
  return values as string[];
}

/**
 * Check a text field: not empty, no leading or trailing whitespace, no control characters.
 *
 * @param field - field name for the message, e.g. "workflowUrl" or "dlqIds[2]".
 * @param value - the value.
 * @throws HttpError 400 naming the field and the value.
 */
function checkText(field: string, value: string): void {
  if (value === "") throw new HttpError(400, `${field} must not be empty, got ""`);
  if (value.trim() !== value) {
    throw new HttpError(400, `${field} must not have leading or trailing whitespace, got ${show(value)}`);
  }
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code <= 0x1f || code === 0x7f) {
      const hex = code.toString(16).toUpperCase().padStart(4, "0");
      throw new HttpError(400, `${field} must not contain control characters (U+${hex}), got ${show(value)}`);
    }
  }
}
