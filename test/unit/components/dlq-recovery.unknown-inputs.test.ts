/**
 * A DlqRecovery input it does not take (`workflowURL` in a program that is not type-checked, a
 * YAML, Python or Go program's) is refused before anything is sent: by the class's constructor,
 * before anything is registered, and by the provider's `check`, at preview, as one failure of the
 * resource naming each unknown input, the input it is nearest to and the inputs there are. What
 * the class adds itself and the engine's own keys pass, and stored inputs (the olds) are never
 * refused.
 */
import { strict as assert } from "node:assert";
import { DLQ_RECOVERY_INPUT_NAMES } from "../../../core/resources/dlqRecovery";
import * as pulumi from "@pulumi/pulumi";
import { Account } from "../../../components/Account";
import { DlqRecovery, type DlqRecoveryArgs } from "../../../components/DlqRecovery";
import {
  unknownDlqRecoveryInputs,
  validateInputs,
  type DlqRecoveryInputs,
} from "../../../provider/dlqRecovery/inputs";
import { T0, TOKEN, dlqProvider, happyDlq } from "../provider/helpers";
import { recordRegistrations } from "./mocks";

/** The inputs listed by every message of an unknown DlqRecovery input. */
const INPUTS =
  "its inputs are `dlqIds`, `fromDate`, `toDate`, `workflowUrl`, `workflowRunId`, `workflowCreatedAt`, `all`, " +
  "`flowControl`, `retries`, `triggers`, `baseUrl`, `token`, `account`, `allowInsecureHttp`, `concurrency`, " +
  "`maxRequestsPerSecond`, `maxRuns`, `maxRecordedRuns` and `runLogFile`.";

const URL = "http://127.0.0.1/workflows/orders";
const registered: pulumi.runtime.MockResourceArgs[] = [];

describe("DlqRecovery: an input it does not take is refused before anything is sent", () => {
  before(() => recordRegistrations(registered));
  beforeEach(() => (registered.length = 0));

  it("lists the inputs of `DlqRecoveryArgs`, in the order of INPUT_ROLES, without what the component adds", () => {
    assert.equal(DLQ_RECOVERY_INPUT_NAMES.length, 19);
    assert.ok(!DLQ_RECOVERY_INPUT_NAMES.includes("accountLimits" as never));
    assert.ok(!DLQ_RECOVERY_INPUT_NAMES.includes("recoveryName" as never));
  });

  it("the class: `workflowURL` throws a RunError naming it and `workflowUrl`, and registers nothing", () => {
    const args = { workflowURL: URL, fromDate: T0, toDate: T0 + 1000 } as unknown as DlqRecoveryArgs;
    assert.throws(
      () => new DlqRecovery("incident-42", args),
      (e: unknown) =>
        e instanceof pulumi.RunError &&
        e.message ===
          `DlqRecovery \`incident-42\`: \`workflowURL\` (did you mean \`workflowUrl\`?) is not an input of DlqRecovery; ${INPUTS}`,
    );
    assert.deepEqual(registered, []);
  });

  it("the class: what it adds itself (token, account, accountLimits, outputs) passes the provider's check", async () => {
    const account = new Account("account");
    const r = new DlqRecovery("r", { workflowUrl: URL, account, maxRuns: 10 });
    // Registered once its URN is known.
    await (r.urn as unknown as { promise(): Promise<string> }).promise();
    const recovery = registered.find((r) => r.name === "r");
    assert.ok(recovery, "the DlqRecovery is registered");
    const keys = Object.keys(recovery.inputs);
    assert.ok(keys.includes("accountLimits") && keys.includes("account"), keys.join());
    assert.equal(unknownDlqRecoveryInputs([...keys, "recoveryName", "__provider", "__defaults"]), undefined);
  });

  it("the provider's check: one failure of the resource, no value shown, nothing else asked", async () => {
    const { provider } = dlqProvider({ config: {} });
    const news = { ...happyDlq("filters", { workflowUrl: undefined }), workflowURL: URL, Retry: 3 };
    const res = await provider.check({} as DlqRecoveryInputs, news as DlqRecoveryInputs);
    assert.deepEqual(res.failures, [
      {
        property: "",
        reason:
          "DlqRecovery `incident-42`: `workflowURL` (did you mean `workflowUrl`?) and `Retry` (did you mean " +
          `\`retries\`?) are not inputs of DlqRecovery; ${INPUTS}`,
      },
    ]);
    assert.doesNotMatch(res.failures?.[0].reason ?? "", /127\.0\.0\.1/);
  });

  it("the provider's check: the new inputs only; stored inputs with names of another version pass", async () => {
    const { provider } = dlqProvider({ config: {} });
    const olds = { ...happyDlq("filters"), __provider: "serialized", legacyField: 1 } as DlqRecoveryInputs;
    const news = { ...happyDlq("filters"), __provider: "serialized", __defaults: [] } as DlqRecoveryInputs;
    const res = await provider.check(olds, news);
    assert.equal(res.failures, undefined);
  });

  it("validateInputs: every other problem is still reported beside it", () => {
    const list = validateInputs({ workflowURL: URL, retries: -1, token: TOKEN } as DlqRecoveryInputs).list;
    assert.deepEqual(
      list.map((f) => f.property),
      ["", "all", "retries"],
    );
    assert.match(
      list[0].reason,
      /^DlqRecovery: `workflowURL` \(did you mean `workflowUrl`\?\) is not an input/,
    );
  });
});
