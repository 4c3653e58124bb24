import * as assert from "node:assert/strict";
import {
  UNKNOWN,
  accountOutputs,
  fakeLive,
  happyStack,
  liveFailed,
  liveNone,
  liveOk,
  pack,
  runPack,
  toResources,
} from "./helpers";

const SOURCE = "account-limits-source";
const LIMIT_POLICIES = [
  "workflow-max-parallelism",
  "workflow-max-retries",
  "workflow-max-delay",
  "workflow-max-global-parallelism",
  "dlq-recovery-retention-window",
];

describe("policy account-limits-source", () => {
  it("says nothing on the happy path, and the live record is read once for all policies", async () => {
    const live = liveOk();
    const out = await runPack(pack(live), toResources(happyStack()));
    for (const name of [...LIMIT_POLICIES, SOURCE]) {
      assert.deepEqual(out[name], { violations: [] }, name);
    }
    assert.equal(live.calls, 1);
  });

  it("says once, clearly, that no source had the limits, naming the unchecked resources and every source", async () => {
    const out = await runPack(pack(liveNone()), toResources(happyStack()));
    for (const name of LIMIT_POLICIES) assert.deepEqual(out[name], { violations: [] }, name);
    assert.equal(out[SOURCE].violations.length, 1);
    assert.equal(out[SOURCE].violations[0].urn, undefined);
    assert.equal(
      out[SOURCE].violations[0].message,
      [
        "No account limit is available for these checks, so they did not run:",
        "  - max_parallelism (workflow-max-parallelism): DlqRecovery `replay`, Workflow `billing`, Workflow `orders`",
        "  - max_retries (workflow-max-retries): DlqRecovery `replay`, Workflow `orders`",
        "  - max_delay (workflow-max-delay): Workflow `orders`",
        "  - max_global_parallelism (workflow-max-global-parallelism): DlqRecovery `replay`, Workflow `billing`, Workflow `orders`",
        "  - max_dlq_retention_time_milis (dlq-recovery-retention-window): DlqRecovery `replay`",
        "Limits come from, in this order:",
        '  1. the policy pack config, e.g. {"workflow-max-parallelism": {"maxParallelism": <limit>}} in --policy-pack-config;',
        "  2. the live account record, which is not configured: set the stack config `svc:accountApiUrl`, " +
          "`svc:username`, `svc:password` (the password as a secret), or the environment variables " +
          "`SVC_ACCOUNT_API_URL`, `SVC_USERNAME`, `SVC_PASSWORD`;",
        "  3. an Account resource in this stack: there is none.",
      ].join("\n"),
    );
  });

  it("lists only the limits that were missing (static config covers the others)", async () => {
    const out = await runPack(pack(liveNone()), toResources(happyStack()), {
      "workflow-max-parallelism": { maxParallelism: 2 },
      "workflow-max-global-parallelism": { maxGlobalParallelism: 10 },
      "workflow-max-delay": { maxDelay: 604_800 },
      "dlq-recovery-retention-window": { maxDlqRetentionTimeMilis: 86_400_000 },
    });
    const message = out[SOURCE].violations[0]?.message ?? "";
    assert.match(
      message,
      /^ {2}- max_retries \(workflow-max-retries\): DlqRecovery `replay`, Workflow `orders`$/m,
    );
    assert.equal(message.match(/^ {2}- /gm)?.length, 1);
    assert.match(message, /e\.g\. \{"workflow-max-retries": \{"maxRetries": <limit>\}\}/);
  });

  it("says why the live record failed, without credentials, when no other source has the limit", async () => {
    const out = await runPack(
      pack(
        liveFailed(
          "the service at http://127.0.0.1:1 rejected the credentials (HTTP 401). Check those values.",
        ),
      ),
      toResources(happyStack()),
    );
    assert.match(
      out[SOURCE].violations[0].message,
      /^ {2}2\. the live account record, which could not be read: the service at http:\/\/127\.0\.0\.1:1 rejected the credentials \(HTTP 401\)\. Check those values;$/m,
    );
  });

  it("says an Account resource has no known values yet (first preview of a new stack)", async () => {
    const s = happyStack();
    s.accounts.account = {
      accountApiUrl: "http://127.0.0.1:1",
      maxParallelism: UNKNOWN,
      maxRetries: UNKNOWN,
    };
    const out = await runPack(pack(liveNone()), toResources(s));
    assert.match(
      out[SOURCE].violations[0].message,
      /^ {2}3\. an Account resource in this stack: Account `account` has no known values yet \(an Account's outputs are unknown until its first `pulumi up`\)\.$/m,
    );
  });

  it("reports a failed live record once even when an Account resource had the limits", async () => {
    const s = happyStack();
    s.accounts.account = accountOutputs();
    const out = await runPack(
      pack(liveFailed("cannot reach the service at http://127.0.0.1:1.")),
      toResources(s),
    );
    for (const name of LIMIT_POLICIES) assert.deepEqual(out[name].violations, [], name);
    assert.deepEqual(out[SOURCE].violations, [
      {
        message:
          "The live account record could not be read: cannot reach the service at http://127.0.0.1:1. " +
          "The limits came from the policy pack config or an Account resource instead.",
      },
    ]);
  });

  it("reports an incompletely configured live source", async () => {
    const live = fakeLive({
      status: "incomplete",
      missing: ["password"],
      message:
        "`password` is missing: set the stack config `svc:password` or the environment variable `SVC_PASSWORD`",
    });
    const out = await runPack(pack(live), toResources(happyStack()));
    assert.match(
      out[SOURCE].violations[0].message,
      /2\. the live account record, which is not fully configured: `password` is missing: set the stack config `svc:password`/,
    );
  });

  it("says nothing when the stack has nothing to check", async () => {
    const live = liveNone();
    const out = await runPack(pack(live), toResources({ workflows: {}, recoveries: {}, accounts: {} }));
    assert.deepEqual(out[SOURCE], { violations: [] });
    assert.equal(live.calls, 0);
  });

  it("starts every run afresh, and the live record is still read only once per pack process", async () => {
    const live = liveNone();
    const p = pack(live);
    const first = await runPack(p, toResources(happyStack()));
    assert.equal(first[SOURCE].violations.length, 1);
    const second = await runPack(p, toResources(happyStack()), {
      "workflow-max-parallelism": { maxParallelism: 2 },
      "workflow-max-retries": { maxRetries: 999 },
      "workflow-max-delay": { maxDelay: 604_800 },
      "workflow-max-global-parallelism": { maxGlobalParallelism: 10 },
      "dlq-recovery-retention-window": { maxDlqRetentionTimeMilis: 86_400_000 },
    });
    assert.deepEqual(second[SOURCE], { violations: [] });
    assert.equal(live.calls, 1);
  });

  it("turns a live source that throws into a clear failure, not a crash", async () => {
    const live = Object.assign(
      async () => {
        live.calls++;
        throw new Error("socket hang up");
      },
      { calls: 0 },
    );
    const out = await runPack(pack(live), toResources(happyStack()));
    assert.match(
      out[SOURCE].violations[0].message,
      /the live account record, which could not be read: socket hang up;/,
    );
    assert.equal(live.calls, 1);
  });
});
