import * as pulumi from "@pulumi/pulumi";
import { isAccountResource, recordedAccount } from "./accountInput";
import type { Account } from "./Account";
import {
  DLQ_RECOVERY_INPUT_NAMES,
  DLQ_RECOVERY_RESULT_NAMES,
  type DlqRecoveryArgsOf,
  type DlqRecoveryResults,
} from "../core/resources/dlqRecovery";
import { DLQ_RECOVERY_PROVIDER_TYPE, DLQ_RECOVERY_DYNAMIC_TYPE } from "../core/typeTokens";
import { unknownInputsProblem } from "../core/inputNames";

export type { DlqSelectionArgs, FlowControlArgs, ResumedRunOutput } from "../core/resources/dlqRecovery";

/** The arguments of a {@link DlqRecovery}; its `account` is an {@link Account} or an account ID. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the one declaration, with the SDK's Account
export interface DlqRecoveryArgs extends DlqRecoveryArgsOf<Account> {}

/** The outputs of {@link DlqRecovery}: each of {@link DlqRecoveryResults}, as an `Output`. */
type ResultOutputs = { readonly [K in keyof DlqRecoveryResults]: pulumi.Output<DlqRecoveryResults[K]> };

/**
 * The outputs of {@link DlqRecovery}, merged into the class from their one declaration
 * ({@link DlqRecoveryResults}); the component registers each of them.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- the outputs, registered in the constructor
export interface DlqRecovery extends ResultOutputs {}

/**
 * Resumes failed workflow runs from the dead letter queue on `pulumi up`.
 *
 * Each resumed run continues from its failed step as a new run. `create` drains the
 * selection at most 50 runs a request, in parallel failure-time windows, as fast as the
 * account's `max_requests_per_second` allows (about ceil(N/50) requests for N entries, shared
 * by every DlqRecovery of the up). An unchanged resource sends nothing on later ups; changing the selection,
 * an override or `triggers` resumes again; a drain cut off by an error is continued by
 * the next up, and so is one stopped by Ctrl-C or its `customTimeouts`. Deleting the resource
 * leaves the service untouched. It is served by the svc provider (`svc:index:DlqRecovery`; the
 * program's `Pulumi.yaml` names the provider's folder, see docs/own-program.md); a stack of 0.2 (the
 * dynamic resource `pulumi-nodejs:dynamic/svc:DlqRecovery`) moves to it with no replacement and
 * no resume request (an alias).
 *
 * @example
 * ```ts
 * new DlqRecovery("incident-42", {
 *   workflowUrl: "https://example.com/api/orders",
 *   fromDate: Date.parse("2026-11-20T08:00:00Z"),
 *   flowControl: { key: "orders-recovery", parallelism: 5 },
 *   retries: 3,
 * });
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- its outputs are declared in `DlqRecoveryResults`
export class DlqRecovery extends pulumi.CustomResource {
  /** The type token, for policies (`validateResourceOfType`). */
  public static readonly __pulumiType = DLQ_RECOVERY_PROVIDER_TYPE;

  /**
   * @param name - the resource name
   * @param args - the selection, overrides, connection and tuning
   * @param opts - resource options (`provider` for an explicit svc provider, `customTimeouts`)
   * @throws RunError naming each argument a DlqRecovery does not take, before anything is
   * registered or resumed: "DlqRecovery `r`: `workflowURL` (did you mean `workflowUrl`?) is not
   * an input of DlqRecovery; …" (the argument would be dropped, and the selection widened)
   */
  constructor(name: string, args: DlqRecoveryArgs, opts: pulumi.CustomResourceOptions = {}) {
    const unknown = unknownInputsProblem("DlqRecovery", Object.keys(args ?? {}), DLQ_RECOVERY_INPUT_NAMES);
    if (unknown !== undefined) throw new pulumi.RunError(`DlqRecovery \`${name}\`: ${unknown}`);
    const account = args.account;
    const token = args.token ?? (isAccountResource(account) ? account.token : undefined);
    super(
      DLQ_RECOVERY_PROVIDER_TYPE,
      name,
      {
        ...args,
        token: token === undefined ? undefined : pulumi.secret(token),
        // Set only when given: a DlqRecovery of an earlier release keeps exactly its inputs.
        account: account === undefined ? undefined : recordedAccount(account),
        accountLimits: isAccountResource(account)
          ? {
              maxRequestsPerSecond: account.maxRequestsPerSecond,
              dlqRetentionMs: account.maxDlqRetentionTimeMilis,
            }
          : undefined,
        ...Object.fromEntries(DLQ_RECOVERY_RESULT_NAMES.map((k) => [k, undefined])),
      },
      { ...opts, aliases: [...(opts.aliases ?? []), { type: DLQ_RECOVERY_DYNAMIC_TYPE }] },
    );
  }
}
