/**
 * What one run of the pack notes for its summaries (`account-limits-source`,
 * `account-limits-strictest`): checks that could not run, checks that ran against the strictest
 * of several Accounts, and Workflow checks left to `up`. {@link LimitsContext} in `context.ts`
 * keeps them.
 *
 * @packageDocumentation
 */
import type { ConfigFix } from "./configFix";
import type { LimitSpec } from "./limits";
import type { LiveAccountResult } from "./liveAccount";

/** Checks of one limit that could not run for one cause. */
export interface UncheckedChecks {
  readonly spec: LimitSpec;
  readonly cause: string;
  /** Labels of the resources left unchecked, e.g. "Workflow `orders`". */
  readonly resources: Set<string>;
  /** The pack config that would let them run, by {@link fixKey}. */
  readonly fixes: Map<string, ConfigFix>;
}

/** Checks of one limit that ran against the strictest of several Accounts. */
export interface StrictestChecks {
  readonly spec: LimitSpec;
  /** What the limit was taken from, e.g. "the strictest of the Accounts `a` (2), `b` (10) (...)". */
  readonly source: string;
  /** Labels of the resources checked so. */
  readonly resources: Set<string>;
}

/** Workflows whose account limits are unknown during this preview, for one cause. */
export interface DeferredChecks {
  readonly cause: string;
  /** The limits left to `up`, e.g. "max_parallelism". */
  readonly fields: Set<string>;
  /** Labels of the Workflows, e.g. "Workflow `orders`". */
  readonly resources: Set<string>;
}

/** What happened in this run, for the one summary message. */
export interface RunNotes {
  /** The stack's live source's outcome, when it was consulted. */
  live?: LiveAccountResult;
  /** Checks that could not run, by limit and cause. */
  readonly unchecked: Map<string, UncheckedChecks>;
  /** Checks that ran against the strictest of several Accounts, by limit. */
  readonly strictest: Map<string, StrictestChecks>;
  /** Workflow checks left to `up` because their account's limits are unknown in this preview, by cause. */
  readonly deferred: Map<string, DeferredChecks>;
}

/** Notes of a run that has noted nothing yet. */
export function freshNotes(): RunNotes {
  return { unchecked: new Map(), strictest: new Map(), deferred: new Map() };
}
