/**
 * The schema's `svc:index:Workflow` follows the declarations: a component whose inputs are the
 * TypeScript `Workflow`'s arguments, whose properties are its outputs (read off a `Workflow`
 * built under Pulumi's mocks) and whose flow-control type has the header fields.
 */
import * as assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import { FLOW_CONTROL_FIELDS } from "../../../../client/contract";
import { WORKFLOW_ARGUMENTS, Workflow } from "../../../../components/Workflow";
import { packageSchema } from "../../../../provider/schema";
import { WORKFLOW_FLOW_CONTROL_TYPE } from "../../../../provider/workflow/schema";

interface Entry {
  isComponent?: boolean;
  inputProperties: Record<string, Record<string, unknown>>;
  requiredInputs: string[];
  properties: Record<string, Record<string, unknown>>;
  required: string[];
}
const schema = packageSchema("1.2.3") as {
  resources: Record<string, Entry>;
  types: Record<string, { properties: Record<string, unknown>; required: string[] }>;
};
const workflow = schema.resources["svc:index:Workflow"];

/** The names of a TypeScript Workflow's outputs (its Output properties but `urn`). */
function typescriptOutputNames(): string[] {
  pulumi.runtime.setMocks(
    { newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: (a) => a.inputs },
    "project",
    "stack",
    false,
  );
  const wf = new Workflow("orders", { url: "https://example.com/x" });
  return Object.keys(wf).filter(
    (k) => k !== "urn" && pulumi.Output.isInstance((wf as unknown as Record<string, unknown>)[k]),
  );
}

describe("provider schema: svc:index:Workflow from the declarations", () => {
  it("is a component (served by Construct)", () => {
    assert.equal(workflow.isComponent, true);
  });

  it("its inputs are the TypeScript Workflow's arguments, `url` required", () => {
    assert.deepEqual(Object.keys(workflow.inputProperties), [...WORKFLOW_ARGUMENTS]);
    assert.deepEqual(workflow.requiredInputs, ["url"]);
    assert.equal(workflow.inputProperties.retries.type, "integer");
    assert.deepEqual(workflow.inputProperties.delay.oneOf, [{ type: "integer" }, { type: "string" }]);
    assert.equal(workflow.inputProperties.account.type, "string");
  });

  it("its properties are the TypeScript Workflow's outputs", () => {
    assert.deepEqual(Object.keys(workflow.properties).sort(), typescriptOutputNames().sort());
    assert.deepEqual(workflow.properties.headers.additionalProperties, { type: "string" });
    for (const r of workflow.required) assert.ok(workflow.properties[r], r);
  });

  it("its flow control has the header fields, `key` required", () => {
    const fc = schema.types[WORKFLOW_FLOW_CONTROL_TYPE];
    assert.deepEqual(Object.keys(fc.properties), [...FLOW_CONTROL_FIELDS]);
    assert.deepEqual(fc.required, ["key"]);
    assert.equal(workflow.inputProperties.flowControl.$ref, `#/types/${WORKFLOW_FLOW_CONTROL_TYPE}`);
    assert.equal(workflow.properties.flowControl.$ref, `#/types/${WORKFLOW_FLOW_CONTROL_TYPE}`);
  });
});
