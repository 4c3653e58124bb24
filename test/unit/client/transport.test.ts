import { strict as assert } from "node:assert";
import { isLoopbackHost, SvcError } from "../../../client";
import { classifyTransportError, resolveEndpoint, Transport } from "../../../client/transport";
import { ACCOUNT_PATH, accountRecord, harness, json, rejection, resumePath } from "./helpers";

describe("client/transport", () => {
  it("loads undici's Pool from its own module, the same class undici's index exports", () => {
    const own = require("undici/lib/dispatcher/pool");
    assert.equal(own, require("undici").Pool);
    const t = new Transport();
    assert.ok(t.dispatcherFor("http://127.0.0.1:9") instanceof own);
    return t.close();
  });

  it("recognises loopback hosts", () => {
    for (const host of [
      "localhost",
      "LOCALHOST",
      "127.0.0.1",
      "127.8.9.10",
      "[::1]",
      "::1",
      "[::ffff:7f00:1]",
      "::ffff:127.0.0.1",
    ]) {
      assert.equal(isLoopbackHost(host), true, host);
    }
    for (const host of [
      "api.svc.invalid",
      "128.0.0.1",
      "10.0.0.1",
      "[::2]",
      "localhost.svc.invalid",
      "127.0.0.1.svc.invalid",
      "0.0.0.0",
    ]) {
      assert.equal(isLoopbackHost(host), false, host);
    }
  });

  it("refuses credentials over http to a non-loopback host unless allowed", () => {
    assert.throws(
      () => resolveEndpoint("http://api.svc.invalid", "baseUrl", false),
      (e: unknown) =>
        e instanceof SvcError && e.code === "SVC_INSECURE_TRANSPORT" && /allowInsecureHttp/.test(e.message),
    );
    assert.deepEqual(resolveEndpoint("http://api.svc.invalid", "baseUrl", true), {
      origin: "http://api.svc.invalid",
      pathPrefix: "",
    });
    assert.deepEqual(resolveEndpoint("https://api.svc.invalid/base/", "baseUrl", false), {
      origin: "https://api.svc.invalid",
      pathPrefix: "/base",
    });
    assert.deepEqual(resolveEndpoint("http://[::1]:4000", "baseUrl", false).origin, "http://[::1]:4000");
  });

  it("refuses odd base URLs without echoing them", () => {
    const bad = (url: string, msg: RegExp) =>
      assert.throws(
        () => resolveEndpoint(url, "baseUrl", false),
        (e: unknown) =>
          e instanceof SvcError &&
          e.code === "SVC_INVALID_ARGUMENT" &&
          msg.test(e.message) &&
          !e.message.includes("hunter22"),
      );
    bad("not a url hunter22", /must be a URL/);
    bad("http://u:hunter22@api.svc.invalid:port", /must be a URL/);
    bad("ftp://127.0.0.1", /http or https/);
    bad("https://user:hunter22@api.svc.invalid", /must not carry credentials/);
    bad("https://api.svc.invalid/?key=hunter22", /query or fragment/);
  });

  it("keeps one pool per origin and reuses it", async () => {
    const t = new Transport();
    const a = t.dispatcherFor("http://127.0.0.1:4000");
    assert.equal(t.dispatcherFor("http://127.0.0.1:4000"), a);
    assert.notEqual(t.dispatcherFor("http://127.0.0.1:4001"), a);
    await t.close();
    await t.close();
  });

  it("classifies failures by whether the request could have been processed", () => {
    const e = (code: string, syscall?: string) => Object.assign(new Error(code), { code, syscall });
    assert.equal(classifyTransportError(e("ECONNREFUSED", "connect")), "unreachable");
    assert.equal(classifyTransportError(e("ETIMEDOUT", "connect")), "connect-timeout");
    assert.equal(classifyTransportError(e("ECONNRESET", "read")), "connection-lost");
    assert.equal(classifyTransportError(e("UND_ERR_HEADERS_TIMEOUT")), "timeout");
    assert.equal(classifyTransportError(e("HPE_INVALID_CONSTANT")), "connection-lost");
    assert.equal(
      classifyTransportError(new AggregateError([e("ECONNREFUSED"), e("EHOSTUNREACH")])),
      "unreachable",
    );
    assert.equal(classifyTransportError(new Error("???")), "unknown");
  });
});

describe("client/SvcClient: transport security", () => {
  it("refuses to send the token over http to a non-loopback host", async () => {
    const h = harness(
      { baseUrl: "http://api.svc.invalid", accountApiUrl: "http://api.svc.invalid" },
      "http://api.svc.invalid",
    );
    let calls = 0;
    h.pool
      .intercept({ path: () => true, method: () => true })
      .reply(() => {
        calls++;
        return json(200, {});
      })
      .persist();
    for (const p of [
      h.client.resumeDlq({}),
      h.client.getAccount(),
      h.drains.drain({}),
      h.drains.resumeByIds(["a"]),
    ]) {
      const e = await rejection(p);
      assert.ok(e instanceof SvcError);
      assert.equal(e.code, "SVC_INSECURE_TRANSPORT");
    }
    assert.equal(calls, 0);
    await h.close();
  });

  it("sends over http to a non-loopback host with allowInsecureHttp", async () => {
    const h = harness(
      { baseUrl: "http://api.svc.invalid", accountApiUrl: "http://api.svc.invalid", allowInsecureHttp: true },
      "http://api.svc.invalid",
    );
    h.pool.intercept({ path: ACCOUNT_PATH, method: "GET" }).reply(200, accountRecord());
    assert.equal((await h.client.getAccount()).type, "free");
    await h.close();
  });

  for (const origin of [
    "http://localhost:4000",
    "http://127.0.0.2:4000",
    "http://[::1]:4000",
    "https://api.svc.invalid",
  ]) {
    it(`allows ${origin}`, async () => {
      const h = harness({}, origin);
      h.pool.intercept({ path: resumePath, method: "POST" }).reply(200, { cursor: "", workflowRuns: [] });
      assert.deepEqual(await h.client.resumeDlq({}), { cursor: undefined, workflowRuns: [] });
      await h.close();
    });
  }

  it("rejects invalid timeouts at construction", () => {
    assert.throws(
      () => harness({ requestTimeoutMs: 0 }),
      (e: unknown) => e instanceof SvcError && e.code === "SVC_INVALID_ARGUMENT",
    );
  });

  it("fails cleanly after close()", async () => {
    const h = harness({ dispatcher: undefined });
    await h.client.close();
    const e = await rejection(h.client.resumeDlq({}));
    assert.ok(e instanceof SvcError);
    assert.equal(e.code, "SVC_CONNECTION_LOST");
    assert.match(e.message, /client was closed/);
    await h.agent.close();
  });
});
