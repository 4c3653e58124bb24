/**
 * What one DlqRecovery `create` sends and keeps: the cursor drain, override headers, filters, the
 * recorded runs and the run log, and the token kept out of everything.
 */
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import type { RunningEmulator } from "../../../../emulator";
import {
  T0,
  TOKEN,
  assertNoSecrets,
  assertResumedExactlyOnce,
  dlqProvider,
  drainAll,
  errorText,
  liveDlqIds,
  readJsonLines,
  rejection,
  requests,
  resumeRequests,
  useEmulator,
  partialRejection,
  sequential,
} from "../helpers";

/** The workflowRunIds of every run the ledger recorded. */
function ledgerRunIds(emu: RunningEmulator): string[] {
  return [...emu.state.ledger.entries()].flatMap(([, runs]) => runs.map((r) => r.workflowRunId));
}

describe("provider/dlqRecovery: create drains with the cursor", () => {
  const emu = useEmulator({ rateLimit: false });

  for (const n of [1, 50, 51, 237, 10_000]) {
    it(`N=${n}: ceil(N/50)=${Math.ceil(n / 50)} requests, N resumed, every entry exactly once`, async () => {
      emu().seed(n, n);
      const ids = liveDlqIds(emu());
      assert.equal(ids.length, n);
      const { provider } = dlqProvider();
      const { id, outs } = await provider.create(sequential(emu()));
      assert.match(id, /^dlqr-[0-9a-f]{16}$/);
      assert.equal(outs.requestCount, Math.ceil(n / 50));
      assert.equal(outs.resumedCount, n);
      assert.equal(outs.resumedRuns.length, Math.min(n, 1_000), "resumedRuns is bounded by maxRecordedRuns");
      assert.equal(outs.resumedRunsTruncated, n > 1_000);
      assert.equal(outs.complete, true);
      assert.equal(outs.ambiguousRequests, 0);
      assert.deepEqual(outs.unconfirmedDlqIds, []);
      assert.deepEqual(outs.overrideHeaders, {});
      assert.equal(outs.cursor, undefined);
      assert.equal(outs.lastError, undefined);
      assert.ok(!("token" in outs), "the token is not an output");
      assert.equal(resumeRequests(emu()).length, Math.ceil(n / 50));
      assert.ok(resumeRequests(emu()).every((r) => r.status === 200 && r.resumed <= 50));
      assertResumedExactlyOnce(emu(), ids);
      assert.equal(emu().state.dlq.size, 0);
      const created = new Set(ledgerRunIds(emu()));
      assert.equal(created.size, n);
      assert.ok(
        outs.resumedRuns.every((r) => created.has(r.workflowRunId)),
        "resumedRuns are runs the service created",
      );
    });
  }

  it("outputs carry the public inputs, timestamps and the spec hash", async () => {
    emu().seed(3);
    const { provider } = dlqProvider();
    const inputs = sequential(emu(), { concurrency: 2, retries: 1 });
    const { outs } = await provider.create(inputs);
    assert.equal(outs.baseUrl, emu().url);
    assert.equal(outs.all, true);
    assert.equal(outs.concurrency, 2);
    assert.equal(outs.retries, 1);
    assert.equal(outs.recoveryName, "drain-all");
    assert.match(outs.specHash, /^[0-9a-f]{16}$/);
    assert.ok(!Number.isNaN(Date.parse(outs.startedAt)));
    assert.ok(Date.parse(outs.finishedAt) > Date.parse(outs.startedAt));
    assert.doesNotThrow(() => JSON.parse(JSON.stringify(outs)));
  });

  it("emits progress lines, with correct plurals, and a final one", async () => {
    emu().seed(237);
    const { provider, logs } = dlqProvider();
    await provider.create(sequential(emu()));
    assert.ok(
      logs.some((l) => l.startsWith("DlqRecovery `drain-all`: 50 runs resumed in 1 request (")),
      `no progress line for the first request: ${JSON.stringify(logs)}`,
    );
    assert.ok(!logs.some((l) => /\b1 (requests|windows|runs)\b/.test(l)), JSON.stringify(logs));
    assert.match(
      logs[logs.length - 1],
      /^DlqRecovery `drain-all`: 237 runs resumed in 5 requests \(\d+ runs\/s\), done$/,
    );
  });

  it("read returns the state as it is and delete sends nothing", async () => {
    emu().seed(10);
    const { provider } = dlqProvider();
    const { id, outs } = await provider.create(sequential(emu()));
    const before = emu().state.log.total;
    const r = await provider.read(id, outs);
    assert.equal(r.id, id);
    assert.deepEqual(r.props, outs);
    await provider.delete();
    assert.equal(emu().state.log.total, before);
    assert.equal(emu().state.ledger.totals().resumedTotal, 10);
  });
});

