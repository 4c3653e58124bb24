import * as assert from "node:assert/strict";
import { DLQ_RECOVERY_DYNAMIC_TYPE, WORKFLOW_TYPE } from "../../../core/typeTokens";
import {
  UNKNOWN,
  accountOutputs,
  check,
  happyStack,
  liveNone,
  liveOk,
  onlyMessage,
  urnOf,
  uncheckedOf,
} from "./helpers";

const POLICY = "workflow-max-parallelism";

describe("policy workflow-max-parallelism", () => {
  it("passes the happy path (parallelism 2 and 1 within max_parallelism 2)", async () => {
    const out = await check(POLICY, happyStack());
    assert.deepEqual(out.violations, []);
    assert.equal(out.unknown, undefined);
  });

  it("reports a Workflow's flowControl.parallelism above the live max_parallelism", async () => {
    const s = happyStack();
    (s.workflows.orders.flowControl as Record<string, unknown>).parallelism = 5;
    const out = await check(POLICY, s);
    assert.deepEqual(out.violations, [
      {
        message:
          "Workflow `orders` must not set flowControl.parallelism above 2 (account max_parallelism, from the live " +
          "account record); it sets 5.",
        urn: urnOf(WORKFLOW_TYPE, "orders"),
      },
    ]);
  });

  it("reports a DlqRecovery's flowControl.parallelism override above the limit", async () => {
    const s = happyStack();
    (s.recoveries.replay.flowControl as Record<string, unknown>).parallelism = 3;
    const out = await check(POLICY, s);
    assert.deepEqual(out.violations, [
      {
        message:
          "DlqRecovery `replay` must not override flowControl.parallelism above 2 (account max_parallelism, from the " +
          "live account record); it sets 3.",
        urn: urnOf(DLQ_RECOVERY_DYNAMIC_TYPE, "replay"),
      },
    ]);
  });

  it("takes a static limit from the policy config", async () => {
    const out = await check(POLICY, happyStack(), { config: { maxParallelism: 1 } });
    assert.equal(
      onlyMessage(out),
      "Workflow `orders` must not set flowControl.parallelism above 1 (account max_parallelism, from the policy " +
        "pack config `workflow-max-parallelism.maxParallelism`); it sets 2.",
    );
    assert.equal(out.live.calls, 0);
  });

  it("takes the limit from an Account resource", async () => {
    const s = happyStack();
    s.accounts.account = accountOutputs({ maxParallelism: 1 });
    const out = await check(POLICY, s, { live: liveNone() });
    assert.match(
      onlyMessage(out),
      /^Workflow `orders` .* above 1 \(account max_parallelism, from the Account resource `account`\); it sets 2\.$/,
    );
  });

  it("follows a plan change of the live record (paid: 10)", async () => {
    const s = happyStack();
    (s.workflows.orders.flowControl as Record<string, unknown>).parallelism = 5;
    assert.deepEqual((await check(POLICY, s, { live: liveOk({ max_parallelism: 10 }) })).violations, []);
  });

  it("reports an unknown flowControl.parallelism as unknown", async () => {
    const s = happyStack();
    (s.workflows.orders.flowControl as Record<string, unknown>).parallelism = UNKNOWN;
    const out = await check(POLICY, s);
    assert.deepEqual(out.violations, []);
    assert.match(
      out.unknown ?? "",
      /^Workflow `orders`: `flowControl.parallelism` is unknown .* against max_parallelism/,
    );
  });

  it("fails closed on a DlqRecovery's wholly unknown flowControl (never deferred)", async () => {
    const s = happyStack();
    s.recoveries.replay.flowControl = UNKNOWN;
    const out = await check(POLICY, s);
    assert.deepEqual(out.violations, []);
    assert.equal(out.unknown, undefined);
    assert.deepEqual(uncheckedOf(out.pack), [
      "max_parallelism: DlqRecovery `replay`: its `flowControl.parallelism` is unknown during this preview. " +
        "A DlqRecovery is never deferred to `up` (its drain cannot be undone).",
    ]);
  });

  it("ignores flow control without parallelism (rate only)", async () => {
    const s = happyStack();
    s.workflows.orders.flowControl = { key: "orders", rate: 100 };
    s.workflows.billing.flowControl = { key: "billing", rate: 100 };
    delete s.recoveries.replay.flowControl;
    const out = await check(POLICY, s);
    assert.deepEqual(out.violations, []);
    assert.equal(out.live.calls, 0);
  });
});
