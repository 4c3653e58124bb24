/**
 * The text of messages, for the client, the components and the policy pack alike: the one
 * formatter of values ({@link formatValue}; the emulator keeps its own: it is independent code)
 * and clauses joined into sentences ({@link sentences}).
 *
 * @packageDocumentation
 */
import { REDACTED } from "./redact";

/** Options of {@link formatValue}. */
export interface FormatValueOptions {
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
export function formatValue(value: unknown, options: FormatValueOptions = {}): string {
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
