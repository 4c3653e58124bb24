/**
 * The override headers of a resume request, validated strictly:
 *
 * - `Svc-Flow-Control-Key: <key>`: 1 to 256 characters, each visible ASCII U+0021..U+007E (no
 *   spaces, no control characters, nothing outside ASCII).
 * - `Svc-Flow-Control-Value: parallelism=5, rate=10, period=1s`: parts in that order, joined by
 *   ", ", only the set parts, at least one of parallelism/rate. parallelism and rate are
 *   integers 1..2,147,483,647 in decimal without sign or leading zeros; period matches
 *   `^[1-9][0-9]{0,8}[smhd]$` ("1s", "10s", "1m", "2h", "1d"; not "01s", "10ms", "1S").
 * - `Svc-Retries: <integer 0..2,147,483,647>`, decimal without sign or leading zeros.
 *
 * This is the emulator's own parser of the wire grammar (docs/reference.md, "Wire grammar"); it does not
 * share code with the client on purpose, so that it checks what the client sends.
 *
 * Also: how overrides combine with a DLQ entry's own settings into the effective settings.
 */
import type { IncomingMessage } from "node:http";
import type { DlqEntry } from "./dlq-entry";
import { PERIOD_PATTERN } from "./dlq-entry";
import { HttpError, show } from "./http";

/** Header names, lower-case as node:http delivers them. */
export const OVERRIDE_HEADERS = {
  flowControlKey: "svc-flow-control-key",
  flowControlValue: "svc-flow-control-value",
  retries: "svc-retries",
} as const;

/** Where the override headers are read from: a request, or anything with its `headersDistinct`. */
export type HeaderSource = Pick<IncomingMessage, "headersDistinct">;

/** A parsed `Svc-Flow-Control-Value`. */
export interface FlowControlValue {
  /** The header value as received. */
  readonly raw: string;
  /** `parallelism=` part, if present. */
  readonly parallelism?: number;
  /** `rate=` part, if present. */
  readonly rate?: number;
  /** `period=` part, if present, e.g. "1s". */
  readonly period?: string;
}

/** Overrides applied to a resume request; a key is present only when its header was sent. */
export interface Overrides {
  /** From `Svc-Flow-Control-Key`. */
  readonly flowControlKey?: string;
  /** From `Svc-Flow-Control-Value`. */
  readonly flowControlValue?: FlowControlValue;
  /** From `Svc-Retries`. */
  readonly retries?: number;
}

/** The settings a resumed run runs with. */
export interface EffectiveSettings {
  /** Flow-control key (override, else the entry's). */
  readonly flowControlKey: string | null;
  /** Parallelism (from the override value when one was sent, else the entry's). */
  readonly parallelism: number | null;
  /** Rate (from the override value when one was sent, else the entry's). */
  readonly rate: number | null;
  /** Period (from the override value when one was sent, else the entry's). */
  readonly period: string | null;
  /** Retries (override, else the entry's maxRetries); total deliveries are 1 + retries. */
  readonly retries: number;
}

/** Largest accepted `Svc-Retries`, parallelism and rate: 2^31 - 1. */
export const MAX_HEADER_INTEGER = 2_147_483_647;
/** Visible ASCII without spaces, 1..256 characters. */
const KEY_PATTERN = /^[\x21-\x7e]{1,256}$/;
/** Positive decimal integer without sign or leading zeros (range checked separately). */
const POSITIVE_INTEGER = /^[1-9][0-9]{0,9}$/;
/** Non-negative decimal integer without sign or leading zeros (range checked separately). */
const NON_NEGATIVE_INTEGER = /^(?:0|[1-9][0-9]{0,9})$/;
/** Order in which flow-control parts must appear. */
const PART_ORDER = ["parallelism", "rate", "period"] as const;

/**
 * Read and validate the override headers of a request.
 *
 * @param req - the request (or an object with its lower-case `headersDistinct`).
 * @returns the overrides that were sent.
 * @throws HttpError 400 naming the header and the value.
 */
