/**
 * The grammar of a `Workflow`'s `delay` (the `Svc-Delay` header an application sends): a whole
 * number of seconds, or a string of digits followed by one unit, `s` (seconds), `m` (minutes),
 * `h` (hours) or `d` (days), such as `"10m"`; and durations written for messages. Shared by
 * `Workflow` and the policy pack. The units are the service's ({@link DURATION_UNITS}, in the
 * client's wire contract, which also holds the stricter grammar of `flowControl.period`).
 *
 * @packageDocumentation
 */
import { DURATION_UNITS } from "../client/contract";

/** The form a duration string must have: digits and one unit. */
const DURATION_PATTERN = /^([0-9]+)([smhd])$/;

/**
 * Parses a duration into whole seconds.
 *
 * @param value - a non-negative whole number of seconds, or a string such as `"600s"`, `"10m"`,
 * `"2h"` or `"7d"`
 * @returns the seconds, or `undefined` when `value` is neither (a negative or fractional number,
 * a string without a unit, an unknown unit, a value beyond `Number.MAX_SAFE_INTEGER` seconds)
 */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === "number") {
    return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  }
  if (typeof value !== "string") return undefined;
  const match = DURATION_PATTERN.exec(value);
  if (match === null) return undefined;
  const seconds = Number(match[1]) * DURATION_UNITS[match[2] as keyof typeof DURATION_UNITS];
  return Number.isSafeInteger(seconds) ? seconds : undefined;
}

/**
 * Writes seconds in the largest unit that divides them exactly, for messages: `600` → `"10m"`,
 * `1209600` → `"14d"`, `90` → `"90s"`, `0` → `"0s"`.
 *
 * @param seconds - a non-negative whole number of seconds
 */
export function formatDuration(seconds: number): string {
  if (!Number.isSafeInteger(seconds) || seconds <= 0) return `${seconds}s`;
  for (const unit of ["d", "h", "m"] as const) {
    if (seconds % DURATION_UNITS[unit] === 0) return `${seconds / DURATION_UNITS[unit]}${unit}`;
  }
  return `${seconds}s`;
}
