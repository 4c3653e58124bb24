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
import { ACCOUNT_TYPE } from "../core/tokens";
import { read } from "./resources";

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
  return resources.filter((r) => r.type === ACCOUNT_TYPE);
}

/**
 * An Account's connection settings as the stack shows them (its inputs; for an unchanged
 * Account, its stored outputs, where `password` is the record's password), or `"unknown"` when
 * one of them is not known yet. Unset ones fall back to the stack config and the environment
 * when read, exactly as the Account's own provider does.
 */
export function connectionOf(account: PolicyResource): AccountConnectionInputs | "unknown" {
  const out: AccountConnectionInputs = {};
  for (const key of ["accountApiUrl", "username", "password"] as const) {
    const r = read(account.props, [key]);
    if (r.kind === "unknown") return "unknown";
    if (r.kind === "known" && typeof r.value === "string") out[key] = r.value;
  }
  const insecure = read(account.props, ["allowInsecureHttp"]);
  if (insecure.kind === "unknown") return "unknown";
  if (insecure.kind === "known" && insecure.value === true) out.allowInsecureHttp = true;
  return out;
}

/** An Account's `accountId` output when known. */
export function accountIdOf(account: PolicyResource): string | undefined {
  const r = read(account.props, ["accountId"]);
  return r.kind === "known" && typeof r.value === "string" ? r.value : undefined;
}
