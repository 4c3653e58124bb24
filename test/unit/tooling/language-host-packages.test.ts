import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as langproto from "@pulumi/pulumi/proto/language_pb";

// The toolchain's language host is plain JavaScript (no declarations).
const { getRequiredPackages } = require("../../../toolchain/language-host/packages.js") as {
  getRequiredPackages: (
    call: { request: langproto.GetRequiredPackagesRequest },
    cb: (err: Error | null, res: langproto.GetRequiredPackagesResponse) => void,
  ) => void;
};

const roots: string[] = [];

/** Writes `files` (relative path → JSON value or text) under a new temporary folder. */
function tree(files: Record<string, unknown>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "lh-packages-"));
  roots.push(root);
  for (const [rel, value] of Object.entries(files)) {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value));
  }
  return root;
}

/** The GetRequiredPackages answer for a program in `dir`: `name@version` of each package. */
function required(dir: string): string[] {
  const request = new langproto.GetRequiredPackagesRequest().setInfo(
    new langproto.ProgramInfo().setProgramDirectory(dir),
  );
  let names: string[] = [];
  getRequiredPackages({ request }, (err, res) => {
    assert.equal(err, null);
    names = res.getPackagesList().map((p) => `${p.getName()}@${p.getVersion()}`);
  });
  return names.sort();
}

const resource = (name: string, version = "1.2.3"): unknown => ({
  name,
  version,
  pulumi: { resource: true },
});

describe("the toolchain language host's GetRequiredPackages (as the official host's getPackagesFromDir)", () => {
  after(() => {
    for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
  });

  it("finds resource packages under node_modules, scoped and nested, and nothing else", () => {
    const dir = tree({
      "package.json": { name: "program" },
      "node_modules/@pulumi/aws/package.json": resource("@pulumi/aws", "6.0.0"),
      "node_modules/plain/package.json": { name: "plain", version: "1.0.0" },
      "node_modules/plain/node_modules/thing/package.json": {
        name: "thing",
        version: "2.0.0",
        pulumi: { resource: true, name: "thing" },
      },
      "node_modules/not-pulumi/package.json": resource("not-pulumi"),
      "lib/package.json": resource("@pulumi/outside"),
    });
    // "not-pulumi" has no `pulumi.name` and no @pulumi/ scope: no plugin name, left out.
    assert.deepEqual(required(dir), ["aws@v6.0.0", "thing@v2.0.0"]);
  });

  it("does not look into a nested policy pack, but does scan a program folder that is one", () => {
    const dir = tree({
      "node_modules/@pulumi/random/package.json": resource("@pulumi/random", "4.0.0"),
      "policy/PulumiPolicy.yaml": "runtime: nodejs\n",
      "policy/node_modules/@pulumi/aws/package.json": resource("@pulumi/aws"),
    });
    assert.deepEqual(required(dir), ["random@v4.0.0"]);
    assert.deepEqual(required(path.join(dir, "policy")), ["aws@v1.2.3"]);
  });
});
