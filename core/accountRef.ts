/**
 * The `account` input of `Workflow` and `DlqRecovery`: which account a resource belongs to, and
 * its one rule. The components record an `Account` resource as that Account's URN and an
 * account ID as the ID itself, so the policy pack, which sees only props, can tell which account
 * each resource is checked against ({@link parseAccountRef}).
 *
 * @packageDocumentation
 */
import { formatValue } from "../client/messageText";
import { TYPES_OF_KIND } from "./typeTokens";

/** The prefix of every Pulumi URN. */
const URN_PREFIX = "urn:pulumi:";

/** Which account a resource belongs to, as the policy pack reads its `account` prop. */
export type AccountRef =
  /** No `account`: the stack's `svc:` account. */
  | { readonly kind: "stack" }
  /** An `Account` resource of the stack, by URN. */
  | { readonly kind: "resource"; readonly urn: string; readonly name: string }
  /** An account ID (the record's `id`). */
  | { readonly kind: "id"; readonly id: string };

/** The resource name in a URN (its last `::` part). */
export function urnName(urn: string): string {
  const i = urn.lastIndexOf("::");
  return i < 0 ? urn : urn.slice(i + 2);
}

/** True for the URN of an `Account` resource (of the svc provider, or a 0.2 dynamic one). */
export function isAccountUrn(v: string): boolean {
  return v.startsWith(URN_PREFIX) && TYPES_OF_KIND.Account.some((t) => v.includes(`::${t}::`));
}

/**
 * The problem of an `account` value as a component records it, or `undefined` when it is valid:
 * a non-empty account ID without surrounding whitespace, or an `Account` resource's URN.
 *
 * @param v - the recorded value (a component turns an `Account` into its URN first)
 */
export function accountProblem(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  const expected = "must be an `Account` resource or an account ID (a non-empty string)";
  if (typeof v !== "string" || v.trim() === "") return `\`account\` ${expected}; got ${formatValue(v)}.`;
  if (v.trim() !== v)
    return `\`account\` ${expected} without leading or trailing whitespace; got ${formatValue(v)}.`;
  if (v.startsWith(URN_PREFIX) && !isAccountUrn(v)) {
    return `\`account\` ${expected}; got the URN of a resource that is not an Account: ${formatValue(v)}.`;
  }
  return undefined;
}

/**
 * Reads a recorded `account` value.
 *
 * @param v - the prop (absent for no `account`); must already be known
 * @returns the reference, or `undefined` when the value is not valid ({@link accountProblem})
 */
export function parseAccountRef(v: unknown): AccountRef | undefined {
  if (v === undefined || v === null) return { kind: "stack" };
  if (accountProblem(v) !== undefined) return undefined;
  const s = v as string;
  return isAccountUrn(s) ? { kind: "resource", urn: s, name: urnName(s) } : { kind: "id", id: s };
}

/** A stable key of an account reference: equal keys are the same account. */
export function accountRefKey(ref: AccountRef): string {
  switch (ref.kind) {
    case "stack":
      return "stack";
    case "resource":
      return `urn:${ref.urn}`;
    case "id":
      return `id:${ref.id}`;
  }
}

/** "the stack's `svc:` account", "the Account `free`", "the account `0f3c…`", for messages. */
export function describeAccountRef(ref: AccountRef): string {
  switch (ref.kind) {
    case "stack":
      return "the stack's `svc:` account";
    case "resource":
      return `the Account \`${ref.name}\``;
    case "id":
      return `the account ${formatValue(ref.id)}`;
  }
}
