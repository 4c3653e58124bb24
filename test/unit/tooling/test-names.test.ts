/**
 * The one naming rule of test files (CONTRIBUTING.md, "File names"): every `*.test.ts` under
 * `test/` is kebab-case, named after the module or behaviour it tests, with an optional aspect
 * after a dot (`window-drain.max-runs.test.ts`). And a file that declares tests is named
 * `*.test.ts`, since the test commands run those files only: a `describe` elsewhere never runs.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "../../..");

/** `<subject>[.<aspect>].test.ts`, each part kebab-case (lowercase words and digits, hyphens). */
const TEST_FILE_NAME = /^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+(-[a-z0-9]+)*)?\.test\.ts$/;

/** A mocha suite or test declared at the start of a line (what a test file holds). */
const DECLARES_TESTS = /^\s*(describe|it)(\.only|\.skip)?\(/m;

/** The problem of each path (relative to the root) that breaks the rule, one line each. */
function testNameProblems(files: readonly { path: string; text: string }[]): string[] {
  const problems: string[] = [];
  for (const { path: file, text } of files) {
    const name = path.posix.basename(file);
    if (name.endsWith(".test.ts")) {
      if (!TEST_FILE_NAME.test(name)) {
        problems.push(
          `${file}: not kebab-case <subject>[.<aspect>].test.ts (e.g. window-drain.max-runs.test.ts)`,
        );
      }
    } else if (/\.[cm]?[jt]s$/.test(name) && DECLARES_TESTS.test(text)) {
      problems.push(`${file}: declares tests but is not named *.test.ts, so no test command runs it`);
    }
  }
  return problems;
}

/** The files under test/ git knows of (tracked, or new and not ignored), fixtures aside. */
function testFiles(): { path: string; text: string }[] {
  const r = spawnSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", "test"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout
    .split("\0")
    .filter((f) => f !== "" && !f.startsWith("test/fixtures/") && !f.includes("/fixtures/"))
    .filter((f) => fs.existsSync(path.join(ROOT, f)))
    .map((f) => ({ path: f, text: fs.readFileSync(path.join(ROOT, f), "utf8") }));
}

describe("test file names (CONTRIBUTING.md: kebab-case, an optional aspect after a dot)", () => {
  it("every test file under test/ follows the rule", () => {
    const files = testFiles();
    assert.ok(files.filter((f) => f.path.endsWith(".test.ts")).length > 100, "the test files were listed");
    assert.deepEqual(testNameProblems(files), []);
  });

  it("accepts a subject, a subject with an aspect, digits and hyphens in either", () => {
    const ok = [
      "test/unit/drain/window-drain.test.ts",
      "test/unit/drain/window-drain.max-runs.test.ts",
      "test/integration/window-allowance.20000.test.ts",
      "test/e2e/dlq-recovery.ids.test.ts",
      "test/unit/provider/dlqRecovery/drain.failures.test.ts",
    ];
    assert.deepEqual(testNameProblems(ok.map((p) => ({ path: p, text: 'describe("x", () => {});' }))), []);
  });

  it("fails naming each offender: camelCase, snake_case, two aspects, a test file not named *.test.ts", () => {
    const files = [
      { path: "test/unit/drain/dailyLimit.test.ts", text: "" },
      { path: "test/unit/drain/windowDrain.maxRuns.test.ts", text: "" },
      { path: "test/e2e/dlq_recovery.test.ts", text: "" },
      { path: "test/unit/a.b.c.test.ts", text: "" },
      { path: "test/unit/Account.test.ts", text: "" },
      {
        path: "test/unit/client/retry.spec.ts",
        text: 'describe("retry", () => {\n  it("x", () => {});\n});\n',
      },
      { path: "test/unit/client/helpers.ts", text: "export const T0 = 1;\n" },
    ];
    const problems = testNameProblems(files);
    assert.equal(problems.length, 6, problems.join("\n"));
    for (const f of files.slice(0, 6)) {
      assert.ok(
        problems.some((p) => p.startsWith(`${f.path}: `)),
        `${f.path} is named: ${problems.join("\n")}`,
      );
    }
    assert.match(problems[5], /not named \*\.test\.ts, so no test command runs it/);
  });
});
