/**
 * YAML programs and the svc provider beyond one Account: `pulumi import svc:index:Account` and a
 * resource's `get` (the record read by ID with the provider's config), and two accounts through
 * explicit `pulumi:providers:svc` resources, each Account reading its own record. The real CLI,
 * the YAML language host (toolchain/provision-yaml.sh) and two emulators over loopback; every
 * scenario's state and CLI output are searched for the credentials.
 */
import * as assert from "node:assert/strict";
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { ACCOUNT_PROVIDER_TYPE } from "../../core/typeTokens";
import { PulumiProject, REPO_ROOT, type StateDeployment } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";
import { yamlProgramHead } from "../helpers/yaml";

const CREDS_A = {
  token: "tok-e2e-yaml-prov-a-71c3e9d2",
  username: "first@example.com",
  password: "pw-e2e-yaml-prov-a-4f0b8e16",
};
const CREDS_B = {
  token: "tok-e2e-yaml-prov-b-2a9d5c70",
  username: "second@example.com",
  password: "pw-e2e-yaml-prov-b-8e3f1a45",
};
const SECRETS = [...secretForms(CREDS_A), ...secretForms(CREDS_B)];
const PROVIDER_TYPE = "pulumi:providers:svc";

/** The head of every program: the provider found in the installed package, no download. */
const head = yamlProgramHead;

/** Lines of a stack trace (`    at fn (file:line)`). */
const STACK_TRACE = /^\s+at .*:\d+:\d+\)?$/m;

/** What a failed CLI run printed, asserting it failed without a stack trace or a credential. */
function failed(res: { code: number | null; stdout: string; stderr: string }): string {
  const out = `${res.stdout}\n${res.stderr}`;
  assert.notEqual(res.code, 0, out);
  assert.doesNotMatch(out, STACK_TRACE, out);
  assertNoSecrets({ "the failure's output": out }, SECRETS);
  return out;
}

/** The resources of a type in exported state. */
function ofType(d: StateDeployment, type: string): StateDeployment["resources"] {
  return (d.resources ?? []).filter((r) => r.type === type);
}

/** True when a stored value is a secret (ciphertext), not plaintext. */
function isCiphertext(v: unknown): boolean {
  return typeof (v as { ciphertext?: unknown } | undefined)?.ciphertext === "string";
}

