import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { lazyProvider } from "../../../components/lazyProvider";
import { configOf, tempDir } from "./helpers";

describe("components/lazyProvider", () => {
  it("forwards every method to the module's provider, loaded at call time", async () => {
    const file = path.join(tempDir(), "fake-provider.js");
    fs.writeFileSync(
      file,
      `const calls = [];
exports.calls = calls;
const m = (name) => async (...args) => { calls.push([name, ...args]); return name; };
exports.provider = { configure: m("configure"), check: m("check"), diff: m("diff"), create: m("create"),
  read: m("read"), update: m("update"), delete: m("delete") };`,
    );
    const lp = lazyProvider(file);
    const req = { config: configOf() } as never;
    assert.equal(await lp.configure?.(req), "configure");
    assert.equal(await lp.check?.({ a: 1 }, { a: 2 }), "check");
    assert.equal(await lp.diff?.("id", { o: 1 }, { n: 1 }), "diff");
    assert.equal(await lp.create({ i: 1 }), "create");
    assert.equal(await lp.read?.("id", { p: 1 }), "read");
    assert.equal(await lp.update?.("id", { o: 1 }, { n: 2 }), "update");
    assert.equal(await lp.delete?.("id", { p: 2 }), "delete");
    const { calls } = require(file) as { calls: unknown[][] };
    assert.deepEqual(calls, [
      ["configure", req],
      ["check", { a: 1 }, { a: 2 }],
      ["diff", "id", { o: 1 }, { n: 1 }],
      ["create", { i: 1 }],
      ["read", "id", { p: 1 }],
      ["update", "id", { o: 1 }, { n: 2 }],
      ["delete", "id", { p: 2 }],
    ]);
  });

  it("captures nothing but the module name (no credential can be frozen into state)", () => {
    const lp = lazyProvider("some-module-that-is-not-loaded-yet");
    for (const fn of Object.values(lp)) {
      const src = String(fn);
      assert.match(src, /require\(moduleId\)\.provider\./);
    }
    assert.throws(() => lp.create({}), /some-module-that-is-not-loaded-yet/);
  });
});
