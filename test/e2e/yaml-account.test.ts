/**
 * `svc:index:Account` in a YAML program, served by the svc provider (`provider/`, built to
 * `dist/provider`) that the program finds through `plugins.providers` in its `Pulumi.yaml`, with
 * no download: the real CLI, the YAML language host (toolchain/provision-yaml.sh) and the
 * emulator over loopback, on the project's own backend, home and passphrase. The provider's
 * config comes from stack config (`svc:password` and `svc:token` secret).
 */
import * as assert from "node:assert/strict";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { ACCOUNT_PROVIDER_TYPE } from "../../core/typeTokens";
import { resourceOfType, type PulumiProject } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";
import { yamlProgramHead, yamlProject } from "../helpers/yaml";

const CREDS = {
  token: "tok-e2e-yaml-account-6d2f8a1c",
  username: "platform@example.com",
  password: "pw-e2e-yaml-account-3b7e9c5d",
};

/**
 * The program: one Account and three of its outputs; the provider is found in the installed
 * package, as the README's YAML walkthrough finds it (that program runs verbatim in
 * own-program.test.ts).
 */
const PROGRAM = `${yamlProgramHead("yaml-account")}resources:
  account:
    type: svc:index:Account
outputs:
  maxParallelism: \${account.maxParallelism}
  plan: \${account.type}
  token: \${account.token} # a secret
`;

describe("e2e: a YAML program declares svc:index:Account (the svc provider)", function () {
  this.timeout(600_000);
  let emulator: RunningEmulator;
  let p: PulumiProject;

  before(async function () {
    this.timeout(1_800_000);
    emulator = await startEmulator({ plan: "free", ...CREDS });
    p = await yamlProject("yaml-account", PROGRAM, { accountApiUrl: emulator.url, ...CREDS });
  });
  after(async () => {
    try {
      if (p) assertNoSecrets({ "CLI output": p.transcript }, secretForms(CREDS));
    } finally {
      await p?.cleanup();
      await emulator?.close();
    }
  });

  it("`pulumi preview` plans to create the Account", async () => {
    const res = await p.preview();
    assert.match(res.stdout, /\+ svc:index:Account: \(create\)/);
  });

  it("`pulumi up` stores the record's fields as outputs: a number, the plan, the token a secret", async () => {
    await p.up();
    const outputs = await p.outputs();
    assert.equal(outputs.maxParallelism, 2);
    assert.equal(outputs.plan, "free");
    assert.equal(outputs.token, "[secret]");
    assert.equal((await p.outputs(true)).token, CREDS.token);
  });

  it("the exported state holds the password and the token only as secrets", async () => {
    const { text, deployment } = await p.exportState();
    assertNoSecrets({ "exported state": text }, secretForms(CREDS));
    const account = resourceOfType(deployment, ACCOUNT_PROVIDER_TYPE);
    for (const k of ["password", "token"]) {
      assert.equal((account.outputs?.[k] as Record<string, unknown>)?.ciphertext !== undefined, true, k);
    }
    assert.equal(account.outputs?.accountName, undefined, "the name is the URN's, not stored");
  });

  it("`pulumi refresh` reads the record again: a plan upgrade at the service is an update", async () => {
    const upgraded = await fetch(`${emulator.url}/admin/plan`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ plan: "payg" }),
    });
    assert.equal(upgraded.status, 200);
    const res = await p.refresh();
    assert.match(res.stdout, /~ 1 updated/, res.stdout);
    const { deployment } = await p.exportState();
    assert.equal(resourceOfType(deployment, ACCOUNT_PROVIDER_TYPE).outputs?.maxParallelism, 10);
    // What `read` returned is stored with its secrets wrapped too.
    assertNoSecrets(
      { "state after refresh": JSON.stringify(deployment), refresh: res.stdout + res.stderr },
      secretForms(CREDS),
    );
    await p.preview(["--expect-no-changes"]);
  });

  it("a mistyped `svc:tokn` fails the preview with the did-you-mean hint", async () => {
    await p.withConfigRestored(async () => {
      await p.setConfig("svc:tokn", CREDS.token, true);
      const res = await p.preview([], { allowFailure: true });
      const out = `${res.stdout}\n${res.stderr}`;
      assert.notEqual(res.code, 0, out);
      assert.match(
        out,
        /error: pulumi:providers:svc resource 'default' has a problem: The stack config has `svc:tokn`, which is no setting of pulumi-svc: did you mean `svc:token`\?/,
      );
      assert.equal(out.match(/did you mean/g)?.length, 1, out);
    });
  });

  it("a refused password fails the preview once, saying where it came from, with no stack trace", async () => {
    await p.withConfigRestored(async () => {
      await p.setConfig("svc:password", "pw-wrong-yaml-4e8a2c", true);
      const res = await p.preview([], { allowFailure: true });
      const out = `${res.stdout}\n${res.stderr}`;
      assert.notEqual(res.code, 0, out);
      assert.match(out, /rejected the credentials \(HTTP 401\)/);
      assert.match(out, /`password` from the stack config `svc:password`/);
      assert.equal(out.match(/HTTP 401/g)?.length, 1, out);
      assert.doesNotMatch(out, /^\s+at /m, out);
      assert.ok(!out.includes("pw-wrong-yaml-4e8a2c"));
    });
  });

  it("`pulumi destroy` removes the Account from the stack and leaves the account at the service", async () => {
    await p.destroy();
    assert.deepEqual((await p.exportState()).deployment.resources ?? [], []);
    const res = await fetch(`${emulator.url}/v2/svc/user`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${CREDS.username}:${CREDS.password}`).toString("base64")}`,
      },
    });
    assert.equal(res.status, 200);
  });
});
