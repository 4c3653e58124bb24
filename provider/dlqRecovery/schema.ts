/**
 * The schema of `svc:index:DlqRecovery`: its inputs keyed by the one declaration of the
 * arguments (`DlqRecoveryArgs`, through the provider's `INPUT_ROLES`), its outputs by the results
 * (`DlqRecoveryResults`); the compiler refuses a table that misses a name or adds one, and
 * `test/unit/provider/schema.test.ts` checks the rest against the declarations.
 * Inputs the TypeScript component adds for its provider (`accountLimits`, `recoveryName`) are
 * not in the schema: the svc provider takes the name from the URN.
 *
 * @packageDocumentation
 */
import type { DlqRecoveryArgs, DlqRecoveryResults } from "../../core/resources/dlqRecovery";
import { DLQ_RECOVERY_PROVIDER_TYPE } from "../../core/typeTokens";
import { WORKFLOW_FLOW_CONTROL_TYPE } from "../workflow/schema";

/** A property's type in the schema (`type`, `$ref`, `items`, `additionalProperties`, ...). */
type TypeSpec = Readonly<Record<string, unknown>>;

/** The token of a resumed run's object type. */
export const RESUMED_RUN_TYPE = "svc:index:ResumedRun";

const STRING: TypeSpec = { type: "string" };
const INTEGER: TypeSpec = { type: "integer" };
const BOOLEAN: TypeSpec = { type: "boolean" };
const STRINGS: TypeSpec = { type: "array", items: STRING };
const MS = "unix milliseconds";

/**
 * A date input: unix milliseconds, an integer. The schema takes a string too, so that a YAML
 * program's date (a string) reaches the provider's check, which refuses it naming its value in
 * milliseconds (`inputs.ts`): with `integer` alone, pulumi-yaml's type check refuses it
 * first, "Cannot assign type 'string' to type 'integer'", with no word of the unit. The cost: the
 * Python SDK types it `Union[int, str]`, the Go SDK `pulumi.Input`. Outputs stay `integer`.
 */
function dateInput(what: string): TypeSpec {
  return {
    oneOf: [INTEGER, STRING],
    description:
      `${what}, ${MS} (an integer: 1763625600000 is 2025-11-20T08:00:00Z). A date string is refused at ` +
      "preview, naming its value in milliseconds.",
  };
}

/** Each argument's type and description (the TSDoc of `DlqRecoveryArgs`, shortened). */
const INPUTS: Record<keyof DlqRecoveryArgs, TypeSpec> = {
  dlqIds: { ...STRINGS, description: "Resume exactly these DLQ entries (not with filters or `all`)." },
  fromDate: dateInput("Resume entries that failed at or after this time"),
  toDate: dateInput("Resume entries that failed at or before this time"),
  workflowUrl: { ...STRING, description: "Resume entries of this workflow URL." },
  workflowRunId: { ...STRING, description: "Resume the entries of this run ID." },
  workflowCreatedAt: dateInput("Resume entries of runs created at this time"),
  all: { ...BOOLEAN, description: "Resume every entry in the DLQ (required to mean everything)." },
  flowControl: {
    $ref: `#/types/${WORKFLOW_FLOW_CONTROL_TYPE}`,
    description: "Flow-control override of the resumed runs; unset, they keep their own.",
  },
  retries: { ...INTEGER, description: "Retries override of the resumed runs' steps (`Svc-Retries`)." },
  triggers: {
    type: "array",
    items: { $ref: "pulumi.json#/Any" },
    description: "Change any element to resume again with the same selection on the next up.",
  },
  baseUrl: {
    ...STRING,
    description:
      "Base URL of the resume API. Falls back to the stack config `svc:baseUrl`, then `SVC_BASE_URL`.",
  },
  token: {
    ...STRING,
    secret: true,
    description: "Bearer token; never stored. Falls back to the stack config `svc:token`, then `SVC_TOKEN`.",
  },
  account: {
    ...STRING,
    description:
      "The account the runs belong to: an account ID (an Account's `accountId`). Changing it sends nothing.",
  },
  allowInsecureHttp: {
    ...BOOLEAN,
    description: "Allow the token over plain `http://` to a non-loopback host. Default false.",
  },
  concurrency: {
    ...INTEGER,
    description:
      "Requests in flight at most (1 to 256), windows of a filter drain and `dlqIds` batches alike. Default: about the account's rate times the measured round trip; 1 follows one cursor.",
  },
  maxRequestsPerSecond: {
    ...INTEGER,
    description: "Caps this drain's requests per second below the account's rate gate.",
  },
  maxRuns: {
    ...INTEGER,
    description:
      "Stops the drain after this many runs (whole requests); a later up with a higher cap or none continues.",
  },
  maxRecordedRuns: {
    ...INTEGER,
    description: "How many new runs `resumedRuns` keeps in state (0 to 10,000). Default 10.",
  },
  runLogFile: {
    ...STRING,
    description: 'JSON Lines file (relative to the program folder) that gets every resumed run; "" for none.',
  },
};

