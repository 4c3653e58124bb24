import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import {
  MissingSettingError,
  SETTINGS,
  describeSources,
  resolveSetting,
  resolveSettings,
  setStackConfig,
} from "../../../components/connection";
import {
  UNKNOWN,
  containsUnknown,
  describeOrigins,
  explainServiceError,
  show,
} from "../../../components/providers/common";
import { lazyProvider } from "../../../components/lazyProvider";
import { SvcError } from "../../../client";
import { configOf, tempDir } from "./helpers";

describe("components/connection", () => {
  afterEach(() => setStackConfig(undefined));

  it("takes the input first, then stack config, then the environment", () => {
    const env = { SVC_TOKEN: "from-env" };
    const config = configOf({ "svc:token": "from-config" });
    assert.deepEqual(resolveSetting("token", "from-input", env, config), {
      value: "from-input",
      origin: "input `token`",
    });
    assert.deepEqual(resolveSetting("token", undefined, env, config), {
      value: "from-config",
      origin: "stack config `svc:token`",
    });
    assert.deepEqual(resolveSetting("token", undefined, env, configOf()), {
      value: "from-env",
      origin: "environment variable `SVC_TOKEN`",
    });
    assert.equal(resolveSetting("token", undefined, {}, configOf()), undefined);
  });

  it("treats empty strings as not set in every source", () => {
    const r = resolveSetting("baseUrl", "", { SVC_BASE_URL: "http://e" }, configOf({ "svc:baseUrl": "" }));
    assert.equal(r?.value, "http://e");
  });

  it("uses the stack config remembered by configure when none is passed", () => {
    setStackConfig(configOf({ "svc:username": "remembered" }));
    assert.equal(resolveSetting("username", undefined, {})?.value, "remembered");
  });

  it("resolveSettings throws one error naming every missing setting and its sources", () => {
    assert.throws(
      () => resolveSettings(["baseUrl", "token"], {}, "DlqRecovery `x`", {}, configOf()),
      (e: unknown) => {
        assert.ok(e instanceof MissingSettingError);
        assert.deepEqual(e.missing, ["baseUrl", "token"]);
        assert.match(e.message, /^DlqRecovery `x`: no `baseUrl`, `token` configured\. /);
        assert.ok(e.message.includes(describeSources("baseUrl")));
        assert.ok(e.message.includes(describeSources("token")));
        return true;
      },
    );
  });

  it("names the three sources of every setting", () => {
    for (const [name, s] of Object.entries(SETTINGS)) {
      const text = describeSources(name as keyof typeof SETTINGS);
      assert.ok(
        text.includes(`\`${s.input}\``) && text.includes(`\`${s.config}\``) && text.includes(`\`${s.env}\``),
      );
      assert.ok(s.config.startsWith("svc:") && s.env.startsWith("SVC_"));
    }
  });
});

describe("components/providers/common", () => {
  it("show quotes strings, prints JSON and cuts at 80 characters", () => {
    assert.equal(show("a"), '"a"');
    assert.equal(show(undefined), "undefined");
    assert.equal(show({ a: [1] }), '{"a":[1]}');
    const long = show("x".repeat(200));
    assert.equal(long.length, 80);
    assert.ok(long.endsWith("..."));
  });

  it("containsUnknown finds the sentinel at any depth", () => {
    assert.equal(containsUnknown({ a: [1, { b: UNKNOWN }] }), true);
    assert.equal(containsUnknown({ a: [1, { b: "known" }] }), false);
  });

  it("describeOrigins lists each credential's source", () => {
    assert.equal(
      describeOrigins({ token: { value: "secret-value-x", origin: "stack config `svc:token`" } }),
      "`token` from the stack config `svc:token`",
    );
  });

  it("explainServiceError keeps the code and adds advice per kind", () => {
    const cases: [SvcError, RegExp][] = [
      [
        new SvcError("SVC_UNAUTHORIZED", "x", { status: 403 }),
        /rejected the credentials \(HTTP 403\)\. They came from: ORIGINS\./,
      ],
      [new SvcError("SVC_UNREACHABLE", "refused"), /cannot reach the service at URL \(refused\)/],
      [new SvcError("SVC_TIMEOUT", "slow"), /did not answer in time \(slow\)/],
      [new SvcError("SVC_MALFORMED_RESPONSE", "bad json"), /sent a malformed answer: bad json/],
      [new SvcError("SVC_NOT_FOUND", "gone"), /^What: gone \[SVC_NOT_FOUND\]$/],
    ];
    for (const [err, re] of cases) {
      const out = explainServiceError(err, "What", "URL", "ORIGINS");
      assert.match(out.message, re);
      assert.equal((out as Error & { code?: string }).code, err.code);
    }
    assert.equal(explainServiceError(new Error("plain"), "What", "URL", "").message, "What: plain");
  });
});

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
