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

/** Runs the same import check inside `dir` as the project root, with the project's own rules. */
function checkLayout(dir: string): { status: number | null; output: string } {
  fs.copyFileSync(path.join(ROOT, ".dependency-cruiser.cjs"), path.join(dir, ".dependency-cruiser.cjs"));
  fs.writeFileSync(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { module: "commonjs" } }),
  );
  const r = spawnSync(
    process.execPath,
    [DEPCRUISE, "--config", ".dependency-cruiser.cjs", "--output-type", "err", "."],
    {
      cwd: dir,
      encoding: "utf8",
    },
  );
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** Writes `files` (path relative to `dir` → source) into `dir`. */
function writeTree(dir: string, files: Record<string, string>): void {
  for (const [file, source] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), source);
  }
}

describe("the layer rules (npm run check: dependency-cruiser)", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-layers-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("fails when policies/ imports from components/", () => {
    writeTree(dir, {
      "components/tokens.ts": "export const T = 1;\n",
      "policies/pack.ts": 'import { T } from "../components/tokens";\nexport const p = T;\n',
    });
    const { status, output } = checkLayout(dir);
    assert.equal(status, 1, output);
    assert.match(output, /policies-apart-from-components: policies\/pack\.ts/);
  });

  it("fails when core/ imports from components/ or policies/", () => {
    writeTree(dir, {
      "components/Account.ts": "export const A = 1;\n",
      "core/connection.ts": 'import { A } from "../components/Account";\nexport const c = A;\n',
    });
    const { status, output } = checkLayout(dir);
    assert.equal(status, 1, output);
    assert.match(output, /core-below-components: core\/connection\.ts/);
  });

  it("fails when the emulator imports anything of the project", () => {
    writeTree(dir, {
      "client/contract.ts": "export const C = 1;\n",
      "emulator/overrides.ts": 'import { C } from "../client/contract";\nexport const o = C;\n',
    });
    const { status, output } = checkLayout(dir);
    assert.equal(status, 1, output);
    assert.match(output, /emulator-independent: emulator\/overrides\.ts/);
  });

  it("fails when bench/ imports from test/", () => {
    writeTree(dir, {
      "test/unit/fake.ts": "export const F = 1;\n",
      "bench/sim.ts": 'import { F } from "../test/unit/fake";\nexport const s = F;\n',
    });
    const { status, output } = checkLayout(dir);
    assert.equal(status, 1, output);
    assert.match(output, /bench-apart-from-test: bench\/sim\.ts/);
  });

  it("fails when drain/ imports from components/", () => {
    writeTree(dir, {
      "components/DlqRecovery.ts": "export const R = 1;\n",
      "drain/windowDrain.ts": 'import { R } from "../components/DlqRecovery";\nexport const w = R;\n',
    });
    const { status, output } = checkLayout(dir);
    assert.equal(status, 1, output);
    assert.match(output, /drain-below-components: drain\/windowDrain\.ts/);
  });

  it("fails when the HTTP client imports drain/, its index (pulumi-svc/client) included", () => {
    writeTree(dir, {
      "drain/rateGate.ts": "export const G = 1;\n",
      "client/request.ts": 'import { G } from "../drain/rateGate";\nexport const r = G;\n',
      "client/index.ts": 'export { G } from "../drain/rateGate";\n',
    });
    const { status, output } = checkLayout(dir);
    assert.equal(status, 2, output); // depcruise exits with the number of violations: one per file
    assert.match(output, /http-client-below-drain: client\/request\.ts/);
    assert.match(output, /http-client-below-drain: client\/index\.ts/);
  });

  it("passes policies/ and components/ that import core/ and client/", () => {
    writeTree(dir, {
      "client/index.ts": "export const C = 1;\n",
      "core/tokens.ts": 'import { C } from "../client";\nexport const T = C;\n',
      "components/Account.ts": 'import { T } from "../core/tokens";\nexport const A = T;\n',
      "policies/pack.ts":
        'import { T } from "../core/tokens";\nimport { C } from "../client";\nexport const p = T + C;\n',
      "drain/windowDrain.ts": 'import { C } from "../client";\nexport const w = C;\n',
      "provider/dlqRecovery/run.ts":
        'import { w } from "../../drain/windowDrain";\nimport { T } from "../../core/tokens";\nexport const r = w + T;\n',
    });
    const { status, output } = checkLayout(dir);
    assert.equal(status, 0, output);
  });

  it("fails when provider/ imports components/, or components/ imports provider/ or drain/", () => {
    writeTree(dir, {
      "components/Workflow.ts": "export const W = 1;\n",
      "provider/workflow/component.ts":
        'import { W } from "../../components/Workflow";\nexport const c = W;\n',
      "provider/dlqRecovery/run.ts": "export const R = 1;\n",
      "components/DlqRecovery.ts": 'import { R } from "../provider/dlqRecovery/run";\nexport const d = R;\n',
    });
    const { status, output } = checkLayout(dir);
    assert.equal(status, 2, output); // one error each
    assert.match(output, /provider-apart-from-components: provider\/workflow\/component\.ts/);
    assert.match(output, /components-apart-from-provider: components\/DlqRecovery\.ts/);
  });
});
