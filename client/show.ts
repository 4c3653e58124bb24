/**
 * The one formatter of values in messages, for the client and the components alike (the
 * emulator keeps its own: it is independent code).
 *
 * @packageDocumentation
 */
import { REDACTED } from "./redact";

/** Options of {@link show}. */
export interface ShowOptions {
  /** Append the JSON type, e.g. `"abc" (string)`; an absent value reads "nothing (field missing)". */
  withType?: boolean;
  /** The value is a secret: show only its type, never the value. */
  secret?: boolean;
  /** Longest text shown; longer text is cut and ends with `...`. Default 80. */
  maxLength?: number;
}

/** The JSON-ish type name of a value, for messages: `null`, `array`, `string`, `number`, ... */
export function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/**
 * Shows a value in a message: strings quoted (control characters escaped), numbers as written
 * (`NaN`, `-1`, `1.5`), objects as JSON, cut to 80 characters.
 *
 * @param value - the value
 * @param options - type suffix, secrecy, length
 */
export function show(value: unknown, options: ShowOptions = {}): string {
  const { withType = false, secret = false, maxLength = 80 } = options;
  if (value === undefined) return withType ? "nothing (field missing)" : "undefined";
  let text: string;
  if (secret) text = REDACTED;
  else if (typeof value === "string") text = JSON.stringify(value);
  else if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") {
    text = String(value);
  } else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  if (text.length > maxLength) text = `${text.slice(0, maxLength - 3)}...`;
  return withType ? `${text} (${typeName(value)})` : text;
}
