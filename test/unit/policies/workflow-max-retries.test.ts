import * as assert from "node:assert/strict";
import { DLQ_RECOVERY_DYNAMIC_TYPE, WORKFLOW_TYPE } from "../../../core/typeTokens";
import {
  UNKNOWN,
  accountOutputs,
  check,
  happyStack,
  liveFailed,
  liveNone,
  liveOk,
  onlyMessage,
  urnOf,
  uncheckedOf,
} from "./helpers";

const POLICY = "workflow-max-retries";

describe("policy workflow-max-retries", () => {
  it("passes the happy path, with the limit from the live record", async () => {
    const out = await check(POLICY, happyStack());
    assert.deepEqual(out.violations, []);
    assert.equal(out.unknown, undefined);
    assert.equal(out.live.calls, 1);
  });

  it("reports a Workflow's retries above the live max_retries, on the Workflow", async () => {
    const s = happyStack();
    s.workflows.orders.retries = 1000;
    const out = await check(POLICY, s);
    assert.deepEqual(out.violations, [
      {
        message:
          "Workflow `orders` must not set retries above 999 (account max_retries, from the live account record); it sets 1000.",
        urn: urnOf(WORKFLOW_TYPE, "orders"),
      },
    ]);
  });

  it("passes retries equal to the limit", async () => {
    const s = happyStack();
    s.workflows.orders.retries = 999;
    assert.deepEqual((await check(POLICY, s)).violations, []);
  });

  it("reports a DlqRecovery's retries override above the limit", async () => {
    const s = happyStack();
    s.recoveries.replay.retries = 25;
    const out = await check(POLICY, s, { live: liveOk({ max_retries: 20 }) });
    assert.deepEqual(out.violations, [
      {
        message:
          "DlqRecovery `replay` must not override retries above 20 (account max_retries, from the live account record); it sets 25.",
        urn: urnOf(DLQ_RECOVERY_DYNAMIC_TYPE, "replay"),
      },
    ]);
  });

  it("takes a static limit from the policy config first, without reading the live record", async () => {
    const out = await check(POLICY, happyStack(), { config: { maxRetries: 2 } });
    assert.equal(
      onlyMessage(out),
      "Workflow `orders` must not set retries above 2 (account max_retries, from the policy pack config " +
        "`workflow-max-retries.maxRetries`); it sets 3.",
    );
    assert.equal(out.live.calls, 0);
  });

  it("takes the limit from an Account resource when the live record is not configured", async () => {
    const s = happyStack();
    s.accounts.account = accountOutputs({ maxRetries: 2 });
    const out = await check(POLICY, s, { live: liveNone() });
    assert.equal(
      onlyMessage(out),
      "Workflow `orders` must not set retries above 2 (account max_retries, from the Account resource `account`); it sets 3.",
    );
  });

  it("uses the live record when an Account resource's outputs are unknown (first preview of a new stack)", async () => {
    const s = happyStack();
    s.workflows.orders.retries = 1000;
    s.accounts.account = { accountApiUrl: "http://127.0.0.1:1", maxRetries: UNKNOWN };
    assert.match(
      onlyMessage(await check(POLICY, s)),
      /above 999 \(account max_retries, from the live account record\)/,
    );
  });

  it("prefers the live record over an Account resource", async () => {
    const s = happyStack();
    s.accounts.account = accountOutputs({ maxRetries: 2 });
    assert.deepEqual((await check(POLICY, s)).violations, []);
  });

  it("without `account` and `svc:` settings, takes the strictest of several Accounts and says so", async () => {
    const s = happyStack();
    s.accounts.big = accountOutputs({ maxRetries: 50 });
    s.accounts.small = accountOutputs({ maxRetries: 2 });
    const out = await check(POLICY, s, { live: liveNone() });
    assert.equal(
      onlyMessage(out),
      "Workflow `orders` must not set retries above 2 (account max_retries, the strictest of the Accounts `big` (50), " +
        "`small` (2) (the stack has no `svc:` account settings)); it sets 3.",
    );
  });

  it("reports unknown retries as unknown: neither a pass nor a violation", async () => {
    const s = happyStack();
    s.workflows.orders.retries = UNKNOWN;
    const out = await check(POLICY, s);
    assert.deepEqual(out.violations, []);
    assert.equal(
      out.unknown,
      "Workflow `orders`: `retries` is unknown until the resources it depends on are created, so it cannot be " +
        "checked against max_retries in this preview (neither passed nor failed); the check runs again on `pulumi up`.",
    );
  });

  it("still reports known violations next to unknown values", async () => {
    const s = happyStack();
    s.workflows.orders.retries = UNKNOWN;
    s.recoveries.replay.retries = 1000;
    const out = await check(POLICY, s);
    assert.match(onlyMessage(out), /^DlqRecovery `replay` must not override retries above 999/);
    assert.match(out.unknown ?? "", /^Workflow `orders`: `retries` is unknown/);
  });

  it("checks nothing and reads nothing when no resource sets retries", async () => {
    const s = happyStack();
    delete s.workflows.orders.retries;
    delete s.recoveries.replay.retries;
    const out = await check(POLICY, s);
    assert.deepEqual(out.violations, []);
    assert.equal(out.live.calls, 0);
  });

  it("passes silently itself when no source has the limit (account-limits-source reports it)", async () => {
    const s = happyStack();
    s.workflows.orders.retries = 1_000_000;
    const out = await check(POLICY, s, { live: liveNone() });
    assert.deepEqual(out.violations, []);
    assert.deepEqual(uncheckedOf(out.pack), [
      "max_retries: DlqRecovery `replay`, Workflow `orders`: the live account record is not configured: set the " +
        "stack config `svc:accountApiUrl`, `svc:username`, `svc:password` (the password as a secret), or the " +
        "environment variables `SVC_ACCOUNT_API_URL`, `SVC_USERNAME`, `SVC_PASSWORD`. There is no Account " +
        "resource in this stack.",
    ]);
  });

  it("falls back to an Account resource when its outputs are known and the live source failed", async () => {
    const s = happyStack();
    s.accounts.account = accountOutputs({ maxRetries: 2 });
    const out = await check(POLICY, s, {
      live: liveFailed("the service rejected the credentials (HTTP 401)."),
    });
    assert.match(onlyMessage(out), /above 2 \(account max_retries, from the Account resource `account`\)/);
  });
});
