/**
 * The provider's configuration: the `svc:` stack config as a settings reader, the did-you-mean
 * check of its keys, and the config diff (never a replacement).
 */
import * as assert from "node:assert/strict";
import { ACCOUNT_SETTINGS, Settings } from "../../../core/connection";
import { changedConfig, checkConfig, configReader } from "../../../provider/config";

describe("provider config", () => {
  it("reads the provider inputs as stack config keys, the engine's `version` left out", () => {
    const r = configReader({ token: "tok-unit-3", accountApiUrl: "http://127.0.0.1:1", version: "0.2.0" });
    assert.equal(r.get("svc:token"), "tok-unit-3");
    assert.equal(r.get("svc:version"), undefined);
    assert.deepEqual(r.keys?.(), ["svc:token", "svc:accountApiUrl"]);
  });

  const DEFAULT = "urn:pulumi:dev::p::pulumi:providers:svc::default_0_2_0";
  const EXPLICIT = "urn:pulumi:dev::p::pulumi:providers:svc::second";
  const props = (values: Record<string, unknown>) => ({ values, secrets: new Set<string>() });

  it("a mistyped key fails with the did-you-mean hint; the settings pass", () => {
    const ok = checkConfig(DEFAULT, props({ token: "t", baseUrl: "http://127.0.0.1:1", version: "1.0.0" }));
    assert.deepEqual(ok.failures, []);
    assert.deepEqual(checkConfig(DEFAULT, props({ tokn: "t" })).failures, [
      {
        property: "",
        reason:
          "The stack config has `svc:tokn`, which is no setting of pulumi-svc: did you mean `svc:token`?",
      },
    ]);
  });

  it("an explicit provider's unknown inputs: one failure naming the provider, each input and the inputs", () => {
    const inputs = "its inputs are `accountApiUrl`, `username`, `password`, `baseUrl` and `token`.";
    assert.deepEqual(checkConfig(EXPLICIT, props({ pasword: "p" })).failures, [
      {
        property: "",
        reason: `Provider \`second\`: \`pasword\` (did you mean \`password\`?) is not an input of Provider; ${inputs}`,
      },
    ]);
    const two = checkConfig(EXPLICIT, props({ userName: "u", token: "t", colour: "red" })).failures;
    assert.deepEqual(two, [
      {
        property: "",
        reason:
          "Provider `second`: `userName` (did you mean `username`?) and `colour` are not inputs of Provider; " +
          inputs,
      },
    ]);
    // The value is never shown (a misspelled credential's), and the engine's own keys pass.
    assert.doesNotMatch(two[0].reason, /red/);
    const engine = { token: "t", version: "1.0.0", pluginDownloadURL: "file:///x", __internal: { a: 1 } };
    assert.deepEqual(checkConfig(EXPLICIT, props(engine)).failures, []);
  });

  it("`password` and `token` come back secret even when they arrive plain; the rest as they arrived", () => {
    const res = checkConfig(EXPLICIT, {
      values: { password: "p", token: "t", username: "u", baseUrl: "http://127.0.0.1:1" },
      secrets: new Set(["baseUrl"]),
    });
    assert.deepEqual([...res.inputs.secrets].sort(), ["baseUrl", "password", "token"]);
    assert.deepEqual(res.inputs.values, {
      password: "p",
      token: "t",
      username: "u",
      baseUrl: "http://127.0.0.1:1",
    });
  });

  it("an explicit provider's reader: messages name its inputs where they would name stack config keys", () => {
    const settings = new Settings({}, configReader({ password: "", username: "u" }, EXPLICIT));
    assert.equal(settings.get("username")?.origin, "input `username` of the provider `second`");
    assert.throws(
      () => settings.require(ACCOUNT_SETTINGS, {}, "Account `a`"),
      (e: Error) =>
        e.message ===
        "Account `a`: no `accountApiUrl` configured. Set the input `accountApiUrl`, the input " +
          "`accountApiUrl` of the provider `second` or the environment variable `SVC_ACCOUNT_API_URL`. " +
          "`password` is set but empty in the input `password` of the provider `second`. Give it a " +
          "value, or set the input `password` or the environment variable `SVC_PASSWORD`.",
    );
    // The default provider's reader is the stack config's.
    assert.equal(
      new Settings({}, configReader({ username: "u" }, DEFAULT)).get("username")?.origin,
      "stack config `svc:username`",
    );
  });

  it("names the variables that changed", () => {
    assert.deepEqual(changedConfig({ token: "a", username: "u" }, { token: "b", username: "u" }), ["token"]);
    assert.deepEqual(changedConfig({ token: "a" }, { token: "a", version: "2.0.0" }), []);
  });
});
