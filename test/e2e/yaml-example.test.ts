/**
 * `examples/yaml` as a new user runs it, with the real CLI and the emulator over loopback: its
 * `Pulumi.yaml` verbatim (an Account, two Workflows, a DlqRecovery, through the svc provider
 * found in the installed package), `pulumi preview` with the policy pack passes, and `pulumi up`
 * resumes the orders runs of the emulator's DLQ, each once; the outputs hold no credential.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { PulumiProject, REPO_ROOT } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";
import { yamlProject } from "../helpers/yaml";

/** The emulator's default credentials, which the example's README section uses. */
const CREDS = { username: "emulator@example.com", password: "emulator-password", token: "emulator-token" };

describe("e2e: examples/yaml (an Account, two Workflows and a DlqRecovery in YAML)", function () {
  this.timeout(600_000);
  let emulator: RunningEmulator;
  let p: PulumiProject;

  before(async function () {
    this.timeout(1_800_000);
    emulator = await startEmulator({ plan: "free", dlq: 300, ...CREDS });
    const program = fs.readFileSync(path.join(REPO_ROOT, "examples", "yaml", "Pulumi.yaml"), "utf8");
    p = await yamlProject("svc-yaml", program, {
      accountApiUrl: emulator.url,
      baseUrl: emulator.url,
      ...CREDS,
    });
  });
  after(async () => {
    try {
      if (p) assertNoSecrets({ "CLI output": p.transcript }, secretForms(CREDS));
    } finally {
      await p?.cleanup();
      await emulator?.close();
    }
  });

  it("previews within the account's limits with the policy pack, and up resumes the orders runs once", async () => {
    const orders = emulator.state.dlq
      .page(0, 1_000)
      .filter((e) => e.workflowUrl === "http://127.0.0.1/workflows/orders").length;
    assert.ok(orders > 0, "the emulator seeds failed orders runs");
    await p.preview(["--policy-pack", path.join(REPO_ROOT, "policies")]);
    await p.up();
    const outputs = await p.outputs();
    assert.equal(outputs.resumedCount, orders);
    assert.equal(outputs.complete, true);
    assert.equal(outputs.maxParallelism, 2);
    assert.deepEqual(outputs.ordersHeaders, {
      "Svc-Flow-Control-Key": "orders",
      "Svc-Flow-Control-Value": "parallelism=2",
      "Svc-Retries": "3",
    });
    assert.equal(emulator.state.ledger.totals().duplicates, 0);
  });
});
