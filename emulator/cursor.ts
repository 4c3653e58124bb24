/**
 * Resume cursors: an opaque string meaning "continue after sequence S of epoch E, for filter F".
 *
 * The filter hash makes a cursor unusable with a different filter (400), the epoch makes it
 * unusable after an admin reset (400). Because the cursor names a position rather than an offset,
 * entries added or removed between pages are neither skipped nor resumed twice.
 */
import { createHash } from "node:crypto";
import type { EntryFilter } from "./dlq";
import { HttpError, show } from "./http";

/** What a cursor encodes. */
export interface CursorPosition {
  /** Store epoch the cursor was issued in. */
  readonly epoch: number;
  /** Continue with entries whose sequence number is greater than this. */
  readonly afterSeq: number;
  /** {@link filterHash} of the filter the cursor was issued for. */
  readonly filter: string;
}

/** Version tag inside every cursor. */
const CURSOR_VERSION = 1;

/**
 * A short, stable hash of a filter (field order does not matter; unset fields are ignored).
 *
 * @param filter - the filters of the request.
 */
export function filterHash(filter: EntryFilter): string {
  const canonical = JSON.stringify([
    filter.fromDate ?? null,
    filter.toDate ?? null,
    filter.workflowUrl ?? null,
    filter.workflowRunId ?? null,
    filter.workflowCreatedAt ?? null,
  ]);
  return createHash("sha256").update(canonical).digest("base64url").slice(0, 16);
}

/**
 * Encode a cursor.
 *
 * @param position - what the cursor means.
 * @returns a non-empty opaque string.
 */
export function encodeCursor(position: CursorPosition): string {
  const payload = JSON.stringify([CURSOR_VERSION, position.epoch, position.afterSeq, position.filter]);
  return Buffer.from(payload, "utf8").toString("base64url");
}

/**
 * Decode and check a cursor received in a request.
 *
 * @param raw - the `cursor` request field.
 * @param epoch - the store's current epoch.
 * @param filter - hash of the request's filter.
 * @returns the sequence number to continue after.
 * @throws HttpError 400 naming the cursor when it is malformed, from another epoch, or was
 *   issued for a different filter.
 */
export function decodeCursor(raw: string, epoch: number, filter: string): number {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    decoded = undefined;
  }
  if (
    !/^[A-Za-z0-9_-]+$/.test(raw) ||
    !Array.isArray(decoded) ||
    decoded.length !== 4 ||
    decoded[0] !== CURSOR_VERSION ||
    !Number.isSafeInteger(decoded[1]) ||
    !Number.isSafeInteger(decoded[2]) ||
    (decoded[2] as number) < 0 ||
    typeof decoded[3] !== "string"
  ) {
    throw new HttpError(400, `cursor ${show(raw)} is not a cursor issued by this service`);
  }
  if (decoded[1] !== epoch) {
    throw new HttpError(
      400,
      `cursor ${show(raw)} was issued before the DLQ was reset; start without a cursor`,
    );
  }
  if (decoded[3] !== filter) {
    throw new HttpError(
      400,
      `cursor ${show(raw)} was issued for different filters (fromDate, toDate, workflowUrl, workflowRunId, ` +
        `workflowCreatedAt); repeat the filters of the request that returned it`,
    );
  }
  return decoded[2] as number;
}
