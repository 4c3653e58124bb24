import { strict as assert } from "node:assert";
import { SvcError } from "../../../client";
import { DrainError, RateGate, accountRateGates, type AccountGate } from "../../../drain";
import type { DrainWindow } from "../../../drain/types";
import {
  harness,
  json,
  rejection,
  resumePath,
  seen,
  type Harness,
  type SeenRequest,
} from "../client/helpers";
import { DAY, DISTRIBUTIONS, FakeDlq, VirtualClock } from "../../../bench/lib/windowSim";

/** Serves a FakeDlq through the MockAgent, like the resume endpoint. */
function serve(
  h: Harness,
  dlq: FakeDlq,
  answer: (req: SeenRequest, index: number) => ReturnType<typeof json> | undefined = () => undefined,
) {
  const requests: (SeenRequest & { at: number })[] = [];
  h.pool
    .intercept({ path: resumePath, method: "POST" })
    .reply((opts) => {
      const req = seen(opts);
      requests.push({ ...req, at: h.clock.now });
      const special = answer(req, requests.length - 1);
      if (special) return special;
      const num = (k: string) => (req.query.get(k) === null ? undefined : Number(req.query.get(k)));
      const window: DrainWindow = {};
      if (num("fromDate") !== undefined) window.from = num("fromDate");
      if (num("toDate") !== undefined) window.to = num("toDate");
      try {
        const page = dlq.resumeNow(window, req.query.get("cursor") ?? undefined);
        return json(200, { cursor: page.cursor ?? "", workflowRuns: page.workflowRuns });
      } catch (e) {
        return json(400, { error: (e as Error).message });
      }
    })
    .persist();
  return requests;
}

