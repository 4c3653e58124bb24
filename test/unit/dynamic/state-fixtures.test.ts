/**
 * Existing stacks keep working: the states in `test/fixtures/state/` were written by the real
 * Pulumi CLI with 0.2 (see `write-fixtures.ts` there). Each
 * resource's stored state goes through today's providers, called as the engine calls them
 * (`diff`, `update`, `read` with the stored outputs as `olds` and the stored inputs as `news`),
 * against an emulator that holds what the service held when the state was written.
 *
 * Only the providers' public methods and the stored JSON are used, so a rewrite of the
 * providers' internals (or of their state format, with a migration) is held to the same test.
 */
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import type { RunningEmulator } from "../../../emulator";
import {
  STACK_FILE,
  fixtureEmulator,
  settings,
  stackConfig,
  stored,
  type StoredWindow,
} from "../../helpers/state-fixtures";
import {
  accountProvider,
  assertResumedExactlyOnce,
  dlqProvider,
  liveDlqIds,
  resumeRequests,
} from "../provider/helpers";

describe("state fixtures: stacks written by 0.2 keep working", function () {
  this.timeout(120_000);
  let emu: RunningEmulator;
  beforeEach(async () => {
    emu = await fixtureEmulator();
  });
  afterEach(async () => {
    await emu.close();
  });

  it("the fixture holds what it claims: the four resources, their secrets encrypted", () => {
    const text = fs.readFileSync(STACK_FILE, "utf8");
    for (const secret of [settings.token, settings.password]) assert.ok(!text.includes(secret));
    assert.equal(stored("by-filter").outputs.complete, true);
    assert.equal(stored("by-ids").outputs.complete, true);
    const cut = stored("cut-off").outputs;
    assert.equal(cut.complete, false);
    const windows = (cut.windowState as { windows: StoredWindow[] }).windows;
    assert.ok(windows.length >= 2, "the cut-off drain saved several windows");
    assert.equal(typeof stored("account").outputs.maxParallelism, "number");
  });

  it("Account: no change against the same record, and refresh gives back every stored output", async () => {
    const account = stored("account");
    const provider = accountProvider({}, stackConfig(emu));
    const news = account.inputs as never;
    assert.equal((await provider.diff(account.id, account.outputs, news)).changes, false);
    const { id, props } = await provider.read(account.id, account.outputs);
    assert.equal(id, account.id);
    const { __provider: _p, ...outputs } = account.outputs;
    assert.deepEqual(props, outputs);
  });

  for (const name of ["by-filter", "by-ids"]) {
    it(`${name} (complete): nothing to resume; at most a one-time trim of the stored runs, sending nothing`, async () => {
      const r = stored(name);
      const { provider } = dlqProvider({ config: stackConfig(emu) });
      const olds = r.outputs as never;
      const recorded = (r.outputs.resumedRuns as unknown[]).length;
      // A state written by 0.1 may hold up to 1,000 runs; the default, since 0.2.0, keeps 10: a
      // state that holds more is trimmed once by the next up, which sends nothing.
      const trim = recorded > 10;
      assert.equal((await provider.diff(r.id, olds, r.inputs as never)).changes, trim, "same inputs");
      const trimmed = (await provider.update(r.id, olds, r.inputs as never)).outs as unknown as Record<
        string,
        unknown
      >;
      assert.equal(resumeRequests(emu).length, 0, "the trim sends no resume request");
      assert.deepEqual(trimmed.resumedRuns, (r.outputs.resumedRuns as unknown[]).slice(0, 10));
      for (const k of ["resumedCount", "requestCount", "startedAt", "finishedAt", "complete"]) {
        assert.deepEqual(trimmed[k], r.outputs[k], k);
      }
      assert.equal(
        (await provider.diff(r.id, trimmed as never, r.inputs as never)).changes,
        false,
        "then no change",
      );
      const tuned = { ...r.inputs, concurrency: 2 } as never;
      assert.equal((await provider.diff(r.id, olds, tuned)).changes, true);
      const outs = (await provider.update(r.id, olds, tuned)).outs as unknown as Record<string, unknown>;
      assert.equal(resumeRequests(emu).length, 0, "a tuning change sends no resume request");
      assert.equal(outs.complete, true);
      for (const k of ["resumedCount", "requestCount", "startedAt", "finishedAt"]) {
        assert.deepEqual(outs[k], r.outputs[k], k);
      }
      assert.deepEqual(outs.resumedRuns, trimmed.resumedRuns);
    });
  }

  it("by-filter: a changed override resumes again", async () => {
    const r = stored("by-filter");
    const { provider, logs } = dlqProvider({ config: stackConfig(emu) });
    const news = { ...r.inputs, retries: 3 } as never;
    assert.equal((await provider.diff(r.id, r.outputs as never, news)).changes, true);
    assert.ok(
      logs.some((l) => l.includes("resumes again")),
      JSON.stringify(logs),
    );
  });

  it("by-ids (written by 0.2, so no not-found outputs): a new list skips the 120 IDs it resumed", async () => {
    const r = stored("by-ids");
    const old = r.inputs.dlqIds as string[];
    const added = liveDlqIds(emu).slice(0, 5);
    const news = { ...r.inputs, dlqIds: [...old, ...added] } as never;
    const { provider, logs } = dlqProvider({ config: stackConfig(emu) });
    assert.equal((await provider.diff(r.id, r.outputs as never, news)).changes, true);
    assert.match(
      logs[logs.length - 1],
      /It skips the 120 IDs of the new `dlqIds` this resource already resumed .* sends the other 5\./,
    );
    const outs = (await provider.update(r.id, r.outputs as never, news)).outs as unknown as Record<
      string,
      unknown
    >;
    const sent = resumeRequests(emu).flatMap((q) => q.query.dlqIds ?? []);
    assert.deepEqual([...sent].sort(), [...added].sort(), "only the added IDs are sent");
    assert.equal(outs.complete, true);
    assert.equal(outs.resumedCount, 5);
    assert.deepEqual(outs.notFoundDlqIds, []);
    assert.equal(outs.notFoundCount, 0);
  });

  it("cut-off (written by 0.2): changed filters say the rest of the old selection stays in the DLQ", async () => {
    const r = stored("cut-off");
    const { provider, logs } = dlqProvider({ config: stackConfig(emu) });
    const news = { ...r.inputs, workflowUrl: "http://127.0.0.1/another-workflow" } as never;
    assert.equal((await provider.diff(r.id, r.outputs as never, news)).changes, true);
    const line = logs[logs.length - 1];
    assert.match(
      line,
      /was cut off after \d+ runs, and the selection, an override or `triggers` changed since/,
    );
    assert.match(line, /The rest of the old selection stays in the DLQ/);
    assert.equal(resumeRequests(emu).length, 0, "diff sends nothing");
  });

  it("cut-off: the drain continues from the stored windows, every remaining entry once, counts summed", async () => {
    const r = stored("cut-off");
    const saved = (r.outputs.windowState as { windows: StoredWindow[] }).windows;
    assert.ok(saved.length >= 2);
    const remaining = liveDlqIds(emu);
    assert.ok(remaining.length > 0);
    const { provider, logs } = dlqProvider({ config: stackConfig(emu) });
    assert.equal(
      (await provider.diff(r.id, r.outputs as never, r.inputs as never)).changes,
      true,
      "a cut-off drain is continued",
    );
    const { outs: updated } = await provider.update(r.id, r.outputs as never, r.inputs as never);
    const outs = updated as unknown as Record<string, unknown>;
    assert.equal(outs.complete, true);
    assert.equal(outs.windowState, undefined);
    assert.equal(
      outs.resumedCount,
      (r.outputs.resumedCount as number) + remaining.length,
      "counts are summed",
    );
    assertResumedExactlyOnce(emu, remaining);
    assert.equal(emu.state.dlq.size, 0);
    assert.ok(!logs.some((l) => /not valid|refused/.test(l)), JSON.stringify(logs));
    // Every stored cursor was sent, with its window's bounds: the drain went on from where it
    // stopped (a drain that started over would send none of them).
    const sent = new Set(
      resumeRequests(emu).map((q) => JSON.stringify([q.query.fromDate, q.query.toDate, q.query.cursor])),
    );
    const withCursor = saved.filter((w) => w.cursor !== undefined);
    assert.ok(withCursor.length >= 2, "the fixture has several stored cursors");
    for (const w of withCursor) {
      const request = JSON.stringify([w.from?.toString(), w.to?.toString(), w.cursor]);
      assert.ok(sent.has(request), `no request continued the stored window ${JSON.stringify(w)}`);
    }
  });
});
