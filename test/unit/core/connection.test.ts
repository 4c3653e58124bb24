import { strict as assert } from "node:assert";
import {
  MissingSettingError,
  SETTINGS,
  Settings,
  describeSources,
  resolveSetting,
  resolveSettings,
} from "../../../core/connection";
import { configOf, dlqProvider, happyDlq } from "../components/helpers";

describe("core/connection", () => {
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

  it("Settings resolves from its own config and environment, nothing else", () => {
    const settings = new Settings({ SVC_USERNAME: "from-env" }, configOf({ "svc:username": "from-config" }));
    assert.equal(settings.get("username")?.value, "from-config");
    assert.equal(settings.get("username", "from-input")?.value, "from-input");
    assert.equal(new Settings({ SVC_USERNAME: "from-env" }).get("username")?.value, "from-env");
    assert.equal(new Settings({}).get("username"), undefined, "no process-wide config to fall back on");
  });

  it("a provider uses the stack config handed to its configure, and no other provider sees it", async () => {
    const configured = dlqProvider();
    await configured.provider.configure({
      config: configOf({ "svc:baseUrl": "http://127.0.0.1:1", "svc:token": "tok-configured-1234" }),
    } as never);
    const news = happyDlq("filters", { baseUrl: undefined, token: undefined });
    assert.equal((await configured.provider.check({}, news)).failures, undefined);
    const other = dlqProvider();
    assert.match((await other.provider.check({}, news)).failures?.[0]?.reason ?? "", /no `baseUrl`, `token`/);
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
