/**
 * The DlqRecovery provider's windowed drain (the default for filter and `all` selections): how
 * its inputs and outputs map to `DrainClient.drainWindows` and `resumeByIds`: the saved window
 * state and the continuation from it, the progress lines, the account's rate gate shared by
 * every drain of the process, and `concurrency: 1` as the sequential drain.
 */
import { strict as assert } from "node:assert";
import { fromStoredWindowState } from "../../../../provider/dlqRecovery/storedState";
import {
  PASSWORD,
  TOKEN,
  USERNAME,
  assertResumedExactlyOnce,
  dlqProvider,
  drainAll,
  liveDlqIds,
  partialRejection,
  requests,
  resumeRequests,
  useEmulator,
} from "../helpers";

/** The account settings of the test emulator, as environment. */
function accountEnv(url: string): Record<string, string> {
  return { SVC_ACCOUNT_API_URL: url, SVC_USERNAME: USERNAME, SVC_PASSWORD: PASSWORD };
}

describe("provider/dlqRecovery: windowed drain state", () => {
  const emu = useEmulator();

  /**
   * A windowed drain of 3,000 entries cut off by a 401 on request #12, with windows in flight
   * (the account's 3-day retention as the horizon, so the first split finds entries everywhere).
   */
  async function cutOff() {
    emu().seed(3_000, 5);
    const ids = liveDlqIds(emu());
    emu().setFaults({ seed: 1, latencyMs: 20, failRequestNumbers: [12], failStatus: 401 });
    const h = dlqProvider({ env: accountEnv(emu().url) });
    const inputs = drainAll(emu(), { recoveryName: "windows" });
    const e = await partialRejection(h.provider.create(inputs));
    emu().setFaults({});
    return { ...h, ids, inputs, e };
  }

  it("a cut-off saves the open windows (bounded, valid JSON state) and no cursor", async () => {
    const { e } = await cutOff();
    const p = e.properties;
    assert.equal(p.complete, false);
    assert.equal(p.cursor, undefined, "several windows are open: no single cursor");
    assert.ok(p.windowState, "windowState is saved");
    const state = JSON.parse(JSON.stringify(p.windowState));
    const valid = fromStoredWindowState(state, {});
    assert.ok(valid.windows.length >= 2, `windows open: ${JSON.stringify(valid.windows)}`);
    assert.equal(valid.runs, p.resumedCount, "the budget counts the runs resumed");
    assert.ok(JSON.stringify(state).length < 8_000);
    assert.equal(emu().state.ledger.totals().distinctEntriesResumed, p.resumedCount);
    assert.equal(
      p.requestCount,
      resumeRequests(emu()).filter((r) => r.status === 200).length,
      "requestCount is the requests answered",
    );
  });

  it("update continues from the saved windows: their bounds and cursors, every entry once, counts summed", async () => {
    const { e, provider, inputs, ids } = await cutOff();
    const before = resumeRequests(emu()).length;
    assert.equal((await provider.diff(e.id, e.properties, inputs)).changes, true);
    const { outs } = await provider.update(e.id, e.properties, inputs);
    assert.equal(outs.complete, true);
    assert.equal(outs.resumedCount, 3_000);
    assert.equal(outs.windowState, undefined, "no window state once complete");
    assert.equal(outs.cursor, undefined);
    assert.equal(outs.requestCount, resumeRequests(emu()).filter((r) => r.status === 200).length);
    assertResumedExactlyOnce(emu(), ids);
    // The continuation's first requests are the saved windows, each from its cursor.
    const saved = e.properties.windowState?.windows;
    assert.ok(saved && saved.length >= 2, `several windows saved: ${JSON.stringify(saved)}`);
    assert.ok(
      saved.some((w) => w.cursor !== undefined),
      "a saved window continues from its cursor",
    );
    const first = resumeRequests(emu()).slice(before, before + saved.length);
    // As sent: [fromDate, toDate, cursor] of the request, and of each saved window.
    const sent = first.map((r) => JSON.stringify([r.query.fromDate, r.query.toDate, r.query.cursor]));
    const expected = saved.map((w) => JSON.stringify([w.from?.toString(), w.to?.toString(), w.cursor]));
    assert.deepEqual(sent.sort(), expected.sort());
  });

  it("a saved window state that is not valid is dropped: the drain starts over, nothing twice", async () => {
    const { e, provider, inputs, ids, logs } = await cutOff();
    const broken = { ...e.properties, windowState: { version: 1, windows: "x", runs: 0, shortfall: 0 } };
    const { outs } = await provider.update(e.id, broken as never, inputs);
    assert.ok(
      logs.some((l) => l.includes("the saved window state is not valid")),
      JSON.stringify(logs),
    );
    assert.equal(outs.complete, true);
    assert.equal(outs.resumedCount, 3_000);
    assertResumedExactlyOnce(emu(), ids);
  });

  it("concurrency: 1 is the sequential drain: one cursor, no window bounds, ceil(N/50) requests", async () => {
    emu().seed(237, 6);
    const { provider } = dlqProvider();
    const { outs } = await provider.create(drainAll(emu(), { concurrency: 1 }));
    const reqs = resumeRequests(emu());
    assert.equal(outs.requestCount, 5);
    assert.equal(reqs.length, 5);
    assert.ok(reqs.every((r) => r.query.fromDate === undefined && r.query.toDate === undefined));
    assert.deepEqual(
      reqs.map((r) => r.query.cursor === undefined),
      [true, false, false, false, false],
    );
  });

  it("the default drain opens windows and stays within 1.10 × ceil(N/50) + 4 requests", async () => {
    emu().seed(5_000, 7);
    emu().setFaults({ latencyMs: 20 });
    const { provider, logs } = dlqProvider();
    const { outs } = await provider.create(drainAll(emu()));
    assert.equal(outs.resumedCount, 5_000);
    assert.ok(outs.requestCount >= 100 && outs.requestCount <= 110 + 4, `${outs.requestCount} requests`);
    assert.ok(
      resumeRequests(emu()).some((r) => r.query.fromDate !== undefined || r.query.toDate !== undefined),
      "windows were opened",
    );
    const windowLines = logs.filter((l) => / windows? in flight$/.test(l));
    assert.ok(windowLines.length > 0, JSON.stringify(logs));
    for (const l of windowLines) {
      assert.match(
        l,
        /^DlqRecovery `drain-all`: \d+ runs resumed in \d+ requests? \(\d+ runs\/s, \d+ req\/s of 100\/s allowed\), \d+ windows? in flight$/,
      );
    }
    assert.ok(
      logs.some((l) => /, ([2-9]|1\d) windows in flight$/.test(l)),
      `several windows in flight at some point: ${JSON.stringify(logs)}`,
    );
    assert.match(
      logs[logs.length - 1],
      /^DlqRecovery `drain-all`: 5000 runs resumed in \d+ requests \(\d+ runs\/s\), done$/,
    );
  });

  it("a dlqIds drain reports the time left", async () => {
    emu().seed(300, 8);
    const { provider, logs } = dlqProvider();
    await provider.create({ dlqIds: liveDlqIds(emu()), baseUrl: emu().url, token: TOKEN, concurrency: 1 });
    const lines = logs.filter((l) => l.includes("s left"));
    assert.ok(lines.length > 0, JSON.stringify(logs));
    assert.match(
      lines[0],
      /^DlqRecovery `dlqr-[0-9a-f]{16}`: 50 runs resumed in 1 request \(\d+ runs\/s, \d+ req\/s of 100\/s allowed\), about \d+ s left$/,
    );
  });
});

