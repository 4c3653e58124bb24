/**
 * The package's entry points, the `exports` map of package.json: it names exactly the entry
 * points below (adding or dropping one is a change of the package's API, made here on purpose),
 * each resolves to a module of this repository, and each exports its key names.
 * `pulumi-svc/client` is the HTTP client alone: none of the drains, which are `pulumi-svc/drain`'s,
 * and `SvcClient` is one class, that client. A target is the built `dist/X.js` (types
 * `dist/X.d.ts`); the test loads the source `X.ts` it is built from, so that it needs no build.
 */
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "../..");

/** The subpaths of the `exports` map, every one. */
const SUBPATHS = [".", "./client", "./drain", "./emulator", "./providers/*", "./package.json"];

/** The entry points whose module is checked here, with the names each must export. */
const KEY_NAMES: Record<string, string[]> = {
  ".": ["Account", "DlqRecovery", "Workflow", "Provider"],
  "./client": ["SvcClient", "SvcError", "isSvcError", "resumeQuery", "RESUME_PATH"],
  "./drain": [
    "DrainClient",
    "DrainError",
    "drainWindows",
    "RateGate",
    "RateGateRegistry",
    "accountRateGates",
    "requestAllowance",
  ],
  "./emulator": ["startEmulator", "EmulatorState", "PLAN_PRESETS"],
};

type Target = string | { types: string; default: string };

function exportsMap(): Record<string, Target> {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    exports: Record<string, Target>;
  };
  return pkg.exports;
}

/** The source `X.ts` a target `./dist/X.js` (or `./dist/X.d.ts`) is built from. */
function sourceOf(target: string): string {
  const m = /^\.\/dist\/(.+?)(\.d\.ts|\.js)$/.exec(target);
  assert.ok(m, `${target} is a file of dist/`);
  return path.join(ROOT, `${m[1]}.ts`);
}

/** The module an entry point resolves to, loaded from its source. */
function load(subpath: string): Record<string, unknown> {
  const target = exportsMap()[subpath];
  assert.ok(typeof target === "object", `${subpath} has a types and a default target`);
  const source = sourceOf(target.default);
  assert.equal(sourceOf(target.types), source, `${subpath}: its types are those of its module`);
  assert.ok(fs.existsSync(source), `${subpath}: ${path.relative(ROOT, source)} exists`);
  return require(source) as Record<string, unknown>;
}

describe("the package's entry points (package.json exports)", () => {
  it("names exactly these entry points", () => {
    assert.deepEqual(Object.keys(exportsMap()).sort(), [...SUBPATHS].sort());
    assert.equal(exportsMap()["./package.json"], "./package.json");
  });

  for (const [subpath, names] of Object.entries(KEY_NAMES)) {
    it(`${subpath} resolves to its module and exports ${names.join(", ")}`, () => {
      const mod = load(subpath);
      for (const name of names) assert.ok(mod[name] !== undefined, `${subpath} exports ${name}`);
    });
  }

  it("./client exports none of the drains: they are ./drain's", () => {
    const client = load("./client");
    const shared = Object.keys(load("./drain")).filter((name) => name in client);
    assert.deepEqual(shared, [], "names ./client and ./drain both export");
    for (const name of ["DrainClient", "drainWindows", "DrainError", "RateGateRegistry"])
      assert.ok(!(name in client), `./client does not export ${name}`);
  });

  it("SvcClient is one class, ./client's HTTP client, which ./drain's DrainClient wraps", async () => {
    const { SvcClient } = load("./client") as unknown as typeof import("../../client");
    const { DrainClient } = load("./drain") as unknown as typeof import("../../drain");
    for (const subpath of Object.keys(KEY_NAMES).filter((s) => s !== "./client"))
      assert.ok(!("SvcClient" in load(subpath)), `${subpath} does not export SvcClient`);
    const built = new DrainClient({ baseUrl: "http://127.0.0.1:1", token: "t" });
    const client = new SvcClient({ baseUrl: "http://127.0.0.1:1", token: "t" });
    const wrapping = new DrainClient(client);
    assert.ok(built.client instanceof SvcClient, "a DrainClient built from options holds an SvcClient");
    assert.ok(!(built instanceof SvcClient), "a DrainClient is not an SvcClient");
    assert.equal(wrapping.client, client, "a DrainClient wraps the client it is given");
    assert.ok(!("drain" in client), "an SvcClient has no drains");
    await Promise.all([built.close(), wrapping.close()]);
  });
});
