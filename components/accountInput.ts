/**
 * How `Workflow` and `DlqRecovery` record their `account` input: an `Account` resource becomes
 * its URN (so the policy pack, which sees props, finds that Account and its settings), any other
 * resource its URN too (refused by the rule in `core/accountRef.ts`), anything else as given.
 *
 * @packageDocumentation
 */
import * as pulumi from "@pulumi/pulumi";
import { Account } from "./Account";
import { TYPES_OF_KIND } from "../core/typeTokens";

/** The `account` argument: an `Account` resource, or an account ID (the record's `id`). */
export type AccountArg = Account | pulumi.Input<string>;

/** True for an `Account` resource (also one built by another copy of this library). */
export function isAccountResource(v: unknown): v is Account {
  if (v instanceof Account) return true;
  if (!pulumi.CustomResource.isInstance(v)) return false;
  const type = (v.constructor as { __pulumiType?: string }).__pulumiType;
  return (TYPES_OF_KIND.Account as readonly (string | undefined)[]).includes(type);
}

/**
 * The value a component records for `account`: the URN of a resource, else the value as given
 * (checked by `accountProblem` in `core/accountRef.ts`).
 */
export function recordedAccount(v: unknown): pulumi.Input<unknown> {
  if (pulumi.Resource.isInstance(v)) return v.urn;
  return v as pulumi.Input<unknown>;
}
