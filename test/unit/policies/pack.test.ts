import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Account } from "../../../components/Account";
import { DlqRecovery } from "../../../components/DlqRecovery";
import { Workflow } from "../../../components/Workflow";
import { LIMITS } from "../../../policies/limits";
import { PACK_NAME } from "../../../policies/pack";
import {
  ACCOUNT_DYNAMIC_TYPE,
  DLQ_RECOVERY_DYNAMIC_TYPE,
  TYPES_OF_KIND,
  WORKFLOW_TYPE,
} from "../../../core/typeTokens";
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
    // The pack checks the svc provider's tokens, which the classes register with, first.
    assert.equal(TYPES_OF_KIND.Account[0], Account.__pulumiType);
    assert.equal(TYPES_OF_KIND.DlqRecovery[0], DlqRecovery.__pulumiType);
    // and the 0.2 dynamic ones, which stacks not yet upgraded hold.
    assert.ok((TYPES_OF_KIND.Account as readonly string[]).includes(ACCOUNT_DYNAMIC_TYPE));
    assert.ok((TYPES_OF_KIND.DlqRecovery as readonly string[]).includes(DLQ_RECOVERY_DYNAMIC_TYPE));
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
