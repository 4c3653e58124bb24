/**
 * `examples/account` and `examples/consumer` as a new user runs them, through the README's own
 * policy gate: the real Pulumi CLI, the built pack (`--policy-pack policies`) and the emulator
 * over loopback. The programs and the pack config are the example folders' own files.
 *
 * The consumer reads the account stack through a StackReference and has no Account resource
 * and no `svc:` account settings of its own: without the pack config its preview fails closed,
 * naming the exact `--policy-pack-config` that fixes it; with the example's
 * `policy-config.json` it passes and `up` drains, and a lower limit in that config refuses it.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { PulumiProject, REPO_ROOT } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";

const PACK_DIR = path.join(REPO_ROOT, "policies");
const EXAMPLES = path.join(REPO_ROOT, "examples");
/** The emulator's default credentials, which the example's `policy-config.json` is written for. */
const CREDS = { username: "emulator@example.com", password: "emulator-password", token: "emulator-token" };

function example(folder: string, file: string): string {
  return fs.readFileSync(path.join(EXAMPLES, folder, file), "utf8");
}

describe("e2e: examples/consumer through the policy gate", function () {
  this.timeout(600_000);
  let emulator: RunningEmulator;
  let account: PulumiProject;
  let consumer: PulumiProject;
  let configFile: string;

  before(async () => {
    assert.ok(
      fs.existsSync(path.join(REPO_ROOT, "dist", "policies", "index.js")),
      "the pack and the library must be built first: run `npm run build` (npm test does)",
    );
    emulator = await startEmulator({ plan: "free", dlq: 40, ...CREDS });
    account = await PulumiProject.create({ name: "svc-account", program: example("account", "index.ts") });
    await account.setConfig("svc:accountApiUrl", emulator.url);
    await account.setConfig("svc:username", CREDS.username);
    await account.setConfig("svc:password", CREDS.password, true);
    await account.up();
    consumer = await PulumiProject.create({
      name: "svc-consumer",
      program: example("consumer", "index.ts"),
      backendDir: account.backendDir,
      files: { "policy-config.json": example("consumer", "policy-config.json") },
    });
    configFile = path.join(consumer.dir, "policy-config.json");
    await consumer.setConfig("accountStack", "organization/svc-account/dev");
    await consumer.setConfig("svc:baseUrl", emulator.url);
  });

  after(async () => {
    try {
      assertNoSecrets(
        {
          "account CLI output": account?.transcript ?? "",
          "consumer CLI output": consumer?.transcript ?? "",
        },
        secretForms({ password: CREDS.password, token: CREDS.token }),
      );
    } finally {
      await consumer?.cleanup();
      await account?.cleanup();
      await emulator?.close();
    }
  });

  it("the example's pack config is written for the emulator's account", async () => {
    const outputs = await account.outputs();
    const config = JSON.parse(example("consumer", "policy-config.json")) as Record<
      string,
      { accounts?: Record<string, number> }
    >;
    const ids = Object.values(config).flatMap((c) => Object.keys(c.accounts ?? {}));
    assert.ok(ids.length > 0, "policy-config.json sets limits per account ID");
    for (const id of ids) assert.equal(id, outputs.accountId);
  });

  it("without the pack config: fails closed, naming the config that fixes it", async () => {
    const res = await consumer.preview(["--policy-pack", PACK_DIR], { allowFailure: true });
    assert.notEqual(res.code, 0, res.stdout);
    assert.match(res.stdout, /\[mandatory\]\s+account-limits-source/);
    const id = (await account.outputs()).accountId as string;
    assert.ok(
      res.stdout.includes(
        `--policy-pack-config with {"workflow-max-parallelism": {"accounts": {"${id}": <max_parallelism>}}, ` +
          `"workflow-max-global-parallelism": {"accounts": {"${id}": <max_global_parallelism>}}}`,
      ),
      res.stdout,
    );
    assert.doesNotMatch(res.stdout + res.stderr, /\n\s+at .*\(.*:\d+:\d+\)/, "no stack trace");
  });

  it("with the example's pack config: the preview passes, and up resumes the orders runs", async () => {
    const orders = emulator.state.dlq
      .page(0, 1000)
      .filter((e) => e.workflowUrl === "http://127.0.0.1/workflows/orders").length;
    assert.ok(orders > 0);
    const res = await consumer.preview(["--policy-pack", PACK_DIR, "--policy-pack-config", configFile]);
    assert.doesNotMatch(res.stdout, /\[mandatory\]|\[advisory\]/);
    await consumer.up(["--policy-pack", PACK_DIR, "--policy-pack-config", configFile]);
    const outputs = await consumer.outputs();
    assert.equal(outputs.planParallelism, 2);
    assert.equal(outputs.resumed, orders);
  });

  it("the gate checks with that config: a lower limit for the same account refuses the DlqRecovery", async () => {
    const config = JSON.parse(example("consumer", "policy-config.json")) as Record<
      string,
      { accounts: Record<string, number> }
    >;
    const id = Object.keys(config["workflow-max-parallelism"].accounts)[0];
    config["workflow-max-parallelism"].accounts[id] = 1;
    const stricter = path.join(consumer.dir, "stricter.json");
    fs.writeFileSync(stricter, JSON.stringify(config));
    const res = await consumer.preview(["--policy-pack", PACK_DIR, "--policy-pack-config", stricter], {
      allowFailure: true,
    });
    assert.notEqual(res.code, 0, res.stdout);
    assert.match(res.stdout, /\[mandatory\]\s+workflow-max-parallelism/);
    assert.ok(
      res.stdout.includes(
        "DlqRecovery `orders-recovery` must not override flowControl.parallelism above 1 (account max_parallelism, " +
          `from the policy pack config \`workflow-max-parallelism.accounts\` for the account "${id}"); it sets 2.`,
      ),
      res.stdout,
    );
  });
});
