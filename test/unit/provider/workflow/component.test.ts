/**
 * `svc:index:Workflow` of the svc provider (`provider/workflow/component.ts`): the same outputs as
 * the TypeScript `Workflow` (built under Pulumi's mocks beside it) for the same inputs, the same
 * message for bad inputs, unknown values during preview, and secrets that stay secrets.
 */
import * as assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import { Workflow, type WorkflowArgs } from "../../../../components/Workflow";
import { UNKNOWN } from "../../../../core/unknownValue";
import {
  WORKFLOW_OUTPUT_SOURCES,
  WorkflowComponent,
  WorkflowInputError,
} from "../../../../provider/workflow/component";
import type { Props } from "../../../../provider/resource";

function useMocks(): void {
  pulumi.runtime.setMocks(
    { newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }), call: (args) => args.inputs },
    "project",
    "stack",
    false,
  );
}

/** The value of an Output. */
function valueOf<T>(o: pulumi.Output<T>): Promise<T> {
  return (o as unknown as { promise(): Promise<T> }).promise();
}

/** The outputs of the TypeScript Workflow (those that are set), by the provider's output names. */
async function typescriptOutputs(name: string, args: WorkflowArgs): Promise<Record<string, unknown>> {
  const wf = new Workflow(name, args);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(WORKFLOW_OUTPUT_SOURCES) as (keyof typeof WORKFLOW_OUTPUT_SOURCES)[]) {
    const v = await valueOf(wf[k] as pulumi.Output<unknown>);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** The TypeScript Workflow's error for bad arguments. */
function typescriptError(name: string, args: unknown): string {
  try {
    new Workflow(name, args as WorkflowArgs);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("the TypeScript Workflow accepted the arguments");
}

/** Inputs as the provider receives them. */
function props(values: Record<string, unknown>, secrets: string[] = []): Props {
  return { values, secrets: new Set(secrets) };
}

/** The provider's outputs, `undefined` values left out (they are not sent). */
function providerOutputs(values: Record<string, unknown>): Record<string, unknown> {
  const out = new WorkflowComponent().outputs("orders", props(values)).values;
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

const CASES: Record<string, WorkflowArgs> = {
  "every argument": {
    url: "https://example.com/api/orders",
    retries: 3,
    delay: "10m",
    flowControl: { key: "orders", parallelism: 5, rate: 10, period: "1m" },
    account: "00000000-0000-4000-8000-000000000001",
  },
  "the url alone": { url: "http://10.0.0.7/run" },
  "a delay in seconds, rate only": {
    url: "https://example.com/x",
    delay: 30,
    flowControl: { key: "k", rate: 2 },
  },
  "zero retries": { url: "https://example.com/x", retries: 0 },
};

describe("provider: svc:index:Workflow (Construct)", () => {
  beforeEach(useMocks);

  for (const [what, args] of Object.entries(CASES)) {
    it(`has the outputs of the TypeScript Workflow: ${what}`, async () => {
      const want = await typescriptOutputs("orders", args);
      assert.deepEqual(providerOutputs(args as unknown as Record<string, unknown>), want);
    });
  }

  it("computes the headers (the TypeScript Workflow's function)", () => {
    assert.deepEqual(providerOutputs(CASES["every argument"] as unknown as Record<string, unknown>).headers, {
      "Svc-Retries": "3",
      "Svc-Delay": "600s",
      "Svc-Flow-Control-Key": "orders",
      "Svc-Flow-Control-Value": "parallelism=5, rate=10, period=1m",
    });
  });

  for (const [what, args] of Object.entries({
    "a negative retries": { url: "https://example.com/x", retries: -1 },
    "every bad argument at once": {
      url: "ftp://example.com",
      delay: "soon",
      flowControl: { key: "k", paralelism: 2 },
      colour: "red",
    },
    "no url": { retries: 3 },
    "misspelled arguments (`retry`, `URL`)": {
      url: "https://example.com/x",
      URL: "https://example.com/y",
      retry: 3,
    },
    "an account that is another resource's URN": {
      url: "https://example.com/x",
      account: "urn:pulumi:dev::p::svc:index:Workflow::other",
    },
  })) {
    it(`refuses ${what} with the TypeScript Workflow's message`, () => {
      const want = typescriptError("orders", args);
      assert.match(want, /^Workflow `orders`: /);
      assert.throws(
        () => new WorkflowComponent().outputs("orders", props(args)),
        (e: unknown) => e instanceof WorkflowInputError && e.message === want && e.code === "workflow-input",
      );
    });
  }

  it("one message names every misspelled argument; the engine's own `__` keys pass", () => {
    assert.throws(
      () =>
        new WorkflowComponent().outputs(
          "orders",
          props({ url: "https://example.com/x", Retries: 2, colour: 1 }),
        ),
      (e: unknown) =>
        e instanceof WorkflowInputError &&
        e.message ===
          "Workflow `orders`: `Retries` (did you mean `retries`?) and `colour` are not inputs of Workflow; " +
            "its inputs are `url`, `retries`, `delay`, `flowControl` and `account`.",
    );
    assert.equal(
      providerOutputs({ url: "https://example.com/x", __defaults: [] }).url,
      "https://example.com/x",
    );
  });

  it("during preview: an unknown input is not checked, and what is computed from it is unknown", () => {
    const out = providerOutputs({
      url: UNKNOWN,
      retries: UNKNOWN,
      delay: "1m",
      flowControl: { key: "orders", parallelism: UNKNOWN },
      account: UNKNOWN,
    });
    assert.deepEqual(out, {
      url: UNKNOWN,
      retries: UNKNOWN,
      delaySeconds: 60,
      flowControl: { key: "orders", parallelism: UNKNOWN },
      headers: UNKNOWN,
      account: UNKNOWN,
    });
    assert.equal(
      providerOutputs({ url: "https://example.com/x", flowControl: UNKNOWN }).flowControl,
      UNKNOWN,
    );
  });

  it("during preview: the known fields of a flow control with an unknown one are still checked", () => {
    assert.throws(
      () =>
        new WorkflowComponent().outputs(
          "orders",
          props({ url: "https://example.com/x", flowControl: { key: "bad key", parallelism: UNKNOWN } }),
        ),
      /`flowControl.key` must be a string/,
    );
  });

  it("an output computed from a secret input is a secret", () => {
    const out = new WorkflowComponent().outputs(
      "orders",
      props({ url: "https://example.com/x?sig=1", retries: 2, delay: 5 }, ["url", "retries"]),
    );
    assert.deepEqual([...out.secrets].sort(), ["headers", "retries", "url"]);
  });
});