describe("e2e: YAML programs with the svc provider: import, get, two accounts through explicit providers", function () {
  this.timeout(600_000);
  let a: RunningEmulator;
  let b: RunningEmulator;
  let idA: string;
  let idB: string;

  before(async function () {
    this.timeout(1_800_000);
    await promisify(execFile)("bash", [path.join(REPO_ROOT, "toolchain", "provision-yaml.sh")]);
    a = await startEmulator({ plan: "free", ...CREDS_A });
    b = await startEmulator({ plan: "payg", ...CREDS_B });
    idA = a.state.account.record.id;
    idB = b.state.account.record.id;
    assert.notEqual(idA, idB);
  });
  after(async () => {
    await a?.close();
    await b?.close();
  });

  describe("`pulumi import` and `get` (the default provider, configured by the `svc:` stack config)", () => {
    let p: PulumiProject;
    const write = (resources: string) =>
      fs.writeFileSync(path.join(p.dir, "Pulumi.yaml"), `${head("yaml-import")}${resources}`);

    before(async () => {
      p = await PulumiProject.create({
        name: "yaml-import",
        program: "",
        files: { "Pulumi.yaml": head("yaml-import") },
      });
      await p.setConfig("svc:accountApiUrl", a.url);
      await p.setConfig("svc:username", CREDS_A.username);
      await p.setConfig("svc:password", "pw-e2e-yaml-wrong-0c5d", true);
    });
    after(async () => {
      try {
        if (p) assertNoSecrets({ "CLI output": p.transcript }, SECRETS);
      } finally {
        await p?.cleanup();
      }
    });

    it("a refused password fails the import, naming the ID asked and where the password came from; nothing is stored", async () => {
      const out = failed(
        await p.cli(["import", "svc:index:Account", "imported", idA, "--yes"], { allowFailure: true }),
      );
      assert.match(
        out,
        new RegExp(
          `Account \`imported\` \\(read of the ID \`${idA}\`\\): the service at \\S+ rejected the credentials \\(HTTP 401\\)`,
        ),
      );
      assert.match(out, /`password` from the stack config `svc:password`/);
      assert.equal(ofType((await p.exportState()).deployment, ACCOUNT_PROVIDER_TYPE).length, 0);
      await p.setConfig("svc:password", CREDS_A.password, true);
    });

    it("imports the Account by its ID: the record's outputs, `password` and `token` secrets; the printed code previews and refreshes with no change", async () => {
      const res = await p.cli(["import", "svc:index:Account", "imported", idA, "--yes"]);
      const { text, deployment } = await p.exportState();
      assertNoSecrets({ "exported state": text }, SECRETS);
      const [account] = ofType(deployment, ACCOUNT_PROVIDER_TYPE);
      assert.equal(account.id, idA);
      assert.equal(account.outputs?.accountId, idA);
      assert.equal(account.outputs?.type, "free");
      assert.equal(account.outputs?.maxParallelism, 2);
      for (const k of ["password", "token"]) assert.ok(isCiphertext(account.outputs?.[k]), k);
      // The code the CLI prints, pasted into the program: nothing to change.
      const code = res.stdout.slice(res.stdout.indexOf("resources:\n"));
      assert.match(code, /^resources:\n {2}imported:\n {4}type: svc:(index:)?Account\n/);
      write(code);
      await p.preview(["--expect-no-changes"]);
      // Refreshed with no stored inputs: the connection still comes from the provider's config.
      await p.refresh(["--expect-no-changes"]);
    });

    it("an ID that is not the record of the configured credentials fails the import, naming both IDs; nothing is stored", async () => {
      const out = failed(
        await p.cli(["import", "svc:index:Account", "other", idB, "--yes"], { allowFailure: true }),
      );
      assert.match(
        out,
        new RegExp(
          `Account \`other\`: the ID \`${idB}\` is not the account its provider's credentials read \\(\`${idA}\`\\); ` +
            `nothing was imported or read\\. Give the ID \`${idA}\`, or read \`${idB}\` with that account's`,
        ),
      );
      const accounts = ofType((await p.exportState()).deployment, ACCOUNT_PROVIDER_TYPE);
      assert.deepEqual(
        accounts.map((r) => r.urn.split("::").pop()),
        ["imported"],
      );
    });

    it("`get: {id}` reads the record by ID into the program (not managed: stored as external)", async () => {
      const imported = fs
        .readFileSync(path.join(p.dir, "Pulumi.yaml"), "utf8")
        .slice(head("yaml-import").length);
      const withGet = (id: string) =>
        `${imported}  existing:\n    type: svc:index:Account\n    get:\n      id: ${id}\n` +
        "outputs:\n  plan: ${existing.type}\n  accountId: ${existing.accountId}\n  token: ${existing.token}\n";
      write(withGet(idA));
      await p.up();
      const outputs = await p.outputs();
      assert.deepEqual(outputs, { plan: "free", accountId: idA, token: "[secret]" });
      const existing = (await p.exportState()).deployment.resources.find((r) => r.urn.endsWith("::existing"));
      assert.equal((existing as { external?: boolean } | undefined)?.external, true);

      write(withGet(idB));
      try {
        const out = failed(await p.preview([], { allowFailure: true }));
        assert.match(
          out,
          new RegExp(
            `Account \`existing\`: the ID \`${idB}\` is not the account its provider's credentials read`,
          ),
        );
        assert.equal(out.match(/is not the account its provider's credentials read/g)?.length, 1, out);
      } finally {
        write(withGet(idA));
      }
    });

    it("unprotected, the imported Account is destroyed with the stack", async () => {
      const program = fs.readFileSync(path.join(p.dir, "Pulumi.yaml"), "utf8");
      fs.writeFileSync(
        path.join(p.dir, "Pulumi.yaml"),
        program.replace(/\n {4}options:\n {6}protect: true/, ""),
      );
      await p.up();
      await p.destroy();
      assert.deepEqual((await p.exportState()).deployment.resources ?? [], []);
    });
  });

  describe("two accounts through explicit `pulumi:providers:svc` resources", () => {
    let p: PulumiProject;
    /** Provider `first` takes its password from secret config; `second` has its credentials written plain in the program. */
    const program = (
      o: { urlA?: string; tokenB?: string; tokenKey?: string } = {},
    ) => `${head("yaml-providers")}config:
  passwordA:
    type: string
    secret: true
resources:
  first:
    type: pulumi:providers:svc
    properties:
      accountApiUrl: ${o.urlA ?? a.url}
      username: ${CREDS_A.username}
      password: \${passwordA}
  second:
    type: pulumi:providers:svc
    properties:
      accountApiUrl: ${b.url}
      username: ${CREDS_B.username}
      password: ${CREDS_B.password}
      ${o.tokenKey ?? "token"}: ${o.tokenB ?? CREDS_B.token}
  accountA:
    type: svc:index:Account
    options:
      provider: \${first}
  accountB:
    type: svc:index:Account
    options:
      provider: \${second}
outputs:
  idA: \${accountA.accountId}
  idB: \${accountB.accountId}
  planA: \${accountA.type}
  planB: \${accountB.type}
`;
    const write = (text: string) => fs.writeFileSync(path.join(p.dir, "Pulumi.yaml"), text);

    before(async () => {
      p = await PulumiProject.create({
        name: "yaml-providers",
        program: "",
        files: { "Pulumi.yaml": program() },
      });
      await p.setConfig("passwordA", CREDS_A.password, true);
    });
    after(async () => {
      try {
        if (p) assertNoSecrets({ "CLI output": p.transcript }, SECRETS);
      } finally {
        await p?.cleanup();
      }
    });

    it("`pulumi up`: each Account reads its own record through its provider", async () => {
      await p.up();
      assert.deepEqual(await p.outputs(), { idA, idB, planA: "free", planB: "paid" });
      const { deployment } = await p.exportState();
      const providers = ofType(deployment, PROVIDER_TYPE)
        .map((r) => r.urn.split("::").pop())
        .sort();
      assert.deepEqual(providers, ["first", "second"], "no default provider");
    });

    it("the providers' `password` and `token` are stored only as secrets (given plain in the program, too)", async () => {
      const { text, deployment } = await p.exportState();
      assertNoSecrets({ "exported state": text }, SECRETS);
      for (const r of ofType(deployment, PROVIDER_TYPE)) {
        const keys = r.urn.endsWith("::second") ? ["password", "token"] : ["password"];
        for (const k of keys) {
          assert.ok(isCiphertext(r.inputs?.[k]), `${r.urn} input ${k}`);
          assert.ok(isCiphertext(r.outputs?.[k]), `${r.urn} output ${k}`);
        }
      }
    });

    it("`pulumi refresh` reads each record with its own provider: a plan upgrade of one account updates only its Account", async () => {
      const upgraded = await fetch(`${a.url}/admin/plan`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ plan: "payg" }),
      });
      assert.equal(upgraded.status, 200);
      const res = await p.refresh();
      assert.match(res.stdout, /~ 1 updated/, res.stdout);
      const accounts = ofType((await p.exportState()).deployment, ACCOUNT_PROVIDER_TYPE);
      const byName = Object.fromEntries(accounts.map((r) => [r.urn.split("::").pop(), r.outputs]));
      assert.equal(byName.accountA?.maxParallelism, 10);
      assert.equal(byName.accountA?.accountId, idA);
      assert.equal(byName.accountB?.accountId, idB);
      await p.up();
      assert.deepEqual(await p.outputs(), { idA, idB, planA: "paid", planB: "paid" });
    });

    it("a changed provider input (another URL form, a rotated token) updates the provider and replaces nothing", async () => {
      write(
        program({ urlA: a.url.replace("127.0.0.1", "localhost"), tokenB: "tok-e2e-rotated-not-secret-1" }),
      );
      const preview = await p.preview();
      assert.match(preview.stdout, /~ 2 to update/, preview.stdout);
      assert.doesNotMatch(preview.stdout, /replace/i, preview.stdout);
      const up = await p.up();
      assert.match(up.stdout, /~ 2 updated/, up.stdout);
      const accounts = ofType((await p.exportState()).deployment, ACCOUNT_PROVIDER_TYPE);
      assert.deepEqual(accounts.map((r) => r.id).sort(), [idA, idB].sort());
      await p.preview(["--expect-no-changes"]);
      write(program());
      await p.up();
    });

    it("a mistyped provider input fails the preview naming it and the inputs there are", async () => {
      write(program({ tokenKey: "tokn", tokenB: "not-a-secret-value-1" }));
      try {
        const out = failed(await p.preview([], { allowFailure: true }));
        // The YAML language host checks a provider's inputs against the schema before the engine's
        // CheckConfig (whose did-you-mean hint other languages get): it names the key and lists the inputs.
        assert.match(out, /Property tokn does not exist on 'pulumi:providers:svc'/);
        assert.match(out, /Existing properties are: .*\btoken\b/);
      } finally {
        write(program());
      }
    });

    it("a refused password of one provider fails its Account's preview once, naming that provider's input", async () => {
      await p.withConfigRestored(async () => {
        await p.setConfig("passwordA", "pw-e2e-yaml-prov-wrong-6b1d", true);
        const out = failed(await p.preview([], { allowFailure: true }));
        assert.match(out, /Account `accountA`: the service at \S+ rejected the credentials \(HTTP 401\)/);
        assert.match(out, /`password` from the input `password` of the provider `first`/);
        assert.equal(out.match(/HTTP 401/g)?.length, 1, out);
        assert.doesNotMatch(out, /accountB/);
        assert.ok(!out.includes("pw-e2e-yaml-prov-wrong-6b1d"));
      });
    });

    it("`pulumi import --provider` reads through the named provider: its own account's ID, not another's", async () => {
      const second = `urn:pulumi:${p.stack}::yaml-providers::${PROVIDER_TYPE}::second`;
      const first = `urn:pulumi:${p.stack}::yaml-providers::${PROVIDER_TYPE}::first`;
      await p.cli([
        "import",
        "svc:index:Account",
        "importedB",
        idB,
        "--provider",
        `second=${second}`,
        "--yes",
      ]);
      const out = failed(
        await p.cli(
          ["import", "svc:index:Account", "importedA", idB, "--provider", `first=${first}`, "--yes"],
          {
            allowFailure: true,
          },
        ),
      );
      assert.match(
        out,
        new RegExp(`the ID \`${idB}\` is not the account its provider's credentials read \\(\`${idA}\`\\)`),
      );
      const { text, deployment } = await p.exportState();
      assertNoSecrets({ "exported state": text }, SECRETS);
      const imported = deployment.resources.filter(
        (r) => r.urn.includes("::importedA") || r.urn.includes("::importedB"),
      );
      assert.deepEqual(
        imported.map((r) => [r.urn.split("::").pop(), r.id]),
        [["importedB", idB]],
      );
      await p.cli(["state", "unprotect", imported[0].urn, "--yes"]);
    });
  });
});