describe("drain/DrainClient.drainWindows", () => {
  let h: Harness;
  let gate: RateGate;
  beforeEach(() => {
    h = harness();
    gate = new RateGate({
      limit: 1000,
      now: () => h.clock.now,
      sleep: async (ms) => void (h.clock.now += ms),
    });
  });
  afterEach(() => h.close());

  it("with concurrency 1 sends exactly what drain sends", async () => {
    const times = DISTRIBUTIONS.uniform3d(237);
    const a = serve(h, new FakeDlq(times));
    const res = await h.drains.drainWindows(
      { fromDate: 0, workflowUrl: "u" },
      { retries: 1 },
      { concurrency: 1, gate },
    );
    await h.close();
    h = harness();
    const b = serve(h, new FakeDlq(times));
    const ref = await h.drains.drain({ fromDate: 0, workflowUrl: "u" }, { retries: 1 });
    assert.equal(res.requestCount, 5);
    assert.equal(ref.requestCount, 5);
    assert.deepEqual(
      a.map((r) => r.query.toString()),
      b.map((r) => r.query.toString()),
    );
    assert.ok(a.every((r) => r.headers["svc-retries"] === "1"));
  });

  it("drains in windows: each request carries its window as fromDate/toDate, every entry once", async () => {
    const n = 3_000;
    const dlq = new FakeDlq(DISTRIBUTIONS.bursts3(n));
    const reqs = serve(h, dlq);
    const res = await h.drains.drainWindows(
      { workflowUrl: "u" },
      { flowControl: { key: "k", parallelism: 2 } },
      { concurrency: 8, gate, horizonMs: 3 * DAY },
    );
    assert.equal(dlq.duplicates, 0);
    assert.equal(dlq.remaining, 0);
    assert.equal(res.resumedCount, n);
    assert.equal(res.requestCount, reqs.length);
    assert.ok(res.splits > 0);
    assert.ok(reqs.some((r) => r.query.get("fromDate") !== null && r.query.get("toDate") !== null));
    assert.ok(reqs.every((r) => r.query.get("workflowUrl") === "u"));
    assert.ok(reqs.every((r) => r.headers["svc-flow-control-key"] === "k"));
    assert.ok(reqs.every((r) => r.headers.authorization === "Bearer tok_SUPERSECRET_8f3a91c2d4"));
    assert.equal(gate.stats().released, reqs.length, "every attempt passed the gate");
    assert.equal(gate.stats().responses, reqs.length, "every response was shown to the gate");
  });

  it("the gate learns the limit from the response headers and pauses on a 429", async () => {
    gate = new RateGate({ now: () => h.clock.now, sleep: async (ms) => void (h.clock.now += ms) });
    const dlq = new FakeDlq(DISTRIBUTIONS.uniform3d(500));
    const headers = (remaining: number) => ({
      "burst-ratelimit-limit": "40",
      "burst-ratelimit-remaining": String(remaining),
      "burst-ratelimit-reset": String(Math.ceil((h.clock.now + 1) / 1000)),
    });
    let limitedAt = -1;
    serve(h, dlq, (_req, i) => {
      if (i === 3) {
        limitedAt = h.clock.now;
        return json(429, { error: "rate limit exceeded" }, { ...headers(0), "retry-after": "1" });
      }
      return undefined;
    });
    const res = await h.drains.drainWindows({}, undefined, { concurrency: 4, gate, horizonMs: 3 * DAY });
    assert.equal(dlq.remaining, 0);
    assert.equal(dlq.duplicates, 0);
    assert.equal(res.resumedCount, 500);
    const s = gate.stats();
    assert.equal(s.limited, 1);
    assert.ok(s.pauses >= 1);
    assert.ok(limitedAt >= 0);
    assert.equal(h.retries.filter((r) => r.status === 429).length, 1, "the limited request was retried");
    assert.equal(gate.stats().learntLimit, 40);
    assert.ok((gate.ratePerSecond ?? Infinity) <= 40);
  });

  it("a per-drain maxRequestsPerSecond spaces that drain's requests", async () => {
    await h.close();
    const clock = new VirtualClock();
    h = harness({ now: () => clock.now, sleep: clock.sleep });
    h.clock.now = clock.now;
    gate = new RateGate({ limit: 1000, now: () => clock.now, sleep: clock.sleep });
    const starts: number[] = [];
    const recording: AccountGate = {
      acquire: () => gate.acquire().then(() => void starts.push(clock.now)),
      observe: (status, headers) => gate.observe(status, headers),
      get waiting() {
        return gate.waiting;
      },
      get ratePerSecond() {
        return gate.ratePerSecond;
      },
    };
    const reqs = serve(h, new FakeDlq(DISTRIBUTIONS.uniform3d(400)));
    const res = await clock.run(
      h.drains.drainWindows({}, undefined, {
        concurrency: 4,
        gate: recording,
        maxRequestsPerSecond: 2,
        horizonMs: 3 * DAY,
      }),
    );
    assert.ok(res.maxInFlight > 1);
    assert.equal(starts.length, reqs.length);
    for (let i = 1; i < starts.length; i++) assert.ok(starts[i] - starts[i - 1] >= 500);
  });

  it("fails with a DrainError carrying the progress and the windows to continue from", async () => {
    const n = 2_000;
    const dlq = new FakeDlq(DISTRIBUTIONS.uniform3d(n));
    let refuse = true;
    serve(h, dlq, (_r, i) => (refuse && i === 12 ? json(401, { error: "bad token" }) : undefined));
    const e = await rejection(
      h.drains.drainWindows({}, undefined, { concurrency: 6, gate, horizonMs: 3 * DAY }),
    );
    assert.ok(e instanceof DrainError, String(e));
    assert.equal(e.code, "SVC_UNAUTHORIZED");
    const state = e.partial.windowState!;
    assert.ok(state.windows.length > 1);
    assert.ok(!JSON.stringify(e).includes("SUPERSECRET"), "no credential in the error");
    refuse = false;
    const rest = await h.drains.drainWindows({}, undefined, {
      concurrency: 6,
      gate,
      state,
      horizonMs: 3 * DAY,
    });
    assert.equal(dlq.remaining, 0);
    assert.equal(dlq.duplicates, 0);
    assert.equal(e.partial.resumedCount + rest.resumedCount, n);
  });

  it("a gate whose observer throws does not change the outcome of a request", async () => {
    const dlq = new FakeDlq(DISTRIBUTIONS.uniform3d(120));
    serve(h, dlq);
    const throwing: AccountGate = {
      acquire: () => gate.acquire(),
      observe: () => {
        throw new Error("observer failed");
      },
      waiting: 0,
      ratePerSecond: undefined,
    };
    const res = await h.drains.drainWindows({}, undefined, { concurrency: 2, gate: throwing });
    assert.equal(res.resumedCount, 120);
    assert.equal(dlq.remaining, 0);
  });

  it("refuses a bad selection before sending, and shares the account's gate by default", async () => {
    const e = await rejection(h.drains.drainWindows({ fromDate: -1 }));
    assert.ok(e instanceof SvcError && e.code === "SVC_INVALID_ARGUMENT");
    const reqs = serve(h, new FakeDlq(DISTRIBUTIONS.uniform3d(60)));
    const res = await h.drains.drainWindows({}, undefined, { accountLimit: 1000 });
    assert.equal(reqs.length, res.requestCount);
    const shared = accountRateGates.forAccount("http://127.0.0.1:4000", "tok_SUPERSECRET_8f3a91c2d4");
    assert.equal(
      shared.stats().responses,
      reqs.length,
      "the drain used the process-wide gate of its account",
    );
    assert.equal(shared.ratePerSecond, 1000);
  });
});
