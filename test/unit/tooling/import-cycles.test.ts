import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "../../..");
const DEPCRUISE = path.join(ROOT, "node_modules", "dependency-cruiser", "bin", "dependency-cruiser.mjs");

/** Runs the import check of `npm run check` (same config) on `dir`. */
function checkImports(dir: string): { status: number | null; output: string } {
  assert.ok(fs.existsSync(DEPCRUISE), `dependency-cruiser is missing: run \`npm ci\` (${DEPCRUISE})`);
  const r = spawnSync(
    process.execPath,
    [DEPCRUISE, "--config", ".dependency-cruiser.cjs", "--output-type", "err", dir],
    { cwd: ROOT, encoding: "utf8" },
  );
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe("the import check (npm run check: dependency-cruiser)", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-cycles-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("fails on a cycle of type-only imports, naming both files", () => {
    fs.writeFileSync(path.join(dir, "a.ts"), 'import type { B } from "./b";\nexport interface A { b?: B }\n');
    fs.writeFileSync(path.join(dir, "b.ts"), 'import type { A } from "./a";\nexport interface B { a?: A }\n');
    const { status, output } = checkImports(dir);
    assert.equal(status, 1, output);
    assert.match(output, /no-circular: .*a\.ts/);
    assert.match(output, /b\.ts/);
  });

  it("passes imports that run one way", () => {
    fs.writeFileSync(path.join(dir, "a.ts"), 'import { b } from "./b";\nexport const a = b + 1;\n');
    fs.writeFileSync(path.join(dir, "b.ts"), "export const b = 1;\n");
    const { status, output } = checkImports(dir);
    assert.equal(status, 0, output);
  });
});