/** Each result's type and description (the TSDoc of `DlqRecoveryResults`, shortened). */
const RESULTS: Record<keyof DlqRecoveryResults, TypeSpec> = {
  resumedCount: {
    ...INTEGER,
    description: "Runs resumed with known new run IDs, over the drain and its continuations.",
  },
  requestCount: { ...INTEGER, description: "Resume requests the service answered." },
  resumedRuns: {
    type: "array",
    items: { $ref: `#/types/${RESUMED_RUN_TYPE}` },
    description: "The first new runs, at most `maxRecordedRuns`; every run is in the run log.",
  },
  resumedRunsTruncated: {
    ...BOOLEAN,
    description: "True when `resumedRuns` holds fewer runs than `resumedCount`.",
  },
  ambiguousRequests: {
    ...INTEGER,
    description: "Requests whose response was lost after the service may have resumed runs.",
  },
  unconfirmedDlqIds: {
    ...STRINGS,
    description: "DLQ IDs resumed by a lost response, whose new run IDs never came back.",
  },
  overrideHeaders: {
    type: "object",
    additionalProperties: STRING,
    description: "The override headers sent with every request, name to value.",
  },
  startedAt: { ...STRING, description: "When the drain started (ISO 8601, UTC)." },
  finishedAt: { ...STRING, description: "When the drain finished or was cut off (ISO 8601, UTC)." },
  complete: {
    ...BOOLEAN,
    description: "False when the drain was cut off or stopped at `maxRuns`; the next up continues it.",
  },
  notFoundDlqIds: { ...STRINGS, description: "`dlqIds` the service did not find, the first 20." },
  notFoundCount: { ...INTEGER, description: "How many `dlqIds` were not found." },
};

/** The date inputs as outputs: always an integer (the check refuses a string). */
const DATE_OUTPUTS = {
  fromDate: { ...INTEGER, description: `Resume entries that failed at or after this time, ${MS}.` },
  toDate: { ...INTEGER, description: `Resume entries that failed at or before this time, ${MS}.` },
  workflowCreatedAt: { ...INTEGER, description: `Resume entries of runs created at this time, ${MS}.` },
} satisfies Partial<Record<keyof DlqRecoveryArgs, TypeSpec>>;

/** The schema's `resources` entry of the DlqRecovery, keyed by its token. */
export function dlqRecoveryResources(): Record<string, unknown> {
  const { token: _token, ...inputs } = INPUTS;
  const echoed = { ...inputs, ...DATE_OUTPUTS };
  return {
    [DLQ_RECOVERY_PROVIDER_TYPE]: {
      description:
        "Resumes failed workflow runs from the DLQ on `pulumi up`, at most 50 a request, as fast as the " +
        "account allows; a cut-off drain (an error, Ctrl-C, `maxRuns`) is continued by the next up, each " +
        "entry once. Deleting it leaves the service untouched.",
      inputProperties: INPUTS,
      properties: { ...echoed, ...RESULTS },
      required: Object.keys(RESULTS),
    },
  };
}

/** The schema's `types` of the DlqRecovery (a resumed run). */
export function dlqRecoveryTypes(): Record<string, unknown> {
  return {
    [RESUMED_RUN_TYPE]: {
      type: "object",
      properties: {
        workflowRunId: { ...STRING, description: "The new run's ID (`wfr_...`)." },
        workflowCreatedAt: { ...INTEGER, description: `When the new run was created, ${MS}.` },
      },
      required: ["workflowRunId", "workflowCreatedAt"],
    },
  };
}
