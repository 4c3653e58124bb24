/**
 * Which account a checked resource belongs to, and what the stack says of an `Account`
 * resource: its connection settings (to read its live record with its own settings) and its
 * outputs. A stack policy sees a `Workflow`'s registered outputs and a `DlqRecovery`'s inputs
 * (or stored outputs); both carry `account` as the components record it (`core/accountRef.ts`).
 *
 * @packageDocumentation
 */
import type { PolicyResource } from "@pulumi/policy";
import type { AccountConnectionInputs } from "../core/accountClient";
import { accountProblem, accountRefKey, parseAccountRef, type AccountRef } from "../core/accountRef";
import { ofKind, read } from "./resources";

/** The account of a resource as the pack can know it during this run. */
export type Binding =
  | { readonly kind: "known"; readonly ref: AccountRef }
  /** `account` depends on an output not known yet (preview). */
  | { readonly kind: "unknown" }
  /** `account` is set to something that is no account (the components refuse it earlier). */
  | { readonly kind: "invalid"; readonly problem: string };

/** The account of a `Workflow` or `DlqRecovery`, from its `account` prop. */
export function bindingOf(resource: PolicyResource): Binding {
  const r = read(resource.props, ["account"]);
  if (r.kind === "unknown") return { kind: "unknown" };
  const value = r.kind === "absent" ? undefined : r.value;
  const ref = parseAccountRef(value);
  if (ref !== undefined) return { kind: "known", ref };
  return { kind: "invalid", problem: accountProblem(value) ?? "`account` is not valid." };
}

/** A stable key of a binding, to group resources by account. */
export function bindingKey(b: Binding): string {
  if (b.kind === "known") return accountRefKey(b.ref);
  return b.kind === "unknown" ? "unknown" : `invalid:${b.problem}`;
}

/** The `Account` resources of the stack. */
export function accountResources(resources: readonly PolicyResource[]): PolicyResource[] {
  return ofKind(resources, "Account");
}

/** The settings the pack reads an Account's live record with: all three of its own, or none. */
export type AccountConnection =
  /** URL, username and password all the Account's own (inputs, or stored outputs). */
  | { readonly kind: "own"; readonly inputs: AccountConnectionInputs }
  /** None of them: the stack's `svc:` settings, as the Account's provider uses them. */
  | { readonly kind: "stack"; readonly allowInsecureHttp: boolean }
  /** Some of its own, some not: never read (one source's URL with another's password). */
  | { readonly kind: "partial"; readonly own: readonly string[]; readonly missing: readonly string[] }
  /** A setting is not known yet (preview). */
  | { readonly kind: "unknown" };

const CONNECTION_KEYS = ["accountApiUrl", "username", "password"] as const;

/**
 * How the pack may read an Account's live record. The stack shows an Account's inputs (for an
 * unchanged Account, its stored outputs, where `password` is the record's password), secrets
 * unwrapped. The three settings are taken together from one source: the Account itself, or
 * the stack's `svc:` settings when it sets none of them; an Account that sets only some is not
 * read, so no URL is ever sent another source's password.
 */
export function connectionOf(account: PolicyResource): AccountConnection {
  const own: AccountConnectionInputs = {};
  for (const key of CONNECTION_KEYS) {
    const r = read(account.props, [key]);
    if (r.kind === "unknown") return { kind: "unknown" };
    if (r.kind === "known" && typeof r.value === "string" && r.value !== "") own[key] = r.value;
  }
  const insecure = read(account.props, ["allowInsecureHttp"]);
  if (insecure.kind === "unknown") return { kind: "unknown" };
  const allowInsecureHttp = insecure.kind === "known" && insecure.value === true;
  const set = CONNECTION_KEYS.filter((k) => own[k] !== undefined);
  if (set.length === 0) return { kind: "stack", allowInsecureHttp };
  if (set.length < CONNECTION_KEYS.length) {
    return { kind: "partial", own: set, missing: CONNECTION_KEYS.filter((k) => own[k] === undefined) };
  }
  return { kind: "own", inputs: allowInsecureHttp ? { ...own, allowInsecureHttp } : own };
}

/** An Account's `accountId` output when known. */
export function accountIdOf(account: PolicyResource): string | undefined {
  const r = read(account.props, ["accountId"]);
  return r.kind === "known" && typeof r.value === "string" ? r.value : undefined;
}
