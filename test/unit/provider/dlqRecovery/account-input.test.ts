/**
 * `DlqRecovery`'s `account` input at the provider: its check, a change of `account` (a
 * connection setting: nothing is sent), a state written by 0.1.0 (no diff), and
 * a drain bound to an Account (paced by that Account's limit, no read of the stack's account).
 */
import { strict as assert } from "node:assert";
import { startEmulator, type RunningEmulator } from "../../../../emulator";
import { ACCOUNT_DYNAMIC_TYPE } from "../../../../core/typeTokens";
import { UNKNOWN } from "../../../../core/unknownValue";
import type { DlqRecoveryOutputs } from "../../../../provider/dlqRecovery/controller";
import { specHash } from "../../../../provider/dlqRecovery/inputs";
import {
  PASSWORD,
  TOKEN,
  USERNAME,
  dlqProvider,
  drainAll,
  happyDlq,
  requests,
  resumeRequests,
} from "../helpers";

const ACCOUNT_URN = `urn:pulumi:dev::proj::${ACCOUNT_DYNAMIC_TYPE}::payg`;

describe("provider/dlqRecovery: the `account` input", () => {
  describe("check", () => {
    const bad: [string, unknown, string][] = [
      [
        "a number",
        42,
        "`account` must be an `Account` resource or an account ID (a non-empty string); got 42.",
      ],
      ["an empty string", "", '; got "".'],
      ["whitespace around it", " acct ", "without leading or trailing whitespace"],
      ["another resource's URN", "urn:pulumi:dev::proj::svc:index:Workflow::orders", "not an Account"],
    ];
    for (const [what, value, reason] of bad) {
      it(`refuses ${what}, naming \`account\``, async () => {
        const { provider } = dlqProvider();
        const r = await provider.check({}, happyDlq("filters", { account: value }));
        const failures = r.failures ?? [];
        assert.equal(failures.length, 1, JSON.stringify(failures));
        assert.equal(failures[0].property, "account");
        assert.ok(failures[0].reason.includes(reason), failures[0].reason);
      });
    }

    for (const [what, value] of [
      ["an account ID", "00000000-0000-4000-8000-000000000001"],
      ["an Account's URN", ACCOUNT_URN],
      ["a value unknown in preview", UNKNOWN],
    ]) {
      it(`accepts ${what}`, async () => {
        const { provider } = dlqProvider();
        const r = await provider.check({}, happyDlq("filters", { account: value }));
        assert.equal(r.failures, undefined);
      });
    }
  });

  describe("diff and update", () => {
    let emu: RunningEmulator;
    beforeEach(async () => {
      emu = await startEmulator({ token: TOKEN, username: USERNAME, password: PASSWORD });
      emu.seed(30);
    });
    afterEach(async () => emu.close());

    it("a change of `account` is a connection change: a change, and update sends nothing", async () => {
      const { provider, logs } = dlqProvider();
      const inputs = drainAll(emu, { account: ACCOUNT_URN, accountLimits: { maxRequestsPerSecond: 50 } });
      const c = await provider.create(inputs);
      const news = { ...inputs, account: "00000000-0000-4000-8000-000000000002" };
      assert.equal((await provider.diff(c.id, c.outs, news)).changes, true);
      assert.match(
        logs[logs.length - 1],
        /only connection or tuning inputs changed; the next up sends nothing/,
      );
      const before = emu.state.log.total;
      const r = await provider.update(c.id, c.outs, news);
      assert.equal(emu.state.log.total, before);
      assert.equal(r.outs.account, news.account);
      assert.equal(r.outs.resumedCount, 30);
    });

    it("a change of the bound Account's limits alone is no change", async () => {
      const { provider } = dlqProvider();
      const inputs = drainAll(emu, { account: ACCOUNT_URN, accountLimits: { maxRequestsPerSecond: 50 } });
      const c = await provider.create(inputs);
      const news = { ...inputs, accountLimits: { maxRequestsPerSecond: 100 } };
      assert.equal((await provider.diff(c.id, c.outs, news)).changes, false);
    });

    it("a bound drain is paced by the Account's limit and reads no account record", async () => {
      const { provider, shared } = dlqProvider({
        config: { "svc:accountApiUrl": emu.url, "svc:username": USERNAME, "svc:password": PASSWORD },
      });
      await provider.create(
        drainAll(emu, { account: ACCOUNT_URN, accountLimits: { maxRequestsPerSecond: 7 } }),
      );
      assert.equal(shared.rateGates.forAccount(emu.url, TOKEN).ratePerSecond, 7);
      assert.equal(requests(emu).filter((r) => r.path === "/v2/svc/user").length, 0);
      assert.equal(resumeRequests(emu).length > 0, true);
    });

    it("the stack's account is read once per provider process; a read that failed is sent again", async () => {
      const config = { "svc:accountApiUrl": emu.url, "svc:username": USERNAME, "svc:password": PASSWORD };
      const reads = () => requests(emu).filter((r) => r.path === "/v2/svc/user").length;
      const first = dlqProvider({ config });
      emu.setFaults({ endpoints: ["account"], malformedJson: true });
      await first.provider.create(drainAll(emu, { recoveryName: "a" }));
      assert.equal(reads(), 1);
      assert.equal(first.shared.rateGates.forAccount(emu.url, TOKEN).stats().explicitLimit, undefined);

      emu.setFaults({});
      emu.seed(30);
      const second = dlqProvider({ config, shared: first.shared });
      await second.provider.create(drainAll(emu, { recoveryName: "b" }));
      assert.equal(reads(), 2, "the failed read is not kept: the next drain asks again");
      emu.seed(30);
      const third = dlqProvider({ config, shared: first.shared });
      await third.provider.create(drainAll(emu, { recoveryName: "c" }));
      assert.equal(reads(), 2, "the read that succeeded is kept for the process");
      assert.equal(
        first.shared.rateGates.forAccount(emu.url, TOKEN).stats().explicitLimit,
        emu.state.account.record.max_requests_per_second,
      );

      const otherProcess = dlqProvider({ config });
      emu.seed(30);
      await otherProcess.provider.create(drainAll(emu, { recoveryName: "d" }));
      assert.equal(reads(), 3, "another provider process reads for itself");
    });
  });

  it("a state written by 0.1.0 (no `account`) shows no diff against the same program", async () => {
    // The inputs and outputs of a completed filter drain exactly as release 0.1.0 stores them.
    const news = {
      workflowUrl: "http://127.0.0.1/workflows/orders",
      fromDate: 1_750_000_000_000,
      retries: 2,
      baseUrl: "http://127.0.0.1:4000",
      token: TOKEN,
      recoveryName: "incident-42",
    };
    const olds = {
      workflowUrl: "http://127.0.0.1/workflows/orders",
      fromDate: 1_750_000_000_000,
      retries: 2,
      baseUrl: "http://127.0.0.1:4000",
      recoveryName: "incident-42",
      resumedCount: 3,
      requestCount: 1,
      resumedRuns: [],
      resumedRunsTruncated: true,
      ambiguousRequests: 0,
      unconfirmedDlqIds: [],
      overrideHeaders: { "Svc-Retries": "2" },
      startedAt: "2026-11-20T08:00:00.000Z",
      finishedAt: "2026-11-20T08:00:01.000Z",
      complete: true,
      specHash: "e793a2baa8bbe1aa", // as 0.1.0 computed it for these inputs
    } as unknown as DlqRecoveryOutputs;
    const { provider } = dlqProvider();
    const checked = await provider.check(olds, news);
    assert.equal(checked.failures, undefined);
    // Today's hash of these inputs is the one 0.1.0 stored.
    assert.equal(specHash(news), olds.specHash);
    assert.equal((await provider.diff("dlqr-1", olds, checked.inputs ?? news)).changes, false);
  });
});
