import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { MAX_FILE_LINES, candidateFiles, lineCount } from "../../../scripts/check-file-size";
import { checkSteps } from "../../helpers/checks";

const ROOT = path.resolve(__dirname, "../../..");
const SCRIPT = path.join(ROOT, "scripts", "check-file-size.ts");

/** Runs the file-size check of `npm run check` (same script) on the folder `dir`. */
function checkSizes(dir: string): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, ["-r", "ts-node/register/transpile-only", SCRIPT, "--root", dir], {
    cwd: ROOT,
    encoding: "utf8",
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** A source text of exactly `lines` lines, `head` (if any) being its first ones. */
function source(lines: number, head: string[] = [], comment = "//"): string {
  const rest = Array.from({ length: lines - head.length }, (_, i) => `${comment} line ${i}`);
  return `${[...head, ...rest].join("\n")}\n`;
}

describe("the file-size check (npm run check: scripts/check-file-size.ts)", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-fsize-"));
    fs.mkdirSync(path.join(dir, "src"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it(`fails on a file of ${MAX_FILE_LINES + 1} lines without a reason, naming it and its length`, () => {
    fs.writeFileSync(path.join(dir, "src", "long.ts"), source(MAX_FILE_LINES + 1));
    assert.equal(lineCount(fs.readFileSync(path.join(dir, "src", "long.ts"), "utf8")), 401);
    const { status, output } = checkSizes(dir);
    assert.equal(status, 1, output);
    assert.match(output, /src\/long\.ts: 401 lines; over 400/);
    assert.match(output, /"\/\/ size: <reason>"/);
  });

  it(`passes a file of ${MAX_FILE_LINES + 1} lines whose first lines say why (after a shebang too)`, () => {
    fs.writeFileSync(
      path.join(dir, "src", "long.ts"),
      source(MAX_FILE_LINES + 1, ["// size: one table of every wire field; splitting it would scatter it"]),
    );
    fs.writeFileSync(
      path.join(dir, "src", "tool.js"),
      source(MAX_FILE_LINES + 50, ["#!/usr/bin/env node", "// size: one script the shim starts"]),
    );
    const { status, output } = checkSizes(dir);
    assert.equal(status, 0, output);
  });

  it(`passes a file of exactly ${MAX_FILE_LINES} lines without a reason`, () => {
    fs.writeFileSync(path.join(dir, "src", "ok.ts"), source(MAX_FILE_LINES));
    const { status, output } = checkSizes(dir);
    assert.equal(status, 0, output);
  });

  it("wants the reason within the first 3 lines, in the file's own comment syntax", () => {
    fs.writeFileSync(
      path.join(dir, "src", "late.ts"),
      source(MAX_FILE_LINES + 1, ["/**", " * A module.", " */", "// size: too late"]),
    );
    fs.writeFileSync(
      path.join(dir, "src", "run.sh"),
      source(MAX_FILE_LINES + 1, ["#!/usr/bin/env bash"], "#"),
    );
    fs.writeFileSync(
      path.join(dir, "src", "ok.sh"),
      source(MAX_FILE_LINES + 1, ["#!/usr/bin/env bash", "# size: one provisioning sequence"], "#"),
    );
    const { status, output } = checkSizes(dir);
    assert.equal(status, 1, output);
    assert.match(output, /src\/late\.ts: 401 lines/);
    assert.match(output, /src\/run\.sh: 401 lines.*"# size: <reason>"/);
    assert.doesNotMatch(output, /ok\.sh/);
  });

  it("skips the generated SDKs, node_modules, dist and files that are not source", () => {
    for (const d of ["sdk/go", "node_modules/x", "dist", "src/node_modules/y"]) {
      fs.mkdirSync(path.join(dir, d), { recursive: true });
      fs.writeFileSync(path.join(dir, d, "big.ts"), source(MAX_FILE_LINES + 1));
    }
    fs.writeFileSync(path.join(dir, "src", "notes.md"), source(MAX_FILE_LINES + 1));
    fs.writeFileSync(path.join(dir, "src", "main.go"), source(MAX_FILE_LINES + 1));
    assert.deepEqual(candidateFiles(dir), ["src/main.go"]);
    const { status, output } = checkSizes(dir);
    assert.equal(status, 1, output);
    assert.match(output, /^src\/main\.go: 401 lines/m);
  });
});

describe("the file-size check is part of npm run check", () => {
  it("runs `npm run lint:size`, which runs the script on the repository", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    assert.ok(checkSteps().includes("lint:size"), "scripts/check.sh runs lint:size");
    assert.match(pkg.scripts["lint:size"], /scripts\/check-file-size\.ts$/);
  });
});
