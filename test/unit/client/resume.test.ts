// size: every test of SvcClient.resumeDlq (request shape, refusals, error codes, retries) on one harness; the other client operations already have files of their own
import { strict as assert } from "node:assert";
import { errors } from "undici";
import { SvcError } from "../../../client";
import {
  harness,
  json,
  rejection,
  resumePath,
  seen,
  T0,
  TOKEN,
  type Harness,
  type SeenRequest,
} from "./helpers";

const okPage = { cursor: "", workflowRuns: [{ workflowRunId: "wfr_1", workflowCreatedAt: 1748527971000 }] };

function capture(h: Harness, reply: ReturnType<typeof json> = json(200, okPage)): SeenRequest[] {
  const requests: SeenRequest[] = [];
  h.pool.intercept({ path: resumePath, method: "POST" }).reply((opts) => {
    requests.push(seen(opts));
    return reply;
  });
  return requests;
}

function svcError(e: unknown): SvcError {
  assert.ok(e instanceof SvcError, `expected SvcError, got ${String(e)}`);
  return e;
}

describe("client/SvcClient.resumeDlq: request shape", () => {
  let h: Harness;
  beforeEach(() => (h = harness()));
  afterEach(() => h.close());

  it("sends every field in the query, repeats dlqIds, and sends no body", async () => {
    const reqs = capture(h);
    const page = await h.client.resumeDlq(
      {
        dlqIds: ["dlq a", "dlq&b", "c"],
        fromDate: 1,
        toDate: 2,
        workflowUrl: "https://app.invalid/api/wf?x=1",
        workflowRunId: "wfr_",
        workflowCreatedAt: 3,
      },
      undefined,
      "cur/sor=1",
    );
    assert.deepEqual(page, { cursor: undefined, workflowRuns: okPage.workflowRuns });
    const [r] = reqs;
    assert.equal(r.method, "POST");
    assert.equal(r.path, "/v2/workflows/dlq/resume");
    assert.deepEqual(r.query.getAll("dlqIds"), ["dlq a", "dlq&b", "c"]);
    assert.equal(r.query.get("fromDate"), "1");
    assert.equal(r.query.get("toDate"), "2");
    assert.equal(r.query.get("workflowUrl"), "https://app.invalid/api/wf?x=1");
    assert.equal(r.query.get("workflowRunId"), "wfr_");
    assert.equal(r.query.get("workflowCreatedAt"), "3");
    assert.equal(r.query.get("cursor"), "cur/sor=1");
    assert.equal(r.body ?? null, null);
    assert.equal(r.headers["authorization"], `Bearer ${TOKEN}`);
  });

  it("sends only the fields that are set, and no cursor at the start", async () => {
    const reqs = capture(h);
    await h.client.resumeDlq({ fromDate: 10 });
    assert.deepEqual([...reqs[0].query.keys()], ["fromDate"]);
    const reqs2 = capture(h);
    await h.client.resumeDlq({});
    assert.deepEqual([...reqs2[0].query.keys()], []);
  });

  it("sends override headers exactly as set", async () => {
    const reqs = capture(h);
    await h.client.resumeDlq(
      { dlqIds: ["a"] },
      { flowControl: { key: "k1", parallelism: 5, rate: 10, period: 1 }, retries: 3 },
    );
    const hd = reqs[0].headers;
    assert.equal(hd["svc-flow-control-key"], "k1");
    assert.equal(hd["svc-flow-control-value"], "parallelism=5, rate=10, period=1s");
    assert.equal(hd["svc-retries"], "3");
  });

  it("sends no override header when the override is unset", async () => {
    const reqs = capture(h);
    await h.client.resumeDlq({ dlqIds: ["a"] }, { retries: 0 });
    const hd = reqs[0].headers;
    assert.equal(hd["svc-retries"], "0");
    for (const name of ["svc-flow-control-key", "svc-flow-control-value"]) assert.ok(!(name in hd), name);
    const reqs2 = capture(h);
    await h.client.resumeDlq({ dlqIds: ["a"] });
    for (const name of ["svc-flow-control-key", "svc-flow-control-value", "svc-retries"]) {
      assert.ok(!(name in reqs2[0].headers), name);
    }
  });

  it("keeps a base URL path prefix", async () => {
    const h2 = harness({ baseUrl: "http://127.0.0.1:4000/prefix/" });
    const reqs: string[] = [];
    h2.pool
      .intercept({ path: (p) => p.startsWith("/prefix/v2/workflows/dlq/resume"), method: "POST" })
      .reply((o) => {
        reqs.push(o.path);
        return json(200, okPage);
      });
    await h2.client.resumeDlq({ dlqIds: ["a"] });
    assert.deepEqual(reqs, ["/prefix/v2/workflows/dlq/resume?dlqIds=a"]);
    await h2.close();
  });
});

