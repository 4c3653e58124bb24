/**
 * The policy pack on a YAML program: an `svc:index:Account` and an `svc:index:Workflow` (a
 * component the svc provider serves through `Construct`), with the real CLI, the YAML language
 * host (toolchain/provision-yaml.sh), the built pack (`--policy-pack policies`) and the emulator
 * (free plan: max_parallelism 2, max_retries 999) over loopback.
 *
 * 1. a fresh stack, the Workflow's `account` the new Account's `accountId` (as in the walkthrough
 *    of docs/own-program.md): over the limits, the first preview fails naming the Workflow and the
 *    values (the svc provider reads a new Account's record at preview, so `accountId` is known);
 *    the same with an account ID from config;
 * 2. within the limits, the full program (`account: ${account.accountId}`): the first preview
 *    passes with no advisory (no check waits for `up`), and `up` stores the outputs the
 *    TypeScript `Workflow` computes;
 * 3. then over the limits again: the preview fails, the limits read for the Account's ID, or
 *    for the Account itself when `account` is its URN;
 * 4. bad input fails the preview once, naming the arguments and values, with no stack trace;
 * 5. a second YAML stack reads the Workflow's outputs through a StackReference.
 */
import * as assert from "node:assert/strict";
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { WORKFLOW_TYPE } from "../../core/typeTokens";
import { PulumiProject, REPO_ROOT, resourceOfType, type CliResult } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";
import { yamlProgramHead } from "../helpers/yaml";

const PACK_DIR = path.join(REPO_ROOT, "policies");
const PROJECT = "yaml-policy";
const CREDS = {
  token: "tok-e2e-yaml-policy-9a4c2e7b",
  username: "platform@example.com",
  password: "pw-e2e-yaml-policy-5d1f8e3a",
};

/** The program: an Account and the Workflow `orders` with `workflow` as its properties (YAML lines). */
function program(account: string, workflow: string): string {
  return `${yamlProgramHead(PROJECT)}config:
  accountId:
    type: string
resources:
  account:
    type: svc:index:Account
  orders:
    type: svc:index:Workflow
    properties:
      url: https://example.com/api/orders
      account: ${account}
${workflow.replace(/^/gm, "      ")}
outputs:
  ordersHeaders: \${orders.headers}
  ordersFlowControl: \${orders.flowControl}
  ordersDelaySeconds: \${orders.delaySeconds}
`;
}

/** The headers of {@link WITHIN}. */
const HEADERS = {
  "Svc-Retries": "3",
  "Svc-Delay": "600s",
  "Svc-Flow-Control-Key": "orders",
  "Svc-Flow-Control-Value": "parallelism=2, rate=10, period=1m",
};
const OVER = "retries: 1000\nflowControl:\n  key: orders\n  parallelism: 5";
const WITHIN =
  "retries: 3\ndelay: 10m\nflowControl:\n  key: orders\n  parallelism: 2\n  rate: 10\n  period: 1m";

/** A Workflow program with every argument (the README's walkthrough runs verbatim in own-program.test.ts). */
const FULL_PROGRAM = `${yamlProgramHead(PROJECT)}resources:
  account:
    type: svc:index:Account
  orders:
    type: svc:index:Workflow
    properties:
      url: https://example.com/api/orders
      account: \${account.accountId}
      retries: 3
      delay: 10m
      flowControl:
        key: orders
        parallelism: 2
        rate: 10
        period: 1m
outputs:
  ordersHeaders: \${orders.headers}
  ordersFlowControl: \${orders.flowControl}
  ordersDelaySeconds: \${orders.delaySeconds}
`;

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

/** Asserts the preview failed on both limits, each violation once, naming the Workflow and the values. */
function assertRefused(res: CliResult, parallelism: number, source = "the live account record"): void {
  const out = `${res.stdout}\n${res.stderr}`;
  assert.notEqual(res.code, 0, out);
  const messages = [
    `Workflow \`orders\` must not set flowControl.parallelism above 2 (account max_parallelism, from ${source}); ` +
      `it sets ${parallelism}.`,
    `Workflow \`orders\` must not set retries above 999 (account max_retries, from ${source}); it sets 1000.`,
  ];
  for (const m of messages) assert.equal(count(out, m), 1, `${m}\n--- output\n${out}`);
  assert.match(res.stdout, /\[mandatory\]\s+workflow-max-parallelism\s+\(svc:index:Workflow: orders\)/);
  assert.match(res.stdout, /\[mandatory\]\s+workflow-max-retries\s+\(svc:index:Workflow: orders\)/);
}

