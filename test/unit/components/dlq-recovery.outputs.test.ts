/**
 * The `DlqRecovery` class's outputs: every result the provider computes is an Output of the
 * class, from the one declaration (`core/resources/dlqRecovery.ts`).
 */
import { strict as assert } from "node:assert";
import * as pulumi from "@pulumi/pulumi";
import { DlqRecovery } from "../../../components/DlqRecovery";
import { DLQ_RECOVERY_RESULT_NAMES } from "../../../core/resources/dlqRecovery";

describe("components/DlqRecovery: outputs follow from the one declaration", () => {
  it("the component registers every declared output: each is an Output the engine fills", async () => {
    const registered: pulumi.runtime.MockResourceArgs[] = [];
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => {
          registered.push(args);
          return { id: `${args.name}-id`, state: { ...args.inputs, resumedCount: 7, complete: true } };
        },
        call: (args) => args.inputs,
      },
      "project",
      "stack",
      false,
    );
    const r = new DlqRecovery("outputs", { all: true, baseUrl: "http://127.0.0.1:1", token: "t" });
    for (const k of DLQ_RECOVERY_RESULT_NAMES) assert.ok(pulumi.Output.isInstance(r[k]), k);
    const value = (o: pulumi.Output<unknown>) => (o as unknown as { promise(): Promise<unknown> }).promise();
    assert.equal(await value(r.resumedCount), 7);
    assert.equal(await value(r.complete), true);
    assert.equal(registered.length, 1);
  });
});
