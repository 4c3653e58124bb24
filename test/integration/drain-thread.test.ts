/**
 * The drain thread (provider/dlqRecovery/drainThread.ts), against the real emulator over
 * loopback: a provider whose drains run in its worker thread, as the provider the CLI loads does,
 * gives the outputs, progress lines and run log of a drain in its own thread; a cut-off drain
 * still rejects with the partial state the engine saves; errors keep their class and message,
 * without the token; a gone engine ends the provider process from the provider's thread; a lost
 * thread fails its drains, naming them, and the next drain runs in a new one.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Worker } from "node:worker_threads";
import { DlqRecoveryController, type DlqRecoveryDeps } from "../../provider/dlqRecovery/controller";
import { ENGINE_CHECK_MS } from "../../provider/dlqRecovery/run";
import { ProviderProcess } from "../../provider/providerProcess";
import { crossingError, rebuiltError } from "../../provider/dlqRecovery/drainThread";
import { ResourceInitError } from "../../provider/resource";
import { ServiceError } from "../../core/serviceErrors";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { settledResumedCount } from "../helpers/ledger";

const TOKEN = "tok-thread-3b9e51d7";

describe("integration: drains in the drain thread", function () {
  this.timeout(120_000);
  let emulator: RunningEmulator;
  let cwd: string;

  function provider(deps: Partial<DlqRecoveryDeps> = {}) {
    const logs: string[] = [];
    const p = new DlqRecoveryController({
      env: {},
      log: (line) => logs.push(line),
      cwd: () => cwd,
      drainIn: "drain thread",
      ...deps,
    });
    return { p, logs };
  }

  const inputs = (token = TOKEN) => ({ all: true, baseUrl: emulator.url, token, recoveryName: "thread" });

  beforeEach(async () => {
    emulator = await startEmulator({ plan: "payg", token: TOKEN });
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "svc-drain-thread-"));
  });
  afterEach(async () => {
    await emulator?.close();
    fs.rmSync(cwd, { recursive: true, force: true });
  });

  it("drains as in the provider's thread: outputs, progress lines, run log, each entry once", async () => {
    emulator.seed(2_000);
    const { p, logs } = provider();
    const outs = (await p.create(inputs())).outs!;
    assert.equal(outs.resumedCount, 2_000);
    assert.equal(outs.complete, true);
    assert.equal(outs.resumedRuns.length, 10, "maxRecordedRuns' default");
    assert.equal(emulator.state.ledger.totals().duplicates, 0);
    assert.equal(emulator.state.dlq.size, 0);
    assert.match(logs.at(-1) ?? "", /2000 runs resumed in \d+ requests.*done/);
    const runLog = path.join(cwd, "svc-recovery", "thread", `${outs.specHash}.jsonl`);
    const lines = fs.readFileSync(runLog, "utf8").trim().split("\n");
    assert.equal(lines.length, 2_000);
    assert.deepEqual(Object.keys(JSON.parse(lines[0])), ["workflowRunId", "workflowCreatedAt"]);
  });

  it("a drain cut off by the daily limit rejects with its partial state and the daily-limit message", async () => {
    emulator.seed(1_000);
    emulator.setDailyLimit(8);
    const { p } = provider();
    const err = await p.create(inputs()).then(
      () => assert.fail("the drain should have been cut off"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ResourceInitError, `a ResourceInitError, got ${String(err)}`);
    assert.match(err.message, /daily limit of 8 requests is spent.*\[SVC_DAILY_LIMIT\]/);
    const partial = err.properties as { resumedCount: number; complete: boolean; windowState?: unknown };
    assert.equal(partial.complete, false);
    assert.equal(partial.resumedCount, emulator.state.ledger.totals().distinctEntriesResumed);
    assert.ok(partial.resumedCount > 0 && partial.resumedCount < 1_000, `resumed ${partial.resumedCount}`);
    assert.equal(emulator.state.ledger.totals().duplicates, 0);
  });

  it("a refused token fails with the explained error, its class kept, the token nowhere in it", async () => {
    emulator.seed(10);
    const { p, logs } = provider();
    const wrong = "tok-wrong-7f21c9aa";
    const err = await p.create(inputs(wrong)).then(
      () => assert.fail("the drain should have failed"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ServiceError || err instanceof ResourceInitError, String(err));
    assert.match((err as Error).message, /rejected the credentials \(HTTP 401\)/);
    const everything = JSON.stringify({
      err: String(err),
      props: (err as ResourceInitError).properties,
      logs,
    });
    assert.ok(!everything.includes(wrong), "the token appears nowhere");
  });

  it("a gone engine stops the drain and ends the process from the provider's thread", async () => {
    emulator.seed(3_000);
    emulator.setFaults({ seed: 1, latencyMs: 20, endpoints: ["resume"] });
    let exits = 0;
    const { p, logs } = provider({ engineAlive: async () => false, exitOrphaned: () => (exits += 1) });
    // 60 requests at 20 a second: the drain outlasts the first engine check (ENGINE_CHECK_MS) by far.
    const err = await p.create({ ...inputs(), maxRequestsPerSecond: 20 }).then(
      () => assert.fail("the drain should have stopped"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ResourceInitError, String(err));
    assert.ok(
      logs.some((l) => /the Pulumi engine is gone/.test(l)),
      logs.join("\n"),
    );
    assert.equal(exits, 1, "exitOrphaned called once, in the provider's thread");
  });

  it("a drain that finishes after the engine is gone ends the process too (no orphan waits for a call)", async () => {
    emulator.seed(10);
    // Its one page outlasts the first engine check (ENGINE_CHECK_MS), which finds the engine there;
    // the engine is gone once the drain says it is done, before the check at its end.
    emulator.setFaults({ seed: 1, latencyMs: ENGINE_CHECK_MS + 200, endpoints: ["resume"] });
    let exits = 0;
    const logs: string[] = [];
    const { p } = provider({
      log: (line) => logs.push(line),
      engineAlive: async () => !logs.some((l) => /runs resumed in \d+ requests?.*done/.test(l)),
      exitOrphaned: () => (exits += 1),
    });
    const outs = (await p.create(inputs())).outs!;
    assert.equal(outs.resumedCount, 10, "the drain itself completed");
    assert.equal(exits, 1);
    assert.ok(
      logs.some((l) => /the Pulumi engine is gone .*the drain had finished/.test(l)),
      logs.join("\n"),
    );
  });

  it("a lost thread fails the drain in it, naming it; the next drain runs in a new thread, each entry once", async () => {
    emulator.seed(3_000);
    emulator.setFaults({ seed: 1, latencyMs: 20, endpoints: ["resume"] });
    // One provider process: its drain thread is lost, and the next drain of the process starts another.
    const shared = new ProviderProcess();
    const { p } = provider({ providerProcess: shared });
    const first = p.create(inputs()).then(
      () => assert.fail("the drain should have failed with its thread"),
      (e: unknown) => e,
    );
    // Lost once its run log holds runs (a progress line is printed before its runs are written).
    const runLogDir = path.join(cwd, "svc-recovery", "thread");
    const runLogged = () =>
      fs.existsSync(runLogDir) &&
      fs
        .readdirSync(runLogDir)
        .some((f) => f.endsWith(".jsonl") && fs.statSync(path.join(runLogDir, f)).size > 0);
    while (!runLogged()) await new Promise((r) => setTimeout(r, 10));
    const lost = (shared.drainThread() as unknown as { worker?: Worker }).worker;
    assert.ok(lost, "the drain runs in the drain thread");
    await lost.terminate();
    const err = await first;
    assert.ok(err instanceof Error, String(err));
    assert.match(
      err.message,
      /^DlqRecovery `thread`: the drain thread failed \(the drain thread stopped \(exit code 1\)\); the drain stopped\. Runs resumed so far are in its run log\.$/,
    );
    // Requests the lost thread had in flight are still answered by the emulator: count them too.
    const before = await settledResumedCount(emulator);
    assert.ok(before > 0 && before < 3_000, `resumed ${before} before the thread was lost`);

    emulator.setFaults({});
    const next = provider({ providerProcess: shared });
    const outs = (await next.p.create(inputs())).outs!;
    assert.notEqual((shared.drainThread() as unknown as { worker?: Worker }).worker, lost, "a new thread");
    // The rest, in the new thread, and the runs the lost drain wrote to the run log (no state
    // recorded them), said so; the runs of its requests in flight at the loss are in neither.
    const runLog = path.join(cwd, "svc-recovery", "thread", `${outs.specHash}.jsonl`);
    const logged = fs.readFileSync(runLog, "utf8").trim().split("\n").length;
    assert.equal(outs.resumedCount, logged, "resumedCount counts every run of the run log");
    assert.ok(logged >= 3_000 - before && logged <= 3_000, `${logged} runs logged`);
    assert.ok(
      next.logs.some((l) =>
        /^warning: DlqRecovery `thread`: the run log holds \d+ runs? resumed by a drain that stopped/.test(l),
      ),
      next.logs.join("\n"),
    );
    assert.equal(emulator.state.ledger.totals().duplicates, 0);
    assert.equal(emulator.state.dlq.size, 0);
  });

  it("errors cross the thread boundary with their class, message and partial state", () => {
    const partial = new ResourceInitError("cut off", "dlqr-1", { resumedCount: 3 }, ["cut off"]);
    const back = rebuiltError(crossingError(partial));
    assert.ok(back instanceof ResourceInitError);
    assert.deepEqual(
      { message: back.message, id: back.id, properties: back.properties, reasons: back.reasons },
      { message: "cut off", id: "dlqr-1", properties: { resumedCount: 3 }, reasons: ["cut off"] },
    );
    const service = rebuiltError(
      crossingError(new ServiceError("DlqRecovery `x`", "it failed", "SVC_TIMEOUT", null)),
    );
    assert.ok(service instanceof ServiceError);
    assert.equal(service.message, "DlqRecovery `x`: it failed");
    assert.equal(service.code, "SVC_TIMEOUT");
    const plain = rebuiltError(crossingError(new TypeError("boom")));
    assert.equal(plain.message, "boom");
  });
});
