/**
 * Each resource is checked against its own account (`account` input): two Account resources,
 * an account ID with the pack config, the stack's `svc:` account, the strictest of several
 * Accounts, and `account` values that are no account.
 */
import * as assert from "node:assert/strict";
import { ACCOUNT_DYNAMIC_TYPE, DLQ_RECOVERY_DYNAMIC_TYPE, WORKFLOW_TYPE } from "../../../core/typeTokens";
import { describeDeferred } from "../../../policies/accountLimitsSource";
import {
  UNKNOWN,
  accountOutputs,
  check,
  fakeLive,
  freeRecord,
  happyStack,
  liveNone,
  liveOk,
  onlyMessage,
  runPack,
  pack,
  toResources,
  uncheckedOf,
  urnOf,
  type StackFixture,
} from "./helpers";

const POLICY = "workflow-max-parallelism";
const PAYG_ID = "00000000-0000-4000-8000-00000000beef";
const FREE_URL = "http://127.0.0.1:7001";
const PAYG_URL = "http://127.0.0.1:7002";

/** Two Accounts as a first preview shows them (inputs only), each with its own settings. */
function twoAccounts(): StackFixture {
  const s = happyStack();
  s.accounts.free = {
    accountApiUrl: FREE_URL,
    username: "free@example.com",
    password: "pw-free-not-for-messages",
  };
  s.accounts.payg = {
    accountApiUrl: PAYG_URL,
    username: "payg@example.com",
    password: "pw-payg-not-for-messages",
  };
  (s.workflows.orders.flowControl as Record<string, unknown>).parallelism = 5;
  s.workflows.orders.account = urnOf(ACCOUNT_DYNAMIC_TYPE, "payg");
  s.workflows.billing.account = urnOf(ACCOUNT_DYNAMIC_TYPE, "free");
  (s.workflows.billing.flowControl as Record<string, unknown>).parallelism = 5;
  return s;
}

/** A live source that answers per account API URL (free plan, pay-as-you-go), else "not configured". */
function liveByUrl() {
  return fakeLive((inputs) => {
    if (inputs.accountApiUrl === FREE_URL) return { status: "ok", record: freeRecord(), url: FREE_URL };
    if (inputs.accountApiUrl === PAYG_URL) {
      return { status: "ok", record: freeRecord({ id: PAYG_ID, max_parallelism: 10 }), url: PAYG_URL };
    }
    return { status: "not-configured" };
  });
}