describe("provider/dlqRecovery: override headers", () => {
  const emu = useEmulator();

  it("sends the overrides exactly as set on every request, and the runs get them", async () => {
    emu().seed(60);
    const { provider } = dlqProvider();
    const { outs } = await provider.create(
      sequential(emu(), {
        flowControl: { key: "recovery-key", parallelism: 5, rate: 10, period: 1 },
        retries: 3,
      }),
    );
    const expected = {
      "svc-flow-control-key": "recovery-key",
      "svc-flow-control-value": "parallelism=5, rate=10, period=1s",
      "svc-retries": "3",
    };
    const reqs = resumeRequests(emu());
    assert.equal(reqs.length, 2);
    for (const r of reqs) assert.deepEqual(r.overrideHeaders, expected);
    assert.deepEqual(outs.overrideHeaders, {
      "Svc-Flow-Control-Key": "recovery-key",
      "Svc-Flow-Control-Value": "parallelism=5, rate=10, period=1s",
      "Svc-Retries": "3",
    });
    for (const [, runs] of emu().state.ledger.entries()) {
      assert.deepEqual(runs[0].settings, {
        flowControlKey: "recovery-key",
        parallelism: 5,
        rate: 10,
        period: "1s",
        retries: 3,
      });
    }
  });

  it("a string period passes through, and retries 0 is sent", async () => {
    emu().seed(2);
    const { provider } = dlqProvider();
    await provider.create(sequential(emu(), { flowControl: { rate: 2, period: "1m" }, retries: 0 }));
    assert.deepEqual(resumeRequests(emu())[0].overrideHeaders, {
      "svc-flow-control-value": "rate=2, period=1m",
      "svc-retries": "0",
    });
  });

  it("a key-only override sends only the key header and keeps the entries' values", async () => {
    emu().addEntries([{ dlqId: "dlq_fc", flowControlKey: "orig", parallelism: 7, maxRetries: 4 }]);
    const { provider } = dlqProvider();
    await provider.create(sequential(emu(), { flowControl: { key: "new-key" } }));
    assert.deepEqual(resumeRequests(emu())[0].overrideHeaders, { "svc-flow-control-key": "new-key" });
    const [run] = emu().state.ledger.runsFor("dlq_fc");
    assert.equal(run.settings.flowControlKey, "new-key");
    assert.equal(run.settings.parallelism, 7);
    assert.equal(run.settings.retries, 4);
  });

  it("sends no override header when no override is set", async () => {
    emu().seed(120);
    const { provider } = dlqProvider();
    await provider.create(sequential(emu()));
    const reqs = resumeRequests(emu());
    assert.equal(reqs.length, 3);
    for (const r of reqs) assert.deepEqual(r.overrideHeaders, {});
  });
});

describe("provider/dlqRecovery: filters", () => {
  const emu = useEmulator();
  const A = "http://127.0.0.1/workflows/a";
  const B = "http://127.0.0.1/workflows/b";

  beforeEach(() => {
    emu().addEntries(
      Array.from({ length: 10 }, (_, i) => ({
        dlqId: `dlq_${i}`,
        workflowUrl: i % 2 === 0 ? A : B,
        failedAt: T0 + i * 1000,
        workflowRunId: i < 3 ? `wfr_alpha_${i}` : `wfr_beta_${i}`,
      })),
    );
  });

  async function drain(patch: Record<string, unknown>) {
    const { provider } = dlqProvider();
    const { outs } = await provider.create({ baseUrl: emu().url, token: TOKEN, ...patch });
    return outs;
  }

  it("workflowUrl selects only that workflow's entries", async () => {
    const outs = await drain({ workflowUrl: A });
    assert.equal(outs.resumedCount, 5);
    assertResumedExactlyOnce(emu(), ["dlq_0", "dlq_2", "dlq_4", "dlq_6", "dlq_8"]);
    assert.deepEqual(liveDlqIds(emu()).sort(), ["dlq_1", "dlq_3", "dlq_5", "dlq_7", "dlq_9"]);
    assert.equal(resumeRequests(emu())[0].query.workflowUrl, A);
  });

  it("fromDate/toDate select an inclusive window of failure times", async () => {
    const outs = await drain({ fromDate: T0 + 2000, toDate: T0 + 5000 });
    assert.equal(outs.resumedCount, 4);
    assertResumedExactlyOnce(emu(), ["dlq_2", "dlq_3", "dlq_4", "dlq_5"]);
    const q = resumeRequests(emu())[0].query;
    assert.equal(q.fromDate, String(T0 + 2000));
    assert.equal(q.toDate, String(T0 + 5000));
  });

  it("workflowRunId selects by prefix", async () => {
    const outs = await drain({ workflowRunId: "wfr_alpha" });
    assert.equal(outs.resumedCount, 3);
    assertResumedExactlyOnce(emu(), ["dlq_0", "dlq_1", "dlq_2"]);
  });

  it("filters combine (AND)", async () => {
    const outs = await drain({ workflowUrl: B, fromDate: T0 + 4000 });
    assert.equal(outs.resumedCount, 3);
    assertResumedExactlyOnce(emu(), ["dlq_5", "dlq_7", "dlq_9"]);
  });
});

