import * as assert from "node:assert/strict";
import { DLQ_RECOVERY_DYNAMIC_TYPE } from "../../../core/typeTokens";
import {
  DAY_MS,
  NOW,
  UNKNOWN,
  accountOutputs,
  check,
  happyStack,
  liveNone,
  onlyMessage,
  urnOf,
  uncheckedOf,
} from "./helpers";

const POLICY = "dlq-recovery-retention-window";
const CUTOFF = new Date(NOW - 3 * DAY_MS).toISOString(); // free plan: 3 days

describe("policy dlq-recovery-retention-window", () => {
  it("passes the happy path (a window within the last hour)", async () => {
    const out = await check(POLICY, happyStack());
    assert.deepEqual(out.violations, []);
    assert.equal(out.unknown, undefined);
  });

  it("reports a fromDate older than the live retention, on the DlqRecovery", async () => {
    const s = happyStack();
    s.recoveries.replay.fromDate = NOW - 5 * DAY_MS;
    const out = await check(POLICY, s);
    assert.deepEqual(out.violations, [
      {
        message:
          `DlqRecovery \`replay\` selects runs that failed from ${new Date(NOW - 5 * DAY_MS).toISOString()} ` +
          `(fromDate ${NOW - 5 * DAY_MS}), but the DLQ keeps entries for 259200000 ms (3d) (account ` +
          "max_dlq_retention_time_milis, from the live account record): runs that failed before " +
          `${CUTOFF} are no longer in the DLQ and will not be resumed.`,
        urn: urnOf(DLQ_RECOVERY_DYNAMIC_TYPE, "replay"),
      },
    ]);
  });

  it("reports a window that ends before the retention as resuming nothing", async () => {
    const s = happyStack();
    s.recoveries.replay.fromDate = NOW - 10 * DAY_MS;
    s.recoveries.replay.toDate = NOW - 4 * DAY_MS;
    assert.match(
      onlyMessage(await check(POLICY, s)),
      /\(toDate \d+\), but .*before .*, so it resumes nothing\.$/,
    );
  });

  it("takes a static limit from the policy config", async () => {
    const out = await check(POLICY, happyStack(), { config: { maxDlqRetentionTimeMilis: 60_000 } });
    assert.match(
      onlyMessage(out),
      /keeps entries for 60000 ms \(1m\) \(account max_dlq_retention_time_milis, from the policy pack config `dlq-recovery-retention-window.maxDlqRetentionTimeMilis`\)/,
    );
  });

  it("takes the limit from an Account resource", async () => {
    const s = happyStack();
    s.accounts.account = accountOutputs({ maxDlqRetentionTimeMilis: 60_000 });
    assert.match(
      onlyMessage(await check(POLICY, s, { live: liveNone() })),
      /from the Account resource `account`\)/,
    );
  });

  it("skips a DlqRecovery that already ran to completion", async () => {
    const s = happyStack();
    s.recoveries.replay.fromDate = NOW - 5 * DAY_MS;
    s.recoveries.replay.complete = true;
    const out = await check(POLICY, s);
    assert.deepEqual(out.violations, []);
    assert.equal(out.live.calls, 0);
  });

  it("fails closed on an unknown fromDate: a DlqRecovery is never deferred", async () => {
    const s = happyStack();
    s.recoveries.replay.fromDate = UNKNOWN;
    const out = await check(POLICY, s);
    assert.deepEqual(out.violations, []);
    assert.equal(out.unknown, undefined);
    assert.deepEqual(uncheckedOf(out.pack), [
      "max_dlq_retention_time_milis: DlqRecovery `replay`: its `fromDate` is unknown during this preview. " +
        "A DlqRecovery is never deferred to `up` (its drain cannot be undone).",
    ]);
  });

  it("checks nothing for a selection by IDs (no window)", async () => {
    const s = happyStack();
    delete s.recoveries.replay.fromDate;
    delete s.recoveries.replay.toDate;
    s.recoveries.replay.dlqIds = ["dlq-1"];
    const out = await check(POLICY, s);
    assert.deepEqual(out.violations, []);
    assert.equal(out.live.calls, 0);
  });
});
