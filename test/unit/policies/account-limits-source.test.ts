import * as assert from "node:assert/strict";
import { unknownCheckingProxy, type ResourceValidationPolicy } from "@pulumi/policy";
import { ACCOUNT_PROVIDER_TYPE, WORKFLOW_TYPE } from "../../../core/typeTokens";
import type { SvcLimitsPack } from "../../../policies/pack";
import {
  UNKNOWN,
  accountOutputs,
  fakeLive,
  freeRecord,
  happyStack,
  liveFailed,
  liveNone,
  liveOk,
  pack,
  runPack,
  toResources,
  urnOf,
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
    for (const name of [...LIMIT_POLICIES, "dlq-recovery-overlap", SOURCE]) {
      assert.deepEqual(out[name], { violations: [] }, name);
    }
    assert.equal(live.calls, 1);
  });

  it("fails closed once, naming the unchecked resources and policies, the cause and both ways out", async () => {
    const out = await runPack(pack(liveNone()), toResources(happyStack()));
    for (const name of LIMIT_POLICIES) assert.deepEqual(out[name], { violations: [] }, name);
    assert.equal(out[SOURCE].violations.length, 1);
    assert.equal(out[SOURCE].violations[0].urn, undefined);
    assert.equal(
      out[SOURCE].violations[0].message,
      [
        "These checks could not run, because no source has the account limit they need (each cause, then the checks " +
          "it left unchecked):",
        "  - The live account record is not configured: set the stack config `svc:accountApiUrl`, `svc:username`, " +
          "`svc:password` (the password as a secret), or the environment variables `SVC_ACCOUNT_API_URL`, " +
          "`SVC_USERNAME`, `SVC_PASSWORD`. There is no Account resource in this stack.",
        "      max_parallelism (workflow-max-parallelism): DlqRecovery `replay`, Workflow `billing`, Workflow `orders`",
        "      max_retries (workflow-max-retries): DlqRecovery `replay`, Workflow `orders`",
        "      max_delay (workflow-max-delay): Workflow `orders`",
        "      max_global_parallelism (workflow-max-global-parallelism): DlqRecovery `replay`, Workflow `billing`, Workflow `orders`",
        "      max_dlq_retention_time_milis (dlq-recovery-retention-window): DlqRecovery `replay`",
        "Limits come from, in this order:",
        '  1. the policy pack config: --policy-pack-config with {"workflow-max-parallelism": {"maxParallelism": ' +
          '<max_parallelism>}, "workflow-max-retries": {"maxRetries": <max_retries>}, "workflow-max-delay": ' +
          '{"maxDelay": <max_delay>}, "workflow-max-global-parallelism": {"maxGlobalParallelism": ' +
          '<max_global_parallelism>}, "dlq-recovery-retention-window": {"maxDlqRetentionTimeMilis": ' +
          "<max_dlq_retention_time_milis>}} lets these checks run, each <...> being the account's limit (a static " +
          'option such as "maxParallelism" holds for every account; for a limit per account, set the resource\'s ' +
          "`account` to its account ID, e.g. a StackReference's `accountId` output, and key the limit by that ID " +
          'under "accounts");',
        "  2. the live account record: a bound Account's own settings, else the stack config `svc:accountApiUrl`, " +
          "`svc:username`, `svc:password` or the `SVC_*` environment variables;",
        "  3. an Account resource's outputs (the strictest of them for a resource without `account`).",
        'Fix the source, or opt out explicitly: set "account-limits-source" to "advisory" in the policy pack config ' +
          '(--policy-pack-config with {"account-limits-source": "advisory"}) to let these checks pass unchecked with a warning.',
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
      /^ {6}max_retries \(workflow-max-retries\): DlqRecovery `replay`, Workflow `orders`$/m,
    );
    assert.equal(message.match(/^ {6}\S/gm)?.length, 1);
    assert.match(
      message,
      /--policy-pack-config with \{"workflow-max-retries": \{"maxRetries": <max_retries>\}\} lets/,
    );
  });

  /** The `--policy-pack-config` the message names, with each `<field>` filled in from the free plan. */
  function namedConfig(message: string): Record<string, Record<string, unknown>> {
    const json = /--policy-pack-config with (\{.*\}) lets these checks run/.exec(message)?.[1];
    assert.ok(json !== undefined, message);
    const limits = freeRecord() as unknown as Record<string, number>;
    const filled = json.replace(/<(\w+)>/g, (_, field: string) => String(limits[field]));
    return JSON.parse(filled) as Record<string, Record<string, unknown>>;
  }

  it("names the exact pack config of the checks left unchecked, and that config lets them all run", async () => {
    const first = await runPack(pack(liveNone()), toResources(happyStack()));
    const config = namedConfig(first[SOURCE].violations[0].message);
    assert.deepEqual(Object.keys(config), LIMIT_POLICIES);
    const second = await runPack(pack(liveNone()), toResources(happyStack()), config);
    for (const name of [...LIMIT_POLICIES, SOURCE]) assert.deepEqual(second[name].violations, [], name);
  });

  it("keys the named config by account ID for resources bound to an ID (a StackReference's `accountId`)", async () => {
    const id = "104719d9-b5cf-59bc-880f-4fde782ba6b8";
    const s = happyStack();
    s.workflows = {};
    s.recoveries.replay = {
      ...s.recoveries.replay,
      fromDate: undefined,
      toDate: undefined,
      retries: undefined,
    };
    s.recoveries.replay.account = id;
    const first = await runPack(pack(liveNone()), toResources(s));
    const message = first[SOURCE].violations[0].message;
    assert.ok(
      message.includes(
        `--policy-pack-config with {"workflow-max-parallelism": {"accounts": {"${id}": <max_parallelism>}}, ` +
          `"workflow-max-global-parallelism": {"accounts": {"${id}": <max_global_parallelism>}}} lets these checks run`,
      ),
      message,
    );
    assert.doesNotMatch(message, /a static option/, "no static option is needed: every resource has an ID");
    // One cause for both limits of the account: the config to add is named once, in line 1.
    assert.equal(message.match(/^ {2}- /gm)?.length, 1, message);
    const config = namedConfig(message);
    const second = await runPack(pack(liveNone()), toResources(s), config);
    for (const name of [...LIMIT_POLICIES, SOURCE]) assert.deepEqual(second[name].violations, [], name);
    // The config it names is a real limit: a parallelism above it is refused.
    s.recoveries.replay.flowControl = { key: "orders", parallelism: 3 };
    const third = await runPack(pack(liveNone()), toResources(s), config);
    assert.equal(third["workflow-max-parallelism"].violations.length, 1);
  });

  it("names no pack config when only a value unknown in preview is missing", async () => {
    const s = happyStack();
    s.workflows = {};
    s.recoveries.replay = { ...s.recoveries.replay, flowControl: { key: "orders", parallelism: UNKNOWN } };
    const out = await runPack(pack(liveOk()), toResources(s));
    const message = out[SOURCE].violations[0]?.message ?? "";
    assert.match(message, /- Its `flowControl\.parallelism` is unknown during this preview\./);
    assert.doesNotMatch(message, /lets these checks run/);
  });

  // Each way the live source can fail, as `liveAccount.ts` words it (never a credential).
  const causes: [string, string][] = [
    [
      "credentials rejected (401)",
      "the service at http://127.0.0.1:1 rejected the credentials (HTTP 401). They came from: `username` from the " +
        "stack config `svc:username`, `password` from the stack config `svc:password`. Check those values.",
    ],
    [
      "access refused (403)",
      "the service at http://127.0.0.1:1 rejected the credentials (HTTP 403). They came from: `username` from the " +
        "stack config `svc:username`, `password` from the stack config `svc:password`. Check those values.",
    ],
    [
      "unreachable",
      "cannot reach the service at http://127.0.0.1:1 (connect ECONNREFUSED 127.0.0.1:1). Is it running, and is the URL right?",
    ],
    [
      "timing out",
      "the service at http://127.0.0.1:1 did not answer in time (request timed out after 15000 ms).",
    ],
    [
      "a malformed record",
      "the service at http://127.0.0.1:1 sent a malformed answer: account record field `max_retries` must be an integer",
    ],
  ];
  for (const [what, message] of causes) {
    it(`fails closed when the live record could not be read: ${what}`, async () => {
      const out = await runPack(pack(liveFailed(message)), toResources(happyStack()));
      const text = out[SOURCE].violations[0]?.message ?? "";
      // The cause's own sentences, then a new one: never "right?, and there is".
      const ended = /[.?]$/.test(message) ? message : `${message}.`;
      assert.ok(
        text.includes(
          `  - The live account record could not be read: ${ended} There is no Account resource in this stack.\n`,
        ),
        text,
      );
      assert.doesNotMatch(text, /[.?], and/);
      assert.match(text, /set "account-limits-source" to "advisory"/);
      assert.doesNotMatch(text, /pw-not-for-messages|tok-not-for-messages/);
    });
  }

  it("fails closed when the live source is only partly configured", async () => {
    const live = fakeLive({
      status: "incomplete",
      missing: ["password"],
      message:
        "`password` is missing: set the stack config `svc:password` or the environment variable `SVC_PASSWORD`",
    });
    const out = await runPack(pack(live), toResources(happyStack()));
    assert.match(
      out[SOURCE].violations[0].message,
      /^ {2}- The live account record is not fully configured: `password` is missing: set the stack config `svc:password`/m,
    );
  });

  it("fails closed when the live source throws, instead of crashing", async () => {
    const live = Object.assign(
      async () => {
        live.calls++;
        throw new Error("socket hang up");
      },
      { calls: 0, inputs: [] },
    );
    const out = await runPack(pack(live), toResources(happyStack()));
    assert.match(
      out[SOURCE].violations[0].message,
      /The live account record could not be read: socket hang up\. There is no Account resource in this stack\.$/m,
    );
    assert.equal(live.calls, 1);
  });

  it("defers a Workflow whose Account has no known values yet, and fails a DlqRecovery closed", async () => {
    const s = happyStack();
    s.accounts.account = {
      accountApiUrl: "http://127.0.0.1:1",
      username: "ops@example.com",
      password: UNKNOWN, // another resource's output, unknown in this preview
      maxParallelism: UNKNOWN,
      maxRetries: UNKNOWN,
    };
    const out = await runPack(pack(liveNone()), toResources(s));
    // Said once, in one sentence, by account-limits-source; not once per limit policy.
    for (const name of LIMIT_POLICIES) assert.equal(out[name].unknown, undefined, name);
    assert.equal(
      out[SOURCE].unknown,
      "Workflow `billing`, Workflow `orders` (max_parallelism, max_retries, max_delay, max_global_parallelism) are " +
        "checked " +
        "against the account's limits on `pulumi up` with `--policy-pack`, not in this preview: a setting of the " +
        "Account `account` is computed from another resource's output, so neither its record nor its outputs can " +
        "be read before `pulumi up`.",
    );
    const message = out[SOURCE].violations[0].message;
    assert.match(
      message,
      /^ {2}- A setting of the Account `account` is computed .*\. A DlqRecovery is never deferred to `up` \(its drain cannot be undone\)\.$/m,
    );
    assert.match(message, /^ {6}max_parallelism \(workflow-max-parallelism\): DlqRecovery `replay`$/m);
    assert.doesNotMatch(message, /Workflow `/);
  });

  it("passes when the live record failed but an Account resource had every limit", async () => {
    const s = happyStack();
    s.accounts.account = accountOutputs();
    const out = await runPack(
      pack(liveFailed("cannot reach the service at http://127.0.0.1:1.")),
      toResources(s),
    );
    for (const name of [...LIMIT_POLICIES, SOURCE]) assert.deepEqual(out[name].violations, [], name);
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
    assert.match(first[SOURCE].violations[0].message, /^These checks could not run/);
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

  it("a prefetch of the stack's record serves every policy (one read); one without settings is not kept", async () => {
    const ok = liveOk();
    const p = pack(ok);
    p.context.prefetch();
    await runPack(p, toResources(happyStack()));
    assert.equal(ok.calls, 1);
    const none = liveNone();
    const q = pack(none);
    q.context.prefetch();
    await new Promise((resolve) => setImmediate(resolve));
    await runPack(q, toResources(happyStack()));
    assert.equal(none.calls, 2);
  });

  it("names the explicit opt-out as a pack config the CLI accepts: this policy set to advisory", async () => {
    const out = await runPack(pack(liveNone()), toResources(happyStack()));
    const message = out[SOURCE].violations[0].message;
    const json = /--policy-pack-config with (\{.*?\}\))/.exec(message)?.[1].slice(0, -1) ?? "";
    assert.deepEqual(JSON.parse(json), { [SOURCE]: "advisory" });
    // The opt-out only lowers this policy's level; the limit policies and their own levels stay.
    const p = pack(liveNone());
    assert.equal(p.policies.find((x) => x.name === SOURCE)?.enforcementLevel, "mandatory");
    assert.deepEqual(p.policies.find((x) => x.name === SOURCE)?.configSchema, { properties: {} });
  });
});

/** Calls `account-limits-source` as a resource policy, as the engine does when a resource is registered. */
async function analyze(p: SvcLimitsPack, type: string, name: string, props: Record<string, unknown>) {
  const policy = p.policies.find((x) => x.name === SOURCE) as unknown as ResourceValidationPolicy;
  const violations: string[] = [];
  const validate = policy.validateResource as (args: unknown, report: (m: string) => void) => Promise<void>;
  await validate(
    {
      type,
      name,
      urn: urnOf(type, name),
      props: unknownCheckingProxy(props),
      opts: {},
      stackTags: new Map(),
      getConfig: () => ({}),
    },
    (m) => violations.push(m),
  );
  return violations;
}

describe("policy account-limits-source, as each Account is registered", () => {
  const REFUSED =
    "the service at http://127.0.0.1:1 rejected the credentials (HTTP 401). They came from: `username` from the " +
    "stack config `svc:username`, `password` from the stack config `svc:password`. Check those values.";

  it("reports an Account whose record cannot be read (the preview fails on it before any stack policy runs)", async () => {
    const live = liveFailed(REFUSED);
    const p = pack(live);
    const violations = await analyze(p, ACCOUNT_PROVIDER_TYPE, "one", {});
    assert.deepEqual(violations, [
      `The live record of the Account \`one\` could not be read: ${REFUSED} The svc limits of the resources on this ` +
        "account cannot be read from it, so their checks cannot run (limits in the policy pack config still apply).\n" +
        'Fix the source, or opt out explicitly: set "account-limits-source" to "advisory" in the policy pack config ' +
        '(--policy-pack-config with {"account-limits-source": "advisory"}) to let these checks pass unchecked with a warning.',
    ]);
    // The stack's `svc:` settings, read once: the stack policies of the same run reuse the read.
    assert.deepEqual(live.inputs, [{}]);
    await runPack(p, toResources(happyStack()));
    assert.equal(live.calls, 1);
  });

  it("says nothing of an Account that reads, of one whose settings are unknown, or of other resources", async () => {
    const live = liveOk();
    const p = pack(live);
    const own = { accountApiUrl: "http://127.0.0.1:1", username: "u@example.com", password: "pw" };
    assert.deepEqual(await analyze(p, ACCOUNT_PROVIDER_TYPE, "two", own), []);
    assert.deepEqual(await analyze(p, ACCOUNT_PROVIDER_TYPE, "three", { ...own, password: UNKNOWN }), []);
    assert.deepEqual(await analyze(p, WORKFLOW_TYPE, "orders", { url: "https://example.com" }), []);
    assert.equal(live.calls, 1, "only the Account with known settings of its own was read");
  });
});