describe("policies: each resource against its own account", () => {
  it("checks a Workflow bound to each of two Accounts against that Account's own live record", async () => {
    const live = liveByUrl();
    const out = await check(POLICY, twoAccounts(), { live });
    assert.deepEqual(out.violations, [
      {
        message:
          "Workflow `billing` must not set flowControl.parallelism above 2 (account max_parallelism, from the live " +
          "record of the Account `free`); it sets 5.",
        urn: urnOf(WORKFLOW_TYPE, "billing"),
      },
    ]);
  });

  it("reads each Account with its own settings together, once per account for every policy", async () => {
    const live = liveByUrl();
    await runPack(pack(live), toResources(twoAccounts()));
    const byAccount = live.inputs.filter((i) => i.accountApiUrl !== undefined);
    assert.deepEqual(byAccount.map((i) => [i.accountApiUrl, i.username, i.password]).sort(), [
      [FREE_URL, "free@example.com", "pw-free-not-for-messages"],
      [PAYG_URL, "payg@example.com", "pw-payg-not-for-messages"],
    ]);
  });

  it("falls back to an Account's outputs when its live record cannot be read", async () => {
    const s = twoAccounts();
    s.accounts.payg = accountOutputs({ accountApiUrl: PAYG_URL, maxParallelism: 4 });
    const live = fakeLive({
      status: "failed",
      message: "cannot reach the service at http://127.0.0.1:7002.",
    });
    const out = await check(POLICY, s, { live });
    assert.match(
      out.violations.map((v) => v.message).join("\n"),
      /^Workflow `orders` must not set flowControl.parallelism above 4 \(account max_parallelism, from the Account resource `payg`\); it sets 5\.$/m,
    );
  });

  it("never reads an Account that sets only some settings itself (no URL with another source's password)", async () => {
    const s = twoAccounts();
    delete s.accounts.payg.password; // its URL and username, the stack's password: not read
    const live = liveByUrl();
    const out = await check(POLICY, s, { live });
    assert.deepEqual(
      live.inputs.filter((i) => i.accountApiUrl === PAYG_URL),
      [],
    );
    // The Workflow bound to it fails closed (so does the unbound DlqRecovery: payg is one of the stack's Accounts).
    assert.deepEqual(uncheckedOf(out.pack).slice(0, 1), [
      "max_parallelism: Workflow `orders`: the Account `payg` sets `accountApiUrl`, `username` but not " +
        "`password`, so its record is not read (the pack reads it only with the Account's own URL, username and " +
        "password together, or with the stack's `svc:` settings when it sets none of them)",
    ]);
  });

  it("reads an Account that sets none of the settings with the stack's, in the stack's one read", async () => {
    const s = happyStack();
    s.accounts.shared = {};
    s.workflows.orders.account = urnOf(ACCOUNT_DYNAMIC_TYPE, "shared");
    (s.workflows.orders.flowControl as Record<string, unknown>).parallelism = 3;
    const live = liveOk();
    const out = await check(POLICY, s, { live });
    assert.match(
      onlyMessage(out),
      /above 2 \(account max_parallelism, from the live record of the Account `shared`\)/,
    );
    assert.equal(live.calls, 1);
  });

  it("checks a resource bound to an account ID against the pack config `accounts`", async () => {
    const s = happyStack();
    s.workflows.orders.account = PAYG_ID;
    (s.workflows.orders.flowControl as Record<string, unknown>).parallelism = 12;
    const out = await check(POLICY, s, { config: { accounts: { [PAYG_ID]: 10 } } });
    assert.equal(
      onlyMessage(out),
      "Workflow `orders` must not set flowControl.parallelism above 10 (account max_parallelism, from the policy " +
        `pack config \`workflow-max-parallelism.accounts\` for the account "${PAYG_ID}"); it sets 12.`,
    );
  });

  it("takes an account ID's limits from the stack's live record when it is that account", async () => {
    const s = happyStack();
    s.workflows.orders.account = PAYG_ID;
    (s.workflows.orders.flowControl as Record<string, unknown>).parallelism = 12;
    const out = await check(POLICY, s, { live: liveOk({ id: PAYG_ID, max_parallelism: 10 }) });
    assert.match(
      onlyMessage(out),
      /above 10 \(account max_parallelism, from the live account record\); it sets 12\.$/,
    );
  });

  it("fails closed for an account ID that no source has (the stack's record is another account)", async () => {
    const s = happyStack();
    s.workflows.orders.account = PAYG_ID;
    const out = await check(POLICY, s);
    assert.deepEqual(out.violations, []);
    assert.deepEqual(uncheckedOf(out.pack), [
      `max_parallelism: Workflow \`orders\`: no source has the limits of the account "${PAYG_ID}": the policy pack ` +
        'config has none under "accounts" for it, no Account resource of this stack has that accountId, and the ' +
        'stack\'s `svc:` settings read the account "00000000-0000-4000-8000-000000000001"',
    ]);
  });

  it("without `account`, takes the strictest of several Accounts when the stack has no `svc:` settings", async () => {
    const s = happyStack();
    s.accounts.big = accountOutputs({ maxParallelism: 10 });
    s.accounts.small = accountOutputs({ maxParallelism: 1 });
    const out = await check(POLICY, s, { live: liveNone() });
    assert.equal(
      onlyMessage(out),
      "Workflow `orders` must not set flowControl.parallelism above 1 (account max_parallelism, the strictest of the " +
        "Accounts `big` (10), `small` (1) (the stack has no `svc:` account settings)); it sets 2.",
    );
  });

  it("says on a passing preview which resources were checked against the strictest of several Accounts", async () => {
    const s = happyStack();
    s.accounts.big = accountOutputs({ maxParallelism: 10 });
    s.accounts.small = accountOutputs({ maxParallelism: 3 });
    const out = await runPack(pack(liveNone()), toResources(s));
    assert.deepEqual(out[POLICY].violations, []);
    assert.deepEqual(out["account-limits-source"].violations, []);
    const message = onlyMessage(out["account-limits-strictest"]);
    assert.match(message, /^These resources have no `account`, and were checked against the strictest limit/);
    assert.match(
      message,
      /max_parallelism \(workflow-max-parallelism\): DlqRecovery `replay`, Workflow `billing`, Workflow `orders`: the strictest of the Accounts `big` \(10\), `small` \(3\)/,
    );
    assert.match(message, /Set `account` on each/);
  });

  it("says nothing of the strictest limit with one Account, or when every resource names its account", async () => {
    const one = happyStack();
    one.accounts.only = accountOutputs({ maxParallelism: 10 });
    assert.deepEqual(
      (await runPack(pack(liveNone()), toResources(one)))["account-limits-strictest"].violations,
      [],
    );
    const live = await runPack(pack(liveOk()), toResources(happyStack()));
    assert.deepEqual(live["account-limits-strictest"].violations, []);
  });

  it("defers a Workflow whose `account` is unknown in preview, and fails a DlqRecovery closed", async () => {
    const s = happyStack();
    s.workflows.orders.account = UNKNOWN;
    s.recoveries.replay.account = UNKNOWN;
    const out = await check(POLICY, s);
    assert.deepEqual(out.violations, []);
    assert.equal(out.unknown, undefined, "said once, by account-limits-source");
    assert.match(
      describeDeferred(out.pack.context.peekNotes()) ?? "",
      /^Workflow `orders` \(max_parallelism\) is checked against the account's limits on `pulumi up` with `--policy-pack`, not in this preview: its `account` is unknown until the resources it depends on are created\.$/,
    );
    assert.deepEqual(uncheckedOf(out.pack), [
      "max_parallelism: DlqRecovery `replay`: its `account` is unknown until the resources it depends on are " +
        "created. A DlqRecovery is never deferred to `up` (its drain cannot be undone).",
    ]);
  });

  const bad: [string, unknown, RegExp][] = [
    [
      "a number",
      42,
      /^max_parallelism: DlqRecovery `replay`: `account` must be an `Account` resource or an account ID \(a non-empty string\); got 42\.$/,
    ],
    ["an empty string", "", /`account` must be .*; got ""\.$/],
    ["padded", " abc ", /without leading or trailing whitespace; got " abc "\.$/],
    [
      "another resource's URN",
      urnOf(DLQ_RECOVERY_DYNAMIC_TYPE, "other"),
      /got the URN of a resource that is not an Account/,
    ],
  ];
  for (const [what, value, expected] of bad) {
    it(`fails closed on an \`account\` that is no account: ${what}`, async () => {
      const s = happyStack();
      s.recoveries.replay.account = value;
      const out = await check(POLICY, s);
      assert.deepEqual(out.violations, []);
      const lines = uncheckedOf(out.pack);
      assert.equal(lines.length, 1, lines.join("\n"));
      assert.match(lines[0], expected);
    });
  }

  it("fails closed when the bound Account is not in the stack", async () => {
    const s = happyStack();
    s.recoveries.replay.account = urnOf(ACCOUNT_DYNAMIC_TYPE, "gone");
    const out = await check(POLICY, s);
    assert.deepEqual(uncheckedOf(out.pack), [
      "max_parallelism: DlqRecovery `replay`: its Account `gone` is not in this stack",
    ]);
  });

  it("sums global parallelism per account", async () => {
    const s = twoAccounts();
    s.accounts.payg.accountId = PAYG_ID;
    (s.workflows.orders.flowControl as Record<string, unknown>).parallelism = 9;
    (s.workflows.billing.flowControl as Record<string, unknown>).parallelism = 2;
    const out = await check("workflow-max-global-parallelism", s, {
      live: liveByUrl(),
      config: { accounts: { [PAYG_ID]: 8 } },
    });
    assert.equal(
      onlyMessage(out),
      "The flow-control keys of this stack's resources of the Account `payg` allow 9 runs in parallel in total, " +
        "above 8 (account max_global_parallelism, from the policy pack config " +
        `\`workflow-max-global-parallelism.accounts\` for the account "${PAYG_ID}"): \`orders\` 9 (Workflow \`orders\`).`,
    );
  });
});
