/**
 * The inputs and outputs of `DlqRecovery`, each declared once: the public {@link DlqRecoveryArgs}
 * (the provider's resolved inputs are derived from it in `provider/dlqRecovery/inputs.ts`) and
 * {@link DlqRecoveryResults} (the class's outputs, merged into it, and the list of output names
 * the component registers). Module IDs, input and output names are those of existing stacks.
 *
 * @packageDocumentation
 */
import type * as pulumi from "@pulumi/pulumi";
import type { DlqSelection, FlowControlOverride } from "../../client";
import type { AccountLimits } from "../accountClient";

/**
 * Flow-control override of the resumed runs: `Svc-Flow-Control-Key` and
 * `Svc-Flow-Control-Value`. The fields and their grammar are the client's `FlowControlOverride`
 * (docs/reference.md, "Wire grammar"): a key of visible ASCII without spaces, positive integers, a
 * period of whole seconds or `"1m"`; `period` needs `parallelism` or `rate`.
 */
export type FlowControlArgs = {
  [K in keyof FlowControlOverride]?: pulumi.Input<NonNullable<FlowControlOverride[K]>>;
};

/** A selection field as a resource argument: any value may be an Output, and so may each DLQ ID. */
type SelectionArg<T> = T extends (infer E)[] ? pulumi.Input<pulumi.Input<E>[]> : pulumi.Input<T>;

/**
 * The selection arguments of `DlqRecovery`: the fields of the client's `DlqSelection`
 * (`dlqIds`, `fromDate`, `toDate`, `workflowUrl`, `workflowRunId`, `workflowCreatedAt`; times in
 * unix milliseconds).
 */
export type DlqSelectionArgs = { [K in keyof DlqSelection]?: SelectionArg<NonNullable<DlqSelection[K]>> };

/**
 * The arguments of `DlqRecovery`: the one declaration of its inputs.
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
export interface DlqRecoveryArgsOf<AccountAdapter> extends DlqSelectionArgs {
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
  account?: AccountAdapter | pulumi.Input<string>;
  /** Allow the token over plain `http://` to a non-loopback host. Default false. */
  allowInsecureHttp?: pulumi.Input<boolean>;
  /**
   * Requests in flight at most (1 to 256), for failure-time windows of a filter or `all` drain and
   * `dlqIds` batches alike. Unset (the default), a drain keeps about the account's rate times the
   * measured round trip in flight (75 at 500 requests a second and 150 ms), never more than the
   * rate allows; `1` follows one cursor, exactly ceil(N/50) requests.
   */
  concurrency?: pulumi.Input<number>;
  /**
   * Caps this drain's requests per second below the account's rate gate, which every
   * DlqRecovery of the up shares (limit: the account's `max_requests_per_second` when account
   * settings are configured, else the service's rate-limit headers).
   */
  maxRequestsPerSecond?: pulumi.Input<number>;
  /**
   * Stops the drain once it has resumed this many runs (at least 1), at the first whole request at
   * or past it (a request resumes up to 50); where it stopped is saved as for any cut-off drain
   * (`complete` false) and the up succeeds saying so. A later up with a higher cap, or none,
   * continues it, each entry once; with the same cap it sends nothing. Counts the runs of the
   * drain and its continuations (`resumedCount`). Default: no cap.
   */
  maxRuns?: pulumi.Input<number>;
  /** How many new runs `resumedRuns` keeps in state (0 to 10,000). Default 10; counts are always exact. */
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

/** The arguments as the provider sees them: the `account` resource is a string there (its URN). */
export type DlqRecoveryArgs = DlqRecoveryArgsOf<never>;

/**
 * The inputs of a program's `DlqRecovery`, in the order a message of an unknown input lists
 * them; the compiler refuses one missing from {@link DlqRecoveryArgsOf} or extra.
 */
const INPUTS_TABLE = {
  dlqIds: true,
  fromDate: true,
  toDate: true,
  workflowUrl: true,
  workflowRunId: true,
  workflowCreatedAt: true,
  all: true,
  flowControl: true,
  retries: true,
  triggers: true,
  baseUrl: true,
  token: true,
  account: true,
  allowInsecureHttp: true,
  concurrency: true,
  maxRequestsPerSecond: true,
  maxRuns: true,
  maxRecordedRuns: true,
  runLogFile: true,
} as const satisfies Record<keyof DlqRecoveryArgs, true>;

