/**
 * The override headers of a resume request: `Svc-Flow-Control-Key`, `Svc-Flow-Control-Value`
 * and `Svc-Retries`. An override that is not set produces no header at all, so the service
 * keeps the original run's setting. The grammar of every value is in `contract.ts`.
 *
 * @packageDocumentation
 */
import {
  flowControlProblems,
  isSet,
  retriesProblems,
  throwIfProblems,
  type FlowControlOverride,
  type ResumeOverrides,
} from "./contract";

/** Header carrying the flow-control key override. */
export const FLOW_CONTROL_KEY_HEADER = "Svc-Flow-Control-Key";
/** Header carrying the flow-control value override. */
export const FLOW_CONTROL_VALUE_HEADER = "Svc-Flow-Control-Value";
/** Header carrying the retries override. */
export const RETRIES_HEADER = "Svc-Retries";

/** `Svc-Flow-Control-Value` of a valid override, or `undefined` when it sets no part. */
function formatFlowControlValue(fc: FlowControlOverride): string | undefined {
  const parts: string[] = [];
  if (isSet(fc.parallelism)) parts.push(`parallelism=${fc.parallelism}`);
  if (isSet(fc.rate)) parts.push(`rate=${fc.rate}`);
  if (isSet(fc.period)) parts.push(`period=${typeof fc.period === "number" ? `${fc.period}s` : fc.period}`);
  return parts.length > 0 ? parts.join(", ") : undefined;
}

/**
 * Formats `Svc-Flow-Control-Value`: `"parallelism=5, rate=10, period=1s"` — the parts in that
 * order, joined by `", "`, only those that are set. A numeric period is seconds (`1` → `"1s"`);
 * a string period such as `"1m"` passes through.
 *
 * @returns the header value, or `undefined` when none of parallelism, rate and period is set
 * (a key-only override sends no value header)
 * @throws SvcError `SVC_INVALID_ARGUMENT` naming the field when a part is invalid, or when
 * `period` is set without `parallelism` or `rate`
 */
export function flowControlHeaderValue(fc: FlowControlOverride): string | undefined {
  throwIfProblems(flowControlProblems(fc).filter((p) => p.field !== "flowControl.key" && p.code !== "empty"));
  return formatFlowControlValue(fc);
}

/**
 * Builds the override headers of a resume request. Headers of unset overrides are absent.
 *
 * @throws SvcError `SVC_INVALID_ARGUMENT` naming every invalid field, also when a `flowControl`
 * override sets nothing
 */
export function overrideHeaders(o?: ResumeOverrides): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!isSet(o)) return headers;
  const overrides = o as ResumeOverrides;
  throwIfProblems([...flowControlProblems(overrides.flowControl), ...retriesProblems(overrides.retries)]);
  const fc = overrides.flowControl;
  if (fc !== undefined && fc !== null) {
    if (isSet(fc.key)) headers[FLOW_CONTROL_KEY_HEADER] = fc.key as string;
    const value = formatFlowControlValue(fc);
    if (value !== undefined) headers[FLOW_CONTROL_VALUE_HEADER] = value;
  }
  if (isSet(overrides.retries)) headers[RETRIES_HEADER] = String(overrides.retries);
  return headers;
}
