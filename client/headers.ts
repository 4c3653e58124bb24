/**
 * The override headers of a resume request: `Svc-Flow-Control-Key`, `Svc-Flow-Control-Value`
 * and `Svc-Retries`. An override that is not set produces no header at all, so the service
 * keeps the original run's setting.
 *
 * @packageDocumentation
 */
import { SvcError } from "./errors";
import type { FlowControlOverride, ResumeOverrides } from "./types";

/** Header carrying the flow-control key override. */
export const FLOW_CONTROL_KEY_HEADER = "Svc-Flow-Control-Key";
/** Header carrying the flow-control value override. */
export const FLOW_CONTROL_VALUE_HEADER = "Svc-Flow-Control-Value";
/** Header carrying the retries override. */
export const RETRIES_HEADER = "Svc-Retries";

function invalid(message: string): SvcError {
  return new SvcError("SVC_INVALID_ARGUMENT", message);
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return String(value);
}

function positiveInteger(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw invalid(`\`${field}\` must be a positive integer; got ${describe(value)}`);
  }
  return value;
}

/**
 * Formats `Svc-Flow-Control-Value`: `"parallelism=5, rate=10, period=1s"` — the parts in that
 * order, joined by `", "`, only those that are set. A numeric period is seconds (`1` → `"1s"`);
 * a string period such as `"1m"` passes through.
 *
 * @returns the header value, or `undefined` when none of parallelism, rate and period is set
 * (a key-only override sends no value header)
 * @throws SvcError `SVC_INVALID_ARGUMENT` naming the field when a value is invalid, or when
 * `period` is set without `parallelism` or `rate`
 */
export function flowControlHeaderValue(fc: FlowControlOverride): string | undefined {
  const { parallelism, rate, period } = fc;
  if (parallelism === undefined && rate === undefined && period === undefined) return undefined;
  if (parallelism === undefined && rate === undefined) {
    throw invalid(
      "`flowControl.parallelism` or `flowControl.rate` must be set when `flowControl.period` is set",
    );
  }
  const parts: string[] = [];
  if (parallelism !== undefined) {
    parts.push(`parallelism=${positiveInteger(parallelism, "flowControl.parallelism")}`);
  }
  if (rate !== undefined) parts.push(`rate=${positiveInteger(rate, "flowControl.rate")}`);
  if (period !== undefined) {
    if (typeof period === "number") {
      parts.push(`period=${positiveInteger(period, "flowControl.period")}s`);
    } else if (
      typeof period === "string" &&
      /^[0-9]+[A-Za-z]*$/.test(period) &&
      !/^0+[A-Za-z]*$/.test(period)
    ) {
      parts.push(`period=${period}`);
    } else {
      throw invalid(
        '`flowControl.period` must be a positive number of seconds or a duration such as "1m"; ' +
          `got ${describe(period)}`,
      );
    }
  }
  return parts.join(", ");
}

/**
 * Builds the override headers of a resume request. Headers of unset overrides are absent.
 *
 * @throws SvcError `SVC_INVALID_ARGUMENT` naming the field when an override is invalid or a
 * `flowControl` override sets nothing
 */
export function overrideHeaders(o?: ResumeOverrides): Record<string, string> {
  const headers: Record<string, string> = {};
  if (o === undefined) return headers;
  if (o.flowControl !== undefined) {
    const fc = o.flowControl;
    if (fc === null || typeof fc !== "object") throw invalid("`flowControl` must be an object");
    if (fc.key !== undefined) {
      // Printable ASCII without leading/trailing space: anything else cannot travel in a header.
      if (typeof fc.key !== "string" || !/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(fc.key)) {
        throw invalid(
          `\`flowControl.key\` must be a non-empty printable ASCII string; got ${describe(fc.key)}`,
        );
      }
      headers[FLOW_CONTROL_KEY_HEADER] = fc.key;
    }
    const value = flowControlHeaderValue(fc);
    if (value !== undefined) headers[FLOW_CONTROL_VALUE_HEADER] = value;
    if (fc.key === undefined && value === undefined) {
      throw invalid(
        "`flowControl` override is empty: set `key`, `parallelism` or `rate` (or omit `flowControl`)",
      );
    }
  }
  if (o.retries !== undefined) {
    if (typeof o.retries !== "number" || !Number.isSafeInteger(o.retries) || o.retries < 0) {
      throw invalid(`\`retries\` must be a non-negative integer; got ${describe(o.retries)}`);
    }
    headers[RETRIES_HEADER] = String(o.retries);
  }
  return headers;
}
