import * as assert from "node:assert/strict";
import { UNKNOWN, accountOutputs, check, happyStack, liveNone, onlyMessage } from "./helpers";

const POLICY = "workflow-max-global-parallelism";

describe("policy workflow-max-global-parallelism", () => {
  it("passes the happy path (keys orders 2 + billing 1 = 3 of 10)", async () => {
    const out = await check(POLICY, happyStack());
    assert.deepEqual(out.violations, []);
    assert.equal(out.unknown, undefined);
  });

  it("reports the sum of the keys' parallelism above the live max_global_parallelism, on the stack", async () => {
    const s = happyStack();
    (s.workflows.billing.flowControl as Record<string, unknown>).parallelism = 9;
    const out = await check(POLICY, s);
    assert.deepEqual(out.violations, [
      {
        message:
          "The flow-control keys of this stack allow 11 runs in parallel in total, above 10 (account " +
          "max_global_parallelism, from the live account record): `billing` 9 (Workflow `billing`), `orders` 2 " +
          "(Workflow `orders`, DlqRecovery `replay`).",
      },
    ]);
  });

  it("counts a key once, with its highest parallelism", async () => {
    const s = happyStack();
    // `orders`: Workflow 2 and DlqRecovery 9 → 9; plus `billing` 1 = 10: within the limit.
    (s.recoveries.replay.flowControl as Record<string, unknown>).parallelism = 9;
    assert.deepEqual((await check(POLICY, s)).violations, []);
    // `orders` → 10; plus `billing` 1 = 11.
    (s.recoveries.replay.flowControl as Record<string, unknown>).parallelism = 10;
    assert.match(
      onlyMessage(await check(POLICY, s)),
      /allow 11 runs in parallel in total, above 10 .*: `billing` 1 \(Workflow `billing`\), `orders` 10 \(Workflow `orders`, DlqRecovery `replay`\)\.$/,
    );
  });

  it("adds nothing for a DlqRecovery override without a key", async () => {
    const s = happyStack();
    s.recoveries.replay.flowControl = { parallelism: 20 };
    assert.deepEqual((await check(POLICY, s)).violations, []);
  });

  it("takes a static limit from the policy config", async () => {
    const out = await check(POLICY, happyStack(), { config: { maxGlobalParallelism: 2 } });
    assert.match(
      onlyMessage(out),
      /allow 3 runs in parallel in total, above 2 \(account max_global_parallelism, from the policy pack config `workflow-max-global-parallelism.maxGlobalParallelism`\)/,
    );
  });

  it("takes the limit from an Account resource", async () => {
    const s = happyStack();
    s.accounts.account = accountOutputs({ maxGlobalParallelism: 2 });
    assert.match(
      onlyMessage(await check(POLICY, s, { live: liveNone() })),
      /above 2 \(account max_global_parallelism, from the Account resource `account`\)/,
    );
  });

  it("reports an unknown parallelism as unknown, and a known excess as 'at least'", async () => {
    const s = happyStack();
    (s.workflows.orders.flowControl as Record<string, unknown>).parallelism = UNKNOWN;
    let out = await check(POLICY, s);
    assert.deepEqual(out.violations, []);
    assert.match(
      out.unknown ?? "",
      /^Workflow `orders`: `flowControl.parallelism` is unknown .* max_global_parallelism/,
    );

    (s.workflows.billing.flowControl as Record<string, unknown>).parallelism = 11;
    out = await check(POLICY, s);
    assert.match(onlyMessage(out), /allow at least 12 runs in parallel in total, above 10/);
    assert.match(out.unknown ?? "", /^Workflow `orders`: `flowControl.parallelism` is unknown/);
  });

  it("reports an unknown key as unknown", async () => {
    const s = happyStack();
    (s.workflows.billing.flowControl as Record<string, unknown>).key = UNKNOWN;
    assert.match((await check(POLICY, s)).unknown ?? "", /^Workflow `billing`: `flowControl.key` is unknown/);
  });
});
