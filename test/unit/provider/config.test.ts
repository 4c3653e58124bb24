/**
 * The provider's configuration: the `svc:` stack config as a settings reader, the did-you-mean
 * check of its keys, and the config diff (never a replacement).
 */
import * as assert from "node:assert/strict";
import { changedConfig, checkConfig, configReader } from "../../../provider/config";

describe("provider config", () => {
  it("reads the provider inputs as stack config keys, the engine's `version` left out", () => {
    const r = configReader({ token: "tok-unit-3", accountApiUrl: "http://127.0.0.1:1", version: "0.2.0" });
    assert.equal(r.get("svc:token"), "tok-unit-3");
    assert.equal(r.get("svc:version"), undefined);
    assert.deepEqual(r.keys?.(), ["svc:token", "svc:accountApiUrl"]);
  });

  it("a mistyped key fails with the did-you-mean hint; the settings pass", () => {
    assert.deepEqual(checkConfig({ token: "t", baseUrl: "http://127.0.0.1:1", version: "1.0.0" }), []);
    assert.deepEqual(checkConfig({ tokn: "t" }), [
      {
        property: "",
        reason:
          "The stack config has `svc:tokn`, which is no setting of pulumi-svc: did you mean `svc:token`?",
      },
    ]);
  });

  it("names the variables that changed", () => {
    assert.deepEqual(changedConfig({ token: "a", username: "u" }, { token: "b", username: "u" }), ["token"]);
    assert.deepEqual(changedConfig({ token: "a" }, { token: "a", version: "2.0.0" }), []);
  });
});
