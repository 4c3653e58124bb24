/**
 * The package's entry points, the `exports` map of package.json: it names exactly the entry
 * points below (adding or dropping one is a change of the package's API, made here on purpose),
 * each resolves to a module of this repository, and each exports its key names.
 * `pulumi-svc/client` is the HTTP client alone: none of the drains, which are `pulumi-svc/drain`'s,
 * and `SvcClient` is one class, that client. A target is the built `dist/X.js` (types
 * `dist/X.d.ts`); the test loads the source `X.ts` it is built from, so that it needs no build.
 * `pulumi-svc/providers/*` serves the modules a stack written by 0.2 names in its state: the
 * module IDs are read from the 0.2 state fixture, and its cut-off drain continues through them.
 */
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import type { RunningEmulator } from "../../emulator";
import { fixtureEmulator, stackConfig, stackExport, stored } from "../helpers/state-fixtures";

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

/** The module IDs the 0.2 state fixture's serialized providers load (`pulumi-svc/providers/…`). */
function fixtureModuleIds(): string[] {
  const ids = stackExport().deployment.resources.flatMap((r) => {
    const serialized = (r as { inputs?: { __provider?: unknown } }).inputs?.__provider;
    return typeof serialized === "string"
      ? [...serialized.matchAll(/moduleId: "([^"]+)"/g)].map((m) => m[1])
      : [];
  });
  return [...new Set(ids)].sort();
}

/** The module a 0.2 module ID resolves to through the `./providers/*` pattern, loaded from its source. */
function loadProviderModule(moduleId: string): Record<string, unknown> {
  const target = exportsMap()["./providers/*"];
  assert.ok(typeof target === "object", "./providers/* has a types and a default target");
  const rest = moduleId.replace(/^pulumi-svc\/providers\//, "");
  const source = sourceOf(target.default.replace("*", rest));
  assert.equal(sourceOf(target.types.replace("*", rest)), source, `${moduleId}: its types are its module's`);
  assert.ok(fs.existsSync(source), `${moduleId}: ${path.relative(ROOT, source)} exists`);
  return require(source) as Record<string, unknown>;
}

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

  describe("./providers/*: the modules a 0.2 state loads", function () {
    this.timeout(120_000);
    let emu: RunningEmulator;
    afterEach(async () => emu?.close());

    it("resolves every module ID of the 0.2 state fixture to a dynamic provider", () => {
      assert.deepEqual(fixtureModuleIds(), [
        "pulumi-svc/providers/account",
        "pulumi-svc/providers/dlqRecovery",
      ]);
      for (const id of fixtureModuleIds()) {
        const provider = loadProviderModule(id).provider as Record<string, unknown>;
        for (const method of ["configure", "check", "diff", "create", "update", "read", "delete"])
          assert.equal(typeof provider?.[method], "function", `${id}: provider.${method}`);
      }
    });

    it("continues the fixture's cut-off drain through it, each remaining entry once", async () => {
      emu = await fixtureEmulator();
      const remaining = emu.state.dlq.page(0, 1_000_000).map((e) => e.dlqId);
      assert.ok(remaining.length > 0, "the fixture's DLQ still holds entries");
      const { provider } = loadProviderModule("pulumi-svc/providers/dlqRecovery") as {
        provider: import("../../dynamic/dlqRecovery").DynamicDlqRecoveryProvider;
      };
      const config = stackConfig(emu);
      await provider.configure({ config: { get: (k: string) => config[k] } } as never);
      const cut = stored("cut-off");
      assert.equal((await provider.diff(cut.id, cut.outputs as never, cut.inputs as never)).changes, true);
      const { outs } = await provider.update(cut.id, cut.outputs as never, cut.inputs as never);
      assert.equal((outs as { complete?: boolean }).complete, true);
      const totals = emu.state.ledger.totals();
      assert.equal(totals.duplicates, 0, "an entry was resumed more than once");
      assert.equal(totals.distinctEntriesResumed, remaining.length, "every remaining entry resumed");
      assert.equal(emu.state.dlq.page(0, 10).length, 0, "the DLQ is empty");
    });
  });
});