describe("client/SvcClient.resumeDlq: refusals before sending", () => {
  let h: Harness;
  beforeEach(() => (h = harness()));
  afterEach(() => h.close());

  const refuse = async (p: Promise<unknown>, code: string, msg: RegExp) => {
    const e = svcError(await rejection(p));
    assert.equal(e.code, code);
    assert.match(e.message, msg);
  };

  it("refuses an empty dlqIds array", async () => {
    await refuse(
      h.client.resumeDlq({ dlqIds: [] }),
      "SVC_INVALID_ARGUMENT",
      /^`dlqIds` is empty: to target every entry, say so explicitly/,
    );
  });

  it("refuses more than 50 ids in one request", async () => {
    const ids = Array.from({ length: 51 }, (_, i) => `d${i}`);
    await refuse(
      h.client.resumeDlq({ dlqIds: ids }),
      "SVC_INVALID_ARGUMENT",
      /51 IDs; one request takes at most 50/,
    );
  });

  it("refuses bad selections and overrides", async () => {
    await refuse(h.client.resumeDlq({ dlqIds: [""] }), "SVC_INVALID_ARGUMENT", /`dlqIds\[0\]`/);
    await refuse(h.client.resumeDlq({ fromDate: 1.5 }), "SVC_INVALID_ARGUMENT", /`fromDate`/);
    await refuse(
      h.client.resumeDlq({ fromDate: 5, toDate: 1 }),
      "SVC_INVALID_ARGUMENT",
      /`fromDate` is after `toDate`/,
    );
    await refuse(
      h.client.resumeDlq({}, { flowControl: { period: 1 } }),
      "SVC_INVALID_ARGUMENT",
      /flowControl\.parallelism/,
    );
  });

  it("refuses a missing token", async () => {
    const h2 = harness({ token: undefined });
    await refuse(h2.client.resumeDlq({}), "SVC_MISSING_CREDENTIALS", /`token` is not set/);
    await h2.close();
  });
});

