/**
 * The Pulumi CLI version is written once, in `toolchain/go/go.mod`: provisioning and the tests
 * read it there, and nothing derives it from the package's `dependencies` (which are caret
 * ranges, so that a program on a newer `@pulumi/pulumi` keeps one copy).
 */
import { strict as assert } from "node:assert";
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { PINNED_PULUMI_VERSION, REPO_ROOT, pinnedCliVersion } from "../../../toolchain/pulumi-project";

describe("tooling: the Pulumi CLI version, written once", () => {
  it("is the pkg/v3 requirement of toolchain/go/go.mod, for the tests and for provisioning alike", () => {
    const goMod = fs.readFileSync(path.join(REPO_ROOT, "toolchain/go/go.mod"), "utf8");
    assert.match(PINNED_PULUMI_VERSION, /^v3\.\d+\.\d+$/);
    assert.equal(pinnedCliVersion(goMod), PINNED_PULUMI_VERSION);
    // The very line of provision.sh that reads it, run on its own.
    const line = fs
      .readFileSync(path.join(REPO_ROOT, "toolchain/provision.sh"), "utf8")
      .split("\n")
      .find((l) => l.startsWith("PULUMI_VERSION="));
    assert.ok(line, "provision.sh sets PULUMI_VERSION");
    const fromShell = execFileSync("bash", ["-c", `${line}\nprintf %s "$PULUMI_VERSION"`], {
      cwd: REPO_ROOT,
      encoding: "utf8",
    });
    assert.equal(fromShell, PINNED_PULUMI_VERSION);
    assert.throws(() => pinnedCliVersion("module x\n"), /no `require github.com\/pulumi\/pulumi\/pkg\/v3/);
  });

  it("dependencies are caret ranges; the lockfile pins what this repository installs", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const lock = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<string, { version?: string }>;
    };
    for (const [name, range] of Object.entries(pkg.dependencies)) {
      assert.match(range, /^\^\d+\.\d+\.\d+$/, `${name}: ${range}`);
      assert.equal(lock.packages[`node_modules/${name}`]?.version, range.slice(1), `${name} locked`);
    }
  });

  it("no file reads the CLI version from `dependencies`", () => {
    const grep = spawnSync(
      "git",
      [
        "grep",
        "-n",
        "-e",
        'dependencies\\["@pulumi/pulumi"\\]',
        "--",
        "toolchain",
        "test",
        "scripts",
        "bench",
      ],
      { cwd: REPO_ROOT, encoding: "utf8" },
    );
    assert.equal(grep.status, 1, `found: ${grep.stdout}${grep.stderr}`); // 1: no match
  });
});