describe("e2e: the policy pack on a YAML program (svc:index:Workflow served by the svc provider)", function () {
  this.timeout(600_000);
  let emulator: RunningEmulator;
  let p: PulumiProject;
  let consumer: PulumiProject | undefined;

  before(async function () {
    this.timeout(1_800_000);
    assert.ok(
      fs.existsSync(path.join(REPO_ROOT, "dist", "provider", "index.js")) &&
        fs.existsSync(path.join(REPO_ROOT, "dist", "policies", "index.js")),
      "the provider and the pack must be built first: run `bash toolchain/build.sh` (npm test does)",
    );
    await promisify(execFile)("bash", [path.join(REPO_ROOT, "toolchain", "provision-yaml.sh")]);
    emulator = await startEmulator({ plan: "free", ...CREDS });
    p = await PulumiProject.create({
      name: PROJECT,
      program: "",
      files: { "Pulumi.yaml": program("${accountId}", OVER) },
    });
    await p.setConfig("svc:accountApiUrl", emulator.url);
    await p.setConfig("svc:username", CREDS.username);
    await p.setConfig("svc:password", CREDS.password, true);
    await p.setConfig("svc:token", CREDS.token, true);
    await p.setConfig("accountId", emulator.state.account.id);
  });
  after(async () => {
    try {
      const places: Record<string, string> = {};
      if (p) places["CLI output"] = p.transcript;
      if (consumer) places["consumer CLI output"] = consumer.transcript;
      assertNoSecrets(places, secretForms(CREDS));
    } finally {
      await consumer?.cleanup();
      await p?.cleanup();
      await emulator?.close();
    }
  });

  function write(account: string, workflow: string): void {
    fs.writeFileSync(path.join(p.dir, "Pulumi.yaml"), program(account, workflow));
  }

  it("a fresh stack: over the account's limits, the first preview with the pack fails naming the Workflow and the values", async () => {
    write("${account.accountId}", OVER);
    const res = await p.preview(["--policy-pack", PACK_DIR], { allowFailure: true });
    assertRefused(res, 5);
    assert.doesNotMatch(res.stdout, /\[advisory\]/, "no check waits for `up`");
    write("${accountId}", OVER);
    assertRefused(await p.preview(["--policy-pack", PACK_DIR], { allowFailure: true }), 5);
    assert.deepEqual((await p.exportState()).deployment.resources ?? [], [], "a preview creates nothing");
  });

  it("within the limits: the preview passes and `up` stores the TypeScript Workflow's outputs", async () => {
    fs.writeFileSync(path.join(p.dir, "Pulumi.yaml"), FULL_PROGRAM);
    const previewed = await p.preview(["--policy-pack", PACK_DIR]);
    assert.doesNotMatch(
      previewed.stdout,
      /\[mandatory\]|\[advisory\]/,
      "the first preview checks it, and it passes",
    );
    await p.up(["--policy-pack", PACK_DIR]);
    assert.deepEqual(await p.outputs(), {
      ordersHeaders: HEADERS,
      ordersFlowControl: { key: "orders", parallelism: 2, rate: 10, period: "1m" },
      ordersDelaySeconds: 600,
    });
    const { deployment } = await p.exportState();
    assert.deepEqual(resourceOfType(deployment, WORKFLOW_TYPE).outputs, {
      url: "https://example.com/api/orders",
      retries: 3,
      delaySeconds: 600,
      flowControl: { key: "orders", parallelism: 2, rate: 10, period: "1m" },
      headers: HEADERS,
      account: emulator.state.account.id,
    });
    // The program of the tests below is the full one with other Workflow arguments.
    write("${account.accountId}", WITHIN);
    await p.preview(["--expect-no-changes"]);
  });

  it("after `up`: a Workflow bound to the Account's accountId over the limits fails the preview", async () => {
    write("${account.accountId}", OVER.replace("parallelism: 5", "parallelism: 3"));
    assertRefused(await p.preview(["--policy-pack", PACK_DIR], { allowFailure: true }), 3);
  });

  it("after `up`: a Workflow bound to the Account itself (its svc:index:Account URN) is checked against it", async () => {
    write("${account.urn}", OVER);
    const res = await p.preview(["--policy-pack", PACK_DIR], { allowFailure: true });
    assertRefused(res, 5, "the Account resource `account`");
  });

  it("bad input fails the preview once, naming each argument and its value, with no stack trace", async () => {
    write("${account.accountId}", 'retries: -1\ndelay: soon\nflowControl:\n  key: "orders"');
    const res = await p.preview([], { allowFailure: true });
    const out = `${res.stdout}\n${res.stderr}`;
    assert.notEqual(res.code, 0, out);
    const message =
      "Workflow `orders`: `retries` must be a non-negative integer; got -1. `delay` must be a non-negative whole " +
      'number of seconds or a duration such as "10m" (units s, m, h, d); got "soon". `flowControl` must set ' +
      "`parallelism` or `rate` (or both); it sets neither.";
    assert.equal(count(out, message), 1, out);
    assert.match(out, /error: svc:index:Workflow resource 'orders' has a problem: Workflow `orders`: /);
    assert.doesNotMatch(out, /^\s+at /m, out);
    write("${account.accountId}", WITHIN);
    await p.preview(["--expect-no-changes"]);
  });

  it("a second YAML stack reads the Workflow's outputs through a StackReference", async () => {
    consumer = await PulumiProject.create({
      name: "yaml-policy-consumer",
      program: "",
      backendDir: p.backendDir,
      files: {
        "Pulumi.yaml": `name: yaml-policy-consumer
runtime: yaml
resources:
  platform:
    type: pulumi:pulumi:StackReference
    properties:
      name: organization/${PROJECT}/${p.stack}
outputs:
  headers: \${platform.outputs["ordersHeaders"]}
  flowControl: \${platform.outputs["ordersFlowControl"]}
  delaySeconds: \${platform.outputs["ordersDelaySeconds"]}
`,
      },
    });
    await consumer.up();
    assert.deepEqual(await consumer.outputs(), {
      headers: HEADERS,
      flowControl: { key: "orders", parallelism: 2, rate: 10, period: "1m" },
      delaySeconds: 600,
    });
  });
});
