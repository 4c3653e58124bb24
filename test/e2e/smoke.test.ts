/**
 * Smoke test of the foundation: a dynamic resource and a local policy pack both run
 * under the real Pulumi engine (the provisioned CLI, the Node.js language host and the
 * dynamic-provider shim), on a local file:// backend.
 */
import * as assert from "node:assert/strict";
import { PulumiProject, resourceOfType } from "../helpers/pulumi";

const PROGRAM = `
import * as pulumi from "@pulumi/pulumi";

const provider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: any) {
    return { id: "greeting-1", outs: { ...inputs, greeting: "hello " + inputs.who } };
  },
};

class Greeting extends pulumi.dynamic.Resource {
  declare public readonly greeting: pulumi.Output<string>;
  constructor(name: string, who: string) {
    super(provider, name, { who, greeting: undefined }, {}, "smoke", "Greeting");
  }
}

const config = new pulumi.Config();
const g = new Greeting("greeting", config.get("who") ?? "world");
export const greeting = g.greeting;
`;

const POLICY_PACK = `
import { PolicyPack } from "@pulumi/policy";

new PolicyPack("smoke-pack", {
  policies: [
    {
      name: "no-greeting-for-mallory",
      description: "Greetings must not be addressed to mallory.",
      enforcementLevel: "mandatory",
      validateResource: (args, reportViolation) => {
        if (args.type === "pulumi-nodejs:dynamic/smoke:Greeting" && args.props.who === "mallory") {
          reportViolation("Greeting \`" + args.name + "\` must not greet mallory; it greets mallory.");
        }
      },
    },
  ],
});
`;

describe("e2e smoke: the real Pulumi CLI", function () {
  this.timeout(300_000);
  let project: PulumiProject;

  before(async () => {
    project = await PulumiProject.create({
      name: "smoke",
      program: PROGRAM,
      files: {
        "pack/PulumiPolicy.yaml": "runtime: nodejs\n",
        "pack/package.json": JSON.stringify({ name: "smoke-pack", version: "0.0.1", main: "index.ts" }),
        "pack/index.ts": POLICY_PACK,
      },
    });
  });
  after(async () => project?.cleanup());

  it("runs a dynamic resource through up, a no-change preview and destroy", async () => {
    await project.up();
    assert.deepEqual(await project.outputs(), { greeting: "hello world" });
    const { deployment } = await project.exportState();
    const res = resourceOfType(deployment, "pulumi-nodejs:dynamic/smoke:Greeting");
    assert.equal(res.id, "greeting-1");

    const preview = await project.preview(["--expect-no-changes"]);
    assert.match(preview.stdout, /2 unchanged/);

    await project.destroy();
    const after = await project.exportState();
    assert.equal(after.deployment.resources?.length ?? 0, 0);
  });

  it("fails a preview on a mandatory violation of a local policy pack, and passes without one", async () => {
    const ok = await project.preview(["--policy-pack", "pack"]);
    assert.equal(ok.code, 0);

    await project.setConfig("who", "mallory");
    const bad = await project.preview(["--policy-pack", "pack"], { allowFailure: true });
    assert.notEqual(bad.code, 0);
    assert.match(bad.stdout, /\[mandatory\]\s+no-greeting-for-mallory/);
    assert.match(bad.stdout, /Greeting `greeting` must not greet mallory; it greets mallory\./);
  });
});
