/**
 * A `DlqRecovery` by `dlqIds` whose list holds IDs that are not in the DLQ, against the real
 * emulator over loopback, with both behaviours the service may have for a batch that mixes known
 * and unknown IDs (404 for the batch, or 200 with the known IDs' runs): every other ID is resumed
 * exactly once and the unknown ones are reported; past 20 unknown IDs the up fails saying which
 * IDs were not resumed; a list edited after a cut-off resends no ID already resumed; `maxRuns`
 * stops a drain and a later up without it finishes it.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { DlqRecoveryController, type DlqRecoveryInputs } from "../../provider/dlqRecovery/controller";
import type { DlqRecoveryOutputs } from "../../provider/dlqRecovery/inputs";
import { ResourceInitError } from "../../provider/resource";
import { startEmulator, type RunningEmulator } from "../../emulator";

const TOKEN = "tok-ids-7c2e90a4d1";
const RESUME_PATH = "/v2/workflows/dlq/resume";

describe("integration: dlqIds not in the DLQ, a changed list, maxRuns", function () {
  this.timeout(120_000);
  let emulator: RunningEmulator;
  let cwd: string;

  before(async () => {
    emulator = await startEmulator({ token: TOKEN, rateLimit: false });
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "svc-ids-"));
  });
  after(async () => {
    await emulator?.close();
    fs.rmSync(cwd, { recursive: true, force: true });
  });
  beforeEach(() => {
    emulator.reset();
    emulator.state.unknownDlqIds = "refuse";
  });

  function provider() {
    const logs: string[] = [];
    const p = new DlqRecoveryController({ env: {}, log: (line) => logs.push(line), cwd: () => cwd });
    return { p, logs };
  }
  const inputs = (dlqIds: string[], patch: Partial<DlqRecoveryInputs> = {}): DlqRecoveryInputs => ({
    dlqIds,
    baseUrl: emulator.url,
    token: TOKEN,
    recoveryName: "ids",
    runLogFile: "",
    ...patch,
  });
  const liveIds = () => emulator.state.dlq.page(0, 1_000_000).map((e) => e.dlqId);
  /** The DLQ IDs of every resume request sent since `since` (an index of the request log). */
  const sentIds = (since = 0) =>
    emulator.state.log
      .since(since, 1_000_000)
      .filter((r) => r.path === RESUME_PATH)
      .flatMap((r) => {
        const v = r.query.dlqIds;
        return v === undefined ? [] : typeof v === "string" ? [v] : [...v];
      });
  /** Each of `ids` resumed exactly once, and nothing else resumed. */
  function assertEachOnce(ids: readonly string[]): void {
    const ledger = [...emulator.state.ledger.entries()];
    assert.equal(ledger.length, ids.length, "entries resumed");
    for (const [dlqId, runs] of ledger) assert.equal(runs.length, 1, `${dlqId} resumed ${runs.length} times`);
    const resumed = new Set(ledger.map(([id]) => id));
    for (const id of ids) assert.ok(resumed.has(id), `${id} not resumed`);
  }
  /** `create`, whose outputs a dynamic provider always returns. */
  async function create(p: DlqRecoveryController, i: DlqRecoveryInputs) {
    const r = await p.create(i);
    return { id: r.id, outs: r.outs as DlqRecoveryOutputs };
  }
  /** `update`, likewise. */
  async function update(
    p: DlqRecoveryController,
    id: string,
    olds: DlqRecoveryOutputs,
    news: DlqRecoveryInputs,
  ) {
    return { outs: (await p.update(id, olds, news)).outs as DlqRecoveryOutputs };
  }
  async function cutOff(promise: Promise<unknown>): Promise<ResourceInitError> {
    try {
      await promise;
    } catch (e) {
      assert.ok(e instanceof ResourceInitError, `expected the partial state, got ${String(e)}`);
      return e;
    }
    throw new Error("expected the drain to be cut off");
  }

  for (const mode of ["refuse", "resume-known"] as const) {
    it(`unknown IDs (a mixed batch answered ${mode === "refuse" ? "404" : "200 with fewer runs"}): every other ID once, the unknown ones reported`, async () => {
      emulator.state.unknownDlqIds = mode;
      emulator.seed(300, 3);
      const known = liveIds();
      const typos = ["dlq_typo_1", "dlq_typo_2", "dlq_typo_3"];
      const list = [
        ...known.slice(0, 10),
        typos[0],
        ...known.slice(10, 200),
        typos[1],
        ...known.slice(200),
        typos[2],
      ];
      const { p, logs } = provider();
      const { outs } = await create(p, inputs(list, { concurrency: 2 }));
      assertEachOnce(known);
      assert.equal(emulator.state.dlq.size, 0);
      assert.equal(outs.complete, true);
      assert.equal(outs.resumedCount, 300);
      assert.equal(outs.notFoundCount, 3);
      const warnings = logs.filter((l) => l.startsWith("warning:"));
      assert.equal(warnings.length, 1, JSON.stringify(logs));
      assert.match(warnings[0], /3 IDs of the 303 `dlqIds` were not in the DLQ/);
      if (mode === "refuse") {
        assert.deepEqual([...outs.notFoundDlqIds].sort(), typos);
        for (const t of typos) assert.ok(warnings[0].includes(JSON.stringify(t)), t);
        // At most 12 extra requests per unknown ID (7 batches of up to 50).
        assert.ok(outs.requestCount <= 7 + 12 * 3, `${outs.requestCount} requests`);
      } else {
        // The service did not say which IDs it left out: each short batch is named instead.
        assert.deepEqual(outs.notFoundDlqIds, []);
        assert.equal(outs.requestCount, 7, "no batch is resent");
        assert.match(warnings[0], /the batch of 50 IDs from ".+" to ".+" was answered with 49 runs/);
      }
    });
  }

  it("a batch with an unknown ID whose first attempt failed (500, retried): every other ID once, the typo named, nothing unconfirmed", async () => {
    emulator.seed(120, 8);
    const known = liveIds();
    emulator.setFaults({ failRequestNumbers: [1], failStatus: 500 });
    const { p } = provider();
    const { outs } = await create(
      p,
      inputs([...known.slice(0, 30), "dlq_typo", ...known.slice(30)], { concurrency: 1 }),
    );
    assertEachOnce(known);
    assert.deepEqual(outs.notFoundDlqIds, ["dlq_typo"]);
    assert.deepEqual(
      outs.unconfirmedDlqIds,
      [],
      "the failed attempt resumed nothing: no ID left unconfirmed",
    );
    assert.equal(outs.ambiguousRequests, 1);
    assert.equal(outs.complete, true);
  });

  it("more than 20 unknown IDs: the up fails naming them, every other ID resumed once; a fixed list finishes without resending", async () => {
    emulator.seed(500, 4);
    const known = liveIds();
    // A wrong list: a typo in each of 25 batches of 20 IDs.
    const typos = Array.from({ length: 25 }, (_, i) => `dlq_wrong_${i}`);
    const list = known.flatMap((id, i) => (i % 20 === 0 ? [typos[i / 20], id] : [id]));
    const { p, logs } = provider();
    const e = await cutOff(p.create(inputs(list, { concurrency: 1 })));
    const saved = e.properties as unknown as DlqRecoveryOutputs;
    assert.match(
      e.message,
      /more than 20 of the `dlqIds` are not in the DLQ \(one up looks for 20 at most\), so the list is likely wrong/,
    );
    assert.match(e.message, /"dlq_wrong_0"/);
    assert.equal(saved.notFoundDlqIds.length, 20);
    assert.equal(saved.complete, false);
    const notResumed = saved.remainingDlqIds ?? [];
    assert.ok(notResumed.length > 0);
    const resumed = known.filter((id) => !notResumed.includes(id));
    assertEachOnce(resumed);
    assert.equal(saved.resumedCount, resumed.length);
    assert.ok(!logs.some((l) => l.startsWith("warning:")), "the failure is the one message");

    // The operator removes the wrong IDs: the new list skips every ID already resumed.
    const since = emulator.state.log.total;
    const fixed = inputs(known, { concurrency: 1 });
    const d = await p.diff(e.id, saved, fixed);
    assert.equal(d.changes, true);
    const line = logs[logs.length - 1];
    assert.match(line, /starts a new drain and does not continue the old one/);
    assert.match(
      line,
      new RegExp(`It skips the ${resumed.length} IDs of the new \`dlqIds\` this resource already resumed`),
    );
    const { outs } = await update(p, e.id, saved, fixed);
    assert.equal(outs.complete, true);
    assertEachOnce(known);
    const resent = sentIds(since).filter((id) => resumed.includes(id));
    assert.deepEqual(resent, [], "no ID already resumed is sent again");
    assert.ok(
      logs.some((l) => l.includes(`skipping ${resumed.length} IDs of the ${known.length} \`dlqIds\``)),
    );
  });

  it("a list edited after a cut-off resends no resumed ID and says how many of the old list it leaves", async () => {
    emulator.seed(200, 5);
    const known = liveIds();
    emulator.setFaults({ failRequestNumbers: [3], failStatus: 401 });
    const { p, logs } = provider();
    const e = await cutOff(p.create(inputs(known.slice(0, 150), { concurrency: 1 })));
    const saved = e.properties as unknown as DlqRecoveryOutputs;
    assert.equal(saved.resumedCount, 100);
    assert.deepEqual(saved.remainingDlqIds, known.slice(100, 150));
    emulator.setFaults({});

    // The new list drops 10 IDs not resumed yet and adds 50 others.
    const edited = [...known.slice(0, 140), ...known.slice(150)];
    const news = inputs(edited, { concurrency: 1 });
    assert.equal((await p.diff(e.id, saved, news)).changes, true);
    const line = logs[logs.length - 1];
    assert.match(
      line,
      /the last drain was cut off after 100 runs, and the selection, an override or `triggers` changed/,
    );
    assert.match(line, /It leaves 10 IDs of the old `dlqIds` unresumed/);
    assert.match(
      line,
      /It skips the 100 IDs of the new `dlqIds` this resource already resumed .* sends the other 90/,
    );
    assert.doesNotMatch(line, /continues it/);
    const since = emulator.state.log.total;
    const { outs } = await update(p, e.id, saved, news);
    assert.equal(outs.complete, true);
    assert.equal(outs.resumedCount, 90);
    assert.deepEqual(sentIds(since).sort(), [...known.slice(100, 140), ...known.slice(150)].sort());
    assertEachOnce(edited);
    assert.equal(outs.notFoundCount, 0);
  });

  it("filters changed after a cut-off: the preview says the rest of the old selection stays in the DLQ", async () => {
    emulator.seed(10, 6);
    const { p, logs } = provider();
    const olds = {
      ...inputs([]),
      dlqIds: undefined,
      workflowUrl: "http://127.0.0.1/a",
      complete: false,
      resumedCount: 50,
      specHash: "old",
    } as unknown as DlqRecoveryOutputs;
    const news = { ...inputs([]), dlqIds: undefined, workflowUrl: "http://127.0.0.1/b" };
    assert.equal((await p.diff("dlqr-x", olds, news)).changes, true);
    assert.match(logs[logs.length - 1], /The rest of the old selection stays in the DLQ/);
    assert.equal(emulator.state.log.total, 0, "diff sends nothing");
  });

  it("maxRuns stops the drain at its cap (the up succeeds, saying so); the same cap sends nothing; none finishes it", async () => {
    emulator.seed(400, 7);
    const known = liveIds();
    const { p, logs } = provider();
    const capped = inputs(known, { concurrency: 2, maxRuns: 120 });
    const { id, outs } = await create(p, capped);
    assert.equal(outs.complete, false);
    assert.equal(outs.stoppedAtMaxRuns, true);
    assert.equal(outs.resumedCount, 150, "120 runs, rounded to whole requests of 50");
    assert.equal(outs.remainingDlqIds?.length, 250);
    assert.match(logs[logs.length - 1], /stopped at `maxRuns` \(120\) after resuming 150 runs in 3 requests/);

    assert.equal((await p.diff(id, outs, capped)).changes, false, "the same cap: nothing to do");
    assert.match(
      logs[logs.length - 1],
      /stopped at `maxRuns` \(120\) after 150 runs; .*Raise or remove `maxRuns`/,
    );

    const uncapped = inputs(known, { concurrency: 2 });
    assert.equal((await p.diff(id, outs, uncapped)).changes, true);
    assert.match(logs[logs.length - 1], /the next up continues it where it stopped, each entry once/);
    const { outs: done } = await update(p, id, outs, uncapped);
    assert.equal(done.complete, true);
    assert.equal(done.resumedCount, 400);
    assert.equal(done.stoppedAtMaxRuns, undefined);
    assertEachOnce(known);
  });
});
