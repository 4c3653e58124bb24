/**
 * `svc:index:Workflow` served by the svc provider's `Construct` (YAML and other programs that
 * are not TypeScript): the inputs checked with the component's own rule (`workflowArgProblems`)
 * and the outputs computed with its own functions (`workflowFlowControl`, `workflowHeaders`,
 * `parseDuration`), all in `core/resources/workflow.ts`, so both have the same outputs.
 *
 * @packageDocumentation
 */
import { isSet } from "../../client";
import { parseDuration } from "../../core/duration";
import {
  WORKFLOW_OUTPUT_SOURCES,
  workflowArgProblems,
  workflowFlowControl,
  workflowHeaders,
  type ArgumentReader,
  type WorkflowFlowControl,
} from "../../core/resources/workflow";
import { UNKNOWN } from "../../core/unknownValue";
import type { ComponentAdapter } from "../construct";
import type { Props } from "../resource";

export { WORKFLOW_OUTPUT_SOURCES };

/** True for the engine's unknown value (an input not known during preview). */
function isUnknown(v: unknown): boolean {
  return v === UNKNOWN;
}

/** Values as the provider reads them: `account` is a string here (a URN or an ID), never a resource. */
const PROVIDER_READER: ArgumentReader = { isPending: isUnknown, resourceKind: () => undefined };

/** True when a value is unknown or holds an unknown value. */
function holdsUnknown(v: unknown): boolean {
  if (isUnknown(v)) return true;
  if (Array.isArray(v)) return v.some(holdsUnknown);
  return v !== null && typeof v === "object" && Object.values(v).some(holdsUnknown);
}

/** The outputs of valid inputs (unknown where an input they are computed from is unknown). */
function outputValues(v: Record<string, unknown>): Record<string, unknown> {
  const retries = isSet(v.retries) ? v.retries : undefined;
  const delaySeconds = !isSet(v.delay) ? undefined : isUnknown(v.delay) ? UNKNOWN : parseDuration(v.delay);
  const flowControl = !isSet(v.flowControl)
    ? undefined
    : isUnknown(v.flowControl)
      ? UNKNOWN
      : workflowFlowControl(v.flowControl as WorkflowFlowControl);
  const headers = WORKFLOW_OUTPUT_SOURCES.headers.some((k) => holdsUnknown(v[k]))
    ? UNKNOWN
    : workflowHeaders({
        retries: retries as number | undefined,
        delaySeconds: delaySeconds as number | undefined,
        flowControl: flowControl as WorkflowFlowControl | undefined,
      });
  const values: Record<string, unknown> = { url: v.url, retries, delaySeconds, flowControl, headers };
  // Only when set, as the TypeScript Workflow registers it.
  if (isSet(v.account)) values.account = v.account;
  return values;
}

/** A Workflow's inputs that are not valid: the message names each argument and its value. */
export class WorkflowInputError extends Error {
  /** A stable code. */
  readonly code = "workflow-input";
}

/** The Workflow component of the svc provider. */
export class WorkflowComponent implements ComponentAdapter {
  readonly sources: Readonly<Record<string, readonly string[]>> = WORKFLOW_OUTPUT_SOURCES;

  /**
   * The outputs of a Workflow, as the TypeScript `Workflow` registers them.
   *
   * @throws WorkflowInputError naming every invalid argument and its value, as the TypeScript
   * `Workflow` does ("Workflow `orders`: `retries` must be a non-negative integer; got -1.")
   */
  outputs(name: string, inputs: Props): Props {
    const problems = workflowArgProblems(inputs.values, PROVIDER_READER);
    if (problems.length > 0) throw new WorkflowInputError(`Workflow \`${name}\`: ${problems.join(" ")}`);
    const sources: Record<string, readonly string[]> = WORKFLOW_OUTPUT_SOURCES;
    const secrets = Object.keys(sources).filter((o) => sources[o].some((i) => inputs.secrets.has(i)));
    return { values: outputValues(inputs.values), secrets: new Set(secrets) };
  }
}
