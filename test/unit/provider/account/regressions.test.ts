/**
 * What a preview, an up and a refresh of an `Account` must agree on: a refresh reads the record
 * with the password the resource was given, a preview sends no unknown value, and `check` refuses
 * at preview each value `create` would refuse at up, with the same words. Each test's comment
 * says the rule it holds. Nothing here is skipped.
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

describe("regressions: the Account's logic", () => {
  const emu = useEmulator({ plan: "free" });
  captureConsole();

  it("read (refresh) works when the password was given as a resource input", async () => {
    // `read` rebuilds the connection from the stored outputs: with no password in stack config or
    // the environment, it authenticates with the record's own `password` (a secret output), so a
    // refresh of an Account whose password is a resource input does not fail with "no `password`
    // configured".
    const p = accountProvider();
    const created = await p.create({ accountApiUrl: emu().url, username: USERNAME, password: PASSWORD });
    const r = await p.read(created.id, created.outs);
    assert.equal(r.id, created.id);
  });

  it("diff during preview does not read the record with an unknown password", async () => {
    // An input unknown at preview (here the password) makes `diff` report a change without
    // reading the record: the unknown value is never sent as the Basic password (the service
    // would answer 401 and fail the preview).
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
    // `check` applies the rule `SvcClient.getAccount` applies at up (SVC_INVALID_ARGUMENT
    // "`username` must not contain ..."), written once (`usernameProblem` in client/contract.ts):
    // a preview refuses what an up would, in the same words.
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
    // `check` refuses at preview the plain-http URL that `create` refuses at up with
    // SVC_INSECURE_TRANSPORT.
    const p = accountProvider();
    const news = { accountApiUrl: "http://192.0.2.1:8080", username: USERNAME, password: PASSWORD };
    assert.match((await rejection(p.create(news))).message, /SVC_INSECURE_TRANSPORT/);
    const r = await p.check({}, news);
    assert.equal(r.failures?.[0]?.property, "accountApiUrl");
  });
});
