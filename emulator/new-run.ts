/**
 * Creating the new workflow run that continues a failed run: new ID and creation time, completed
 * steps carried over with their results, failed or pending steps set to run again.
 */
import type { DlqEntry } from "./dlq-entry";
import { randomId } from "./dlq-entry";
import type { ResumedRun, ResumedStep } from "./ledger";
import type { Overrides } from "./overrides";
import { effectiveSettings } from "./overrides";

/**
 * Build the run that resumes an entry.
 *
 * @param entry - the DLQ entry.
 * @param overrides - overrides of the request.
 * @param now - creation time of the new run, unix ms.
 * @param requestIndex - index of the request in the request log.
 */
export function createResumedRun(
  entry: DlqEntry,
  overrides: Overrides,
  now: number,
  requestIndex: number,
): ResumedRun {
  const steps = entry.steps.map((step): ResumedStep =>
    step.state === "STEP_SUCCESS"
      ? { name: step.name, state: "STEP_SUCCESS", result: step.result, carriedOver: true }
      : { name: step.name, state: "STEP_PROGRESS", carriedOver: false },
  );
  return {
    workflowRunId: randomId("wfr"),
    workflowCreatedAt: now,
    runState: "RUN_STARTED",
    dlqId: entry.dlqId,
    originalWorkflowRunId: entry.workflowRunId,
    workflowUrl: entry.workflowUrl,
    requestIndex,
    settings: effectiveSettings(entry, overrides),
    overrides,
    steps,
    responseLost: false,
  };
}
