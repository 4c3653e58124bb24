import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Account } from "../../../components/Account";
import { DlqRecovery } from "../../../components/DlqRecovery";
import { Workflow } from "../../../components/Workflow";
import { LIMITS } from "../../../policies/limits";
import { PACK_NAME } from "../../../policies/pack";
import { ACCOUNT_TYPE, DLQ_RECOVERY_TYPE, WORKFLOW_TYPE } from "../../../core/typeTokens";
import { liveOk, pack } from "./helpers";

const ROOT = path.resolve(__dirname, "..", "..", "..");

describe("policy pack svc-limits", () => {
  const p = pack(liveOk());
  const byName = Object.fromEntries(p.policies.map((x) => [x.name, x]));

  it("has the policies in order, account-limits-source last, with their default enforcement levels", () => {
    assert.deepEqual(
      p.policies.map((x) => [x.name, x.enforcementLevel]),
      [
        ["workflow-max-parallelism", "mandatory"],
        ["workflow-max-retries", "mandatory"],
        ["workflow-max-delay", "mandatory"],
        ["workflow-max-global-parallelism", "advisory"],
        ["dlq-recovery-retention-window", "advisory"],
        ["dlq-recovery-overlap", "advisory"],
        ["account-limits-strictest", "advisory"],
        ["account-limits-source", "mandatory"],
      ],
    );
  });

  it("gives every policy a config schema; each limit policy's option is its static limit", () => {
    for (const policy of p.policies) {
      assert.ok(policy.configSchema, policy.name);
      assert.equal(policy.configSchema.properties.enforcementLevel, undefined, policy.name);
      assert.ok(policy.description.length > 20, policy.name);
    }
    for (const spec of Object.values(LIMITS)) {
      const option = byName[spec.policy].configSchema?.properties[spec.configKey];
      assert.equal(option?.type, "integer", `${spec.policy}.${spec.configKey}`);
      assert.match(String(option?.description), new RegExp(`Static ${spec.field}`));
    }
  });

  it("checks the type tokens of the components", () => {
    assert.equal(WORKFLOW_TYPE, Workflow.__pulumiType);
    assert.equal(ACCOUNT_TYPE, Account.__pulumiType);
    assert.equal(DLQ_RECOVERY_TYPE, DlqRecovery.__pulumiType);
  });

  it("is loadable by the CLI: PulumiPolicy.yaml, a versioned package.json whose main is the built pack", () => {
    const yaml = fs.readFileSync(path.join(ROOT, "policies", "PulumiPolicy.yaml"), "utf8");
    assert.match(yaml, /^runtime: nodejs$/m);
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "policies", "package.json"), "utf8"));
    assert.match(pkg.version, /^\d+\.\d+\.\d+$/);
    assert.equal(pkg.main, "../dist/policies/index.js");
    assert.equal(PACK_NAME, "svc-limits");
    // The root package ships what the pack needs.
    const root = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
    for (const f of ["dist/", "policies/PulumiPolicy.yaml", "policies/package.json"])
      assert.ok(root.files.includes(f), f);
  });
});