describe("provider/dlqRecovery: one rate gate per account in the process", () => {
  const emu = useEmulator();

  it("two resources drained at once share the gate: the account's limit holds for both together", async () => {
    // 10 requests a second for the account; two drains of 30 requests each.
    emu().state.account.patch({ max_requests_per_second: 10 });
    emu().seed(3_000, 9);
    emu().setFaults({ latencyMs: 30 });
    const ORDERS = "http://127.0.0.1/workflows/orders";
    const PAYMENTS = "http://127.0.0.1/workflows/payments";
    const selected = emu()
      .state.dlq.page(0, 1_000_000)
      .filter((e) => e.workflowUrl === ORDERS || e.workflowUrl === PAYMENTS)
      .map((e) => e.dlqId);
    const env = accountEnv(emu().url);
    // Two resources of one provider process: they share its gates and account reads.
    const a = dlqProvider({ env });
    const b = dlqProvider({ env, shared: a.shared });
    const [ra, rb] = await Promise.all([
      a.provider.create(
        drainAll(emu(), {
          workflowUrl: "http://127.0.0.1/workflows/orders",
          all: undefined,
          recoveryName: "a",
        }),
      ),
      b.provider.create(
        drainAll(emu(), {
          workflowUrl: "http://127.0.0.1/workflows/payments",
          all: undefined,
          recoveryName: "b",
        }),
      ),
    ]);
    assert.equal(ra.outs.resumedCount + rb.outs.resumedCount, selected.length);
    const resumes = resumeRequests(emu());
    const limited = resumes.filter((r) => r.rateLimited === true).length;
    assert.ok(
      limited <= Math.max(1, 0.05 * resumes.length),
      `${limited} of ${resumes.length} requests got 429`,
    );
    // Every attempt of both drains passed the one gate of the account, which has the account's limit.
    const gate = a.shared.rateGates.forAccount(emu().url, TOKEN);
    assert.equal(gate.stats().released, resumes.length);
    assert.equal(gate.stats().explicitLimit, 10);
    // The account was read once for both.
    assert.equal(requests(emu()).filter((r) => r.path === "/v2/svc/user").length, 1);
    assertResumedExactlyOnce(emu(), selected);
  });

  it("maxRequestsPerSecond caps one drain below the account's gate", async () => {
    emu().seed(400, 10);
    const { provider, logs } = dlqProvider();
    const { outs } = await provider.create(drainAll(emu(), { maxRequestsPerSecond: 5, concurrency: 1 }));
    assert.equal(outs.resumedCount, 400);
    assert.ok(
      logs.some((l) => /req\/s of 5\/s allowed/.test(l)),
      JSON.stringify(logs),
    );
    assert.ok(
      requests(emu()).every((r) => r.path !== "/v2/svc/user"),
      "the account is not read",
    );
  });
});
