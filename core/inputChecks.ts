/**
 * The checks of plain inputs (URL, string, boolean, integer), and the failures they collect, so
 * that every problem of a resource's inputs is reported at once, each naming the field and the
 * value. A credential's value is never shown.
 *
 * @packageDocumentation
 */
import type * as pulumi from "@pulumi/pulumi";
// The client's leaf modules, not its index: the policy pack loads these without the HTTP stack.
import { isSet, type Problem } from "../client/contract";
import { formatValue } from "../client/messageText";
import { parseCredentialUrl } from "../client/transport";
import { SETTINGS, type SettingName } from "./connection";
import { isUnknown } from "./unknownValue";

/** Collects check failures, so that every problem is reported at once. */
export class Failures {
  readonly list: pulumi.dynamic.CheckFailure[] = [];

  /** Adds a failure for `property`; `reason` names the field in backticks and the value. */
  add(property: string, reason: string): void {
    this.list.push({ property, reason });
  }

  /**
   * Adds a failure of a connection setting (`baseUrl`, `token`, ...): on its property when the
   * resource's input holds it, else on the resource as a whole. The engine prints a property
   * failure with the input's value, which for a setting taken from the stack config or the
   * environment (or set nowhere) reads "property baseUrl value {<nil>} has a problem".
   *
   * @param setting - the setting's input name
   * @param input - the resource's input for it
   * @param reason - the message, naming the setting and where to set it
   */
  addForSetting(setting: string, input: unknown, reason: string): void {
    this.add(isSet(input) ? setting : "", reason);
  }

  /** Adds a failure per problem of the wire contract (`client/contract.ts`). */
  addProblems(problems: readonly Problem[]): void {
    for (const p of problems) this.add(p.field, p.message);
  }

  /** The failures, or undefined when there are none. */
  result(): pulumi.dynamic.CheckFailure[] | undefined {
    return this.list.length > 0 ? this.list : undefined;
  }
}

/** True for an input that is not set or not known yet: the checks below skip it. */
function skipped(v: unknown): boolean {
  return !isSet(v) || isUnknown(v);
}

/**
 * Checks an optional URL input a credential is sent to: the rule of `parseCredentialUrl`
 * (`client/transport.ts`), which never echoes a URL that may carry a credential.
 */
export function checkUrl(f: Failures, field: string, v: unknown): void {
  if (skipped(v)) return;
  if (typeof v !== "string" || v === "") {
    f.add(
      field,
      `\`${field}\` must be a URL such as "http://127.0.0.1:8080"; got ${formatValue(v)}.${otherSources(field)}`,
    );
    return;
  }
  const checked = parseCredentialUrl(v, field);
  if (typeof checked === "string") f.add(field, checked);
}

/** Checks an optional string input (a credential's value is never shown). */
export function checkString(f: Failures, field: string, v: unknown, secret = false): void {
  if (skipped(v)) return;
  if (typeof v !== "string" || v.trim() === "") {
    const got = secret ? (v === "" ? "an empty string" : `a ${typeof v}`) : formatValue(v);
    f.add(field, `\`${field}\` must be a non-empty string; got ${got}.${otherSources(field)}`);
  }
}

/**
 * For an input that is a connection setting: " Or leave `token` unset to take the stack config
 * `svc:token` or the environment variable `SVC_TOKEN`." (an empty input is refused, not taken as unset).
 */
function otherSources(field: string): string {
  if (!(field in SETTINGS)) return "";
  const s = SETTINGS[field as SettingName];
  return ` Or leave \`${field}\` unset to take the stack config \`${s.config}\` or the environment variable \`${s.env}\`.`;
}

/** Checks an optional boolean input. */
export function checkBoolean(f: Failures, field: string, v: unknown): void {
  if (skipped(v)) return;
  if (typeof v !== "boolean") f.add(field, `\`${field}\` must be true or false; got ${formatValue(v)}.`);
}

/**
 * Checks an optional integer input within a range.
 *
 * @param min - smallest allowed value
 * @param max - largest allowed value; default `Number.MAX_SAFE_INTEGER` (no upper bound named)
 */
export function checkInteger(
  f: Failures,
  field: string,
  v: unknown,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
  hint?: string,
): void {
  if (skipped(v)) return;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min || v > max) {
    const range =
      max === Number.MAX_SAFE_INTEGER ? `an integer ≥ ${min}` : `an integer from ${min} to ${max}`;
    f.add(
      field,
      `\`${field}\` must be ${range}${hint !== undefined ? ` (${hint})` : ""}; got ${formatValue(v)}.`,
    );
  }
}
