import { strict as assert } from "node:assert";
import { errors } from "undici";
import { SvcError } from "../../../client";
import { DrainError, type DrainPageEvent } from "../../../drain";
import {
  harness,
  json,
  pagingDlq,
  rejection,
  resumePath,
  seen,
  type Harness,
  type SeenRequest,
} from "../client/helpers";

function drainError(e: unknown): DrainError {
  assert.ok(e instanceof DrainError, `expected DrainError, got ${String(e)}`);
  assert.ok(e instanceof SvcError);
  return e;
}

const run = (i: number) => ({ workflowRunId: `wfr_${i}`, workflowCreatedAt: 1_000 + i });
const runs = (from: number, n: number) => Array.from({ length: n }, (_, i) => run(from + i));

describe("drain/DrainClient.drain", () => {
  let h: Harness;
  beforeEach(() => (h = harness()));
  afterEach(() => h.close());

  for (const [n, requests] of [
    [1, 1],
    [50, 1],
    [51, 2],
    [237, 5],
    [0, 1],
  ] as const) {
    it(`resumes ${n} entries in ${requests} request(s), passing the cursor back`, async () => {
      const dlq = pagingDlq(h.pool, n);
      const pages: DrainPageEvent[] = [];
      const result = await h.drains.drain(
        { fromDate: 0 },
        { retries: 1 },
        { onPage: (p) => void pages.push(p) },
      );
      assert.equal(result.requestCount, requests);
      assert.equal(result.resumedCount, n);
      assert.equal(result.runs.length, n);
      assert.equal(result.ambiguousRequests, 0);
      assert.deepEqual(
        result.runs.map((r) => r.workflowRunId),
        Array.from({ length: n }, (_, i) => `wfr_${i}`),
      );
      assert.equal(dlq.requests.length, requests);
      assert.equal(dlq.requests[0].query.get("cursor"), null);
      for (let i = 1; i < requests; i++) assert.equal(dlq.requests[i].query.get("cursor"), `c${i * 50}`);
      assert.ok(
        dlq.requests.every((r) => r.query.get("fromDate") === "0" && r.headers["svc-retries"] === "1"),
      );
      assert.deepEqual(
        pages.map((p) => [p.requestCount, p.resumedCount, p.cursor]),
        Array.from({ length: requests }, (_, i) => [
          i + 1,
          Math.min(n, (i + 1) * 50),
          i + 1 < requests ? `c${(i + 1) * 50}` : undefined,
        ]),
      );
    });
  }

  it("keeps exact counts but no run list with keepRuns: false", async () => {
    pagingDlq(h.pool, 237);
    const seenRuns: string[] = [];
    const result = await h.drains.drain(
      { fromDate: 0 },
      {},
      {
        keepRuns: false,
        onPage: (p) => void seenRuns.push(...p.page.workflowRuns.map((r) => r.workflowRunId)),
      },
    );
    assert.equal(result.requestCount, 5);
    assert.equal(result.resumedCount, 237);
    assert.equal(result.runs.length, 0);
    assert.equal(seenRuns.length, 237, "every run went through onPage");
  });

  it("starts from a checkpointed cursor", async () => {
    const reqs: SeenRequest[] = [];
    h.pool.intercept({ path: resumePath, method: "POST" }).reply((o) => {
      reqs.push(seen(o));
      return json(200, { cursor: "", workflowRuns: runs(0, 2) });
    });
    const result = await h.drains.drain({}, undefined, { startCursor: "c100" });
    assert.equal(reqs[0].query.get("cursor"), "c100");
    assert.equal(result.resumedCount, 2);
  });

  it("awaits onPage before the next request", async () => {
    pagingDlq(h.pool, 120);
    const order: string[] = [];
    await h.drains.drain({}, undefined, {
      onPage: async (p) => {
        order.push(`page ${p.requestCount} start`);
        await new Promise((r) => setImmediate(r));
        order.push(`page ${p.requestCount} end`);
      },
    });
    assert.deepEqual(order, [
      "page 1 start",
      "page 1 end",
      "page 2 start",
      "page 2 end",
      "page 3 start",
      "page 3 end",
    ]);
  });

  it("detects a repeating cursor", async () => {
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply(200, { cursor: "same-cursor", workflowRuns: [run(1)] })
      .persist();
    const e = drainError(await rejection(h.drains.drain({})));
    assert.equal(e.code, "SVC_CURSOR_LOOP");
    assert.match(e.message, /cursor \(length 11\) that was already used/);
    assert.ok(!e.message.includes("same-cursor"));
    assert.equal(e.partial.requestCount, 2);
    assert.equal(e.partial.runs.length, 2);
  });

  it("detects a cursor that repeats the start cursor", async () => {
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply(200, { cursor: "c5", workflowRuns: [] })
      .persist();
    const e = drainError(await rejection(h.drains.drain({}, undefined, { startCursor: "c5" })));
    assert.equal(e.code, "SVC_CURSOR_LOOP");
    assert.equal(e.partial.requestCount, 1);
  });

  it("detects an endless cursor (pages with a cursor but no runs)", async () => {
    let i = 0;
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply(() => json(200, { cursor: `new-${++i}`, workflowRuns: [] }))
      .persist();
    const e = drainError(await rejection(h.drains.drain({})));
    assert.equal(e.code, "SVC_CURSOR_LOOP");
    assert.match(e.message, /3 pages in a row returned a cursor/);
    assert.equal(e.partial.requestCount, 3);
  });

  it("stops after maxRequests with SVC_CURSOR_LOOP and the progress", async () => {
    pagingDlq(h.pool, 1000);
    const e = drainError(await rejection(h.drains.drain({}, undefined, { maxRequests: 3 })));
    assert.equal(e.code, "SVC_CURSOR_LOOP");
    assert.match(e.message, /did not finish within maxRequests=3/);
    assert.equal(e.partial.requestCount, 3);
    assert.equal(e.partial.resumedCount, 150);
    assert.equal(e.partial.cursor, "c150");
  });

  it("carries partial progress when a request fails mid-drain", async () => {
    const intercept = () => h.pool.intercept({ path: resumePath, method: "POST" });
    intercept().reply(200, { cursor: "c50", workflowRuns: runs(0, 50) });
    intercept().reply(200, { cursor: "c100", workflowRuns: runs(50, 50) });
    intercept().reply(400, { error: "cursor expired" });
    const e = drainError(await rejection(h.drains.drain({})));
    assert.equal(e.code, "SVC_BAD_REQUEST");
    assert.equal(e.status, 400);
    assert.equal(e.serviceMessage, "cursor expired");
    assert.ok(e.cause instanceof SvcError);
    assert.match(
      e.message,
      /the drain stopped after 2 requests that resumed 100 runs; resumed entries have left/,
    );
    assert.doesNotMatch(e.message, /`partial`/, "the message names no internal field");
    assert.equal(e.partial.runs.length, 100);
    assert.equal(e.partial.requestCount, 2);
    assert.equal(e.partial.resumedCount, 100);
    assert.equal(e.partial.cursor, "c100");
    assert.equal(e.partial.ambiguousRequests, 0);
    assert.ok(JSON.stringify(e).includes('"partial"'));
  });

  it("counts a failed ambiguous request in the partial progress", async () => {
    const intercept = () => h.pool.intercept({ path: resumePath, method: "POST" });
    intercept().reply(200, { cursor: "c50", workflowRuns: runs(0, 50) });
    intercept().reply(500, { error: "boom" }).times(6);
    const e = drainError(await rejection(h.drains.drain({})));
    assert.equal(e.code, "SVC_SERVER_ERROR");
    assert.equal(e.partial.ambiguousRequests, 1);
    assert.equal(e.partial.cursor, "c50");
    assert.equal(e.ambiguous, true);
  });

  it("carries partial progress when onPage throws", async () => {
    pagingDlq(h.pool, 237);
    const boom = new Error("checkpoint store is down");
    const e = drainError(
      await rejection(
        h.drains.drain({}, undefined, {
          onPage: (p) => {
            if (p.requestCount === 2) throw boom;
          },
        }),
      ),
    );
    assert.equal(e.code, "SVC_CALLBACK_FAILED");
    assert.equal(e.cause, boom);
    assert.equal(e.partial.runs.length, 100);
    assert.equal(e.partial.cursor, "c100");
  });

  it("counts ambiguous retries and reports them", async () => {
    const intercept = () => h.pool.intercept({ path: resumePath, method: "POST" });
    intercept().reply(200, { cursor: "c50", workflowRuns: runs(0, 50) });
    intercept().replyWithError(new errors.SocketError("other side closed"));
    intercept().reply(200, { cursor: "c100", workflowRuns: runs(50, 50) });
    intercept().reply(429, {});
    intercept().reply(200, { cursor: "", workflowRuns: runs(100, 10) });
    const result = await h.drains.drain({});
    assert.equal(result.requestCount, 3);
    assert.equal(result.resumedCount, 110);
    assert.equal(result.ambiguousRequests, 1);
    assert.deepEqual(
      h.retries.map((r) => r.ambiguous),
      [true, false],
    );
  });

  it("stops between requests when the signal aborts", async () => {
    pagingDlq(h.pool, 500);
    const ac = new AbortController();
    const e = drainError(
      await rejection(
        h.drains.drain({}, undefined, {
          signal: ac.signal,
          onPage: (p) => {
            if (p.requestCount === 2) ac.abort();
          },
        }),
      ),
    );
    assert.equal(e.code, "SVC_ABORTED");
    assert.equal(e.partial.requestCount, 2);
    assert.equal(e.partial.cursor, "c100");
  });

  it("stops retry waits when the signal aborts, counting the ambiguous request", async () => {
    const ac = new AbortController();
    const h2 = harness({ onRetry: () => ac.abort() });
    h2.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply(200, { cursor: "c1", workflowRuns: [run(0)] });
    h2.pool.intercept({ path: resumePath, method: "POST" }).reply(503, "busy").persist();
    const e = drainError(await rejection(h2.drains.drain({}, undefined, { signal: ac.signal })));
    assert.equal(e.code, "SVC_ABORTED");
    assert.equal(e.partial.resumedCount, 1);
    assert.equal(e.partial.ambiguousRequests, 1);
    assert.equal(e.partial.cursor, "c1");
    await h2.close();
  });

  it("validates arguments before sending (plain SvcError)", async () => {
    const e = await rejection(h.drains.drain({ dlqIds: [] }));
    assert.ok(e instanceof SvcError && !(e instanceof DrainError));
    assert.equal(e.code, "SVC_INVALID_ARGUMENT");
    const e2 = await rejection(h.drains.drain({}, undefined, { maxRequests: 0 }));
    assert.ok(e2 instanceof SvcError);
    assert.equal(e2.code, "SVC_INVALID_ARGUMENT");
  });
});
