/**
 * The schema of `svc:index:Workflow` (a component, served by `Construct`): its inputs keyed by
 * the component's arguments (`WORKFLOW_ARGUMENTS`), its outputs by the declared ones
 * (`WorkflowOutputName`), the flow-control type by the header fields (`FLOW_CONTROL_FIELDS`);
 * the compiler checks each table covers its list, `test/unit/provider/schema.test.ts` the rest.
 *
 * @packageDocumentation
 */
import { FLOW_CONTROL_FIELDS } from "../../client/contract";
import {
  WORKFLOW_ARGUMENTS,
  type WorkflowArgumentName as WorkflowArgument,
  type WorkflowOutputName,
} from "../../core/resources/workflow";
import { WORKFLOW_TYPE } from "../../core/typeTokens";

/** A property's type in the schema (`type`, `$ref`, `oneOf`, `additionalProperties`). */
type TypeSpec = Readonly<Record<string, unknown>>;

/** The token of the flow-control object type. */
export const WORKFLOW_FLOW_CONTROL_TYPE = "svc:index:WorkflowFlowControl";

const STRING: TypeSpec = { type: "string" };
const INTEGER: TypeSpec = { type: "integer" };
const SECONDS_OR_DURATION: TypeSpec = { oneOf: [{ type: "integer" }, { type: "string" }] };
const FLOW_CONTROL: TypeSpec = { $ref: `#/types/${WORKFLOW_FLOW_CONTROL_TYPE}` };

/** Each argument's type and description. */
const INPUTS: Record<WorkflowArgument, TypeSpec> = {
  url: { ...STRING, description: "The workflow's endpoint: an `http://` or `https://` URL." },
  retries: {
    ...INTEGER,
    description: "Retries of a failed step (0 to 2,147,483,647), sent as `Svc-Retries`.",
  },
  delay: {
    ...SECONDS_OR_DURATION,
    description:
      'Delay before a triggered run starts: whole seconds, or a duration such as "10m" (s, m, h, d).',
  },
  flowControl: {
    ...FLOW_CONTROL,
    description: "Flow control: a key, and `parallelism` or `rate` (or both).",
  },
  account: {
    ...STRING,
    description:
      "The account this workflow belongs to: an account ID (an Account's `accountId`). Default: the stack's `svc:` account.",
  },
};

/** Each output's type and description. */
const OUTPUTS: Record<WorkflowOutputName, TypeSpec> = {
  url: INPUTS.url,
  retries: INPUTS.retries,
  delaySeconds: { ...INTEGER, description: "Delay before a triggered run starts, in seconds." },
  flowControl: { ...FLOW_CONTROL, description: "The flow control as given (only the fields that are set)." },
  headers: {
    type: "object",
    additionalProperties: STRING,
    description: "The headers an application sends when it triggers the workflow, name to value.",
  },
  account: { ...STRING, description: "The account it belongs to, as given." },
};

/** Each flow-control field's type and description. */
const FLOW_CONTROL_PROPERTIES: Record<(typeof FLOW_CONTROL_FIELDS)[number], TypeSpec> = {
  key: { ...STRING, description: "Sent as `Svc-Flow-Control-Key`: 1 to 256 visible ASCII characters." },
  parallelism: { ...INTEGER, description: "Runs at once (1 to 2,147,483,647)." },
  rate: { ...INTEGER, description: "Runs started per `period` (1 to 2,147,483,647)." },
  period: { ...SECONDS_OR_DURATION, description: 'Whole seconds, or a duration such as "1m".' },
};

/** The schema's `resources` entry of the Workflow, keyed by its token. */
export function workflowResources(): Record<string, unknown> {
  return {
    [WORKFLOW_TYPE]: {
      isComponent: true,
      description:
        "One workflow's trigger configuration (URL, retries, delay, flow control) and the headers an application " +
        "sends; the policy pack checks it against the account's limits. Nothing is created at the service.",
      inputProperties: Object.fromEntries(WORKFLOW_ARGUMENTS.map((a) => [a, INPUTS[a]])),
      requiredInputs: ["url"],
      properties: OUTPUTS,
      required: ["url", "headers"],
    },
  };
}

/** The schema's `types` of the Workflow (its flow control). */
export function workflowTypes(): Record<string, unknown> {
  return {
    [WORKFLOW_FLOW_CONTROL_TYPE]: {
      type: "object",
      properties: Object.fromEntries(FLOW_CONTROL_FIELDS.map((f) => [f, FLOW_CONTROL_PROPERTIES[f]])),
      required: ["key"],
    },
  };
}
