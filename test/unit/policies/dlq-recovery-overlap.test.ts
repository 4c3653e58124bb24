import * as assert from "node:assert/strict";
import { ACCOUNT_DYNAMIC_TYPE, DLQ_RECOVERY_DYNAMIC_TYPE } from "../../../core/typeTokens";
import { HOUR_MS, NOW, UNKNOWN, check, happyStack, onlyMessage, urnOf, type StackFixture } from "./helpers";

const POLICY = "dlq-recovery-overlap";

/** The happy path plus a second recovery of another workflow URL (disjoint from `replay`). */
function twoRecoveries(): StackFixture {
  const s = happyStack();
  s.recoveries.billing = { workflowUrl: "https://example.com/api/billing", fromDate: NOW - HOUR_MS };
  return s;
}

describe("policy dlq-recovery-overlap", () => {
  it("passes the happy path (different workflowUrls) and reads no account", async () => {
    const out = await check(POLICY, twoRecoveries());
    assert.deepEqual(out.violations, []);
    assert.equal(out.live.calls, 0);
  });

  it("reports `all: true` beside a workflowUrl filter, naming both and why", async () => {
    const s = twoRecoveries();
    s.recoveries.billing = { all: true };
    const out = await check(POLICY, s);
    assert.deepEqual(out.violations, [
      {
        message:
          "DlqRecovery `billing` (`all: true`) and DlqRecovery `replay` (`workflowUrl` " +
          `"https://example.com/api/orders", \`fromDate\` ${NOW - HOUR_MS}, \`toDate\` ${NOW}), both on the stack's ` +
          "`svc:` account, may select the same DLQ entries: DlqRecovery `billing` selects every entry, the other's " +
          "included. In one `up` they drain in parallel, and which one resumes an entry, with its overrides, depends " +
          "on timing. Make the selections disjoint (different `workflowUrl`s, disjoint `dlqIds` or failure-time " +
          "windows that do not meet), or merge them into one DlqRecovery.",
        urn: urnOf(DLQ_RECOVERY_DYNAMIC_TYPE, "replay"),
      },
    ]);
  });

  it("reports the same workflowUrl with overlapping windows", async () => {
    const s = twoRecoveries();
    s.recoveries.billing.workflowUrl = "https://example.com/api/orders";
    assert.match(
      onlyMessage(await check(POLICY, s)),
      /neither different `workflowUrl`s, disjoint `dlqIds` nor/,
    );
  });

  it("does not report the same workflowUrl with windows that do not meet", async () => {
    const s = twoRecoveries();
    s.recoveries.billing = { workflowUrl: "https://example.com/api/orders", toDate: NOW - HOUR_MS - 1 };
    assert.deepEqual((await check(POLICY, s)).violations, []);
  });

  it("reports dlqIds lists that share IDs, naming them", async () => {
    const s = happyStack();
    s.recoveries.replay = { dlqIds: ["a", "b", "c"] };
    s.recoveries.again = { dlqIds: ["c", "d", "b"] };
    assert.match(onlyMessage(await check(POLICY, s)), /: both resume the DLQ IDs "b", "c"\./);
  });

  it("does not report disjoint dlqIds lists", async () => {
    const s = happyStack();
    s.recoveries.replay = { dlqIds: ["a", "b"] };
    s.recoveries.again = { dlqIds: ["c"] };
    assert.deepEqual((await check(POLICY, s)).violations, []);
  });

  it("reports dlqIds beside a filter (the IDs may be of that workflow)", async () => {
    const s = twoRecoveries();
    s.recoveries.billing = { dlqIds: ["a"] };
    assert.equal((await check(POLICY, s)).violations.length, 1);
  });

  it("reports a workflowUrl unknown in preview (not provably disjoint)", async () => {
    const s = twoRecoveries();
    s.recoveries.billing.workflowUrl = UNKNOWN;
    assert.match(onlyMessage(await check(POLICY, s)), /`workflowUrl` \(unknown in this preview\)/);
  });

  it("does not compare recoveries on different accounts", async () => {
    const s = twoRecoveries();
    s.recoveries.billing = { all: true, account: urnOf(ACCOUNT_DYNAMIC_TYPE, "payg") };
    s.accounts.payg = {};
    assert.deepEqual((await check(POLICY, s)).violations, []);
  });

  it("compares an Account-bound recovery with one bound to that Account's accountId", async () => {
    const s = twoRecoveries();
    s.accounts.payg = { accountId: "acct-1" };
    s.recoveries.replay.account = urnOf(ACCOUNT_DYNAMIC_TYPE, "payg");
    s.recoveries.billing = { all: true, account: "acct-1" };
    assert.match(onlyMessage(await check(POLICY, s)), /both on the Account `payg`/);
  });

  it("does not compare a recovery that ran to completion", async () => {
    const s = twoRecoveries();
    s.recoveries.billing = { all: true, complete: true };
    assert.deepEqual((await check(POLICY, s)).violations, []);
  });
});
