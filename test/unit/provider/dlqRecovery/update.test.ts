/** DlqRecovery `diff` and `update`: which input changes resume again and which send nothing. */
import { strict as assert } from "node:assert";
import { startEmulator } from "../../../../emulator";
import { UNKNOWN } from "../../../../core/unknownValue";
import { TOKEN, dlqProvider, drainAll, resumeRequests, useEmulator } from "../helpers";

describe("provider/dlqRecovery: diff and update", () => {
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
    // No fromDate: the drain starts as its ladder, four windows (up to 50 entries in 4 requests).
    assert.equal(resumeRequests(emu()).length, before + 4);
    assert.equal(r.outs.resumedCount, 20, "a new drain counts its own runs");
    assert.equal(r.outs.requestCount, 4, "a new drain counts its own requests");
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
