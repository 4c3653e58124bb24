/**
 * The Account controller's `check` and its settings: each input's rule, where each setting comes
 * from (input > stack config > environment), `configure`, and a refusal at check printed once.
 */
import { strict as assert } from "node:assert";
import type { RunningEmulator } from "../../../../emulator";
import { startEmulator } from "../../../../emulator";
import { UNKNOWN } from "../../../../core/unknownValue";
import { PASSWORD, USERNAME, accountProvider, captureConsole, requests, useEmulator } from "../helpers";

/** Inputs naming the emulator and the test credentials. */
function inputs(emu: RunningEmulator) {
  return { accountApiUrl: emu.url, username: USERNAME, password: PASSWORD };
}

describe("provider/account: check", () => {
  const p = accountProvider();
  const ok = { accountApiUrl: "http://127.0.0.1:4000", username: USERNAME, password: PASSWORD };

  async function failures(news: Record<string, unknown>) {
    const r = await p.check({}, news as never);
    return r.failures ?? [];
  }

  it("accepts complete, valid inputs and returns them untouched", async () => {
    const r = await p.check({}, { ...ok, allowInsecureHttp: false });
    assert.equal(r.failures, undefined);
    assert.deepEqual(r.inputs, { ...ok, allowInsecureHttp: false });
  });

  const rows: { name: string; patch: Record<string, unknown>; property: string; mentions: string[] }[] = [
    {
      name: "a URL that does not parse",
      patch: { accountApiUrl: "not a url" },
      property: "accountApiUrl",
      mentions: ["`accountApiUrl` must be a URL", "not shown: it may carry a credential"],
    },
    {
      name: "an empty URL",
      patch: { accountApiUrl: "" },
      property: "accountApiUrl",
      mentions: ["`accountApiUrl`", '""'],
    },
    {
      name: "a non-string URL",
      patch: { accountApiUrl: 8080 },
      property: "accountApiUrl",
      mentions: ["`accountApiUrl`", "8080"],
    },
    {
      name: "a non-http scheme",
      patch: { accountApiUrl: "ftp://127.0.0.1/" },
      property: "accountApiUrl",
      mentions: ["`accountApiUrl`", "http or https", '"ftp:"'],
    },
    {
      name: "a URL with a query",
      patch: { accountApiUrl: "http://127.0.0.1:4000/?x=1" },
      property: "accountApiUrl",
      mentions: ["`accountApiUrl`", "query", "not shown"],
    },
    {
      name: "a URL with a fragment",
      patch: { accountApiUrl: "http://127.0.0.1:4000/#top" },
      property: "accountApiUrl",
      mentions: ["`accountApiUrl`", "fragment"],
    },
    {
      name: "an empty username",
      patch: { username: "" },
      property: "username",
      mentions: ["`username`", '""'],
    },
    {
      name: "a blank username",
      patch: { username: "   " },
      property: "username",
      mentions: ["`username`", '"   "'],
    },
    {
      name: "a non-string username",
      patch: { username: 42 },
      property: "username",
      mentions: ["`username`", "42"],
    },
    {
      name: "an empty password",
      patch: { password: "" },
      property: "password",
      mentions: ["`password`", "empty string"],
    },
    {
      name: "a non-boolean allowInsecureHttp",
      patch: { allowInsecureHttp: "yes" },
      property: "allowInsecureHttp",
      mentions: ["`allowInsecureHttp`", '"yes"'],
    },
    {
      name: "a numeric allowInsecureHttp",
      patch: { allowInsecureHttp: 1 },
      property: "allowInsecureHttp",
      mentions: ["`allowInsecureHttp`", "1"],
    },
  ];
  for (const row of rows) {
    it(`refuses ${row.name}, naming the field and the value`, async () => {
      const f = await failures({ ...ok, ...row.patch });
      assert.equal(f.length, 1, JSON.stringify(f));
      assert.equal(f[0].property, row.property);
      for (const m of row.mentions) assert.ok(f[0].reason.includes(m), `reason ${f[0].reason} lacks ${m}`);
    });
  }

  it("refuses a URL carrying credentials without echoing them", async () => {
    const f = await failures({ ...ok, accountApiUrl: "http://ops:pw-in-url-SECRET@127.0.0.1:4000" });
    assert.equal(f.length, 1);
    assert.equal(f[0].property, "accountApiUrl");
    assert.match(f[0].reason, /`accountApiUrl` must not carry credentials/);
    assert.ok(!f[0].reason.includes("pw-in-url-SECRET"), f[0].reason);
  });

  it("refuses a non-string password without echoing its value", async () => {
    for (const password of [987654321987, { secret: "pw-object-SECRET" }, ["pw-array-SECRET"]]) {
      const f = await failures({ ...ok, password });
      assert.equal(f.length, 1);
      assert.equal(f[0].property, "password");
      assert.match(f[0].reason, /`password` must be a non-empty string; got a (number|object)\./);
      for (const leak of ["987654321987", "pw-object-SECRET", "pw-array-SECRET"]) {
        assert.ok(!f[0].reason.includes(leak), f[0].reason);
      }
    }
  });

  it("reports every bad field at once", async () => {
    const f = await failures({
      accountApiUrl: "ftp://x",
      username: "",
      password: 1,
      allowInsecureHttp: "no",
    });
    assert.deepEqual(f.map((x) => x.property).sort(), [
      "accountApiUrl",
      "allowInsecureHttp",
      "password",
      "username",
    ]);
  });

  it("fails when no source has the URL, username or password, naming all three sources of each", async () => {
    const f = await failures({});
    assert.equal(f.length, 1);
    const reason = f[0].reason;
    for (const [input, config, env] of [
      ["accountApiUrl", "svc:accountApiUrl", "SVC_ACCOUNT_API_URL"],
      ["username", "svc:username", "SVC_USERNAME"],
      ["password", "svc:password", "SVC_PASSWORD"],
    ]) {
      assert.ok(reason.includes(`input \`${input}\``), `${reason} lacks input ${input}`);
      assert.ok(reason.includes(`stack config \`${config}\``), `${reason} lacks ${config}`);
      assert.ok(reason.includes(`environment variable \`${env}\``), `${reason} lacks ${env}`);
    }
  });

  it("names only the missing setting when the others are configured", async () => {
    const p2 = accountProvider(
      { SVC_ACCOUNT_API_URL: "http://127.0.0.1:4000" },
      { "svc:username": USERNAME },
    );
    const r = await p2.check({}, {});
    assert.equal(r.failures?.length, 1);
    const reason = r.failures?.[0].reason ?? "";
    assert.match(reason, /no `password` configured/);
    assert.ok(!reason.includes("`accountApiUrl`"), reason);
    assert.ok(!reason.includes("SVC_USERNAME"), reason);
  });

  it("accepts settings that come only from stack config or only from the environment", async () => {
    const viaConfig = accountProvider(
      {},
      { "svc:accountApiUrl": "http://127.0.0.1:1", "svc:username": "u", "svc:password": "p" },
    );
    assert.equal((await viaConfig.check({}, {})).failures, undefined);
    const viaEnv = accountProvider({
      SVC_ACCOUNT_API_URL: "http://127.0.0.1:1",
      SVC_USERNAME: "u",
      SVC_PASSWORD: "p",
    });
    assert.equal((await viaEnv.check({}, {})).failures, undefined);
  });

  it("passes unknown (preview) values through untouched", async () => {
    const news = { accountApiUrl: UNKNOWN, username: UNKNOWN, password: UNKNOWN, allowInsecureHttp: UNKNOWN };
    const r = await p.check({}, news as never);
    assert.equal(r.failures, undefined);
    assert.deepEqual(r.inputs, news);
  });
});

