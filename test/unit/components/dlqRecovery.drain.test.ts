// size: the drain behaviours of DlqRecoveryController.create and update against one emulator setup; check, windows, change, account and quiet output are already files of their own
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import type { RunningEmulator } from "../../../emulator";
import { startEmulator } from "../../../emulator";
import { UNKNOWN } from "../../../core/unknownValue";
import type { DlqRecoveryInputs } from "../../../provider/dlqRecovery/controller";
import {
  PASSWORD,
  T0,
  TOKEN,
  USERNAME,
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
  seedLosingFirstResponseOnly,
  useEmulator,
  zeroJitter,
  partialRejection,
} from "./helpers";

const RESUME_PATH = "/v2/workflows/dlq/resume";

/** The workflowRunIds of every run the ledger recorded. */
function ledgerRunIds(emu: RunningEmulator): string[] {
  return [...emu.state.ledger.entries()].flatMap(([, runs]) => runs.map((r) => r.workflowRunId));
}

/**
 * Inputs of the sequential drain (`concurrency: 1`, one cursor): the suites below count its
 * requests exactly, ceil(N/50). The windowed default is tested in dlqRecovery.windows.test.ts.
 */
function sequential(emu: RunningEmulator, patch: Partial<DlqRecoveryInputs> = {}): DlqRecoveryInputs {
  return drainAll(emu, { concurrency: 1, ...patch });
}

/** Query `dlqIds` of a logged request as an array. */
function loggedIds(q: Readonly<Record<string, string | readonly string[]>>): string[] {
  const v = q.dlqIds;
  return v === undefined ? [] : typeof v === "string" ? [v] : [...v];
}

