import * as assert from "node:assert/strict";
import { WORKFLOW_TYPE } from "../../../core/typeTokens";
import { UNKNOWN, accountOutputs, check, happyStack, liveNone, onlyMessage, urnOf } from "./helpers";

const POLICY = "workflow-max-delay";

describe("policy workflow-max-delay", () => {
  it("passes the happy path (10 minutes within 7 days)", async () => {
    const out = await check(POLICY, happyStack());
    assert.deepEqual(out.violations, []);
    assert.equal(out.unknown, undefined);
  });

  it("reports a Workflow's delay above the live max_delay, in seconds and days", async () => {
    const s = happyStack();
    s.workflows.orders.delaySeconds = 8 * 86_400;
    const out = await check(POLICY, s);
    assert.deepEqual(out.violations, [
      {
        message:
          "Workflow `orders` must not set delay above 604800 seconds (7d) (account max_delay, from the live account " +
          "record); it sets 691200 seconds (8d).",
        urn: urnOf(WORKFLOW_TYPE, "orders"),
      },
    ]);
  });

  it("passes a delay equal to the limit", async () => {
    const s = happyStack();
    s.workflows.orders.delaySeconds = 604_800;
    assert.deepEqual((await check(POLICY, s)).violations, []);
  });

  it("reads the `delay` input (a duration string) when there is no `delaySeconds`", async () => {
    const s = happyStack();
    delete s.workflows.orders.delaySeconds;
    s.workflows.orders.delay = "8d";
    assert.match(onlyMessage(await check(POLICY, s)), /it sets 691200 seconds \(8d\)\.$/);
  });

  it("takes a static limit from the policy config", async () => {
    const out = await check(POLICY, happyStack(), { config: { maxDelay: 60 } });
    assert.equal(
      onlyMessage(out),
      "Workflow `orders` must not set delay above 60 seconds (1m) (account max_delay, from the policy pack config " +
        "`workflow-max-delay.maxDelay`); it sets 600 seconds (10m).",
    );
  });

  it("takes the limit from an Account resource", async () => {
    const s = happyStack();
    s.accounts.account = accountOutputs({ maxDelay: 300 });
    const out = await check(POLICY, s, { live: liveNone() });
    assert.match(
      onlyMessage(out),
      /above 300 seconds \(5m\) \(account max_delay, from the Account resource `account`\)/,
    );
  });

  it("reports an unknown delay as unknown", async () => {
    const s = happyStack();
    s.workflows.orders.delaySeconds = UNKNOWN;
    const out = await check(POLICY, s);
    assert.deepEqual(out.violations, []);
    assert.match(out.unknown ?? "", /^Workflow `orders`: `delay` is unknown .* against max_delay/);
  });

  it("does not check DlqRecovery (it has no delay override)", async () => {
    const s = happyStack();
    delete s.workflows.orders.delaySeconds;
    s.recoveries.replay.delay = "30d";
    const out = await check(POLICY, s);
    assert.deepEqual(out.violations, []);
    assert.equal(out.live.calls, 0);
  });
});
