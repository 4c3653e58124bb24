import * as pulumi from "@pulumi/pulumi";
import type { DlqSelection, FlowControlOverride } from "../client";
import { isAccountResource, recordedAccount, type AccountArg } from "./accountInput";
import { lazyProvider } from "./lazyProvider";
import { DLQ_RECOVERY_TYPE } from "../core/tokens";

/**
 * Flow-control override of the resumed runs: `Svc-Flow-Control-Key` and
 * `Svc-Flow-Control-Value`. The fields and their grammar are the client's `FlowControlOverride`
 * (README, "Wire grammar"): a key of visible ASCII without spaces, positive integers, a
 * period of whole seconds or `"1m"`; `period` needs `parallelism` or `rate`.
 */
export type FlowControlArgs = {
  [K in keyof FlowControlOverride]?: pulumi.Input<NonNullable<FlowControlOverride[K]>>;
};

/** A selection field as a resource argument: any value may be an Output, and so may each DLQ ID. */
type SelectionArg<T> = T extends (infer E)[] ? pulumi.Input<pulumi.Input<E>[]> : pulumi.Input<T>;

/**
 * The selection arguments of {@link DlqRecovery}: the fields of the client's `DlqSelection`
 * (`dlqIds`, `fromDate`, `toDate`, `workflowUrl`, `workflowRunId`, `workflowCreatedAt`; times in
 * unix milliseconds).
 */
export type DlqSelectionArgs = { [K in keyof DlqSelection]?: SelectionArg<NonNullable<DlqSelection[K]>> };

/**
 * The arguments of {@link DlqRecovery}.
 *
 * Selection: either `dlqIds`, or filters (`fromDate`, `toDate`, `workflowUrl`,
 * `workflowRunId`, `workflowCreatedAt`, combined), or `all: true`. Mixing `dlqIds` with
 * filters is refused at preview (the service ignores filters when IDs are given), and so
 * is an empty selection without `all: true`, and an empty `dlqIds`.
 *
 * Connection: `baseUrl` → stack config `svc:baseUrl` → `SVC_BASE_URL`; `token` → the
 * `account`'s record token (when `account` is an `Account` resource) → stack config `svc:token`
 * (secret) → `SVC_TOKEN`.
 */
export interface DlqRecoveryArgs extends DlqSelectionArgs {
  /** Resume every entry in the DLQ. Required to mean "everything": an empty selection is refused. */
  all?: pulumi.Input<boolean>;
  /** Flow-control override; when unset, the runs keep their original flow control. */
  flowControl?: pulumi.Input<FlowControlArgs>;
  /** Retries override for the resumed runs' steps (`Svc-Retries`); when unset, the original is kept. */
  retries?: pulumi.Input<number>;
  /** Change any element to resume again with the same selection on the next up. */
  triggers?: pulumi.Input<unknown[]>;
  /** Base URL of the resume API, e.g. `http://127.0.0.1:8080`. */
  baseUrl?: pulumi.Input<string>;
  /** Bearer token. Always stored as a secret. Default: the `account`'s token, else `svc:token`. */
  token?: pulumi.Input<string>;
  /**
   * The account the runs belong to: an `Account` resource, or an account ID (the record's `id`).
   * With an `Account` and no `token`, the drain uses that record's token (a secret) and is paced
   * by that account's `max_requests_per_second`, sharing a rate gate only with drains of that
   * account. The policy pack checks the overrides against that account's limits. Changing it
   * sends nothing (a connection setting, like `token`). Default: the stack's `svc:` account.
   */
  account?: AccountArg;
  /** Allow the token over plain `http://` to a non-loopback host. Default false. */
  allowInsecureHttp?: pulumi.Input<boolean>;
  /**
   * Requests in flight at once (1 to 32): failure-time windows of a filter or `all` drain
   * (default 16; `1` follows one cursor, exactly ceil(N/50) requests), `dlqIds` batches (default 4).
   */
  concurrency?: pulumi.Input<number>;
  /**
   * Caps this drain's requests per second below the account's rate gate, which every
   * DlqRecovery of the up shares (limit: the account's `max_requests_per_second` when account
   * settings are configured, else the service's rate-limit headers).
   */
  maxRequestsPerSecond?: pulumi.Input<number>;
  /** How many new runs `resumedRuns` keeps in state (0 to 10,000). Default 10 (it was 1,000); counts are always exact. */
  maxRecordedRuns?: pulumi.Input<number>;
  /**
   * JSON Lines file (relative to the program folder) that gets every resumed run of every drain;
   * "" for none. Default: one file a drain, `svc-recovery/<name>/<specHash>.jsonl`, the newest 10 kept.
   */
  runLogFile?: pulumi.Input<string>;
}

