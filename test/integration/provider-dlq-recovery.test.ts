/**
 * `svc:index:DlqRecovery` as the svc provider serves it (provider/dlqRecovery/adapter.ts), against
 * the real emulator over loopback, its drains in the drain thread as in the provider the CLI
 * loads: the engine's `Cancel` and a `customTimeouts` stop a running drain with its state saved
 * (the protocol's init-failed error), the next update continues it, each entry once; a `Cancel`
 * with nothing running changes nothing; the lines go to the engine with the resource's URN; the
 * token is a secret input and never an output.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { DlqRecoveryAdapter } from "../../provider/dlqRecovery/adapter";
import type { Engine } from "../../provider/engine";
import { ResourceInitError, type Props } from "../../provider/resource";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { settledResumedCount } from "../helpers/ledger";

const TOKEN = "tok-provider-cancel-5c1d0e9a";
const URN = "urn:pulumi:dev::proj::svc:index:DlqRecovery::incident42";

/** An engine that records the lines it is sent, with their URN and severity. */
function recordingEngine(): Engine & { lines: { urn: string; severity: string; message: string }[] } {
  const lines: { urn: string; severity: string; message: string }[] = [];
  return {
    lines,
    log: async (urn, severity, message) => (lines.push({ urn, severity, message }), true),
    alive: async () => true,
  };
}

/** Props with `token` secret, as the engine sends them once `check` answered it so. */
function props(values: Record<string, unknown>): Props {
  return { values, secrets: new Set(["token"]) };
}

describe("integration: the svc provider's DlqRecovery stops at Cancel and customTimeouts", function () {
  this.timeout(120_000);
  let emulator: RunningEmulator;
  let cwd: string;
  let engine: ReturnType<typeof recordingEngine>;
  let resource: DlqRecoveryAdapter;

  const news = (extra: Record<string, unknown> = {}) =>
    props({ all: true, baseUrl: emulator.url, token: TOKEN, maxRequestsPerSecond: 20, ...extra });

  /** The init error a create or update rejected with. */
  async function initError(p: Promise<unknown>): Promise<ResourceInitError> {
    const e = await p.then(
      () => assert.fail("the drain should have been stopped"),
      (err: unknown) => err,
    );
    assert.ok(e instanceof ResourceInitError, `a ResourceInitError, got ${String(e)}`);
    return e;
  }

  beforeEach(async () => {
    emulator = await startEmulator({ plan: "payg", token: TOKEN });
    emulator.seed(3_000);
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "svc-provider-dlqr-"));
    engine = recordingEngine();
    resource = new DlqRecoveryAdapter(engine, { env: {}, cwd: () => cwd, drainIn: "drain thread" });
    await resource.configure({ get: () => undefined });
  });
  afterEach(async () => {
    await emulator?.close();
    fs.rmSync(cwd, { recursive: true, force: true });
  });

  it("Cancel mid-drain: the state saved equals the ledger, and the update continues, each entry once", async () => {
    const drain = resource.create(URN, news(), false);
    // Cancelled once the drain runs (the drain thread compiles its TypeScript first in tests).
    while (engine.lines.length === 0) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300));
    const cancelled = Date.now();
    await resource.cancel();
    const e = await initError(drain);
    assert.ok(Date.now() - cancelled < 1_000, `stopped ${Date.now() - cancelled} ms after the cancel`);
    assert.match(e.message, /DlqRecovery `incident42` was stopped \(Ctrl-C, or its `customTimeouts`\)/);
    assert.match(e.message, /Run `pulumi up` to continue where it stopped, each entry once\./);
    const saved = e.outputs.values as { resumedCount: number; complete: boolean };
    assert.equal(saved.complete, false);
    assert.equal(
      saved.resumedCount,
      await settledResumedCount(emulator),
      "the state counts what the ledger holds",
    );
    assert.ok(saved.resumedCount > 0 && saved.resumedCount < 3_000, `resumed ${saved.resumedCount}`);
    assert.ok(!JSON.stringify(e.outputs.values).includes(TOKEN), "no token in the saved state");
    assert.equal(e.outputs.values.recoveryName, undefined, "the name is the URN's, never stored");

    const outs = await resource.update(
      e.id,
      URN,
      { values: e.outputs.values, secrets: new Set() },
      news(),
      false,
    );
    assert.equal(outs.values.resumedCount, 3_000);
    assert.equal(outs.values.complete, true);
    assert.equal(emulator.state.ledger.totals().duplicates, 0);
    assert.equal(emulator.state.dlq.size, 0);
  });

  it("customTimeouts stop the drain like a Cancel, with the state saved", async () => {
    const e = await initError(resource.create(URN, news(), false, 1));
    const saved = e.outputs.values as { resumedCount: number; complete: boolean };
    assert.equal(saved.complete, false);
    assert.equal(saved.resumedCount, await settledResumedCount(emulator));
    assert.ok(saved.resumedCount > 0 && saved.resumedCount < 3_000, `resumed ${saved.resumedCount}`);
  });

  it("a Cancel with nothing running changes nothing: the next drain runs to the end", async () => {
    await resource.cancel();
    const res = await resource.create(URN, news({ maxRequestsPerSecond: undefined }), false);
    assert.equal(res.outputs.values.resumedCount, 3_000);
    assert.equal(res.outputs.values.complete, true);
  });

  it("lines go to the resource's row; the token is a secret input and never an output", async () => {
    const checked = await resource.check(URN, props({}), news());
    assert.deepEqual(checked.failures, []);
    assert.ok(checked.inputs.secrets.has("token"));
    const res = await resource.create(URN, news({ maxRequestsPerSecond: undefined }), false);
    assert.equal(res.outputs.values.token, undefined);
    assert.ok(!res.outputs.secrets.has("token"));
    assert.ok(engine.lines.length > 0 && engine.lines.length <= 20, `${engine.lines.length} lines`);
    assert.ok(engine.lines.every((l) => l.urn === URN));
    assert.match(engine.lines.at(-1)?.message ?? "", /^DlqRecovery `incident42`: 3000 runs resumed .*done/);
  });
});
