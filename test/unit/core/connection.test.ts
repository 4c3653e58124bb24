import { strict as assert } from "node:assert";
import {
  MissingSettingError,
  SETTINGS,
  Settings,
  describeSources,
  resolveSetting,
  resolveSettings,
} from "../../../core/connection";
import { configOf, dlqProvider, happyDlq } from "../provider/helpers";

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
    await configured.provider.configure(
      configOf({ "svc:baseUrl": "http://127.0.0.1:1", "svc:token": "tok-configured-1234" }),
    );
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
        assert.equal(
          e.message,
          `DlqRecovery \`x\`: no \`baseUrl\`, \`token\` configured. S${describeSources("baseUrl").slice(1)}; ` +
            `${describeSources("token")}.`,
        );
        return true;
      },
    );
  });

  it("says a setting that is set but empty is empty, where, and how to give it a value", () => {
    const cases: [Record<string, string>, Record<string, string>, string][] = [
      [
        { "svc:token": "" },
        {},
        "`token` is set but empty in the stack config `svc:token`. Give it a value (`pulumi config set --secret " +
          "svc:token <value>`), or set the input `token` or the environment variable `SVC_TOKEN`.",
      ],
      [
        {},
        { SVC_TOKEN: "" },
        "`token` is set but empty in the environment variable `SVC_TOKEN`. Give it a value, or set the input " +
          "`token` or the stack config `svc:token`.",
      ],
    ];
    for (const [config, env, says] of cases) {
      assert.throws(
        () =>
          resolveSettings(
            ["baseUrl", "token"],
            { baseUrl: "http://e" },
            "DlqRecovery `x`",
            env,
            configOf(config),
          ),
        (e: unknown) => {
          assert.ok(e instanceof MissingSettingError);
          assert.deepEqual(e.missing, ["token"]);
          assert.equal(e.message, `DlqRecovery \`x\`: ${says}`);
          assert.doesNotMatch(e.message, /no `token` configured/);
          return true;
        },
      );
    }
  });

  it("names an unset and an empty setting each in its own words, a plain setting's command without --secret", () => {
    assert.throws(
      () => resolveSettings(["baseUrl", "token"], {}, "DlqRecovery `x`", {}, configOf({ "svc:baseUrl": "" })),
      (e: unknown) => {
        assert.ok(e instanceof MissingSettingError);
        assert.equal(
          e.message,
          `DlqRecovery \`x\`: no \`token\` configured. S${describeSources("token").slice(1)}. \`baseUrl\` is set ` +
            "but empty in the stack config `svc:baseUrl`. Give it a value (`pulumi config set svc:baseUrl <value>`), " +
            "or set the input `baseUrl` or the environment variable `SVC_BASE_URL`.",
        );
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
