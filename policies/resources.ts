/**
 * Reading the stack's resources in a stack policy: which resources the policies check, and
 * their values, telling apart a value that is not set, one that is unknown during preview and
 * one that is known.
 *
 * What a stack policy sees (checked with the real CLI, Pulumi v3.259):
 * - a `Workflow` (component): its registered outputs (`url`, `retries`, `delaySeconds`,
 *   `flowControl`, `headers`), not its inputs — in preview too;
 * - a `DlqRecovery` or `Account` (custom resources, of the svc provider or 0.2 dynamic ones)
 *   about to be created or updated: its inputs; an unchanged one: its stored outputs (for
 *   `DlqRecovery` these repeat the inputs);
 * - a value that depends on another resource's output not yet known (preview): reading it
 *   throws `UnknownValueError`.
 *
 * @packageDocumentation
 */
import * as policy from "@pulumi/policy";
import type { PolicyResource } from "@pulumi/policy";
import { parseDuration } from "../core/duration";
import { kindOfType, type ResourceKind } from "../core/typeTokens";
import { UNKNOWN as UNKNOWN_STRING } from "../core/unknownValue";

/** `@pulumi/policy`'s error for an unknown value (its declarations leave it untyped). */
interface UnknownValueErrorInstance extends Error {
  unknownTypeSentinel: string;
  props: string[];
}
const UnknownValueError = (
  policy as unknown as {
    UnknownValueError: new (sentinel: string, props: string[]) => UnknownValueErrorInstance;
  }
).UnknownValueError;

/**
 * Ends a policy's run the way `@pulumi/policy` ends one that read an unknown value: the engine
 * shows an advisory "can't run policy ... during preview: <message>" note, neither a pass nor a
 * violation (violations reported before it are kept).
 */
export function throwUnknown(message: string): never {
  const e = new UnknownValueError(UNKNOWN_STRING, []);
  e.message = message;
  throw e;
}

/** True for `@pulumi/policy`'s "this value is unknown during preview" error. */
export function isUnknownValueError(e: unknown): boolean {
  return e instanceof UnknownValueError;
}

/** A value read from a resource. */
export type Read =
  | { readonly kind: "absent" }
  | { readonly kind: "unknown" }
  | { readonly kind: "known"; readonly value: unknown };

const ABSENT: Read = { kind: "absent" };
const UNKNOWN: Read = { kind: "unknown" };

/**
 * Reads `props.a.b.c` without letting an unknown value escape as an exception.
 *
 * @param props - a resource's props (as the policy framework hands them over)
 * @param path - property names
 * @returns absent (not set, `null`, or a parent is not an object), unknown, or the known value
 */
export function read(props: unknown, path: readonly string[]): Read {
  try {
    let current: unknown = props;
    for (const key of path) {
      if (current === null || typeof current !== "object") return ABSENT;
      current = (current as Record<string, unknown>)[key];
    }
    return current === undefined || current === null ? ABSENT : { kind: "known", value: current };
  } catch (e) {
    if (isUnknownValueError(e)) return UNKNOWN;
    throw e;
  }
}

/** Reads a number: absent when set to something that is not a finite number. */
export function readNumber(props: unknown, path: readonly string[]): Read {
  const r = read(props, path);
  if (r.kind !== "known") return r;
  return typeof r.value === "number" && Number.isFinite(r.value) ? r : ABSENT;
}

/** "Workflow `orders`", "DlqRecovery `incident-42`", "Account `account`". */
export function label(resource: PolicyResource): string {
  return `${kindOf(resource.type)} \`${resource.name}\``;
}

/**
 * The short kind of a checked type: `Workflow`, `DlqRecovery`, `Account` (else the type). Which
 * tokens are which kind (the svc provider's and the 0.2 dynamic ones) is `TYPES_OF_KIND` in
 * `core/typeTokens.ts`.
 */
export function kindOf(type: string): string {
  return kindOfType(type) ?? type;
}

/** True when a resource is of one kind (any of its type tokens). */
export function isOfKind(resource: PolicyResource, kind: ResourceKind): boolean {
  return kindOfType(resource.type) === kind;
}

/** The resources of one kind (any of its type tokens), in stack order. */
export function ofKind(resources: readonly PolicyResource[], kind: ResourceKind): PolicyResource[] {
  return resources.filter((r) => isOfKind(r, kind));
}

/**
 * A Workflow's delay in seconds: its `delaySeconds` output, else its `delay` input (seconds or
 * a duration string). Absent when neither is set or the value is invalid (the component itself
 * refuses invalid values).
 */
export function readWorkflowDelay(props: unknown): Read {
  const seconds = readNumber(props, ["delaySeconds"]);
  if (seconds.kind !== "absent") return seconds;
  const delay = read(props, ["delay"]);
  if (delay.kind !== "known") return delay;
  const parsed = parseDuration(delay.value);
  return parsed === undefined ? ABSENT : { kind: "known", value: parsed };
}

/** True when a DlqRecovery has already run to completion (its `complete` output is `true`). */
export function isCompletedRecovery(props: unknown): boolean {
  const complete = read(props, ["complete"]);
  return complete.kind === "known" && complete.value === true;
}

/**
 * Collects the values a policy could not check because they are unknown during preview, and
 * reports them the way `@pulumi/policy` reports unknown values: as an advisory "can't run policy
 * ... during preview" note — neither a pass nor a violation.
 */
export class UnknownValues {
  private readonly items: string[] = [];

  /**
   * Notes that `property` of `resource` is unknown.
   *
   * @param why - why, when it is not the property itself (e.g. its account's outputs)
   */
  add(resource: PolicyResource, property: string, why?: string): void {
    this.items.push(`${label(resource)}: \`${property}\`${why === undefined ? "" : ` (${why})`}`);
  }

  /** The notes so far. */
  get list(): readonly string[] {
    return this.items;
  }

  /**
   * Throws one `UnknownValueError` naming every unknown value, when there is any. Call it last:
   * violations reported before it are kept.
   *
   * @param against - what the values are checked against, e.g. "max_retries"
   */
  throwIfAny(against: string): void {
    if (this.items.length === 0) return;
    const many = this.items.length > 1;
    throwUnknown(
      `${this.items.join(", ")} ${many ? "are" : "is"} unknown until the resources ${many ? "they depend" : "it depends"} ` +
        `on are created, so ${many ? "they" : "it"} cannot be checked against ${against} in this preview ` +
        "(neither passed nor failed); the check runs again on `pulumi up`.",
    );
  }
}