describe("provider/account: source order (input > stack config > environment)", () => {
  let emus: { input: RunningEmulator; config: RunningEmulator; env: RunningEmulator };
  const creds = {
    input: { username: "input@svc.invalid", password: "pw-INPUT-SECRET-111" },
    config: { username: "config@svc.invalid", password: "pw-CONFIG-SECRET-222" },
    env: { username: "env@svc.invalid", password: "pw-ENV-SECRET-333" },
  };
  beforeEach(async () => {
    emus = {
      input: await startEmulator({ ...creds.input, plan: "free" }),
      config: await startEmulator({ ...creds.config, plan: "payg" }),
      env: await startEmulator({ ...creds.env, plan: "fixed" }),
    };
  });
  afterEach(async () => {
    await Promise.all(Object.values(emus).map((e) => e.close()));
  });

  const env = () => ({
    SVC_ACCOUNT_API_URL: emus.env.url,
    SVC_USERNAME: creds.env.username,
    SVC_PASSWORD: creds.env.password,
  });
  const config = () => ({
    "svc:accountApiUrl": emus.config.url,
    "svc:username": creds.config.username,
    "svc:password": creds.config.password,
  });
  const input = () => ({ accountApiUrl: emus.input.url, ...creds.input });
  const counts = () => [emus.input, emus.config, emus.env].map((e) => requests(e).length);

  it("uses the inputs when inputs, config and environment are all set", async () => {
    const r = await accountProvider(env(), config()).create(input());
    assert.equal(r.id, emus.input.state.account.record.id);
    assert.equal(r.outs.type, "free");
    assert.deepEqual(counts(), [1, 0, 0]);
  });

  it("uses stack config when no input is given", async () => {
    const r = await accountProvider(env(), config()).create({});
    assert.equal(r.id, emus.config.state.account.record.id);
    assert.equal(r.outs.reservedType, "paid");
    assert.deepEqual(counts(), [0, 1, 0]);
  });

  it("uses the environment when neither inputs nor config are set", async () => {
    const r = await accountProvider(env(), {}).create({});
    assert.equal(r.id, emus.env.state.account.record.id);
    assert.equal(r.outs.reservedPrice, 180);
    assert.deepEqual(counts(), [0, 0, 1]);
  });

  it("resolves each setting on its own (URL from env, username from config, password from input)", async () => {
    const p = accountProvider(
      { SVC_ACCOUNT_API_URL: emus.config.url },
      { "svc:username": creds.config.username },
    );
    const r = await p.create({ password: creds.config.password });
    assert.equal(r.id, emus.config.state.account.record.id);
    assert.deepEqual(counts(), [0, 1, 0]);
  });

  it("treats empty strings as not set and falls through to the next source", async () => {
    const p = accountProvider(env(), { "svc:accountApiUrl": "", "svc:username": "", "svc:password": "" });
    const r = await p.create({ accountApiUrl: "", username: "", password: "" });
    assert.equal(r.id, emus.env.state.account.record.id);
  });
});

