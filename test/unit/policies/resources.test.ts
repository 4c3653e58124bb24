/**
 * Which type tokens the policies check: the svc provider's (`svc:index:Account`,
 * `svc:index:DlqRecovery`, as a YAML program's resources have them) and the 0.2 dynamic ones
 * (stacks not yet upgraded), read from the one table `TYPES_OF_KIND`.
 */
import * as assert from "node:assert/strict";
import { isAccountUrn, parseAccountRef } from "../../../core/accountRef";
import {
  ACCOUNT_PROVIDER_TYPE,
  ACCOUNT_DYNAMIC_TYPE,
  DLQ_RECOVERY_PROVIDER_TYPE,
  DLQ_RECOVERY_DYNAMIC_TYPE,
  TYPES_OF_KIND,
  WORKFLOW_TYPE,
} from "../../../core/typeTokens";
import { kindOf } from "../../../policies/resources";
import {
  DAY_MS,
  DYNAMIC_TYPES,
  HOUR_MS,
  NOW,
  PROVIDER_TYPES,
  accountOutputs,
  check,
  happyStack,
  liveNone,
  onlyMessage,
  urnOf,
  type TypeSet,
} from "./helpers";

describe("policies: the type tokens of each kind", () => {
  it("names each kind by its provider token and its 0.2 token; any other type by itself", () => {
    assert.deepEqual(TYPES_OF_KIND, {
      Workflow: [WORKFLOW_TYPE],
      DlqRecovery: [DLQ_RECOVERY_PROVIDER_TYPE, DLQ_RECOVERY_DYNAMIC_TYPE],
      Account: [ACCOUNT_PROVIDER_TYPE, ACCOUNT_DYNAMIC_TYPE],
    });
    assert.equal(kindOf("svc:index:Account"), "Account");
    assert.equal(kindOf("pulumi-nodejs:dynamic/svc:Account"), "Account");
    assert.equal(kindOf("svc:index:DlqRecovery"), "DlqRecovery");
    assert.equal(kindOf("pulumi-nodejs:dynamic/svc:DlqRecovery"), "DlqRecovery");
    assert.equal(kindOf("svc:index:Workflow"), "Workflow");
    assert.equal(kindOf("svc:index:Other"), "svc:index:Other");
  });

  it("reads an `account` that is the URN of an Account of either token as that Account", () => {
    for (const type of [ACCOUNT_PROVIDER_TYPE, ACCOUNT_DYNAMIC_TYPE]) {
      assert.equal(isAccountUrn(urnOf(type, "payg")), true, type);
      assert.deepEqual(parseAccountRef(urnOf(type, "payg")), {
        kind: "resource",
        urn: urnOf(type, "payg"),
        name: "payg",
      });
    }
    assert.equal(isAccountUrn(urnOf(DLQ_RECOVERY_PROVIDER_TYPE, "replay")), false);
  });
});

for (const [tokens, types] of [
  ["the svc provider's tokens", PROVIDER_TYPES],
  ["the 0.2 tokens", DYNAMIC_TYPES],
] as [string, TypeSet][]) {
  describe(`policies over a stack with ${tokens} (${types.Account}, ${types.DlqRecovery})`, () => {
    it("workflow-max-parallelism: takes the limit from the Account resource, reports the Workflow", async () => {
      const s = happyStack();
      s.accounts.account = accountOutputs({ maxParallelism: 1 });
      const out = await check("workflow-max-parallelism", s, { live: liveNone(), types });
      assert.deepEqual(out.violations, [
        {
          message:
            "Workflow `orders` must not set flowControl.parallelism above 1 (account max_parallelism, from the " +
            "Account resource `account`); it sets 2.",
          urn: urnOf(WORKFLOW_TYPE, "orders"),
        },
      ]);
    });

    it("workflow-max-retries: reports a DlqRecovery's override, on the DlqRecovery", async () => {
      const s = happyStack();
      s.recoveries.replay.retries = 1000;
      const out = await check("workflow-max-retries", s, { types });
      assert.deepEqual(out.violations, [
        {
          message:
            "DlqRecovery `replay` must not override retries above 999 (account max_retries, from the live " +
            "account record); it sets 1000.",
          urn: urnOf(types.DlqRecovery, "replay"),
        },
      ]);
    });

    it("a Workflow bound to an Account by URN is checked against that Account", async () => {
      const s = happyStack();
      s.accounts.payg = accountOutputs({ maxRetries: 2, accountId: "acct-payg" });
      s.workflows.orders.account = urnOf(types.Account, "payg");
      const out = await check("workflow-max-retries", s, { live: liveNone(), types });
      assert.match(
        onlyMessage(out),
        /^Workflow `orders` .* above 2 \(.*the Account resource `payg`\); it sets 3\.$/,
      );
    });

    it("a Workflow bound to an Account's accountId is checked against that Account", async () => {
      const s = happyStack();
      s.accounts.payg = accountOutputs({ maxParallelism: 1, accountId: "acct-payg" });
      s.workflows.orders.account = "acct-payg";
      const out = await check("workflow-max-parallelism", s, { live: liveNone(), types });
      assert.match(
        onlyMessage(out),
        /^Workflow `orders` .* above 1 \(.*the Account resource `payg`\); it sets 2\.$/,
      );
    });

    it("workflow-max-global-parallelism: counts the DlqRecovery's key", async () => {
      const s = happyStack();
      s.recoveries.replay.flowControl = { key: "replay", parallelism: 9 };
      assert.match(
        onlyMessage(await check("workflow-max-global-parallelism", s, { types })),
        /allow 12 runs .* `replay` 9 \(DlqRecovery `replay`\)\.$/,
      );
    });

    it("dlq-recovery-retention-window: reports the DlqRecovery's fromDate", async () => {
      const s = happyStack();
      s.recoveries.replay.fromDate = NOW - 5 * DAY_MS;
      const out = await check("dlq-recovery-retention-window", s, { types });
      assert.equal(out.violations.length, 1);
      assert.match(out.violations[0].message, /^DlqRecovery `replay` selects runs that failed from /);
      assert.equal(out.violations[0].urn, urnOf(types.DlqRecovery, "replay"));
    });

    it("dlq-recovery-overlap: compares the DlqRecoveries", async () => {
      const s = happyStack();
      s.recoveries.billing = { all: true, fromDate: NOW - HOUR_MS };
      assert.match(
        onlyMessage(await check("dlq-recovery-overlap", s, { types })),
        /^DlqRecovery `billing` \(`all: true`\) and DlqRecovery `replay` /,
      );
    });
  });
}
