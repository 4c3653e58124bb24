/**
 * What a preview and an up of a `DlqRecovery` must agree on: `check` refuses at preview each value
 * the client or the service would refuse at up (one wire grammar, `client/contract.ts`), and the
 * outputs of an update hold the inputs as given, so the next `diff` is quiet. Each test's comment
 * says the rule it holds. Nothing here is skipped.
 */
import { strict as assert } from "node:assert";
import { validateInputs } from "../../../../provider/dlqRecovery/inputs";
import { TOKEN, dlqProvider, drainAll, happyDlq, rejection, resumeRequests, useEmulator } from "../helpers";

describe("regressions: the DlqRecovery's logic", () => {
  const emu = useEmulator();

  it("check refuses a non-integer numeric flowControl.period (the client refuses it at up)", async () => {
    // A numeric period is a positive integer (seconds) at preview as at up, where the client
    // refuses 1.5 with SVC_INVALID_ARGUMENT "`flowControl.period` must be a positive integer".
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
    // A key is visible ASCII with no spaces at preview as at up, where the client refuses any
    // other with SVC_INVALID_ARGUMENT.
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
    // One grammar (client/contract.ts) for check, the client and Workflow, checked at preview,
    // agrees with the service's: a key with a space, a period with a leading zero or in ms are
    // refused before anything is sent.
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
    // `check` refuses at preview the URL that `create` refuses at up with SVC_INSECURE_TRANSPORT.
    const { provider } = dlqProvider();
    const inputs = happyDlq("all", { baseUrl: "http://192.0.2.1:8080" });
    assert.match((await rejection(provider.create(inputs))).message, /SVC_INSECURE_TRANSPORT/);
    const r = await provider.check({}, inputs);
    assert.equal(r.failures?.[0]?.property, "baseUrl");
  });

  it("update drops a removed tuning input from the outputs (else diff reports a change forever)", async () => {
    // `update`'s outputs hold the new inputs as given, none of the olds' inputs: an input kept
    // from the olds after it was removed would differ from the news at every later `diff`.
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
