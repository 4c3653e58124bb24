import { strict as assert } from "node:assert";
import { errors } from "undici";
import { SvcError } from "../../../client";
import {
  ACCOUNT_PATH,
  accountRecord,
  BASIC,
  harness,
  json,
  rejection,
  seen,
  type Harness,
  type SeenRequest,
} from "./helpers";

function svcError(e: unknown): SvcError {
  assert.ok(e instanceof SvcError, `expected SvcError, got ${String(e)}`);
  return e;
}

describe("client/SvcClient.getAccount", () => {
  let h: Harness;
  beforeEach(() => (h = harness()));
  afterEach(() => h.close());
  const intercept = () => h.pool.intercept({ path: ACCOUNT_PATH, method: "GET" });

  it("GETs /v2/svc/user with Basic auth and returns the typed record", async () => {
    const reqs: SeenRequest[] = [];
    intercept().reply((o) => {
      reqs.push(seen(o));
      return json(200, { ...accountRecord(), region: "eu-1" });
    });
    const rec = await h.client.getAccount();
    assert.deepEqual(rec, accountRecord());
    assert.equal(reqs[0].method, "GET");
    assert.equal(reqs[0].headers["authorization"], `Basic ${BASIC}`);
    assert.equal(reqs[0].body ?? null, null);
  });

  it("names missing credentials", async () => {
    for (const [opts, msg] of [
      [{ password: undefined }, /`password` is not set/],
      [{ username: undefined }, /`username` is not set/],
      [{ username: undefined, password: undefined }, /`username` and `password` are not set/],
    ] as const) {
      const h2 = harness(opts);
      const e = svcError(await rejection(h2.client.getAccount()));
      assert.equal(e.code, "SVC_MISSING_CREDENTIALS");
      assert.match(e.message, msg);
      await h2.close();
    }
  });

  it("refuses a missing accountApiUrl", async () => {
    const h2 = harness({ accountApiUrl: undefined });
    const e = svcError(await rejection(h2.client.getAccount()));
    assert.equal(e.code, "SVC_INVALID_ARGUMENT");
    assert.match(e.message, /`accountApiUrl` is not set/);
    await h2.close();
  });

  it("maps 401 to SVC_UNAUTHORIZED naming the operation, without retrying", async () => {
    intercept().reply(401, { error: "invalid credentials" });
    const e = svcError(await rejection(h.client.getAccount()));
    assert.equal(e.code, "SVC_UNAUTHORIZED");
    assert.match(
      e.message,
      /^Credentials were rejected \(401\) for svc get account \(GET \/v2\/svc\/user\): check `username` and `password`: invalid credentials$/,
    );
    assert.deepEqual(h.retries, []);
  });

  it("retries 429, 5xx, timeouts and lost connections (never ambiguous for a GET)", async () => {
    intercept().reply(429, {}, { headers: { "retry-after": "1" } });
    intercept().reply(500, { error: "boom" });
    intercept().replyWithError(new errors.HeadersTimeoutError("Headers Timeout Error"));
    intercept().replyWithError(new errors.SocketError("other side closed"));
    intercept().reply(200, accountRecord());
    const rec = await h.client.getAccount();
    assert.equal(rec.max_retries, 999);
    assert.deepEqual(
      h.retries.map((r) => [r.attempt, r.status, r.ambiguous]),
      [
        [1, 429, false],
        [2, 500, false],
        [3, undefined, false],
        [4, undefined, false],
      ],
    );
    assert.deepEqual(h.sleeps, [1000, 200, 400, 800]);
  });

  it("does not retry 400 or 404", async () => {
    intercept().reply(404, { error: "no such user" });
    assert.equal(svcError(await rejection(h.client.getAccount())).code, "SVC_NOT_FOUND");
    intercept().reply(400, { error: "bad" });
    assert.equal(svcError(await rejection(h.client.getAccount())).code, "SVC_BAD_REQUEST");
    assert.deepEqual(h.sleeps, []);
  });

  it("reports a malformed record with HTTP context and the field", async () => {
    intercept().reply(200, { ...accountRecord(), max_retries: "abc" });
    const e = svcError(await rejection(h.client.getAccount()));
    assert.equal(e.code, "SVC_MALFORMED_RESPONSE");
    assert.equal(e.status, 200);
    assert.equal(e.method, "GET");
    assert.equal(e.url, "http://127.0.0.1:4000/v2/svc/user");
    assert.equal(
      e.message,
      'Malformed account record from GET /v2/svc/user: field `max_retries` must be an integer; got "abc" (string).',
    );
  });

  it("reports an HTML body naming content type and status", async () => {
    intercept().reply(200, "<!doctype html><title>Login</title><p>Please sign in</p>", {
      headers: { "content-type": "text/html" },
    });
    const e = svcError(await rejection(h.client.getAccount()));
    assert.equal(e.code, "SVC_MALFORMED_RESPONSE");
    assert.match(
      e.message,
      /expected JSON, got content-type text\/html with status 200: "Login Please sign in"/,
    );
    assert.equal(e.ambiguous, false);
  });
});
