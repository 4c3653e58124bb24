import * as assert from "node:assert/strict";
import { startEmulator, type RunningEmulator } from "../../../emulator";
import { liveAccountFromSettings, type LiveAccountResult } from "../../../policies/liveAccount";
import { unusedPort } from "../../helpers/ports";

const CREDS = { username: "ops@example.com", password: "pw-live-3b9d71c2e4" };

/** A stack config with the given keys. */
function config(values: Record<string, string>) {
  return { get: (key: string) => values[key] };
}

function assertStatus<S extends LiveAccountResult["status"]>(
  r: LiveAccountResult,
  status: S,
): asserts r is Extract<LiveAccountResult, { status: S }> {
  assert.equal(r.status, status, JSON.stringify(r));
}

describe("policies: the live account record", () => {
  let emulator: RunningEmulator;
  before(async () => {
    emulator = await startEmulator({ plan: "free", ...CREDS });
  });
  after(async () => emulator?.close());

  it("is not configured when no setting is set anywhere", async () => {
    const r = await liveAccountFromSettings({ env: {}, config: config({}) })();
    assert.deepEqual(r, { status: "not-configured" });
  });

  it("names the missing settings and where to set them when some are set", async () => {
    const r = await liveAccountFromSettings({
      env: { SVC_ACCOUNT_API_URL: emulator.url },
      config: config({}),
    })();
    assertStatus(r, "incomplete");
    assert.deepEqual(r.missing, ["username", "password"]);
    assert.equal(
      r.message,
      "`username` and `password` are missing: set the stack config `svc:username` or the environment variable " +
        "`SVC_USERNAME`; set the stack config `svc:password` or the environment variable `SVC_PASSWORD`",
    );
  });

  it("says a password that is set but empty is empty, not missing", async () => {
    const r = await liveAccountFromSettings({
      env: { SVC_ACCOUNT_API_URL: emulator.url, SVC_USERNAME: "u" },
      config: config({ "svc:password": "" }),
    })();
    assertStatus(r, "incomplete");
    assert.deepEqual(r.missing, ["password"]);
    assert.equal(
      r.message,
      "`password` is set but empty in the stack config `svc:password`: give it a value",
    );
  });

  it("names a misspelled svc: key with the nearest known one", async () => {
    const values = { "svc:pasword": "x" };
    const r = await liveAccountFromSettings({
      env: { SVC_ACCOUNT_API_URL: emulator.url, SVC_USERNAME: "u" },
      config: {
        get: (key: string) => (values as Record<string, string>)[key],
        keys: () => Object.keys(values),
      },
    })();
    assertStatus(r, "incomplete");
    assert.match(
      r.message,
      /`password` is missing: .*\. The stack config has `svc:pasword`, which is no setting of pulumi-svc: did you mean `svc:password`\?$/,
    );
  });

  it("reads the record with the stack config, which wins over the environment", async () => {
    const r = await liveAccountFromSettings({
      env: { SVC_ACCOUNT_API_URL: "http://127.0.0.1:1", SVC_USERNAME: "x", SVC_PASSWORD: "wrong" },
      config: config({
        "svc:accountApiUrl": emulator.url,
        "svc:username": CREDS.username,
        "svc:password": CREDS.password,
      }),
    })();
    assertStatus(r, "ok");
    assert.equal(r.record.max_parallelism, 2);
    assert.equal(r.record.max_retries, 999);
    assert.equal(r.record.max_delay, 604_800);
    assert.equal(r.url, emulator.url);
  });

  it("reads the record with the SVC_* environment", async () => {
    const r = await liveAccountFromSettings({
      env: { SVC_ACCOUNT_API_URL: emulator.url, SVC_USERNAME: CREDS.username, SVC_PASSWORD: CREDS.password },
      config: config({}),
    })();
    assertStatus(r, "ok");
    assert.equal(r.record.max_global_parallelism, 10);
  });

  it("explains rejected credentials with their origins, never their values", async () => {
    const wrong = "pw-wrong-a81c44d0f2";
    const r = await liveAccountFromSettings({
      env: { SVC_PASSWORD: wrong },
      config: config({ "svc:accountApiUrl": emulator.url, "svc:username": CREDS.username }),
    })();
    assertStatus(r, "failed");
    assert.equal(
      r.message,
      `the service at ${emulator.url} rejected the credentials (HTTP 401). They came from: \`username\` from the ` +
        "stack config `svc:username`, `password` from the environment variable `SVC_PASSWORD`. Check those values.",
    );
    assert.ok(!JSON.stringify(r).includes(wrong));
    assert.ok(!JSON.stringify(r).includes(Buffer.from(`${CREDS.username}:${wrong}`).toString("base64")));
  });

  it("explains an unreachable service", async () => {
    const url = `http://127.0.0.1:${await unusedPort()}`;
    const r = await liveAccountFromSettings({
      env: { SVC_ACCOUNT_API_URL: url, SVC_USERNAME: CREDS.username, SVC_PASSWORD: CREDS.password },
      config: config({}),
      client: { retry: { maxRetries: 0 } },
    })();
    assertStatus(r, "failed");
    assert.match(
      r.message,
      new RegExp(`^cannot reach the service at ${url} \\(.*\\)\\. Is it running, and is the URL right\\?$`),
    );
    assert.ok(!r.message.includes(CREDS.password));
  });
});
