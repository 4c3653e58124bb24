/**
 * YAML programs run with the project's CLI: the YAML language host (`pulumi-language-yaml`, pinned
 * in toolchain/yaml/go.mod) is provisioned by toolchain/provision-yaml.sh, the first time here
 * (a build of about a minute; `npm start` does not pay it), then `pulumi preview` and `pulumi up`
 * of a program with config and outputs only, on its own backend, home and passphrase.
 * A host that is missing and cannot be built fails the suite with the script's instructions.
 */
import * as assert from "node:assert/strict";
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { PulumiProject, REPO_ROOT } from "../helpers/pulumi";

/** The pinned host version: the `github.com/pulumi/pulumi-yaml` requirement of toolchain/yaml/go.mod. */
const YAML_VERSION = /^require github\.com\/pulumi\/pulumi-yaml v(\d+\.\d+\.\d+)$/m.exec(
  fs.readFileSync(path.join(REPO_ROOT, "toolchain/yaml/go.mod"), "utf8"),
)?.[1];

/** A YAML program with no resources: outputs computed from stack config. */
const PROGRAM = `name: yaml-program
runtime: yaml
config:
  greeting:
    type: string
  repeat:
    type: integer
    default: 2
variables:
  words:
    fn::split:
      - " "
      - \${greeting}
outputs:
  message: \${greeting}, from the \${pulumi.stack} stack of \${pulumi.project}
  firstWord: \${words[0]}
  repeat: \${repeat}
`;

/** Runs toolchain/provision-yaml.sh; a failure carries what the script said to do. */
async function provisionYamlHost(): Promise<void> {
  const script = path.join(REPO_ROOT, "toolchain", "provision-yaml.sh");
  try {
    await promisify(execFile)("bash", [script], { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 });
  } catch (e) {
    const err = e as Error & { stderr?: string };
    throw new Error(
      "The YAML language host (pulumi-language-yaml) is missing and `bash toolchain/provision-yaml.sh` " +
        `could not build it; YAML programs need it.\n${err.stderr ?? err.message}`,
      { cause: e },
    );
  }
}

describe("e2e: a YAML program runs with the provisioned YAML language host", function () {
  this.timeout(600_000);
  let p: PulumiProject;

  before(async function () {
    // The first build of the host takes about a minute on 2 cores; give a loaded machine room.
    this.timeout(1_800_000);
    assert.ok(YAML_VERSION, "toolchain/yaml/go.mod pins github.com/pulumi/pulumi-yaml");
    await provisionYamlHost();
    p = await PulumiProject.create({
      name: "yaml-program",
      program: "",
      linkNodeModules: false,
      files: { "Pulumi.yaml": PROGRAM },
    });
    await p.setConfig("greeting", "Hello YAML world");
  });
  after(async () => {
    await p?.cleanup();
  });

  it("`pulumi preview` shows the outputs computed from stack config", async () => {
    const res = await p.preview();
    assert.match(res.stdout, /\+ pulumi:pulumi:Stack: \(create\)[\s\S]*--outputs:--/);
    assert.match(res.stdout, /message\s*:\s*"Hello YAML world, from the dev stack of yaml-program"/);
    assert.match(res.stdout, /firstWord\s*:\s*"Hello"/);
  });

  it("`pulumi up` stores them as stack outputs (`pulumi stack output --json`)", async () => {
    await p.up();
    assert.deepEqual(await p.outputs(), {
      message: "Hello YAML world, from the dev stack of yaml-program",
      firstWord: "Hello",
      repeat: 2,
    });
  });

  it("the host the CLI runs is the pinned one (`pulumi about`: language yaml <version of toolchain/yaml/go.mod>)", async () => {
    const res = await p.cli(["about"]);
    assert.match(res.stdout, new RegExp(`language\\s+yaml\\s+${YAML_VERSION?.replace(/\./g, "\\.")}`));
  });
});
