import * as assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import { pulumiStackConfig } from "../../../policies/liveAccount";
import { installStackConfigHook, stackInfo } from "../../../policies/stackConfig";

interface Request {
  getConfigMap(): { set(k: string, v: string): void };
  setConfigSecretKeysList(keys: string[]): void;
  setDryRun(v: boolean): void;
  getTagsMap(): { set(k: string, v: string): void; get(k: string): string | undefined };
}
// The protocol module as @pulumi/policy loads it.
const proto = require("@pulumi/pulumi/proto/analyzer_pb") as {
  AnalyzerStackConfigureRequest: { new (): Request; prototype: Request };
};

describe("policies: the stack config from the engine's ConfigureStack call", () => {
  afterEach(() => pulumi.runtime.setAllConfig({}, []));

  it("copies config (secrets included) and the preview flag into the pack process when @pulumi/policy reads the tags", () => {
    assert.equal(installStackConfigHook(), true);
    assert.equal(new pulumi.Config("svc").get("password"), undefined);
    const req = new proto.AnalyzerStackConfigureRequest();
    req.getConfigMap().set("svc:accountApiUrl", "http://127.0.0.1:4000");
    req.getConfigMap().set("svc:password", "pw-from-engine");
    req.setConfigSecretKeysList(["svc:password"]);
    req.setDryRun(true);
    req.getTagsMap().set("team", "platform");

    // What @pulumi/policy's configureStack does with the request:
    assert.equal(req.getTagsMap().get("team"), "platform");

    assert.equal(new pulumi.Config("svc").get("accountApiUrl"), "http://127.0.0.1:4000");
    assert.equal(pulumiStackConfig.get("svc:password"), "pw-from-engine");
    // The key is marked secret, as in the program (`isConfigSecret` is internal to the SDK).
    const runtime = pulumi.runtime as unknown as { isConfigSecret(key: string): boolean };
    assert.equal(runtime.isConfigSecret("svc:password"), true);
    assert.equal(runtime.isConfigSecret("svc:accountApiUrl"), false);
    assert.deepEqual(stackInfo(), {
      received: true,
      dryRun: true,
      configKeys: ["svc:accountApiUrl", "svc:password"],
    });
  });

  it("installs once: a second install keeps the same wrapper", () => {
    installStackConfigHook();
    const wrapped = proto.AnalyzerStackConfigureRequest.prototype.getTagsMap;
    assert.equal(installStackConfigHook(), true);
    assert.equal(proto.AnalyzerStackConfigureRequest.prototype.getTagsMap, wrapped);
  });
});
