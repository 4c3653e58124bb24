/**
 * Bugs found in the providers while writing the component unit tests, all fixed (commits 343b8cb
 * and 14d39c3). Each test states the behaviour expected now and fails if the bug comes back; its
 * comment says what the bug was. Nothing here is skipped.
 */
import { strict as assert } from "node:assert";
import { validateInputs } from "../../../../provider/dlqRecovery/inputs";
import { TOKEN, dlqProvider, drainAll, happyDlq, rejection, resumeRequests, useEmulator } from "../helpers";

describe("regressions: DlqRecovery provider", () => {
  const emu = useEmulator();

  it("check refuses a non-integer numeric flowControl.period (the client refuses it at up)", async () => {
    // The bug: validateInputs accepted any finite positive number as period, while the client
    // requires a positive integer, so create failed with SVC_INVALID_ARGUMENT
    // "`flowControl.period` must be a positive integer; got 1.5".
    emu().seed(3);
    const { provider } = dlqProvider();
    const inputs = drainAll(emu(), { flowControl: { rate: 10, period: 1.5 } });
    const e = await rejection(provider.create(inputs));
    assert.match(e.message, /flowControl\.period/);
    const f = validateInputs(inputs).list;
    assert.deepEqual(
      f.map((x) => x.property),
      ["flowControl.period"],
    );
  });

  it("check refuses a flowControl.key that cannot travel in a header (the client refuses it at up)", async () => {
    // The bug: check required only a non-empty string, while the client requires printable
    // ASCII without leading/trailing spaces, so create failed with SVC_INVALID_ARGUMENT.
    emu().seed(3);
    const { provider } = dlqProvider();
    for (const key of ["clé-ü", " padded", "tab\tkey"]) {
      const inputs = drainAll(emu(), { flowControl: { key } });
      const e = await rejection(provider.create(inputs));
      assert.match(e.message, /flowControl\.key/);
      const f = validateInputs(inputs).list;
      assert.deepEqual(
        f.map((x) => x.property),
        ["flowControl.key"],
        `key ${JSON.stringify(key)}`,
      );
    }
  });

  it('check refuses what the service refuses: a key with a space, periods "01s" and "10ms"', async () => {
    // The bug: the grammar was written three times and had drifted: "orders recovery" passed
    // check and the client (the emulator refused it at up with 400); "01s" passed the client and
    // Workflow; "10ms" passed the client. One grammar now (client/contract.ts), checked at preview.
    emu().seed(3);
    const { provider } = dlqProvider();
    const cases: [Record<string, unknown>, string][] = [
      [{ key: "orders recovery" }, "flowControl.key"],
      [{ rate: 5, period: "01s" }, "flowControl.period"],
      [{ rate: 5, period: "10ms" }, "flowControl.period"],
    ];
    for (const [flowControl, property] of cases) {
      const inputs = drainAll(emu(), { flowControl });
      const e = await rejection(provider.create(inputs));
      assert.match(e.message, /SVC_INVALID_ARGUMENT/, JSON.stringify(flowControl));
      const r = await provider.check({}, inputs);
      assert.deepEqual(
        r.failures?.map((x) => x.property),
        [property],
        JSON.stringify(flowControl),
      );
    }
    assert.equal(resumeRequests(emu()).length, 0, "nothing was sent");
  });

  it("check refuses a plain-http baseUrl to a non-loopback host without allowInsecureHttp", async () => {
    // The bug: check accepted it, and create failed with SVC_INSECURE_TRANSPORT.
    const { provider } = dlqProvider();
    const inputs = happyDlq("all", { baseUrl: "http://192.0.2.1:8080" });
    assert.match((await rejection(provider.create(inputs))).message, /SVC_INSECURE_TRANSPORT/);
    const r = await provider.check({}, inputs);
    assert.equal(r.failures?.[0]?.property, "baseUrl");
  });

  it("update drops a removed tuning input from the outputs (else diff reports a change forever)", async () => {
    // The bug: dlqRecovery.ts update() returned `{ ...olds, ...publicInputs(news) }`, which kept
    // olds' value of an input that news no longer had; diff then compared the stale value with
    // undefined and reported a change on every up.
    emu().seed(5);
    const { provider } = dlqProvider();
    const withTuning = drainAll(emu(), { maxRecordedRuns: 30, concurrency: 2 });
    const { id, outs } = await provider.create(withTuning);
    const news = drainAll(emu(), { maxRecordedRuns: undefined });
    assert.equal((await provider.diff(id, outs, news)).changes, true);
    const updated = (await provider.update(id, outs, news)).outs;
    assert.equal(updated.maxRecordedRuns, undefined);
    assert.equal(updated.concurrency, undefined);
    assert.equal((await provider.diff(id, updated, news)).changes, false);
  });

  it("a new token alone is no change: nothing to resume, and the token is never stored in outputs", async () => {
    emu().seed(5);
    const { provider } = dlqProvider();
    const inputs = drainAll(emu());
    const { id, outs } = await provider.create(inputs);
    const before = emu().state.log.total;
    const d = await provider.diff(id, outs, { ...inputs, token: `${TOKEN}-rotated` });
    assert.equal(d.changes, false);
    assert.equal(emu().state.log.total, before, "diff sent nothing");
    assert.ok(!JSON.stringify(outs).includes(TOKEN));
  });
});
