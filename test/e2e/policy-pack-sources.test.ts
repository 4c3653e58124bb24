/**
 * The policy pack from its TypeScript sources: when dist/policies/index.js (the `main` of
 * policies/package.json) is missing, `pulumi preview --policy-pack policies` compiles
 * policies/index.ts with ts-node, type-checked. The sources must compile under the options the
 * runner uses with policies/tsconfig.json (ES2022 errors with `cause`, for instance).
 *
 * A copy of the sources without dist/ stands for a checkout nothing has built yet.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PulumiProject, REPO_ROOT } from "../helpers/pulumi";

describe("e2e: the policy pack runs from its TypeScript sources when dist/ is missing", function () {
  this.timeout(600_000);
  let tree: string;
  let project: PulumiProject;

  before(async () => {
    tree = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-svc-sources-"));
    for (const dir of ["client", "core", "policies"]) {
      fs.cpSync(path.join(REPO_ROOT, dir), path.join(tree, dir), { recursive: true });
    }
    for (const file of ["tsconfig.json", "package.json"]) {
      fs.copyFileSync(path.join(REPO_ROOT, file), path.join(tree, file));
    }
    fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(tree, "node_modules"), "dir");
    assert.ok(!fs.existsSync(path.join(tree, "dist")));
    project = await PulumiProject.create({ name: "pack-sources", program: "export const ok = true;\n" });
  });
  after(async () => {
    await project?.cleanup();
    if (tree) fs.rmSync(tree, { recursive: true, force: true });
  });

  it("loads and passes a preview, with no TypeScript error", async () => {
    const res = await project.preview(["--policy-pack", path.join(tree, "policies")], { allowFailure: true });
    const out = res.stdout + res.stderr;
    assert.doesNotMatch(out, /Unable to compile TypeScript|TSError|error TS\d+/);
    assert.equal(res.code, 0, out);
    assert.match(res.stdout, /Policy Packs run:[\s\S]*svc-limits\|local\|\S+\s+\d+\.\d+\.\d+/);
  });
});
