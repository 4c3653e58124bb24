/**
 * The ledger: every run created by a resume, grouped by the DLQ ID it was resumed from, so
 * tests can assert "each entry resumed exactly once" and inspect the overrides applied.
 */
import type { RunState, StepState } from "./dlq-entry";
import type { EffectiveSettings, Overrides } from "./overrides";

/** A step of a resumed run. */
export interface ResumedStep {
  /** Step name. */
  readonly name: string;
  /** `STEP_SUCCESS` for steps carried over, `STEP_PROGRESS` for steps that run again. */
  readonly state: StepState;
  /** Result carried over from the original run (completed steps only). */
  readonly result?: unknown;
  /** Whether the step completed in the original run and was not executed again. */
  readonly carriedOver: boolean;
}

/** A new workflow run created by resuming a DLQ entry. */
export interface ResumedRun {
  /** ID of the new run (`wfr_…`). */
  readonly workflowRunId: string;
  /** Creation time of the new run, unix ms. */
  readonly workflowCreatedAt: number;
  /** Run state of the new run. */
  readonly runState: RunState;
  /** DLQ ID the run was resumed from. */
  readonly dlqId: string;
  /** ID of the failed run. */
  readonly originalWorkflowRunId: string;
  /** Workflow URL. */
  readonly workflowUrl: string;
  /** Index (in the request log) of the request that created the run. */
  readonly requestIndex: number;
  /** Settings the run runs with. */
  readonly settings: EffectiveSettings;
  /** Overrides applied (keys present only for headers that were sent). */
  readonly overrides: Overrides;
  /** Steps: completed ones carried over, the others to run again. */
  readonly steps: readonly ResumedStep[];
  /** True when the run was committed but the response carrying its ID was deliberately lost. */
  responseLost: boolean;
}

/** Totals over the ledger. */
export interface LedgerTotals {
  /** Runs created by resumes. */
  readonly resumedTotal: number;
  /** Distinct DLQ IDs resumed at least once. */
  readonly distinctEntriesResumed: number;
  /** resumedTotal - distinctEntriesResumed: resumes of a DLQ ID beyond its first. */
  readonly duplicates: number;
  /** Runs whose response was lost by fault injection. */
  readonly responseLostTotal: number;
}

/** Resumed runs by original DLQ ID. */
export class Ledger {
  private readonly byDlqId = new Map<string, ResumedRun[]>();
  private total = 0;
  private lost = 0;

  /**
   * Record a new run.
   *
   * @param run - the run.
   */
  record(run: ResumedRun): void {
    const runs = this.byDlqId.get(run.dlqId);
    if (runs === undefined) this.byDlqId.set(run.dlqId, [run]);
    else runs.push(run);
    this.total++;
    if (run.responseLost) this.lost++;
  }

  /**
   * Mark runs whose response was lost after the commit.
   *
   * @param runs - runs recorded by the same request.
   */
  markResponseLost(runs: readonly ResumedRun[]): void {
    for (const run of runs) {
      if (!run.responseLost) {
        run.responseLost = true;
        this.lost++;
      }
    }
  }

  /**
   * Runs created from one DLQ ID (empty when it was never resumed).
   *
   * @param dlqId - the original DLQ ID.
   */
  runsFor(dlqId: string): readonly ResumedRun[] {
    return this.byDlqId.get(dlqId) ?? [];
  }

  /** All runs grouped by original DLQ ID, in the order the IDs were first resumed. */
  entries(): IterableIterator<[string, readonly ResumedRun[]]> {
    return this.byDlqId.entries();
  }

  /** Totals. */
  totals(): LedgerTotals {
    return {
      resumedTotal: this.total,
      distinctEntriesResumed: this.byDlqId.size,
      duplicates: this.total - this.byDlqId.size,
      responseLostTotal: this.lost,
    };
  }

  /** Forget everything. */
  clear(): void {
    this.byDlqId.clear();
    this.total = 0;
    this.lost = 0;
  }
}
