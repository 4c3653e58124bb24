import { strict as assert } from "node:assert";
import { errors } from "undici";
import { SvcError } from "../../../client";
import { DrainError, type ResumeBatchEvent } from "../../../drain";
import { spacingGate } from "../../../client/requestSpacing";
import { harness, json, rejection, resumePath, seen, type Harness } from "../client/helpers";

/** Virtual time: timers fire one per macrotask in time order, so sleepers act in time order. */
function virtualClock() {
  const state = { now: 0 };
  const timers: Array<{ at: number; seq: number; fire: () => void }> = [];
  let seq = 0;
  let scheduled = false;
  const pump = () => {
    if (scheduled || timers.length === 0) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const t = timers.shift();
      if (t) {
        state.now = Math.max(state.now, t.at);
        t.fire();
      }
      pump();
    });
  };
  return {
    state,
    now: () => state.now,
    sleep: (ms: number) =>
      new Promise<void>((fire) => {
        timers.push({ at: state.now + ms, seq: seq++, fire });
        pump();
      }),
  };
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => `dlq_${i}`);

/** Replies to each batch with one run per DLQ ID (run id = "run-" + dlq id). */
function echoRuns(h: Harness, onRequest?: (batch: string[]) => void | Promise<void>) {
  const batches: string[][] = [];
  h.pool
    .intercept({ path: resumePath, method: "POST" })
    .reply(async (o) => {
      const batch = seen(o).query.getAll("dlqIds");
      batches.push(batch);
      await onRequest?.(batch);
      return json(200, {
        cursor: "",
        workflowRuns: batch.map((id, i) => ({ workflowRunId: `run-${id}`, workflowCreatedAt: i })),
      });
    })
    .persist();
  return batches;
}

