import { strict as assert } from "node:assert";
import { inspect } from "node:util";
import { errors } from "undici";
import { SvcError } from "../../../client";
import {
  ACCOUNT_PATH,
  accountRecord,
  BASIC,
  harness,
  json,
  PASSWORD,
  rejection,
  resumePath,
  TOKEN,
  type Harness,
} from "./helpers";

const SECRETS = [TOKEN, PASSWORD, BASIC, encodeURIComponent(PASSWORD)];

/** Every textual view of an error: message, stack, JSON, inspect (with causes), String(cause). */
function assertNoSecrets(e: unknown, extra: unknown[] = []): void {
  assert.ok(e instanceof SvcError, `expected SvcError, got ${String(e)}`);
  const views = [
    e.message,
    e.stack ?? "",
    JSON.stringify(e),
    inspect(e, { depth: 10 }),
    String(e.cause),
    e.cause instanceof Error ? (e.cause.stack ?? "") : "",
    JSON.stringify(extra),
  ];
  for (const view of views) {
    for (const secret of SECRETS)
      assert.ok(!view.includes(secret), `secret leaked in: ${view.slice(0, 500)}`);
  }
}

describe("client: credentials never appear in errors", () => {
  let h: Harness;
  beforeEach(() => (h = harness()));
  afterEach(() => h.close());

  it("when a 401 body echoes the token", async () => {
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply(401, { error: `token ${TOKEN} is invalid (Bearer ${TOKEN})` });
    const e = await rejection(h.client.resumeDlq({}));
    assertNoSecrets(e);
    assert.match((e as SvcError).serviceMessage ?? "", /token \(redacted\) is invalid/);
  });

  it("when an HTML error page echoes the Basic credentials", async () => {
    h.pool
      .intercept({ path: ACCOUNT_PATH, method: "GET" })
      .reply(400, `<html><body>Authorization: Basic ${BASIC} password=${PASSWORD}</body></html>`, {
        headers: { "content-type": "text/html" },
      });
    assertNoSecrets(await rejection(h.client.getAccount()));
  });

  it("when a transport error message carries a credential (cause is scrubbed)", async () => {
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .replyWithError(new errors.SocketError(`other side closed while sending Bearer ${TOKEN}`))
      .times(6);
    const e = await rejection(h.client.resumeDlq({}));
    assertNoSecrets(e, h.retries);
    assert.ok(h.retries.length > 0);
  });

  it("when the account record is malformed (password/token values are redacted)", async () => {
    h.pool
      .intercept({ path: ACCOUNT_PATH, method: "GET" })
      .reply(200, { ...accountRecord(), token: 42, max_retries: PASSWORD });
    const e = await rejection(h.client.getAccount());
    assertNoSecrets(e);
    assert.match((e as SvcError).message, /`max_retries` must be an integer; got "\(redacted\)" \(string\)/);
  });

  it("when a 2xx body is not JSON and contains the password", async () => {
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply(200, `oops ${PASSWORD}`, { headers: { "content-type": "text/plain" } });
    assertNoSecrets(await rejection(h.client.resumeDlq({})));
  });

  it("when a drain fails (DrainError with partial progress)", async () => {
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply(200, { cursor: "c1", workflowRuns: [{ workflowRunId: "r1", workflowCreatedAt: 1 }] });
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply(500, { error: `internal: ${TOKEN}` })
      .times(6);
    assertNoSecrets(await rejection(h.drains.drain({})), h.retries);
  });

  it("when the transport is refused as insecure", async () => {
    const h2 = harness({ baseUrl: "http://api.svc.invalid" });
    assertNoSecrets(await rejection(h2.client.resumeDlq({})));
    await h2.close();
  });

  it("sends the credentials only in the Authorization header", async () => {
    const seen: Array<{ path: string; body: unknown }> = [];
    h.pool.intercept({ path: resumePath, method: "POST" }).reply((o) => {
      seen.push({ path: o.path, body: o.body });
      return json(200, { cursor: "", workflowRuns: [] });
    });
    await h.client.resumeDlq({ workflowUrl: "https://app.invalid" });
    assert.ok(!JSON.stringify(seen).includes(TOKEN));
  });
});
