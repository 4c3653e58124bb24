/**
 * Bugs found in the providers while writing the component unit tests. Each test states the
 * expected behaviour and fails until the code under test is fixed. Nothing here is skipped.
 */
import { strict as assert } from "node:assert";
import { UNKNOWN } from "../../../core/tokens";
import { validateInputs } from "../../../components/providers/dlqRecoveryInputs";
import {
  PASSWORD,
  TOKEN,
  USERNAME,
  accountProvider,
  captureConsole,
  dlqProvider,
  drainAll,
  happyDlq,
  rejection,
  requests,
  resumeRequests,
  useEmulator,
} from "./helpers";

describe("regressions: Account provider", () => {
  const emu = useEmulator({ plan: "free" });
  captureConsole();

  it("read (refresh) works when the password was given as a resource input", async () => {
    // account.ts read(): rebuilds the inputs from props with accountApiUrl, username and
    // allowInsecureHttp only; the password input is neither in the outputs nor passed on, so a
    // refresh of an Account whose password is an input fails with "no `password` configured".
    const p = accountProvider();
    const created = await p.create({ accountApiUrl: emu().url, username: USERNAME, password: PASSWORD });
    const r = await p.read(created.id, created.outs);
    assert.equal(r.id, created.id);
  });

  it("diff during preview does not read the record with an unknown password", async () => {
    // account.ts diff(): only accountApiUrl/username/allowInsecureHttp are compared before the
    // live read; an unknown password (the preview sentinel) is sent as the Basic password, the
    // service answers 401 and the preview fails.
    const p = accountProvider();
    const created = await p.create({ accountApiUrl: emu().url, username: USERNAME, password: PASSWORD });
    const before = requests(emu()).length;
    const d = await p.diff(created.id, created.outs, {
      accountApiUrl: emu().url,
      username: USERNAME,
      password: UNKNOWN,
    });
    assert.notEqual(d.changes, false, "an unknown input cannot be 'no change'");
    assert.equal(requests(emu()).length, before, "no request with the sentinel as password");
  });

  it("check refuses a username containing ':' (the client refuses it at up)", async () => {
    // check() accepts any non-empty string; SvcClient.getAccount throws SVC_INVALID_ARGUMENT
    // "`username` must not contain ':'" — preview passes, up fails.
    const p = accountProvider();
    const news = { accountApiUrl: emu().url, username: "team:ops", password: PASSWORD };
    const created = await rejection(p.create(news));
    assert.match(created.message, /must not contain ':'/);
    const r = await p.check({}, news);
    assert.equal(r.failures?.[0]?.property, "username");
  });

  it("check refuses plain http to a non-loopback host without allowInsecureHttp", async () => {
    // check() accepts http://192.0.2.1; create fails with SVC_INSECURE_TRANSPORT.
    const p = accountProvider();
    const news = { accountApiUrl: "http://192.0.2.1:8080", username: USERNAME, password: PASSWORD };
    assert.match((await rejection(p.create(news))).message, /SVC_INSECURE_TRANSPORT/);
    const r = await p.check({}, news);
    assert.equal(r.failures?.[0]?.property, "accountApiUrl");
  });
});

describe("regressions: DlqRecovery provider", () => {
  const emu = useEmulator();

  it("check refuses a non-integer numeric flowControl.period (the client refuses it at up)", async () => {
    // validateInputs accepts any finite positive number as period; client/headers.ts
    // flowControlHeaderValue requires a positive integer, so create fails with
    // SVC_INVALID_ARGUMENT "`flowControl.period` must be a positive integer; got 1.5".
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
    // checkString only requires a non-empty string; client/headers.ts requires printable ASCII
    // without leading/trailing spaces, so create fails with SVC_INVALID_ARGUMENT.
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
    // The grammar was written three times and had drifted: "orders recovery" passed check and the
    // client (the emulator refused it at up with 400); "01s" passed the client and Workflow;
    // "10ms" passed the client. One grammar now (client/contract.ts), checked at preview.
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
    const { provider } = dlqProvider();
    const inputs = happyDlq("all", { baseUrl: "http://192.0.2.1:8080" });
    assert.match((await rejection(provider.create(inputs))).message, /SVC_INSECURE_TRANSPORT/);
    const r = await provider.check({}, inputs);
    assert.equal(r.failures?.[0]?.property, "baseUrl");
  });

  it("update drops a removed tuning input from the outputs (else diff reports a change forever)", async () => {
    // dlqRecovery.ts update(): `{ ...olds, ...publicInputs(news) }` keeps olds' value of an
    // input that news no longer has; diff then compares the stale value with undefined.
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