describe("drain/DrainClient.resumeByIds", () => {
  let h: Harness;
  afterEach(() => h?.close());

  it("splits into batches of at most 50, dedupes, and keeps batch order", async () => {
    h = harness();
    const batches = echoRuns(h, async (batch) => {
      // Let later batches overtake earlier ones: the result must still be in batch order.
      const delay = batch[0] === "dlq_0" ? 20 : 1;
      for (let i = 0; i < delay; i++) await new Promise((r) => setImmediate(r));
    });
    const input = [...ids(137), "dlq_5", "dlq_6"];
    const events: ResumeBatchEvent[] = [];
    const result = await h.drains.resumeByIds(input, { retries: 2 }, { onPage: (e) => void events.push(e) });
    assert.deepEqual(
      batches.map((b) => b.length).sort((a, b) => b - a),
      [50, 50, 37],
    );
    assert.equal(result.requestCount, 3);
    assert.equal(result.resumedCount, 137);
    assert.deepEqual(
      result.runs.map((r) => r.workflowRunId),
      ids(137).map((id) => `run-${id}`),
    );
    assert.equal(events.length, 3);
    assert.deepEqual(events.map((e) => e.batchIndex).sort(), [0, 1, 2]);
    assert.equal(events[2].requestCount, 3);
    assert.equal(events[2].resumedCount, 137);
  });

  it("sends no request for an empty list", async () => {
    h = harness();
    const result = await h.drains.resumeByIds([]);
    assert.deepEqual(result, { runs: [], requestCount: 0, resumedCount: 0, ambiguousRequests: 0 });
  });

  for (const [concurrency, expected] of [
    [undefined, 4],
    [1, 1],
    [2, 2],
    [16, 10],
  ] as const) {
    it(`runs at most ${expected} batches at once (concurrency ${concurrency ?? "default"})`, async () => {
      h = harness();
      let inFlight = 0;
      let maxInFlight = 0;
      echoRuns(h, async () => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
        inFlight--;
      });
      const result = await h.drains.resumeByIds(
        ids(500),
        undefined,
        concurrency === undefined ? {} : { concurrency },
      );
      assert.equal(result.requestCount, 10);
      assert.equal(maxInFlight, expected);
    });
  }

  it("spaces request starts to maxRequestsPerSecond", async () => {
    const vc = virtualClock();
    h = harness({ now: vc.now, sleep: vc.sleep });
    const starts: number[] = [];
    echoRuns(h, () => void starts.push(vc.state.now));
    const result = await h.drains.resumeByIds(ids(400), undefined, {
      concurrency: 4,
      maxRequestsPerSecond: 4,
    });
    assert.equal(result.requestCount, 8);
    assert.deepEqual(starts, [0, 250, 500, 750, 1000, 1250, 1500, 1750]);
  });

  it("spaces retries through the same limiter", async () => {
    const vc = virtualClock();
    h = harness({ now: vc.now, sleep: vc.sleep, random: () => 0 });
    const starts: number[] = [];
    let first = true;
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply((o) => {
        starts.push(vc.state.now);
        if (first) {
          first = false;
          return json(429, {});
        }
        const batch = seen(o).query.getAll("dlqIds");
        return json(200, {
          cursor: "",
          workflowRuns: batch.map((id) => ({ workflowRunId: `r-${id}`, workflowCreatedAt: 1 })),
        });
      })
      .persist();
    const result = await h.drains.resumeByIds(ids(100), undefined, {
      concurrency: 1,
      maxRequestsPerSecond: 2,
    });
    assert.equal(result.resumedCount, 100);
    assert.deepEqual(starts, [0, 500, 1000]);
  });

  it("counts a batch answered 404 after an ambiguous failure, and so are both its halves, as resumed without IDs", async () => {
    h = harness();
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .replyWithError(new errors.SocketError("other side closed"));
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply(404, { error: "Some DLQ messages were not found" })
      .times(3);
    const result = await h.drains.resumeByIds(ids(3), undefined, { concurrency: 1 });
    assert.deepEqual(result, {
      runs: [],
      requestCount: 3,
      resumedCount: 0,
      ambiguousRequests: 1,
      unconfirmedDlqIds: ids(3),
    });
  });

  it("a batch answered 404 after an ambiguous failure whose half is resumed held an unknown ID: narrowed, nothing unconfirmed", async () => {
    h = harness();
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .replyWithError(new errors.SocketError("other side closed"));
    const known = new Set(ids(3));
    const sent = dlqService(known);
    const result = await h.drains.resumeByIds([...ids(3), "dlq_typo"], undefined, { concurrency: 1 });
    assert.deepEqual(
      sent.map((b) => b.length),
      [4, 2, 2, 1, 1],
      "the retry, both halves, then the half answered 404 narrowed",
    );
    assert.equal(result.resumedCount, 3);
    assert.deepEqual(result.notFoundDlqIds, ["dlq_typo"]);
    assert.equal(result.unconfirmedDlqIds, undefined);
    assert.equal(result.ambiguousRequests, 1);
    assert.equal(result.requestCount, 5);
  });

  it("carries partial progress and the remaining IDs when a batch fails", async () => {
    h = harness();
    let n = 0;
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply((o) => {
        const batch = seen(o).query.getAll("dlqIds");
        if (++n === 3) return json(401, { error: "token revoked" });
        return json(200, {
          cursor: "",
          workflowRuns: batch.map((id) => ({ workflowRunId: `r-${id}`, workflowCreatedAt: 1 })),
        });
      })
      .persist();
    const e = await rejection(h.drains.resumeByIds(ids(300), undefined, { concurrency: 1 }));
    assert.ok(e instanceof DrainError);
    assert.equal(e.code, "SVC_UNAUTHORIZED");
    assert.equal(e.partial.requestCount, 2);
    assert.equal(e.partial.runs.length, 100);
    assert.deepEqual(e.partial.remainingDlqIds, ids(300).slice(100));
    assert.match(e.message, /the resume of the DLQ IDs stopped after 2 requests that resumed 100 runs/);
    assert.doesNotMatch(e.message, /resumeByIds|`partial`/, "the message names no internal");
  });

  it("lets batches in flight finish before reporting a failure", async () => {
    h = harness();
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply(async (o) => {
        const batch = seen(o).query.getAll("dlqIds");
        if (batch[0] === "dlq_0") return json(400, { error: "bad id" });
        for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
        return json(200, {
          cursor: "",
          workflowRuns: batch.map((id) => ({ workflowRunId: `r-${id}`, workflowCreatedAt: 1 })),
        });
      })
      .persist();
    const e = await rejection(h.drains.resumeByIds(ids(500), undefined, { concurrency: 3 }));
    assert.ok(e instanceof DrainError);
    assert.equal(e.code, "SVC_BAD_REQUEST");
    assert.equal(e.partial.runs.length, 100, "batches 1 and 2 were in flight and completed");
    assert.deepEqual(e.partial.remainingDlqIds, [...ids(50), ...ids(500).slice(150)]);
  });

  /**
   * A service that knows `known`: a batch with an unknown ID is answered 404 (`mixed: "404"`) or
   * 200 with the known IDs' runs (`mixed: "200"`); every batch sent is recorded.
   */
  function dlqService(known: Set<string>, mixed: "404" | "200" = "404") {
    const sent: string[][] = [];
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply((o) => {
        const batch = seen(o).query.getAll("dlqIds");
        sent.push(batch);
        const found = batch.filter((id) => known.has(id));
        if (found.length === 0 || (mixed === "404" && found.length < batch.length)) {
          return json(404, { error: "Some DLQ messages were not found" });
        }
        for (const id of found) known.delete(id);
        return json(200, {
          cursor: "",
          workflowRuns: found.map((id) => ({ workflowRunId: `r-${id}`, workflowCreatedAt: 1 })),
        });
      })
      .persist();
    return sent;
  }

  it("narrows a batch answered 404 down to the unknown IDs and resumes every other ID once", async () => {
    h = harness();
    const all = ids(120);
    const typos = ["dlq_7x", "dlq_99x"];
    const list = [...all.slice(0, 60), typos[0], ...all.slice(60), typos[1]];
    const sent = dlqService(new Set(all));
    const result = await h.drains.resumeByIds(list, undefined, { concurrency: 2 });
    assert.equal(result.resumedCount, 120);
    assert.deepEqual(result.runs.map((r) => r.workflowRunId).sort(), all.map((id) => `r-${id}`).sort());
    assert.deepEqual([...(result.notFoundDlqIds ?? [])].sort(), [...typos].sort());
    assert.equal(result.shortBatches, undefined);
    // Each unknown ID costs at most 12 requests beyond its batch's first (halving a batch of 50).
    const batches = Math.ceil(list.length / 50);
    assert.ok(sent.length <= batches + 12 * typos.length, `${sent.length} requests`);
    assert.equal(result.requestCount, sent.length, "the 404 answers are counted too");
  });

  it("a batch answered 200 with fewer runs is not resent: its missing IDs are a short batch", async () => {
    h = harness();
    const all = ids(100);
    const sent = dlqService(new Set(all), "200");
    const list = [...all.slice(0, 49), "dlq_typo", ...all.slice(49)];
    const result = await h.drains.resumeByIds(list, undefined, { concurrency: 1 });
    assert.equal(sent.length, 3, "no batch is resent");
    assert.equal(result.resumedCount, 100);
    assert.equal(result.notFoundDlqIds, undefined);
    assert.deepEqual(result.shortBatches, [{ dlqIds: list.slice(0, 50), runs: 49 }]);
  });

  it("past maxNotFound, batches still answered 404 are not narrowed: SVC_NOT_FOUND with their IDs remaining", async () => {
    h = harness();
    const all = ids(200);
    // Batch 1 holds two unknown IDs, batches 2 and 3 one each, batch 4 none.
    const list = [...all.slice(0, 48), "u1", "u2", ...all.slice(48, 97), "u3", ...all.slice(97, 146), "u4"];
    list.push(...all.slice(146));
    const sent = dlqService(new Set(all));
    const e = await rejection(h.drains.resumeByIds(list, undefined, { concurrency: 1, maxNotFound: 2 }));
    assert.ok(e instanceof DrainError);
    assert.equal(e.code, "SVC_NOT_FOUND");
    assert.deepEqual(e.partial.notFoundDlqIds, ["u1", "u2"]);
    const batch2 = list.slice(50, 100);
    const batch3 = list.slice(100, 150);
    assert.deepEqual(e.partial.remainingDlqIds, [...batch2, ...batch3], "the unresolved batches, whole");
    assert.equal(e.partial.resumedCount, 48 + (list.length - 150), "batches 1 and 4 resumed");
    assert.match(e.message, /100 DLQ IDs were not resumed: their batches were answered 404/);
    assert.ok(sent.filter((b) => b[0] === batch2[0] && b.length === 50).length === 1, "batch 2 sent once");
  });

  it("does not narrow a 404 that is not the service's answer to unknown IDs (a wrong path)", async () => {
    h = harness();
    let n = 0;
    h.pool
      .intercept({ path: resumePath, method: "POST" })
      .reply(() => {
        n += 1;
        return json(404, { error: "no such endpoint" });
      })
      .persist();
    const e = await rejection(h.drains.resumeByIds(ids(120), undefined, { concurrency: 1 }));
    assert.ok(e instanceof DrainError);
    assert.equal(e.code, "SVC_NOT_FOUND");
    assert.equal(n, 1, "one request, no narrowing");
    assert.deepEqual(e.partial.remainingDlqIds, ids(120));
  });

  it("maxRuns: starts no batch past the cap and returns the IDs not sent", async () => {
    h = harness();
    const batches = echoRuns(h);
    const result = await h.drains.resumeByIds(ids(300), undefined, { concurrency: 4, maxRuns: 120 });
    assert.equal(batches.length, 3, "120 runs: three batches of 50 (whole requests)");
    assert.equal(result.resumedCount, 150);
    assert.equal(result.stoppedAtMaxRuns, true);
    assert.deepEqual(result.remainingDlqIds, ids(300).slice(150));
    const all = await h.drains.resumeByIds(ids(100), undefined, { maxRuns: 100 });
    assert.equal(all.stoppedAtMaxRuns, undefined, "a cap that the list does not reach stops nothing");
  });

  it("refuses invalid options and IDs before sending", async () => {
    h = harness();
    for (const p of [
      h.drains.resumeByIds(["a", ""]),
      h.drains.resumeByIds(["a"], undefined, { concurrency: 0 }),
      h.drains.resumeByIds(["a"], undefined, { maxRequestsPerSecond: 0 }),
      h.drains.resumeByIds(["a"], { retries: -1 }),
    ]) {
      const e = await rejection(p);
      assert.ok(e instanceof SvcError);
      assert.equal(e.code, "SVC_INVALID_ARGUMENT");
    }
  });
});

describe("client/requestSpacing: spacingGate", () => {
  it("reserves ordered slots for concurrent callers", async () => {
    const waits: number[] = [];
    const gate = spacingGate(
      10,
      () => 1000,
      async (ms) => void waits.push(ms),
    );
    await Promise.all([gate(), gate(), gate(), gate()]);
    assert.deepEqual(waits, [100, 200, 300]);
  });
});
