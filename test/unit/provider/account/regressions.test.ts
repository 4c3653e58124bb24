/**
 * Bugs found in the providers while writing the component unit tests, all fixed (commits 343b8cb
 * and 14d39c3). Each test states the behaviour expected now and fails if the bug comes back; its
 * comment says what the bug was. Nothing here is skipped.
 */
import { strict as assert } from "node:assert";
import { UNKNOWN } from "../../../../core/unknownValue";
import {
  PASSWORD,
  USERNAME,
  accountProvider,
  captureConsole,
  rejection,
  requests,
  useEmulator,
} from "../helpers";

describe("regressions: Account provider", () => {
  const emu = useEmulator({ plan: "free" });
  captureConsole();

  it("read (refresh) works when the password was given as a resource input", async () => {
    // The bug: account.ts read() rebuilt the inputs from props with accountApiUrl, username and
    // allowInsecureHttp only; the password input was neither in the outputs nor passed on, so a
    // refresh of an Account whose password was an input failed with "no `password` configured".
    const p = accountProvider();
    const created = await p.create({ accountApiUrl: emu().url, username: USERNAME, password: PASSWORD });
    const r = await p.read(created.id, created.outs);
    assert.equal(r.id, created.id);
  });

  it("diff during preview does not read the record with an unknown password", async () => {
    // The bug: account.ts diff() compared only accountApiUrl/username/allowInsecureHttp before
    // the live read; an unknown password (the preview sentinel) was sent as the Basic password,
    // the service answered 401 and the preview failed.
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
    // The bug: check() accepted any non-empty string, while SvcClient.getAccount throws
    // SVC_INVALID_ARGUMENT "`username` must not contain ...": preview passed, up failed. The rule
    // was then written three times with three wordings; now once (client/contract.ts).
    const p = accountProvider();
    const news = { accountApiUrl: emu().url, username: "team:ops", password: PASSWORD };
    const created = await rejection(p.create(news));
    const rule = '`username` must not contain ":" (HTTP Basic uses it as the separator); got "team:ops".';
    assert.ok(created.message.includes(rule), created.message);
    const r = await p.check({}, news);
    assert.equal(r.failures?.[0]?.property, "username");
    assert.equal(r.failures?.[0]?.reason, rule, "one rule, one wording at preview and at up");
  });

  it("check refuses a username containing ':' from stack config, naming where it came from", async () => {
    const p = accountProvider({}, { "svc:username": "team:ops" });
    const r = await p.check({}, { accountApiUrl: emu().url, password: PASSWORD });
    assert.equal(r.failures?.[0]?.property, "username");
    assert.match(
      r.failures?.[0]?.reason ?? "",
      /^`username` \(from the stack config `svc:username`\) must not contain ":"/,
    );
  });

  it("check refuses plain http to a non-loopback host without allowInsecureHttp", async () => {
    // The bug: check() accepted http://192.0.2.1, and create failed with SVC_INSECURE_TRANSPORT.
    const p = accountProvider();
    const news = { accountApiUrl: "http://192.0.2.1:8080", username: USERNAME, password: PASSWORD };
    assert.match((await rejection(p.create(news))).message, /SVC_INSECURE_TRANSPORT/);
    const r = await p.check({}, news);
    assert.equal(r.failures?.[0]?.property, "accountApiUrl");
  });
});