describe("client/SvcClient.resumeDlq: error codes", () => {
  let h: Harness;
  beforeEach(() => (h = harness()));
  afterEach(() => h.close());

  const cases: Array<[number, string, RegExp]> = [
    [400, "SVC_BAD_REQUEST", /bad request \(400\): fromDate must be before toDate/],
    [
      401,
      "SVC_UNAUTHORIZED",
      /^Credentials were rejected \(401\) for svc resume DLQ \(POST \/v2\/workflows\/dlq\/resume\): check `token`/,
    ],
    [403, "SVC_UNAUTHORIZED", /not permitted \(403\)/],
    [404, "SVC_NOT_FOUND", /404 Not Found: fromDate must be before toDate/],
    [409, "SVC_HTTP_ERROR", /unexpected status 409 Conflict/],
  ];
  for (const [status, code, msg] of cases) {
    it(`maps ${status} to ${code} without retrying`, async () => {
      let calls = 0;
      h.pool
        .intercept({ path: resumePath, method: "POST" })
        .reply(() => {
          calls++;
          return json(status, { error: "fromDate must be before toDate" });
        })
        .persist();
      const e = svcError(await rejection(h.client.resumeDlq({ fromDate: 1 })));
      assert.equal(e.code, code);
      assert.equal(e.status, status);
      assert.equal(e.serviceMessage, "fromDate must be before toDate");
      assert.equal(e.method, "POST");
      assert.equal(e.url, "http://127.0.0.1:4000/v2/workflows/dlq/resume?fromDate=1");
      assert.match(e.message, msg);
      assert.match(e.message, /POST \/v2\/workflows\/dlq\/resume/);
      assert.equal(calls, 1);
      assert.deepEqual(h.retries, []);
    });
  }

  it("maps exhausted 429 to SVC_RATE_LIMITED", async () => {
    h.pool.intercept({ path: resumePath, method: "POST" }).reply(429, { error: "too many" }).times(6);
    const e = svcError(await rejection(h.client.resumeDlq({})));
    assert.equal(e.code, "SVC_RATE_LIMITED");
    assert.equal(e.retryable, true);
    assert.equal(e.attempts, 6);
    assert.equal(e.ambiguous, false);
    assert.match(e.message, /gave up after 6 attempts/);
  });

  it("maps exhausted 5xx to SVC_SERVER_ERROR (ambiguous for a resume)", async () => {
    h.pool.intercept({ path: resumePath, method: "POST" }).reply(500, { error: "boom" }).times(6);
    const e = svcError(await rejection(h.client.resumeDlq({})));
    assert.equal(e.code, "SVC_SERVER_ERROR");
    assert.equal(e.status, 500);
    assert.equal(e.serviceMessage, "boom");
    assert.equal(e.ambiguous, true);
    assert.deepEqual(h.sleeps, [100, 200, 400, 800, 1600]);
  });

  it("maps a non-JSON 2xx body to SVC_MALFORMED_RESPONSE naming content type and status", async () => {
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply(200, "<html><body><h1>Welcome to the proxy</h1></body></html>", {
        headers: { "content-type": "text/html; charset=utf-8" },
      });
    const e = svcError(await rejection(h.client.resumeDlq({})));
    assert.equal(e.code, "SVC_MALFORMED_RESPONSE");
    assert.match(e.message, /content-type text\/html; charset=utf-8 with status 200: "Welcome to the proxy"/);
    assert.equal(e.ambiguous, true);
  });

  it("maps a wrongly shaped 2xx body to SVC_MALFORMED_RESPONSE with HTTP context", async () => {
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply(200, { workflowRuns: [{ workflowRunId: 1 }] });
    const e = svcError(await rejection(h.client.resumeDlq({})));
    assert.equal(e.code, "SVC_MALFORMED_RESPONSE");
    assert.match(e.message, /`workflowRuns\[0\]\.workflowRunId`/);
    assert.equal(e.status, 200);
    assert.equal(e.method, "POST");
  });

  it("shows a short sanitized excerpt of an HTML error page", async () => {
    const html = `<html><head><style>body{}</style></head><body>${"Bad gateway ".repeat(50)}</body></html>`;
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply(400, html, { headers: { "content-type": "text/html" } });
    const e = svcError(await rejection(h.client.resumeDlq({})));
    assert.equal(e.code, "SVC_BAD_REQUEST");
    assert.equal(e.serviceMessage, undefined);
    assert.match(e.message, /\(content-type text\/html: "Bad gateway Bad gateway/);
    assert.ok(!e.message.includes("<"), e.message);
    assert.ok(e.message.length < 300, e.message);
  });

  const transport: Array<[string, () => Error, string, boolean]> = [
    [
      "connection refused",
      () =>
        Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:4000"), {
          code: "ECONNREFUSED",
          syscall: "connect",
        }),
      "SVC_UNREACHABLE",
      false,
    ],
    [
      "DNS failure",
      () =>
        Object.assign(new Error("getaddrinfo ENOTFOUND api.svc.invalid"), {
          code: "ENOTFOUND",
          syscall: "getaddrinfo",
        }),
      "SVC_UNREACHABLE",
      false,
    ],
    ["connect timeout", () => new errors.ConnectTimeoutError("Connect Timeout Error"), "SVC_TIMEOUT", false],
    ["headers timeout", () => new errors.HeadersTimeoutError("Headers Timeout Error"), "SVC_TIMEOUT", true],
    ["body timeout", () => new errors.BodyTimeoutError("Body Timeout Error"), "SVC_TIMEOUT", true],
    [
      "socket closed mid-request",
      () => new errors.SocketError("other side closed"),
      "SVC_CONNECTION_LOST",
      true,
    ],
    [
      "connection reset",
      () => Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET", syscall: "read" }),
      "SVC_CONNECTION_LOST",
      true,
    ],
  ];
  for (const [name, make, code, ambiguous] of transport) {
    it(`maps ${name} to ${code} (${ambiguous ? "ambiguous" : "not processed"}) and retries it`, async () => {
      h.pool.intercept({ path: resumePath, method: "POST" }).replyWithError(make()).times(6);
      const e = svcError(await rejection(h.client.resumeDlq({})));
      assert.equal(e.code, code);
      assert.equal(e.ambiguous, ambiguous);
      assert.equal(e.attempts, 6);
      assert.equal(h.retries.length, 5);
      assert.ok(h.retries.every((r) => r.ambiguous === ambiguous));
      assert.match(e.message, /POST \/v2\/workflows\/dlq\/resume/);
    });
  }
});

