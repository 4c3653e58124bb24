/**
 * Account, end to end: the real Pulumi CLI against the emulator over loopback.
 * Credentials come from stack config (the password as a secret); a consumer stack reads
 * the outputs through a StackReference.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { OUTPUT_OF_ACCOUNT_FIELD } from "../../core/accountFields";
import { PulumiProject, resourceOfType } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";

const CREDS = {
  token: "tok-e2e-account-5f1c9a7d3b",
  username: "platform@example.com",
  password: "pw-e2e-account-8c2e4b6a1f",
};

const ACCOUNT_PROGRAM = `
import { Account } from "pulumi-svc";
const account = new Account("account");
${Object.values(OUTPUT_OF_ACCOUNT_FIELD)
  .map((o) => `export const ${o} = account.${o};`)
  .join("\n")}
`;

const CONSUMER_PROGRAM = `
import * as pulumi from "@pulumi/pulumi";
import { DlqRecovery } from "pulumi-svc";
const account = new pulumi.StackReference("organization/account/dev");
const maxParallelism = account.requireOutput("maxParallelism") as pulumi.Output<number>;
const token = account.requireOutput("token") as pulumi.Output<string>;
// The consumer sizes its own resource by the account's limit and authenticates with its token.
const recovery = new DlqRecovery("from-account", {
  baseUrl: new pulumi.Config().require("baseUrl"),
  token,
  workflowUrl: "http://127.0.0.1/workflows/orders",
  flowControl: { key: "recovery", parallelism: maxParallelism },
});
export const consumedMaxParallelism = maxParallelism;
export const consumedToken = token;
export const resumed = recovery.resumedCount;
`;

describe("e2e: Account", function () {
  this.timeout(600_000);
  let emulator: RunningEmulator;
  let account: PulumiProject;
  let consumer: PulumiProject | undefined;

  before(async () => {
    emulator = await startEmulator({ plan: "free", dlq: 60, ...CREDS });
    account = await PulumiProject.create({ name: "account", program: ACCOUNT_PROGRAM });
    await account.setConfig("svc:accountApiUrl", emulator.url);
    await account.setConfig("svc:username", CREDS.username);
    await account.setConfig("svc:password", CREDS.password, true);
  });

  after(async () => {
    try {
      // Everything either stack produced is searched for the credentials, in every form.
      const places: Record<string, string> = { "account CLI output": account.transcript };
      if (consumer) places["consumer CLI output"] = consumer.transcript;
      assertNoSecrets(places, secretForms(CREDS));
    } finally {
      await consumer?.cleanup();
      await account?.cleanup();
      await emulator?.close();
    }
  });

  it("up exports every field of the record, with password and token as secrets", async () => {
    await account.up();
    const outputs = await account.outputs(true);
    const record = emulator.state.account.record as unknown as Record<string, unknown>;
    for (const [field, output] of Object.entries(OUTPUT_OF_ACCOUNT_FIELD)) {
      assert.deepEqual(outputs[output], record[field], `output ${output} (record field ${field})`);
    }
    assert.equal(outputs.maxParallelism, 2);
    assert.equal(outputs.token, CREDS.token);

    const shown = await account.outputs(false);
    assert.equal(shown.password, "[secret]");
    assert.equal(shown.token, "[secret]");
    assert.equal(shown.maxParallelism, 2);
  });

  it("keeps password and token as ciphertext in state, and no credential anywhere in plaintext", async () => {
    // What `pulumi stack export` prints is the state file's deployment (which the other e2e read).
    const { text, deployment } = await account.stackExport();
    assert.deepEqual(deployment, (await account.exportState()).deployment);
    const res = resourceOfType(deployment, "svc:index:Account");
    for (const key of ["password", "token"]) {
      const v = res.outputs?.[key] as Record<string, unknown>;
      assert.equal(
        v?.["4dabf18193072939515e22adb298388d"],
        "1b47061264138c4ac30d75fd1eb44270",
        `${key} is a secret`,
      );
      assert.equal(typeof v?.ciphertext, "string", `${key} has ciphertext`);
    }
    // A resource of the svc provider: no serialized provider in the state.
    assert.equal(res.inputs?.__provider, undefined);
    assert.equal(res.outputs?.__provider, undefined);
    assertNoSecrets(
      { "exported state": text, "state file": fs.readFileSync(account.stateFile(), "utf8") },
      secretForms(CREDS),
    );
  });

  it("shows a plan change as an update in the next preview, and up applies it", async () => {
    await account.preview(["--expect-no-changes"]);
    emulator.setPlan("fixed");
    const preview = await account.preview();
    assert.match(preview.stdout, /~ 1 to update/);
    assert.match(preview.stdout + preview.stderr, /maxParallelism: 2 → 10/);
    await account.up();
    const outputs = await account.outputs();
    assert.equal(outputs.maxParallelism, 10);
    assert.equal(outputs.type, "paid");
  });

  it("re-reads the record on refresh, and reports a plan upgrade as an update, not as unchanged", async () => {
    emulator.setPlan("free");
    await account.up();
    // The plan upgrade happens at the service (the emulator's admin API over HTTP), not in the program.
    const upgraded = await fetch(`${emulator.url}/admin/plan`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ plan: "payg" }),
    });
    assert.equal(upgraded.status, 200);
    const refreshed = await account.refresh();
    const out = refreshed.stdout + refreshed.stderr;
    assert.match(out, /~ 1 updated/, out);
    assert.doesNotMatch(out, /^\s+2 unchanged/m, out);
    assert.match(
      out,
      /Account `account`: the refresh read a changed account record: [^\n]*maxParallelism: 2 → 10/,
    );
    const { deployment } = await account.exportState();
    const res = resourceOfType(deployment, "svc:index:Account");
    assert.equal(res.outputs?.maxParallelism, 10);
    assert.equal(res.outputs?.maxGlobalParallelism, 100);
    assert.equal(res.outputs?.maxDelay, emulator.state.account.record.max_delay);
    // Refreshed: nothing left for the next preview, and a second refresh changes nothing.
    await account.preview(["--expect-no-changes"]);
    const again = await account.refresh();
    assert.doesNotMatch(again.stdout, /updated/, again.stdout);
  });

  it("says the credentials were rejected, and where they came from, on a 401", async () => {
    await account.withConfigRestored(async () => {
      await account.setConfig("svc:password", "pw-wrong-value-7d3e9a", true);
      const res = await account.preview([], { allowFailure: true });
      assert.notEqual(res.code, 0);
      assert.match(res.stdout + res.stderr, /rejected the credentials \(HTTP 401\)/);
      assert.match(res.stdout + res.stderr, /`password` from the stack config `svc:password`/);
      assert.ok(!(res.stdout + res.stderr).includes("pw-wrong-value-7d3e9a"));
    });
  });

  it("feeds a consumer stack through a StackReference: limits as plain values, the token as a secret", async () => {
    await account.up();
    consumer = await PulumiProject.create({
      name: "consumer",
      program: CONSUMER_PROGRAM,
      backendDir: account.backendDir,
    });
    await consumer.setConfig("baseUrl", emulator.url);
    const orders = emulator.state.dlq
      .page(0, 1000)
      .filter((e) => e.workflowUrl === "http://127.0.0.1/workflows/orders").length;
    assert.ok(orders > 0);
    await consumer.up();
    const shown = await consumer.outputs(false);
    assert.equal(shown.consumedMaxParallelism, emulator.state.account.record.max_parallelism);
    assert.equal(shown.consumedToken, "[secret]");
    assert.equal(shown.resumed, orders, "every orders entry of the DLQ was resumed");
    const { text } = await consumer.exportState();
    assertNoSecrets({ "consumer state": text }, secretForms(CREDS));
  });

  it("destroys without touching the service", async () => {
    const before = emulator.state.log.total;
    await account.destroy();
    const { deployment } = await account.exportState();
    assert.equal(deployment.resources?.length ?? 0, 0);
    assert.equal(emulator.state.log.total, before, "destroy sent no request");
  });
});
