/**
 * The Node.js language host (toolchain/language-host.js) keeps the official host's contract,
 * shown with the real CLI: a policy pack sees its stack (stack, project, organization, preview
 * flag, stack config) exactly as under the official host; `nodeargs` from Pulumi.yaml reach
 * the program's node; `pulumi install` installs a program's packages; `pulumi about` reports
 * the program's packages and Node. (Cancel: test/e2e/interruption.test.ts.)
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { PulumiProject, REPO_ROOT } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";

const CONTEXT_PACK = path.join(REPO_ROOT, "test", "fixtures", "context-pack");
/** The SDK version this repository installs (the lockfile pins it). */
const PULUMI_VERSION: string = require(
  path.join(REPO_ROOT, "node_modules/@pulumi/pulumi/package.json"),
).version;

/** What the context pack reported (its violation message `context={...}`). */
interface PackContext {
  stack: string;
  project: string;
  organization: string;
  dryRun: boolean;
  greeting: string | null;
  secretLength: number | null;
}

function packContext(output: string): PackContext {
  const m = /context=(\{.*\})/.exec(output);
  assert.ok(m, `the context pack reported its context\n${output}`);
  return JSON.parse(m[1]) as PackContext;
}

/** `v8.getHeapStatistics().heap_size_limit` of this Node run with `flags`. */
function heapLimitWith(flags: string[]): number {
  const r = spawnSync(
    process.execPath,
    [...flags, "-e", "process.stdout.write(String(require('v8').getHeapStatistics().heap_size_limit))"],
    { encoding: "utf8" },
  );
  assert.equal(r.status, 0, r.stderr);
  return Number(r.stdout);
}

describe("e2e: the language host keeps the official host's contract", function () {
  this.timeout(600_000);
  const projects: PulumiProject[] = [];
  after(async () => {
    for (const p of projects) await p.cleanup();
  });

  describe("a policy pack sees its stack", () => {
    const SECRET = "sesame-e2e-7f3a91c2";
    let p: PulumiProject;

    before(async () => {
      p = await PulumiProject.create({
        name: "pack-context",
        stack: "staging",
        program: `
import * as pulumi from "@pulumi/pulumi";
export const organization = pulumi.getOrganization();
`,
      });
      projects.push(p);
      await p.setConfig("greeting", "hello from the stack");
      await p.setConfig("secretWord", SECRET, true);
    });
    after(() => assertNoSecrets({ "CLI output": p.transcript }, secretForms({ password: SECRET })));

    it("in preview: getStack(), getProject(), getOrganization(), isDryRun() true, pulumi.Config (secrets decrypted)", async () => {
      const res = await p.preview(["--policy-pack", CONTEXT_PACK]);
      const ctx = packContext(res.stdout);
      assert.equal(ctx.stack, "staging");
      assert.equal(ctx.project, "pack-context");
      assert.equal(ctx.organization, "organization", "the local backend's organization");
      assert.equal(ctx.dryRun, true);
      assert.equal(ctx.greeting, "hello from the stack");
      assert.equal(ctx.secretLength, SECRET.length, "the secret, decrypted (only its length is reported)");
    });

    it("in an update: isDryRun() false, and the organization the program itself sees", async () => {
      const res = await p.up(["--policy-pack", CONTEXT_PACK]);
      const ctx = packContext(res.stdout);
      assert.equal(ctx.dryRun, false);
      assert.equal(ctx.stack, "staging");
      assert.equal(ctx.greeting, "hello from the stack");
      assert.equal((await p.outputs()).organization, ctx.organization);
    });
  });

  it("`nodeargs` in Pulumi.yaml reach the program's node", async () => {
    const flag = "--max-old-space-size=333";
    const p = await PulumiProject.create({
      name: "nodeargs",
      program: `
import * as v8 from "node:v8";
export const heapSizeLimit = v8.getHeapStatistics().heap_size_limit;
export const execArgv = process.execArgv;
`,
      files: {
        "Pulumi.yaml": `name: nodeargs\nruntime:\n  name: nodejs\n  options:\n    nodeargs: "${flag} --no-deprecation"\n`,
      },
    });
    projects.push(p);
    await p.up();
    const out = (await p.outputs()) as { heapSizeLimit: number; execArgv: string[] };
    assert.deepEqual(out.execArgv, [flag, "--no-deprecation"]);
    assert.equal(out.heapSizeLimit, heapLimitWith([flag]), "the heap limit node sets for that flag");
    assert.notEqual(out.heapSizeLimit, heapLimitWith([]), "not the default heap limit");
  });

  describe("`pulumi install` and `pulumi about` in a program folder without node_modules", () => {
    let p: PulumiProject;

    before(async () => {
      p = await PulumiProject.create({
        name: "install-me",
        program: "",
        linkNodeModules: false,
        files: {
          "Pulumi.yaml": "name: install-me\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n",
          "package.json": JSON.stringify(
            {
              name: "install-me",
              private: true,
              main: "index.js",
              dependencies: { "@pulumi/pulumi": PULUMI_VERSION },
            },
            null,
            2,
          ),
          "index.js": 'const pulumi = require("@pulumi/pulumi");\nexports.stack = pulumi.getStack();\n',
        },
        // npm takes the packages from its cache (filled by the project's own install).
        env: { npm_config_prefer_offline: "true", npm_config_audit: "false", npm_config_fund: "false" },
      });
      projects.push(p);
    });

    it("installs the program's packages, and the program then runs", async () => {
      assert.ok(!fs.existsSync(path.join(p.dir, "node_modules")));
      const res = await p.cli(["install"]);
      assert.match(res.stdout, /Installing dependencies\.\.\./);
      assert.match(res.stdout, /Finished installing dependencies/);
      const installed = path.join(p.dir, "node_modules", "@pulumi", "pulumi", "package.json");
      assert.equal(JSON.parse(fs.readFileSync(installed, "utf8")).version, PULUMI_VERSION);
      assert.ok(!fs.lstatSync(path.join(p.dir, "node_modules")).isSymbolicLink());
      assert.ok(fs.existsSync(path.join(p.dir, "package-lock.json")));
      await p.up();
      assert.deepEqual(await p.outputs(), { stack: "dev" });
    });

    it("`pulumi about` lists the program's @pulumi/pulumi version and the Node that runs it", async () => {
      const res = await p.cli(["about"]);
      assert.match(res.stdout, new RegExp(`@pulumi/pulumi\\s+${PULUMI_VERSION.replace(/\./g, "\\.")}`));
      assert.match(
        res.stdout,
        new RegExp(`written in nodejs: executable='[^']+' version='${process.version}'`),
      );
      assert.doesNotMatch(
        res.stdout + res.stderr,
        /Failed to get information about the Pulumi program's dependencies/,
      );
    });
  });
});
