import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { buildProblem } from "../../../bench/lib/built";

const ROOT = path.resolve(__dirname, "../../..");
const BUILD = path.join(ROOT, "toolchain", "build.sh");
const STAMP = path.join(ROOT, ".toolchain", "build.stamp");

/** `bash toolchain/build.sh ARGS...` in the repository. */
function build(...args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync("bash", [BUILD, ...args], { cwd: ROOT, encoding: "utf8" });
  return { status: r.status, stderr: r.stderr };
}

/** The stamp's content and time, or undefined without one. */
function stamp(): string | undefined {
  return fs.existsSync(STAMP) ? `${fs.readFileSync(STAMP, "utf8")}@${fs.statSync(STAMP).mtimeMs}` : undefined;
}

describe("one staleness rule for dist/ (toolchain/build.sh)", () => {
  it("`build.sh --check` answers without building, and the benches' buildProblem() gives the same answer", () => {
    const before = stamp();
    const check = build("--check");
    assert.equal(stamp(), before, "--check must not build");
    assert.ok(check.status === 0 || check.status === 1, check.stderr);
    const problem = buildProblem();
    if (check.status === 0) assert.equal(problem, undefined);
    else assert.match(problem ?? "", /dist\/ is (missing|older than its sources)/);
  });

  it("refuses an unknown argument", () => {
    const r = build("--bogus");
    assert.equal(r.status, 2);
    assert.match(r.stderr, /usage: build\.sh \[--check\]/);
  });
});
