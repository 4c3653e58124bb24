/**
 * An `svc:` stack config key that is no setting (a misspelling) is reported with the nearest
 * known key, in the error that says a setting is missing.
 */
import { strict as assert } from "node:assert";
import {
  MissingSettingError,
  RESUME_SETTINGS,
  Settings,
  configKeysOf,
  unknownConfigKeys,
} from "../../../core/connection";

describe("core/connection: config key hints", () => {
  it("names the nearest known key of each unknown svc: key", () => {
    assert.deepEqual(unknownConfigKeys(["svc:tokn", "svc:token", "svc:BaseURL", "svc:passwd", "app:tokn"]), [
      { key: "svc:tokn", nearest: "svc:token" },
      { key: "svc:BaseURL", nearest: "svc:baseUrl" },
      { key: "svc:passwd", nearest: "svc:password" },
    ]);
  });

  it("a missing token with `svc:tokn` in the stack config: did you mean `svc:token`?", () => {
    const config = { "svc:tokn": "t0ken", "svc:baseUrl": "http://127.0.0.1:1" } as Record<string, string>;
    const settings = new Settings({}, { get: (k) => config[k], keys: () => Object.keys(config) });
    assert.throws(
      () => settings.require(RESUME_SETTINGS, {}, "DlqRecovery `r`"),
      (e: unknown) =>
        e instanceof MissingSettingError &&
        e.message.startsWith("DlqRecovery `r`: no `token` configured. ") &&
        e.message.endsWith(
          "The stack config has `svc:tokn`, which is no setting of pulumi-svc: did you mean `svc:token`?",
        ) &&
        !e.message.includes("t0ken"),
    );
  });

  it("reads the keys of the dynamic-provider server's config (rawConfig)", () => {
    const serverConfig = { rawConfig: { "svc:tokn": "x", "proj:a": "b" }, get: () => undefined };
    assert.deepEqual(configKeysOf(serverConfig), ["svc:tokn", "proj:a"]);
    assert.deepEqual(configKeysOf(undefined), []);
  });
});