describe("components/providers/dlqRecovery: create drains with the cursor", () => {
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

describe("components/providers/dlqRecovery: override headers", () => {
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

describe("components/providers/dlqRecovery: filters", () => {
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

describe("components/providers/dlqRecovery: dlqIds", () => {
  const emu = useEmulator();

  it("120 IDs: 3 requests of at most 50 IDs, together exactly the 120", async () => {
    emu().seed(150);
    const ids = liveDlqIds(emu()).slice(0, 120);
    const { provider } = dlqProvider();
    const { outs } = await provider.create({ dlqIds: ids, baseUrl: emu().url, token: TOKEN });
    const reqs = resumeRequests(emu());
    assert.equal(reqs.length, 3);
    const sent = reqs.map((r) => loggedIds(r.query));
    assert.ok(
      sent.every((s) => s.length >= 1 && s.length <= 50),
      JSON.stringify(sent.map((s) => s.length)),
    );
    assert.deepEqual(sent.flat().sort(), [...ids].sort());
    assert.equal(outs.requestCount, 3);
    assert.equal(outs.resumedCount, 120);
    assertResumedExactlyOnce(emu(), ids);
    assert.equal(emu().state.dlq.size, 30, "entries not listed stay in the DLQ");
    assert.ok(
      requests(emu()).every((r) => r.path === RESUME_PATH),
      "no account read without account settings",
    );
  });

  it("respects maxRequestsPerSecond (no request lands in a busy rate-limit window)", async () => {
    // The emulator lets one request through per 50 ms window; the provider is told to start at
    // most 5 requests a second (one per 200 ms), so no request may be rate limited.
    emu().seed(120);
    emu().setFaults({ seed: 1, rateLimit: { burst: 1, windowMs: 50 } });
    const { provider } = dlqProvider();
    const { outs } = await provider.create({
      dlqIds: liveDlqIds(emu()),
      baseUrl: emu().url,
      token: TOKEN,
      concurrency: 4,
      maxRequestsPerSecond: 5,
    });
    assert.equal(outs.resumedCount, 120);
    assert.equal(emu().state.faults.stats().fired.rateLimit ?? 0, 0, "a request was rate limited");
    assert.deepEqual(
      resumeRequests(emu()).map((r) => r.status),
      [200, 200, 200],
    );
  });

  it("without maxRequestsPerSecond, reads the account's max_requests_per_second when account settings exist", async () => {
    emu().seed(60);
    const { provider } = dlqProvider({
      env: { SVC_ACCOUNT_API_URL: emu().url, SVC_USERNAME: USERNAME },
      config: { "svc:password": PASSWORD },
    });
    const { outs } = await provider.create({ dlqIds: liveDlqIds(emu()), baseUrl: emu().url, token: TOKEN });
    assert.equal(outs.resumedCount, 60);
    const paths = requests(emu()).map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(paths, [`GET /v2/svc/user`, `POST ${RESUME_PATH}`, `POST ${RESUME_PATH}`]);
  });

  it("with maxRequestsPerSecond set, does not read the account", async () => {
    emu().seed(10);
    const { provider } = dlqProvider({
      env: { SVC_ACCOUNT_API_URL: emu().url, SVC_USERNAME: USERNAME, SVC_PASSWORD: PASSWORD },
    });
    await provider.create({
      dlqIds: liveDlqIds(emu()),
      baseUrl: emu().url,
      token: TOKEN,
      maxRequestsPerSecond: 50,
    });
    assert.ok(requests(emu()).every((r) => r.path === RESUME_PATH));
  });

  it("an unknown DLQ ID alone: nothing resumed, the up succeeds naming it in one warning and the outputs", async () => {
    emu().seed(5);
    const { provider, logs } = dlqProvider();
    const { outs } = await provider.create({
      dlqIds: ["dlq_missing"],
      baseUrl: emu().url,
      token: TOKEN,
      recoveryName: "ids",
    });
    assert.equal(outs.complete, true);
    assert.equal(outs.resumedCount, 0);
    assert.deepEqual(outs.notFoundDlqIds, ["dlq_missing"]);
    assert.equal(outs.notFoundCount, 1);
    assert.equal(outs.remainingDlqIds, undefined);
    const warnings = logs.filter((l) => l.startsWith("warning:"));
    assert.equal(warnings.length, 1, JSON.stringify(logs));
    assert.match(warnings[0], /1 ID of the 1 `dlqIds` was not in the DLQ .*"dlq_missing"/);
    assert.equal(emu().state.ledger.totals().resumedTotal, 0);
  });

  it("a failed batch: the partial state lists the remaining IDs, and update resumes exactly those", async () => {
    emu().seed(120);
    const ids = liveDlqIds(emu());
    emu().setFaults({ seed: 1, failRequestNumbers: [2], failStatus: 400 });
    const { provider } = dlqProvider();
    const inputs = { dlqIds: ids, baseUrl: emu().url, token: TOKEN, concurrency: 1 };
    const e = await partialRejection(provider.create(inputs));
    assert.equal(e.properties.resumedCount, 50);
    assert.equal(e.properties.requestCount, 1);
    assert.deepEqual(e.properties.remainingDlqIds, ids.slice(50));
    assert.equal(e.properties.complete, false);
    emu().setFaults({});
    const { outs } = await provider.update(e.id, e.properties, inputs);
    assert.equal(outs.complete, true);
    assert.equal(outs.resumedCount, 120);
    assert.equal(outs.requestCount, 3);
    assert.equal(outs.remainingDlqIds, undefined);
    assertResumedExactlyOnce(emu(), ids);
  });
});

describe("components/providers/dlqRecovery: recorded runs and the run log", () => {
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

describe("components/providers/dlqRecovery: diff and update", () => {
  const emu = useEmulator();

  async function created(patch: Record<string, unknown> = {}) {
    emu().seed(60);
    const h = dlqProvider();
    const inputs = drainAll(emu(), patch);
    const c = await h.provider.create(inputs);
    return { ...h, inputs, ...c };
  }

  it("unchanged inputs: no change", async () => {
    const { provider, inputs, id, outs } = await created({ triggers: ["a"], concurrency: 2 });
    assert.equal((await provider.diff(id, outs, { ...inputs })).changes, false);
  });

  it("a triggers change: a change that resumes again, and update drains again", async () => {
    const { provider, inputs, id, outs, logs } = await created({ triggers: ["a"] });
    const news = { ...inputs, triggers: ["b"] };
    assert.equal((await provider.diff(id, outs, news)).changes, true);
    assert.match(
      logs[logs.length - 1],
      /the selection, an override or `triggers` changed; the next up resumes again/,
    );
    emu().seed(20, 99);
    const before = resumeRequests(emu()).length;
    const r = await provider.update(id, outs, news);
    assert.equal(resumeRequests(emu()).length, before + 1);
    assert.equal(r.outs.resumedCount, 20, "a new drain counts its own runs");
    assert.equal(r.outs.requestCount, 1);
    assert.notEqual(r.outs.specHash, outs.specHash);
    assert.equal(emu().state.ledger.totals().duplicates, 0);
  });

  it("a selection or override change: a change", async () => {
    const { provider, inputs, id, outs } = await created();
    for (const patch of [
      { all: undefined, workflowUrl: "http://x/y" },
      { retries: 2 },
      { flowControl: { key: "k" } },
    ]) {
      assert.equal(
        (await provider.diff(id, outs, { ...inputs, ...patch })).changes,
        true,
        JSON.stringify(patch),
      );
    }
  });

  it("a baseUrl change: a change, but update sends nothing", async () => {
    const { provider, inputs, id, outs, logs } = await created();
    const other = await startEmulator({ token: TOKEN });
    try {
      const news = { ...inputs, baseUrl: other.url };
      assert.equal((await provider.diff(id, outs, news)).changes, true);
      assert.match(
        logs[logs.length - 1],
        /only connection or tuning inputs changed; the next up sends nothing/,
      );
      const before = emu().state.log.total;
      const r = await provider.update(id, outs, news);
      assert.equal(emu().state.log.total, before);
      assert.equal(other.state.log.total, 0);
      assert.equal(r.outs.baseUrl, other.url);
      assert.equal(r.outs.resumedCount, outs.resumedCount);
      assert.equal(r.outs.requestCount, outs.requestCount);
      assert.deepEqual(r.outs.resumedRuns, outs.resumedRuns);
      assert.equal(r.outs.specHash, outs.specHash);
    } finally {
      await other.close();
    }
  });

  it("a tuning change (concurrency, maxRecordedRuns, recoveryName): a change, update sends nothing", async () => {
    const { provider, inputs, id, outs } = await created();
    for (const patch of [
      { concurrency: 3 },
      { maxRecordedRuns: 5 },
      { recoveryName: "renamed" },
      { allowInsecureHttp: true },
    ]) {
      const news = { ...inputs, ...patch };
      assert.equal((await provider.diff(id, outs, news)).changes, true, JSON.stringify(patch));
      const before = emu().state.log.total;
      const r = await provider.update(id, outs, news);
      assert.equal(emu().state.log.total, before, JSON.stringify(patch));
      assert.equal(r.outs.resumedCount, 60);
    }
  });

  it("a token change: update sends nothing and keeps the token out of the outputs", async () => {
    const { provider, inputs, id, outs } = await created();
    const news = { ...inputs, token: "tok-OTHER-SECRET-8888" };
    const before = emu().state.log.total;
    const r = await provider.update(id, outs, news);
    assert.equal(emu().state.log.total, before);
    assert.ok(!JSON.stringify(r.outs).includes("tok-OTHER-SECRET-8888"));
    assert.ok(!JSON.stringify(r.outs).includes(TOKEN));
  });

  it("a cut-off drain (complete false): a change, whatever the inputs", async () => {
    const { provider, inputs, id, outs, logs } = await created();
    const d = await provider.diff(id, { ...outs, complete: false }, inputs);
    assert.equal(d.changes, true);
    assert.match(logs[logs.length - 1], /the last drain was cut off after 60 runs; the next up continues it/);
  });

  it("unknown inputs (preview): a change", async () => {
    const { provider, inputs, id, outs } = await created();
    assert.equal((await provider.diff(id, outs, { ...inputs, triggers: [UNKNOWN] })).changes, true);
    assert.equal((await provider.diff(id, outs, { ...inputs, baseUrl: UNKNOWN })).changes, true);
  });

  it("diff sends nothing", async () => {
    const { provider, inputs, id, outs } = await created();
    const before = emu().state.log.total;
    await provider.diff(id, outs, { ...inputs, triggers: ["x"] });
    await provider.diff(id, outs, inputs);
    assert.equal(emu().state.log.total, before);
  });
});

describe("components/providers/dlqRecovery: a fatal failure mid-drain, then update", () => {
  const emu = useEmulator();

  async function cutOff(status: number) {
    emu().seed(237);
    const ids = liveDlqIds(emu());
    emu().setFaults({ seed: 1, failRequestNumbers: [3], failStatus: status });
    const h = dlqProvider();
    const inputs = sequential(emu(), { recoveryName: "incident-9" });
    const e = await partialRejection(h.provider.create(inputs));
    return { ...h, ids, inputs, e };
  }

  it("400 on request #3: rejects with id, the partial state and 'run up again'", async () => {
    const { e, logs } = await cutOff(400);
    assert.match(e.id, /^dlqr-[0-9a-f]{16}$/);
    const p = e.properties;
    assert.equal(p.resumedCount, 100);
    assert.equal(p.requestCount, 2);
    assert.equal(p.complete, false);
    assert.equal(typeof p.cursor, "string");
    assert.ok((p.cursor ?? "").length > 0);
    assert.equal(p.resumedRuns.length, 100);
    assert.equal(new Set(p.resumedRuns.map((r) => r.workflowRunId)).size, 100);
    assert.equal(p.all, true, "the inputs are part of the saved state");
    assert.match(p.lastError ?? "", /injected failure of request #3/);
    assert.match(e.message, /^DlqRecovery `incident-9`: .*400/);
    assert.match(e.message, /cut off after resuming 100 runs in 2 requests/);
    assert.match(
      e.message,
      /Fix the input the service refused \(above\); running `pulumi up` again before that fails/,
    );
    assert.match(e.message, /Then `pulumi up` continues where it stopped\.$/);
    assert.doesNotMatch(e.message, /Run `pulumi up` again/);
    assert.deepEqual(e.reasons, [e.message]);
    assert.equal(emu().state.ledger.totals().resumedTotal, 100);
    assertNoSecrets({ error: errorText(e), logs: logs.join("\n") }, [TOKEN]);
  });

  it("update after the 400 continues from the cursor: totals add up, every entry exactly once", async () => {
    const { provider, e, inputs, ids } = await cutOff(400);
    emu().setFaults({});
    assert.equal((await provider.diff(e.id, e.properties, inputs)).changes, true);
    const { outs } = await provider.update(e.id, e.properties, inputs);
    assert.equal(outs.complete, true);
    assert.equal(outs.resumedCount, 237);
    assert.equal(outs.requestCount, 5);
    assert.equal(outs.resumedRuns.length, 237);
    assert.equal(new Set(outs.resumedRuns.map((r) => r.workflowRunId)).size, 237);
    assert.equal(outs.cursor, undefined);
    assert.equal(outs.lastError, undefined);
    assert.equal(outs.startedAt, e.properties.startedAt, "the drain's start is kept");
    // Only the continuation's requests after the failure: 137 entries, 3 requests, first with the cursor.
    const after = resumeRequests(emu()).slice(3);
    assert.equal(after.length, 3);
    assert.equal(after[0].query.cursor, e.properties.cursor);
    assertResumedExactlyOnce(emu(), ids);
    assert.equal(emu().state.dlq.size, 0);
    assert.equal((await provider.diff(e.id, outs, inputs)).changes, false);
  });

  it("401 on request #3: says the token was rejected and where it came from, never the token", async () => {
    const { e, provider, inputs, ids } = await cutOff(401);
    assert.match(e.message, /rejected the credentials \(HTTP 401\)/);
    assert.ok(e.message.includes("`token` from the input `token`"), e.message);
    assert.equal(e.properties.resumedCount, 100);
    assertNoSecrets({ error: errorText(e) }, [TOKEN]);
    emu().setFaults({});
    const { outs } = await provider.update(e.id, e.properties, inputs);
    assert.equal(outs.resumedCount, 237);
    assertResumedExactlyOnce(emu(), ids);
  });

  it("a saved cursor the service refuses: the drain starts over without duplicates", async () => {
    const { e, provider, inputs, ids, logs } = await cutOff(400);
    emu().setFaults({});
    const tampered = { ...e.properties, cursor: Buffer.from("not-a-cursor").toString("base64url") };
    const { outs } = await provider.update(e.id, tampered, inputs);
    assert.ok(
      logs.some((l) => l.includes("the saved cursor was refused; starting the drain over")),
      JSON.stringify(logs),
    );
    assert.equal(outs.complete, true);
    assert.equal(outs.resumedCount, 237);
    assert.equal(outs.requestCount, 5);
    assertResumedExactlyOnce(emu(), ids);
  });

  it("a changed selection after a cut-off starts a new drain (the old cursor is not reused)", async () => {
    const { e, provider, inputs, ids } = await cutOff(400);
    emu().setFaults({});
    const news = { ...inputs, triggers: ["again"] };
    const { outs } = await provider.update(e.id, e.properties, news);
    assert.equal(outs.complete, true);
    assert.equal(outs.resumedCount, 137);
    const after = resumeRequests(emu()).slice(3);
    assert.equal(after.length, 3);
    assert.equal(after[0].query.cursor, undefined, "the new drain starts without the old cursor");
    assertResumedExactlyOnce(emu(), ids);
  });
});

describe("components/providers/dlqRecovery: ambiguous and endless drains", () => {
  const emu = useEmulator();
  zeroJitter();

  it("a response lost after commit: counted as ambiguous, nothing resumed twice", async () => {
    emu().seed(120);
    const ids = liveDlqIds(emu());
    emu().setFaults({ seed: seedLosingFirstResponseOnly(0.3, 8), loseResponseAfterCommitRate: 0.3 });
    const { provider } = dlqProvider();
    const { outs } = await provider.create(sequential(emu()));
    assert.equal(outs.complete, true);
    assert.equal(outs.ambiguousRequests, 1);
    assert.equal(outs.resumedCount, 70, "the 50 runs of the lost response have unknown IDs");
    assert.equal(outs.requestCount, 2);
    const totals = emu().state.ledger.totals();
    assert.equal(totals.responseLostTotal, 50);
    assertResumedExactlyOnce(emu(), ids);
    assert.equal(outs.resumedCount + totals.responseLostTotal, 120);
  });

  it("a lost dlqIds response: the batch's IDs are unconfirmed, nothing resumed twice", async () => {
    emu().seed(60);
    const ids = liveDlqIds(emu());
    emu().setFaults({ seed: seedLosingFirstResponseOnly(0.3, 8), loseResponseAfterCommitRate: 0.3 });
    const { provider } = dlqProvider();
    const { outs } = await provider.create({ dlqIds: ids, baseUrl: emu().url, token: TOKEN, concurrency: 1 });
    assert.equal(outs.complete, true);
    assert.equal(outs.ambiguousRequests, 1);
    assert.equal(outs.resumedCount, 10);
    assert.deepEqual([...outs.unconfirmedDlqIds].sort(), ids.slice(0, 50).sort());
    assertResumedExactlyOnce(emu(), ids);
  });

  it("a repeating cursor: SVC_CURSOR_LOOP with the partial state; update then finishes", async () => {
    emu().seed(10);
    const ids = liveDlqIds(emu());
    emu().setFaults({ seed: 1, repeatingCursor: true });
    const { provider } = dlqProvider();
    const inputs = sequential(emu());
    const e = await partialRejection(provider.create(inputs));
    assert.match(e.message, /SVC_CURSOR_LOOP/);
    assert.match(e.message, /Run `pulumi up` again/);
    assert.equal(e.properties.complete, false);
    assert.equal(e.properties.resumedCount, 0);
    assert.equal(e.properties.requestCount, 2);
    assert.ok(e.properties.cursor);
    assert.equal(emu().state.ledger.totals().resumedTotal, 0);
    emu().setFaults({});
    const { outs } = await provider.update(e.id, e.properties, inputs);
    assert.equal(outs.complete, true);
    assert.equal(outs.resumedCount, 10);
    assertResumedExactlyOnce(emu(), ids);
  });

  it("an endless cursor: SVC_CURSOR_LOOP after the DLQ is drained, with every run in the partial state", async () => {
    emu().seed(60);
    const ids = liveDlqIds(emu());
    emu().setFaults({ seed: 1, endlessCursor: true });
    const { provider } = dlqProvider();
    const inputs = sequential(emu());
    const e = await partialRejection(provider.create(inputs));
    assert.match(e.message, /SVC_CURSOR_LOOP/);
    assert.equal(e.properties.complete, false);
    assert.equal(e.properties.resumedCount, 60);
    assert.equal(e.properties.resumedRuns.length, 60);
    assert.ok(e.properties.cursor);
    assertResumedExactlyOnce(emu(), ids);
    emu().setFaults({});
    const { outs } = await provider.update(e.id, e.properties, inputs);
    assert.equal(outs.complete, true);
    assert.equal(outs.resumedCount, 60);
    assertResumedExactlyOnce(emu(), ids);
  });

  it("an unreachable service: rejects naming the URL (nothing resumed, nothing lost)", async () => {
    const url = emu().url;
    await emu().close();
    const { provider } = dlqProvider();
    const e = await partialRejection(provider.create({ all: true, baseUrl: url, token: TOKEN }));
    assert.match(e.message, /cannot reach the service at http:\/\/127\.0\.0\.1:\d+/);
    assert.equal(e.properties.resumedCount, 0);
    assertNoSecrets({ error: errorText(e) }, [TOKEN]);
  });

  it("a 5xx is retried and the drain completes", async () => {
    emu().seed(60);
    emu().setFaults({ seed: 1, failRequestNumbers: [2], failStatus: 503 });
    const { provider } = dlqProvider();
    const { outs } = await provider.create(sequential(emu()));
    assert.equal(outs.complete, true);
    assert.equal(outs.resumedCount, 60);
    assert.equal(outs.ambiguousRequests, 1, "a 5xx on a resume may have been processed");
    assert.deepEqual(
      resumeRequests(emu()).map((r) => r.status),
      [200, 503, 200],
    );
  });
});

describe("components/providers/dlqRecovery: the token never leaks", () => {
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