describe("client/SvcClient.resumeDlq: retries", () => {
  let h: Harness;
  beforeEach(() => (h = harness()));
  afterEach(() => h.close());

  const intercept = () => h.pool.intercept({ path: resumePath, method: "POST" });

  it("retries 429 honouring Retry-After seconds (not ambiguous)", async () => {
    intercept().reply(429, { error: "slow down" }, { headers: { "retry-after": "3" } });
    intercept().reply(200, okPage);
    const page = await h.client.resumeDlq({});
    assert.equal(page.workflowRuns.length, 1);
    assert.equal(page.ambiguous, undefined);
    assert.deepEqual(h.sleeps, [3000]);
    assert.deepEqual(h.retries, [
      {
        attempt: 1,
        delayMs: 3000,
        reason: "429 Too Many Requests",
        status: 429,
        ambiguous: false,
        operation: "POST /v2/workflows/dlq/resume",
      },
    ]);
  });

  it("honours Retry-After as an HTTP date", async () => {
    intercept().reply(429, {}, { headers: { "retry-after": new Date(T0 + 5000).toUTCString() } });
    intercept().reply(200, okPage);
    await h.client.resumeDlq({});
    assert.deepEqual(h.sleeps, [5000]);
  });

  it("honours Burst-RateLimit-Reset (unix seconds)", async () => {
    intercept().reply(429, {}, { headers: { "burst-ratelimit-reset": String(T0 / 1000 + 2) } });
    intercept().reply(200, okPage);
    await h.client.resumeDlq({});
    assert.deepEqual(h.sleeps, [2000]);
  });

  it("honours Retry-After on 503", async () => {
    intercept().reply(503, "unavailable", { headers: { "retry-after": "4" } });
    intercept().reply(200, okPage);
    await h.client.resumeDlq({});
    assert.deepEqual(h.sleeps, [4000]);
  });

  it("caps each wait at maxDelayMs and gives up when the total budget cannot cover the next wait", async () => {
    const h2 = harness({ retry: { maxTotalDelayMs: 25_000 } });
    h2.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply(429, {}, { headers: { "retry-after": "20" } })
      .times(3);
    const e = svcError(await rejection(h2.client.resumeDlq({})));
    assert.equal(e.code, "SVC_RATE_LIMITED");
    assert.deepEqual(h2.sleeps, [10_000, 10_000]);
    assert.match(e.message, /beyond the remaining retry budget/);
    await h2.close();
  });

  it("uses capped full-jitter backoff without a hint", async () => {
    const h2 = harness({
      random: () => 0.999,
      retry: { maxRetries: 8, baseDelayMs: 1000, maxDelayMs: 3000 },
    });
    h2.pool.intercept({ path: resumePath, method: "POST" }).reply(429, {}).times(9);
    await rejection(h2.client.resumeDlq({}));
    assert.deepEqual(h2.sleeps, [999, 1998, 2997, 2997, 2997, 2997, 2997, 2997]);
    await h2.close();
  });

  it("retries 5xx then succeeds, marking the page ambiguous", async () => {
    intercept().reply(502, "bad gateway");
    intercept().reply(500, { error: "boom" });
    intercept().reply(200, okPage);
    const page = await h.client.resumeDlq({});
    assert.equal(page.ambiguous, true);
    assert.equal(page.workflowRuns.length, 1);
    assert.deepEqual(
      h.retries.map((r) => [r.status, r.ambiguous]),
      [
        [502, true],
        [500, true],
      ],
    );
  });

  it("does not retry 501", async () => {
    intercept().reply(501, { error: "nope" });
    const e = svcError(await rejection(h.client.resumeDlq({})));
    assert.equal(e.code, "SVC_SERVER_ERROR");
    assert.deepEqual(h.sleeps, []);
  });

  it("retries a refused connection without ambiguity", async () => {
    intercept().replyWithError(
      Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED", syscall: "connect" }),
    );
    intercept().reply(200, okPage);
    const page = await h.client.resumeDlq({});
    assert.equal(page.ambiguous, undefined);
    assert.equal(h.retries[0].ambiguous, false);
  });

  it("treats a dlqIds batch answered 404 after an ambiguous failure as resumed without IDs", async () => {
    intercept().replyWithError(new errors.SocketError("other side closed"));
    intercept().reply(404, { error: "Some DLQ messages were not found" });
    const page = await h.client.resumeDlq({ dlqIds: ["d1", "d2"] });
    assert.deepEqual(page, {
      cursor: undefined,
      workflowRuns: [],
      ambiguous: true,
      unconfirmedDlqIds: ["d1", "d2"],
    });
  });

  it("still fails a 404 after an unambiguous retry", async () => {
    intercept().reply(429, {});
    intercept().reply(404, { error: "Some DLQ messages were not found" });
    const e = svcError(await rejection(h.client.resumeDlq({ dlqIds: ["d1"] })));
    assert.equal(e.code, "SVC_NOT_FOUND");
  });

  it("ignores errors thrown by onRetry", async () => {
    const h2 = harness({
      onRetry: () => {
        throw new Error("logger broke");
      },
    });
    h2.pool.intercept({ path: resumePath, method: "POST" }).reply(429, {});
    h2.pool.intercept({ path: resumePath, method: "POST" }).reply(200, okPage);
    assert.equal((await h2.client.resumeDlq({})).workflowRuns.length, 1);
    await h2.close();
  });
});