describe("provider/dlqRecovery: recorded runs and the run log", () => {
  const emu = useEmulator();

  it("keeps at most maxRecordedRuns in state, and every run in the run log file", async () => {
    emu().seed(120);
    const { provider, cwd } = dlqProvider();
    const { outs } = await provider.create(
      drainAll(emu(), { maxRecordedRuns: 30, runLogFile: "logs/runs.jsonl" }),
    );
    assert.equal(outs.resumedCount, 120);
    assert.equal(outs.resumedRuns.length, 30);
    assert.equal(outs.resumedRunsTruncated, true);
    const lines = readJsonLines(path.join(cwd, "logs", "runs.jsonl"));
    assert.equal(lines.length, 120);
    assert.deepEqual(lines.map((l) => l.workflowRunId).sort(), ledgerRunIds(emu()).sort());
    assert.deepEqual(lines.slice(0, 30), outs.resumedRuns, "state keeps the first runs");
    for (const l of lines) assert.deepEqual(Object.keys(l).sort(), ["workflowCreatedAt", "workflowRunId"]);
  });

  it("maxRecordedRuns 0 keeps none in state", async () => {
    emu().seed(3);
    const { provider } = dlqProvider();
    const { outs } = await provider.create(drainAll(emu(), { maxRecordedRuns: 0 }));
    assert.deepEqual(outs.resumedRuns, []);
    assert.equal(outs.resumedRunsTruncated, true);
  });

  it("writes the run log to svc-recovery/<name>/<specHash>.jsonl by default, one file a drain", async () => {
    emu().seed(7);
    const { provider, cwd } = dlqProvider();
    const { outs } = await provider.create(drainAll(emu(), { recoveryName: "incident-7" }));
    assert.equal(
      readJsonLines(path.join(cwd, "svc-recovery", "incident-7", `${outs.specHash}.jsonl`)).length,
      7,
    );
    emu().seed(3);
    const again = drainAll(emu(), { recoveryName: "incident-7", triggers: [2] });
    const { outs: second } = await provider.update("id", outs, again);
    assert.notEqual(second.specHash, outs.specHash);
    assert.equal(
      readJsonLines(path.join(cwd, "svc-recovery", "incident-7", `${second.specHash}.jsonl`)).length,
      3,
    );
    assert.equal(
      readJsonLines(path.join(cwd, "svc-recovery", "incident-7", `${outs.specHash}.jsonl`)).length,
      7,
    );
  });

  it('writes no run log for runLogFile ""', async () => {
    emu().seed(7);
    const { provider, cwd } = dlqProvider();
    await provider.create(drainAll(emu(), { runLogFile: "" }));
    assert.deepEqual(fs.readdirSync(cwd), []);
  });
});

describe("provider/dlqRecovery: the token never leaks", () => {
  const emu = useEmulator();

  it("not in outputs, saved partial state, error messages or log lines", async () => {
    emu().seed(237);
    const ids = liveDlqIds(emu());
    const { provider, logs, cwd } = dlqProvider();
    const inputs = drainAll(emu(), { flowControl: { key: "k", parallelism: 2 }, retries: 1 });
    emu().setFaults({ seed: 1, failRequestNumbers: [2], failStatus: 401 });
    const e = await partialRejection(provider.create(inputs));
    emu().setFaults({});
    const diff = await provider.diff(e.id, e.properties, inputs);
    const { outs } = await provider.update(e.id, e.properties, inputs);
    const refreshed = await provider.read(e.id, outs);
    const missing = await rejection(provider.create({ all: true, baseUrl: emu().url }));
    const checked = await provider.check({}, { ...inputs, concurrency: 0, token: TOKEN });
    const runLog = fs.readFileSync(
      path.join(cwd, "svc-recovery", "drain-all", `${outs.specHash}.jsonl`),
      "utf8",
    );
    assertNoSecrets(
      {
        error: errorText(e),
        properties: JSON.stringify(e.properties),
        diff: JSON.stringify(diff),
        outs: JSON.stringify(outs),
        refreshed: JSON.stringify(refreshed),
        missing: errorText(missing),
        check: JSON.stringify(checked.failures),
        logs: logs.join("\n"),
        runLog,
        requestLog: JSON.stringify(requests(emu())),
      },
      [TOKEN],
    );
    assert.equal(outs.resumedCount, 237);
    assertResumedExactlyOnce(emu(), ids);
  });
});