/** A resumed run: the new run's ID and creation time (unix ms). */
export interface ResumedRunOutput {
  /** The new run's ID (`wfr_...`). */
  workflowRunId: string;
  /** When the new run was created, unix **milliseconds**. */
  workflowCreatedAt: number;
}

/**
 * Resumes failed workflow runs from the dead letter queue on `pulumi up`.
 *
 * Each resumed run continues from its failed step as a new run. `create` drains the
 * selection at most 50 runs a request, in parallel failure-time windows, as fast as the
 * account's `max_requests_per_second` allows (about ceil(N/50) requests for N entries, shared
 * by every DlqRecovery of the up). An unchanged resource sends nothing on later ups; changing the selection,
 * an override or `triggers` resumes again; a drain cut off by an error is continued by
 * the next up. Deleting the resource leaves the service untouched.
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
export class DlqRecovery extends pulumi.dynamic.Resource {
  /** The type token, for policies (`validateResourceOfType`). */
  public static readonly __pulumiType = DLQ_RECOVERY_TYPE;

  /** Runs resumed with known new run IDs, over the drain and its continuations (a count). */
  declare public readonly resumedCount: pulumi.Output<number>;
  /** Resume requests the service answered, over the drain and its continuations (a count). */
  declare public readonly requestCount: pulumi.Output<number>;
  /**
   * The first new runs, at most `maxRecordedRuns` (default 10), each its ID and creation time
   * (unix milliseconds); every run is in the run log (see `resumedRunsTruncated`).
   */
  declare public readonly resumedRuns: pulumi.Output<ResumedRunOutput[]>;
  /** True when `resumedRuns` holds fewer runs than `resumedCount`; the full list is in the run log. */
  declare public readonly resumedRunsTruncated: pulumi.Output<boolean>;
  /** Requests whose response was lost after the service may have resumed up to 50 runs each (a count). */
  declare public readonly ambiguousRequests: pulumi.Output<number>;
  /** DLQ IDs resumed by a lost response, whose new run IDs never came back (empty when none or unknown). */
  declare public readonly unconfirmedDlqIds: pulumi.Output<string[]>;
  /**
   * The override headers sent with every request, name to value: `Svc-Retries` (a count),
   * `Svc-Flow-Control-Key`, `Svc-Flow-Control-Value` (`"parallelism=5, rate=10, period=1s"`: runs at
   * once, runs started per period, the period in seconds); empty when no override is set.
   */
  declare public readonly overrideHeaders: pulumi.Output<Record<string, string>>;
  /** When the drain started: an ISO 8601 UTC timestamp (`2026-11-20T08:00:00.000Z`). */
  declare public readonly startedAt: pulumi.Output<string>;
  /** When the drain finished (or was cut off): an ISO 8601 UTC timestamp. */
  declare public readonly finishedAt: pulumi.Output<string>;
  /** False when the drain was cut off; the next up continues it. */
  declare public readonly complete: pulumi.Output<boolean>;

  constructor(name: string, args: DlqRecoveryArgs, opts: pulumi.CustomResourceOptions = {}) {
    const account = args.account;
    const token = args.token ?? (isAccountResource(account) ? account.token : undefined);
    super(
      lazyProvider("pulumi-svc/providers/dlqRecovery"),
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
        recoveryName: name,
        resumedCount: undefined,
        requestCount: undefined,
        resumedRuns: undefined,
        resumedRunsTruncated: undefined,
        ambiguousRequests: undefined,
        unconfirmedDlqIds: undefined,
        overrideHeaders: undefined,
        startedAt: undefined,
        finishedAt: undefined,
        complete: undefined,
      },
      opts,
      "svc",
      "DlqRecovery",
    );
  }
}
