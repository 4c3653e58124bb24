import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  CHECKED_FOLDERS,
  MAX_FUNCTION_LINES,
  checkFunctionLength,
} from "../../../scripts/check-function-length";
import { checkSteps } from "../../helpers/checks";

const ROOT = path.resolve(__dirname, "../../..");
const SCRIPT = path.join(ROOT, "scripts", "check-function-length.ts");

/** Runs the function-length check of `npm run check` (same script) on the folder `src` of `dir`, no exceptions. */
function checkLengths(dir: string): { status: number | null; output: string } {
  const r = spawnSync(
    process.execPath,
    ["-r", "ts-node/register/transpile-only", SCRIPT, "--root", dir, "src"],
    { cwd: ROOT, encoding: "utf8" },
  );
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** A function of `lines` lines (signature and closing brace included). */
function fn(name: string, lines: number): string {
  const body = Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`).join("\n");
  return `export function ${name}(): void {\n${body}\n}\n`;
}

describe("the function-length check (npm run check: scripts/check-function-length.ts)", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-fnlen-"));
    fs.mkdirSync(path.join(dir, "src"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it(`fails on a function of ${MAX_FUNCTION_LINES + 1} lines, naming the file, the function and its length`, () => {
    fs.writeFileSync(path.join(dir, "src", "long.ts"), fn("tooLong", MAX_FUNCTION_LINES + 1));
    const { status, output } = checkLengths(dir);
    assert.equal(status, 1, output);
    assert.match(output, /src\/long\.ts:1: function `tooLong` is 81 lines; at most 80/);
  });

  it("fails on a long method and a long arrow function, each named", () => {
    const method = fn("x", MAX_FUNCTION_LINES + 5).replace("export function x(): void", "  run(): void");
    fs.writeFileSync(
      path.join(dir, "src", "methods.ts"),
      `export class Runner {\n${method}}\n` +
        fn("y", MAX_FUNCTION_LINES + 2).replace(
          "export function y(): void",
          "export const arrow = (): void =>",
        ),
    );
    const { status, output } = checkLengths(dir);
    assert.equal(status, 1, output);
    assert.match(output, /function `Runner\.run` is 85 lines/);
    assert.match(output, /function `arrow` is 82 lines/);
  });

  it("checks JavaScript too (the language host is .js): a long function and a long callback, each named", () => {
    const body = (n: number): string =>
      Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join("\n");
    fs.writeFileSync(
      path.join(dir, "src", "host.js"),
      `"use strict";\nfunction serve(call) {\n${body(MAX_FUNCTION_LINES - 1)}\n}\n` +
        `const handlers = {\n  run: (call, cb) => {\n${body(MAX_FUNCTION_LINES)}\n  },\n};\n` +
        `module.exports = { serve, handlers };\n`,
    );
    const { status, output } = checkLengths(dir);
    assert.equal(status, 1, output);
    assert.match(output, /src\/host\.js:2: function `serve` is 81 lines/);
    assert.match(output, /function `run` is 82 lines/);
  });

  it("skips .d.ts files and node_modules", () => {
    fs.writeFileSync(path.join(dir, "src", "types.d.ts"), fn("declared", MAX_FUNCTION_LINES + 1));
    fs.mkdirSync(path.join(dir, "src", "node_modules"));
    fs.writeFileSync(path.join(dir, "src", "node_modules", "dep.js"), fn("dep", MAX_FUNCTION_LINES + 1));
    const { status, output } = checkLengths(dir);
    assert.equal(status, 0, output);
  });

  it(`passes a function of exactly ${MAX_FUNCTION_LINES} lines whose doc comment makes it longer`, () => {
    const doc = `/**\n${Array.from({ length: 20 }, () => " * doc").join("\n")}\n */\n`;
    fs.writeFileSync(path.join(dir, "src", "ok.ts"), doc + fn("justRight", MAX_FUNCTION_LINES));
    const { status, output } = checkLengths(dir);
    assert.equal(status, 0, output);
  });
});

describe("the function-length check covers the tooling as well as the product", () => {
  it("checks toolchain/ (the language host included), scripts/ and bench/ by default, and they pass", () => {
    for (const d of [
      "components",
      "dynamic",
      "client",
      "core",
      "policies",
      "provider",
      "emulator",
      "toolchain",
      "scripts",
      "bench",
    ]) {
      assert.ok(CHECKED_FOLDERS.includes(d), d);
    }
    const { tooLong } = checkFunctionLength(ROOT, ["toolchain", "scripts", "bench"], []);
    assert.deepEqual(tooLong, []);
  });
});

describe("the function-length check is part of npm run check, which scripts/test.sh runs", () => {
  it("npm run check runs `npm run lint:functions`, the script on the product and tooling folders", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    assert.ok(checkSteps().includes("lint:functions"), "scripts/check.sh runs lint:functions");
    assert.match(pkg.scripts["lint:functions"], /scripts\/check-function-length\.ts$/);
    const testSh = fs.readFileSync(path.join(ROOT, "scripts", "test.sh"), "utf8");
    assert.match(testSh, /^npm run --silent check$/m);
  });
});
