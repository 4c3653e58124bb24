/**
 * What `npm run check` runs, read from the files that declare it: the `check` script of
 * package.json must be `bash scripts/check.sh`, and the steps are that script's `checks=(...)`
 * list (npm script names). The tooling tests use it to show a rule is part of the checks.
 */
import * as fs from "node:fs";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "../..");

/** The npm scripts `npm run check` runs, in order; throws when the check is wired otherwise. */
export function checkSteps(): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  if (pkg.scripts.check !== "bash scripts/check.sh") {
    throw new Error(
      `package.json's check script is ${JSON.stringify(pkg.scripts.check)}, not scripts/check.sh`,
    );
  }
  const list = /^checks=\(([^)]*)\)$/m.exec(fs.readFileSync(path.join(ROOT, "scripts", "check.sh"), "utf8"));
  if (list === null) throw new Error("scripts/check.sh has no `checks=(...)` line");
  return list[1].split(" ").filter((s) => s !== "");
}