/** The inputs of a program's `DlqRecovery` (the keys of `DlqRecoveryArgs`). */
export const DLQ_RECOVERY_INPUT_NAMES = Object.keys(INPUTS_TABLE) as (keyof DlqRecoveryArgs)[];

/**
 * Inputs the component adds for its provider, beside {@link DlqRecoveryArgs}: never set by a
 * program.
 */
export interface DlqRecoveryComponentInputs {
  /** The bound `Account`'s pacing limits (its outputs), set by the component with `account`. */
  accountLimits?: AccountLimits;
  /** The resource's name, for messages and the default run log file. */
  recoveryName?: string;
}

/** The names of {@link DlqRecoveryComponentInputs}; the compiler refuses one missing or extra. */
const COMPONENT_INPUTS_TABLE = {
  accountLimits: true,
  recoveryName: true,
} as const satisfies Record<keyof DlqRecoveryComponentInputs, true>;

/**
 * The inputs the component (or the svc provider, `recoveryName`) adds beside
 * {@link DlqRecoveryArgs}: accepted from them, never listed as an input of a program.
 */
export const DLQ_RECOVERY_COMPONENT_INPUT_NAMES = Object.keys(
  COMPONENT_INPUTS_TABLE,
) as (keyof DlqRecoveryComponentInputs)[];

/** The outputs of `DlqRecovery`, beside its inputs: what the drain did. */
export interface DlqRecoveryResults {
  /** Runs resumed with known new run IDs, over the drain and its continuations (a count). */
  resumedCount: number;
  /** Resume requests the service answered, over the drain and its continuations (a count). */
  requestCount: number;
  /**
   * The first new runs, at most `maxRecordedRuns` (default 10), each its ID and creation time
   * (unix milliseconds); every run is in the run log (see `resumedRunsTruncated`).
   */
  resumedRuns: ResumedRunOutput[];
  /** True when `resumedRuns` holds fewer runs than `resumedCount`; the full list is in the run log. */
  resumedRunsTruncated: boolean;
  /** Requests whose response was lost after the service may have resumed up to 50 runs each (a count). */
  ambiguousRequests: number;
  /** DLQ IDs resumed by a lost response, whose new run IDs never came back (empty when none or unknown). */
  unconfirmedDlqIds: string[];
  /**
   * The override headers sent with every request, name to value: `Svc-Retries` (a count),
   * `Svc-Flow-Control-Key`, `Svc-Flow-Control-Value` (`"parallelism=5, rate=10, period=1s"`: runs at
   * once, runs started per period, the period in seconds); empty when no override is set.
   */
  overrideHeaders: Record<string, string>;
  /** When the drain started: an ISO 8601 UTC timestamp (`2026-11-20T08:00:00.000Z`). */
  startedAt: string;
  /** When the drain finished (or was cut off): an ISO 8601 UTC timestamp. */
  finishedAt: string;
  /** False when the drain was cut off (or stopped at `maxRuns`); the next up continues it. */
  complete: boolean;
  /**
   * `dlqIds` the service did not find (not in the DLQ: a typo, or resumed elsewhere), the first 20;
   * the drain resumed every other ID. See `notFoundCount`.
   */
  notFoundDlqIds: string[];
  /**
   * How many `dlqIds` were not found (a count): those in `notFoundDlqIds`, beyond them, and those
   * of a batch the service answered with fewer runs than IDs without saying which.
   */
  notFoundCount: number;
}

/**
 * The names of {@link DlqRecoveryResults}, for the component to register as outputs. The
 * compiler refuses a table that misses one of them or names one that is not there.
 */
const RESULTS_TABLE = {
  resumedCount: true,
  requestCount: true,
  resumedRuns: true,
  resumedRunsTruncated: true,
  ambiguousRequests: true,
  unconfirmedDlqIds: true,
  overrideHeaders: true,
  startedAt: true,
  finishedAt: true,
  complete: true,
  notFoundDlqIds: true,
  notFoundCount: true,
} as const satisfies Record<keyof DlqRecoveryResults, true>;

/** The output names of {@link DlqRecoveryResults}, in declaration order. */
export const DLQ_RECOVERY_RESULT_NAMES = Object.keys(RESULTS_TABLE) as (keyof DlqRecoveryResults)[];