describe("provider/account: configure", () => {
  const emu = useEmulator({ plan: "payg" });

  it("reads the stack config handed to configure", async () => {
    const p = accountProvider();
    await p.configure({
      get: (k: string) =>
        ({ "svc:accountApiUrl": emu().url, "svc:username": USERNAME, "svc:password": PASSWORD })[k],
    });
    const r = await p.create({});
    assert.equal(r.outs.maxParallelism, 10);
  });
});

describe("provider/account: a refusal at check, printed once", () => {
  const emu = useEmulator({ plan: "free" });
  captureConsole();

  it("an existing Account with a wrong password: one check failure naming the resource and what to fix", async () => {
    const p = accountProvider();
    const c = await p.create(inputs(emu()));
    const before = requests(emu()).length;
    const news = { ...inputs(emu()), password: "pw-WRONG-secret-1", accountName: "acct" };
    const r = await p.check({ ...news }, news);
    assert.equal(requests(emu()).length, before + 1, "check read the record once");
    assert.equal(r.failures?.length, 1, JSON.stringify(r.failures));
    const [failure] = r.failures ?? [];
    assert.equal(failure.property, "", "the resource as a whole");
    assert.match(failure.reason, /^Account `acct`: the service at .* rejected the credentials \(HTTP 401\)/);
    assert.match(failure.reason, /Check those values\.$/);
    assert.ok(!failure.reason.includes("pw-WRONG-secret-1"));
    assert.ok(!/pulumi up` again/.test(failure.reason), failure.reason);
    void c;
  });

  it("an existing Account: diff compares the record check read, without a second request", async () => {
    const p = accountProvider();
    const c = await p.create(inputs(emu()));
    const news = { ...inputs(emu()), accountName: "acct" };
    const before = requests(emu()).length;
    assert.equal((await p.check({ ...news }, news)).failures, undefined);
    assert.equal((await p.diff(c.id, c.outs, news)).changes, false);
    assert.equal(requests(emu()).length, before + 1);
  });

  it("a new Account: check reads nothing", async () => {
    const p = accountProvider();
    const before = requests(emu()).length;
    assert.equal((await p.check({}, inputs(emu()))).failures, undefined);
    assert.equal(requests(emu()).length, before);
  });
});
