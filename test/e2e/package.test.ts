/**
 * Packaging: `npm pack` yields a tarball that a separate Pulumi program installs and uses
 * (up and destroy), and whose policy pack runs from the installed package.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { PulumiProject, REPO_ROOT } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";

const CREDS = {
  token: "tok-e2e-package-4e7a1c9b",
  username: "pkg@example.com",
  password: "pw-e2e-package-6d2f8a0c",
};

const PROGRAM = `
import * as pulumi from "@pulumi/pulumi";
import { Account, DlqRecovery, Workflow } from "pulumi-svc";
const account = new Account("account");
const parallelism = new pulumi.Config().getNumber("parallelism") ?? 2;
new Workflow("orders", { url: "http://127.0.0.1/workflows/orders", retries: 3, flowControl: { key: "orders", parallelism } });
const recovery = new DlqRecovery("backlog", { all: true });
export const plan = account.type;
export const resumed = recovery.resumedCount;
`;

describe("e2e: the npm package", function () {
  this.timeout(600_000);
  let emulator: RunningEmulator;
  let project: PulumiProject;
  let tarball: string;

  before(async () => {
    emulator = await startEmulator({ plan: "free", dlq: 75, ...CREDS });
    project = await PulumiProject.create({
      name: "consumer-of-package",
      program: PROGRAM,
      linkNodeModules: false,
    });
    const packDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-svc-pack-"));
    const packed = await project.exec("npm", ["pack", REPO_ROOT, "--pack-destination", packDir, "--silent"]);
    tarball = path.join(packDir, packed.stdout.trim().split("\n").pop() ?? "");
    assert.ok(fs.existsSync(tarball), `npm pack produced ${tarball}`);
    const version = require(path.join(REPO_ROOT, "node_modules/@pulumi/pulumi/package.json")).version;
    await project.exec("npm", [
      "install",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      tarball,
      `@pulumi/pulumi@${version}`,
      "typescript@5",
      "ts-node@10",
    ]);
    await project.setConfig("svc:accountApiUrl", emulator.url);
    await project.setConfig("svc:username", CREDS.username);
    await project.setConfig("svc:password", CREDS.password, true);
    await project.setConfig("svc:baseUrl", emulator.url);
    await project.setConfig("svc:token", CREDS.token, true);
  });

  after(async () => {
    try {
      assertNoSecrets({ "CLI output": project.transcript }, secretForms(CREDS));
    } finally {
      await project?.cleanup();
      await emulator?.close();
      if (tarball) fs.rmSync(path.dirname(tarball), { recursive: true, force: true });
    }
  });

  it("installs as a real package (not a link to the repository)", () => {
    const installed = path.join(project.dir, "node_modules", "pulumi-svc");
    assert.ok(!fs.lstatSync(installed).isSymbolicLink());
    assert.ok(fs.existsSync(path.join(installed, "dist", "components", "index.js")));
    assert.ok(fs.existsSync(path.join(installed, "policies", "PulumiPolicy.yaml")));
  });

  it("runs up and destroy with the installed package", async () => {
    await project.up();
    assert.deepEqual(await project.outputs(), { plan: "free", resumed: 75 });
    assert.equal(emulator.state.dlq.size, 0);
    const { text } = await project.exportState();
    assertNoSecrets({ state: text }, secretForms(CREDS));
  });

  it("runs the policy pack from the installed package", async () => {
    const pack = path.join("node_modules", "pulumi-svc", "policies");
    const ok = await project.preview(["--policy-pack", pack]);
    assert.equal(ok.code, 0);
    await project.setConfig("parallelism", "5");
    const bad = await project.preview(["--policy-pack", pack], { allowFailure: true });
    assert.notEqual(bad.code, 0);
    assert.match(bad.stdout, /workflow-max-parallelism/);
    await project.setConfig("parallelism", "2");
  });

  it("destroys, leaving the service untouched", async () => {
    const before = emulator.state.log.total;
    await project.destroy();
    assert.equal(emulator.state.log.total, before);
  });
});