export function parseOverrides(req: HeaderSource): Overrides {
  const key = singleHeader(req, OVERRIDE_HEADERS.flowControlKey, "Svc-Flow-Control-Key");
  const value = singleHeader(req, OVERRIDE_HEADERS.flowControlValue, "Svc-Flow-Control-Value");
  const retries = singleHeader(req, OVERRIDE_HEADERS.retries, "Svc-Retries");
  const overrides: { -readonly [K in keyof Overrides]: Overrides[K] } = {};
  if (key !== undefined) {
    if (!KEY_PATTERN.test(key)) {
      throw new HttpError(
        400,
        `Svc-Flow-Control-Key must be 1 to 256 visible ASCII characters without spaces, got ${show(key)}`,
      );
    }
    overrides.flowControlKey = key;
  }
  if (value !== undefined) overrides.flowControlValue = parseFlowControlValue(value);
  if (retries !== undefined) {
    if (!NON_NEGATIVE_INTEGER.test(retries) || Number(retries) > MAX_HEADER_INTEGER) {
      throw new HttpError(
        400,
        `Svc-Retries must be a non-negative integer up to ${MAX_HEADER_INTEGER} ` +
          `(decimal, no sign or leading zeros), got ${show(retries)}`,
      );
    }
    overrides.retries = Number(retries);
  }
  return overrides;
}

/**
 * Parse a `Svc-Flow-Control-Value` header value.
 *
 * @param raw - e.g. "parallelism=5, rate=10, period=1s".
 * @throws HttpError 400 naming the header, the value and the offending part.
 */
export function parseFlowControlValue(raw: string): FlowControlValue {
  const fail = (why: string): HttpError =>
    new HttpError(
      400,
      `Svc-Flow-Control-Value ${show(raw)} is invalid: ${why} ` +
        `(expected e.g. "parallelism=5, rate=10, period=1s": parts in that order, joined by ", ")`,
    );
  const result: { -readonly [K in keyof FlowControlValue]: FlowControlValue[K] } = { raw };
  let lastPart = -1;
  for (const part of raw.split(", ")) {
    const match = /^([a-z]+)=(.*)$/.exec(part);
    if (match === null) throw fail(`part ${show(part)} is not name=value`);
    const [, name, text] = match;
    const position = (PART_ORDER as readonly string[]).indexOf(name);
    if (position < 0) throw fail(`unknown part ${show(name)}; known: parallelism, rate, period`);
    if (position <= lastPart) throw fail(`part ${show(name)} is repeated or out of order`);
    lastPart = position;
    if (name === "period") {
      if (!PERIOD_PATTERN.test(text)) {
        throw fail(
          `period must look like "1s", "10s" or "1m" (1 to 999999999 followed by s, m, h or d), got ${show(text)}`,
        );
      }
      result.period = text;
    } else {
      if (!POSITIVE_INTEGER.test(text) || Number(text) > MAX_HEADER_INTEGER) {
        throw fail(
          `${name} must be a positive integer, got ${show(text)} ` +
            `(1 to ${MAX_HEADER_INTEGER}, decimal, no sign or leading zeros)`,
        );
      }
      if (name === "parallelism") result.parallelism = Number(text);
      else result.rate = Number(text);
    }
  }
  if (result.parallelism === undefined && result.rate === undefined) {
    throw fail("at least one of parallelism or rate must be set");
  }
  return result;
}

/**
 * Combine an entry's settings with the overrides. A flow-control value override replaces the
 * whole value (parts it leaves out become unset); without one, the entry's value is kept.
 *
 * @param entry - the DLQ entry being resumed.
 * @param overrides - the request's overrides.
 */
export function effectiveSettings(entry: DlqEntry, overrides: Overrides): EffectiveSettings {
  const value = overrides.flowControlValue;
  return {
    flowControlKey: overrides.flowControlKey ?? entry.flowControlKey ?? null,
    parallelism: value !== undefined ? (value.parallelism ?? null) : (entry.parallelism ?? null),
    rate: value !== undefined ? (value.rate ?? null) : (entry.rate ?? null),
    period: value !== undefined ? (value.period ?? null) : (entry.period ?? null),
    retries: overrides.retries ?? entry.maxRetries,
  };
}

/**
 * The raw override headers of a request, for the request log (only those that were sent).
 *
 * @param req - the request.
 */
export function rawOverrideHeaders(req: HeaderSource): Record<string, string> {
  const raw: Record<string, string> = {};
  for (const name of Object.values(OVERRIDE_HEADERS)) {
    const values = req.headersDistinct[name];
    if (values !== undefined) raw[name] = values.join(", ");
  }
  return raw;
}

/**
 * The value of a header that may appear at most once.
 *
 * @param req - the request.
 * @param name - lower-case header name.
 * @param display - header name for messages.
 */
function singleHeader(req: HeaderSource, name: string, display: string): string | undefined {
  const values = req.headersDistinct[name];
  if (values === undefined) return undefined;
  if (values.length !== 1)
    throw new HttpError(400, `${display} must be sent once, got ${values.length} values`);
  return values[0];
}
