/**
 * The Account controller against the emulator: create, update, read and delete, `diff`, and the
 * service's errors explained.
 */
import { strict as assert } from "node:assert";
import type { RunningEmulator } from "../../../../emulator";
import { PLAN_PRESETS } from "../../../../emulator";
import { SvcClient } from "../../../../client";
import { OUTPUT_OF_ACCOUNT_FIELD } from "../../../../core/accountFields";
import { explainServiceError } from "../../../../core/serviceErrors";
import {
  PASSWORD,
  TOKEN,
  USERNAME,
  accountProvider,
  assertNoSecrets,
  captureConsole,
  errorText,
  rejection,
  requests,
  secretForms,
  useEmulator,
  zeroJitter,
} from "../helpers";
import { unusedPort } from "../../../helpers/ports";

const ACCOUNT_PATH = "/v2/svc/user";

/** Inputs naming the emulator and the test credentials. */
function inputs(emu: RunningEmulator) {
  return { accountApiUrl: emu.url, username: USERNAME, password: PASSWORD };
}

/** Asserts every camelCase output equals the emulator's current record. */
function assertOutputsMatchRecord(outs: Record<string, unknown>, emu: RunningEmulator): void {
  const record = emu.state.account.record as Record<string, unknown>;
  for (const [field, output] of Object.entries(OUTPUT_OF_ACCOUNT_FIELD)) {
    assert.ok(output in outs, `output ${output} missing`);
    assert.deepEqual(outs[output], record[field], `output ${output} (record field ${field})`);
  }
}

describe("provider/account: create, update, read, delete", () => {
  const emu = useEmulator({ plan: "free" });

  for (const plan of ["free", "payg", "fixed"] as const) {
    it(`create returns the record id and every output for plan ${plan}`, async () => {
      emu().setPlan(plan);
      const r = await accountProvider().create(inputs(emu()));
      assert.equal(r.id, emu().state.account.record.id);
      assert.equal(r.outs.accountId, r.id);
      assertOutputsMatchRecord(r.outs, emu());
      for (const [field, value] of Object.entries(PLAN_PRESETS[plan])) {
        const output = OUTPUT_OF_ACCOUNT_FIELD[field as keyof typeof OUTPUT_OF_ACCOUNT_FIELD];
        assert.deepEqual(r.outs[output], value, `${plan}: ${output}`);
      }
      assert.equal(r.outs.customerId, USERNAME);
      assert.equal(r.outs.password, PASSWORD);
      assert.equal(r.outs.token, TOKEN);
      assert.equal(r.outs.active, true);
      assert.equal(r.outs.state, "active");
      // The non-secret connection inputs are kept for refresh; the password input is not.
      assert.equal(r.outs.accountApiUrl, emu().url);
      assert.equal(r.outs.username, USERNAME);
      const expected = new Set([...Object.values(OUTPUT_OF_ACCOUNT_FIELD), "accountApiUrl", "username"]);
      assert.deepEqual(Object.keys(r.outs).sort(), [...expected].sort());
    });
  }

  it("drops fields of the record that the spec does not list", async () => {
    const patched = emu().state.account.patch({ surprise_field: "x", budget: 12 });
    assert.equal(patched.region, "local-1");
    const r = await accountProvider().create(inputs(emu()));
    for (const extra of ["region", "read_only_token", "surprise_field", "budget", "readOnlyToken"]) {
      assert.ok(!(extra in r.outs), `unexpected output ${extra}`);
    }
    assert.ok(!JSON.stringify(r.outs).includes("emulator-read-only-placeholder"));
  });

  it("sends one GET with Basic auth and no body", async () => {
    await accountProvider().create(inputs(emu()));
    const log = requests(emu());
    assert.equal(log.length, 1);
    assert.equal(log[0].method, "GET");
    assert.equal(log[0].path, ACCOUNT_PATH);
    assert.equal(log[0].status, 200);
  });

  it("keeps allowInsecureHttp in the outputs when it is set", async () => {
    const r = await accountProvider().create({ ...inputs(emu()), allowInsecureHttp: false });
    assert.equal(r.outs.allowInsecureHttp, false);
  });

  it("update re-reads the record", async () => {
    const p = accountProvider();
    const created = await p.create(inputs(emu()));
    emu().setPlan("fixed");
    const r = await p.update(created.id, created.outs, inputs(emu()));
    assert.ok(r.outs);
    assert.equal(r.outs.maxGlobalParallelism, 200);
    assert.equal(r.outs.reservedType, "svc_enterprise_1m");
    assertOutputsMatchRecord(r.outs, emu());
    assert.equal(requests(emu()).length, 2);
  });

  it("read (refresh) re-reads the record with the stored URL and username", async () => {
    const p = accountProvider({ SVC_PASSWORD: PASSWORD });
    const created = await p.create({ accountApiUrl: emu().url, username: USERNAME });
    emu().setPlan("payg");
    const r = await p.read(created.id, created.outs);
    assert.equal(r.id, created.id);
    assert.ok(r.props);
    assert.equal(r.props.maxParallelism, 10);
    assert.equal(r.props.maxDlqRetentionTimeMilis, 7 * 86_400_000);
    assert.equal(r.props.accountApiUrl, emu().url);
    assertOutputsMatchRecord(r.props, emu());
    assert.equal(requests(emu()).length, 2);
  });

  it("delete sends nothing to the service", async () => {
    const p = accountProvider();
    const created = await p.create(inputs(emu()));
    const before = requests(emu()).length;
    await p.delete();
    assert.equal(requests(emu()).length, before);
    assert.equal(emu().state.log.total, 1);
    // The account is still there and unchanged.
    assert.equal(emu().state.account.record.id, created.id);
  });
});

describe("provider/account: diff", () => {
  const emu = useEmulator({ plan: "free" });
  const lines = captureConsole();

  async function created(p = accountProvider()) {
    return { p, c: await p.create(inputs(emu())) };
  }

  it("reports no change when the record and inputs are unchanged", async () => {
    const { p, c } = await created();
    const d = await p.diff(c.id, c.outs, inputs(emu()));
    assert.equal(d.changes, false);
    assert.deepEqual(lines, []);
  });

  it("reports a plan upgrade as a change and logs the changed fields", async () => {
    const { p, c } = await created();
    emu().setPlan("payg");
    const d = await p.diff(c.id, c.outs, { ...inputs(emu()), accountName: "acct" });
    assert.equal(d.changes, true);
    assert.equal(lines.length, 1);
    const line = lines[0];
    // Named by the resource, as DlqRecovery messages are, not by the account's UUID.
    assert.ok(
      line.startsWith("Account `acct`: the account record changed since the last deployment: "),
      line,
    );
    assert.ok(!line.includes(c.id), line);
    assert.ok(line.includes("maxParallelism: 2 → 10"), line);
    assert.ok(line.includes("maxGlobalParallelism: 10 → 100"), line);
    assert.ok(line.includes('type: "free" → "paid"'), line);
    assert.ok(line.includes('reservedType: "" → "paid"'), line);
    assert.ok(!line.includes("maxMessageSize"), `unchanged field listed: ${line}`);
  });

  it("logs a changed password as (secret), never its old or new value", async () => {
    const { p, c } = await created();
    const newPassword = "pw-ROTATED-SECRET-444";
    emu().state.account.patch({ password: newPassword });
    const d = await p.diff(c.id, c.outs, { ...inputs(emu()), password: newPassword });
    assert.equal(d.changes, true);
    assert.equal(lines.length, 1);
    assert.match(lines[0], /password \(secret\) changed/);
    assertNoSecrets({ log: lines.join("\n") }, [
      PASSWORD,
      newPassword,
      ...secretForms({ username: USERNAME, password: newPassword }),
    ]);
  });

  it("logs a changed token as (secret), never its old or new value", async () => {
    const { p, c } = await created();
    const newToken = "tok-ROTATED-SECRET-555";
    emu().state.account.patch({ token: newToken });
    const d = await p.diff(c.id, c.outs, inputs(emu()));
    assert.equal(d.changes, true);
    assert.match(lines[0], /token \(secret\) changed/);
    assert.ok(!/password/.test(lines[0]), lines[0]);
    assertNoSecrets({ log: lines.join("\n") }, [TOKEN, newToken]);
  });

  it("reports a change of the accountApiUrl input without reading anything", async () => {
    const { p, c } = await created();
    const before = requests(emu()).length;
    const d = await p.diff(c.id, c.outs, { ...inputs(emu()), accountApiUrl: "http://127.0.0.1:1" });
    assert.equal(d.changes, true);
    assert.equal(requests(emu()).length, before);
  });

  it("reports a change of the username or allowInsecureHttp input", async () => {
    const { p, c } = await created();
    assert.equal(
      (await p.diff(c.id, c.outs, { ...inputs(emu()), username: "other@svc.invalid" })).changes,
      true,
    );
    assert.equal((await p.diff(c.id, c.outs, { ...inputs(emu()), allowInsecureHttp: true })).changes, true);
  });

  // `pulumi refresh` (v3.259): the engine calls `read`, then `diff` with the refreshed outputs as
  // the olds and the stored inputs as the news; "no changes" shows the Account as unchanged.
  it("a refresh's diff reports what the refresh changed (a plan upgrade), and logs the fields", async () => {
    const p = accountProvider();
    const news = { ...inputs(emu()), accountName: "acct" };
    const c = await p.create(news);
    emu().setPlan("fixed");
    const r = await p.read(c.id, c.outs);
    assert.equal(r.props.maxParallelism, 10);
    const d = await p.diff(c.id, r.props, news);
    assert.equal(d.changes, true);
    assert.equal(lines.length, 1);
    assert.ok(lines[0].startsWith("Account `acct`: the refresh read a changed account record: "), lines[0]);
    assert.ok(lines[0].includes("maxParallelism: 2 → 10"), lines[0]);
    // The next preview or up compares the refreshed state with the record: nothing left to change.
    assert.equal((await p.check({ ...news }, news)).failures, undefined);
    assert.equal((await p.diff(c.id, r.props, news)).changes, false);
  });

  it("a refresh that read the same record reports no change", async () => {
    const p = accountProvider();
    const news = { ...inputs(emu()), accountName: "acct" };
    const c = await p.create(news);
    const r = await p.read(c.id, c.outs);
    assert.equal((await p.diff(c.id, r.props, news)).changes, false);
    assert.deepEqual(lines, []);
  });

  it("an up's diff (after check) is not taken for a refresh's: it compares with the live record", async () => {
    const p = accountProvider();
    const news = { ...inputs(emu()), accountName: "acct" };
    const c = await p.create(news);
    emu().setPlan("fixed");
    const r = await p.read(c.id, c.outs); // `pulumi up --refresh` with the legacy refresh diff: no diff here
    assert.equal((await p.check({ ...news }, news)).failures, undefined);
    assert.equal((await p.diff(c.id, r.props, news)).changes, false);
  });

  it("reads the live record on diff (one GET)", async () => {
    const { p, c } = await created();
    await p.diff(c.id, c.outs, inputs(emu()));
    assert.equal(requests(emu()).length, 2);
  });
});

describe("provider/account: errors", () => {
  const emu = useEmulator({ plan: "free" });
  zeroJitter();

  it("401: says the credentials were rejected and where they came from, without leaking them", async () => {
    const wrong = "pw-WRONG-SECRET-666";
    const p = accountProvider({ SVC_USERNAME: USERNAME }, { "svc:password": wrong });
    const e = await rejection(p.create({ accountApiUrl: emu().url }));
    assert.match(e.message, /rejected the credentials \(HTTP 401\)/);
    assert.ok(e.message.includes(emu().url), e.message);
    assert.ok(e.message.includes("`password` from the stack config `svc:password`"), e.message);
    assert.ok(e.message.includes("`username` from the environment variable `SVC_USERNAME`"), e.message);
    assert.equal((e as { code?: string }).code, "SVC_UNAUTHORIZED");
    assertNoSecrets({ error: errorText(e) }, [
      wrong,
      ...secretForms({ username: USERNAME, password: wrong }),
    ]);
    // 401 is not retried.
    assert.equal(requests(emu()).length, 1);
    assert.equal(requests(emu())[0].status, 401);
  });

  it("401 with input credentials names the inputs", async () => {
    const wrong = "pw-WRONG-INPUT-SECRET-777";
    const e = await rejection(
      accountProvider().create({ accountApiUrl: emu().url, username: USERNAME, password: wrong }),
    );
    assert.ok(e.message.includes("`username` from the input `username`"), e.message);
    assert.ok(e.message.includes("`password` from the input `password`"), e.message);
    assertNoSecrets({ error: errorText(e) }, secretForms({ username: USERNAME, password: wrong }));
  });

  it("an unreachable service (closed port): says it cannot be reached", async () => {
    const port = await unusedPort();
    const url = `http://127.0.0.1:${port}`;
    const e = await rejection(
      accountProvider().create({ accountApiUrl: url, username: USERNAME, password: PASSWORD }),
    );
    assert.match(e.message, /cannot reach the service at http:\/\/127\.0\.0\.1:\d+/);
    assert.match(e.message, /Is it running, and is the URL right\?/);
    // One phrase in one pair of brackets: the socket's error and the attempts, not the client's wrapping.
    assert.match(e.message, /\(connect ECONNREFUSED 127\.0\.0\.1:\d+; \d+ attempts\)\. Is it running/);
    assert.doesNotMatch(e.message, /gave up after|failed:/);
    assert.equal((e as { code?: string }).code, "SVC_UNREACHABLE");
    assertNoSecrets({ error: errorText(e) }, secretForms({ username: USERNAME, password: PASSWORD }));
  });

  it("a malformed record: the message names the field and the wrong value", async () => {
    // The admin API type-checks known fields, so a wrong type is put into the store directly.
    (emu().state.account as unknown as { current: Record<string, unknown> }).current.max_retries = "abc";
    const e = await rejection(accountProvider().create(inputs(emu())));
    assert.match(e.message, /sent a malformed answer/);
    assert.match(e.message, /`max_retries` must be an integer; got "abc"/);
    assert.equal((e as { code?: string }).code, "SVC_MALFORMED_RESPONSE");
    assertNoSecrets({ error: errorText(e) }, [PASSWORD, TOKEN]);
    assert.equal(requests(emu()).length, 1, "a malformed record is not retried");
  });

  it("a record missing a field (deleted via PATCH /admin/account): names the field", async () => {
    const res = await fetch(`${emu().url}/admin/account`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ max_parallelism: null }),
    });
    assert.equal(res.status, 200);
    const e = await rejection(accountProvider().create(inputs(emu())));
    assert.match(e.message, /`max_parallelism` must be an integer; got nothing \(field missing\)/);
  });

  it("a malformed secret field never echoes the record's secrets", async () => {
    (emu().state.account as unknown as { current: Record<string, unknown> }).current.token = 12345678901;
    const e = await rejection(accountProvider().create(inputs(emu())));
    assert.match(e.message, /`token` must be a string/);
    assert.ok(!e.message.includes("12345678901"), e.message);
    assertNoSecrets({ error: errorText(e) }, [PASSWORD]);
  });

  it("an HTML error page: retried, then reported with the status and content type", async () => {
    emu().setFaults({ seed: 1, htmlErrorPage: true });
    const e = await rejection(accountProvider().create(inputs(emu())));
    assert.match(e.message, /502 Bad Gateway/);
    assert.match(e.message, /text\/html/);
    assert.match(e.message, /SVC_SERVER_ERROR/);
    assert.ok(!e.message.includes("</html>"), "the whole page is not dumped into the message");
    assert.equal(requests(emu()).length, 6, "1 attempt + 5 retries");
    assertNoSecrets({ error: errorText(e) }, secretForms({ username: USERNAME, password: PASSWORD }));
  });

  it("a 5xx is retried, then the read succeeds", async () => {
    emu().setFaults({ seed: 1, failRequestNumbers: [1], failStatus: 503 });
    const r = await accountProvider().create(inputs(emu()));
    assert.equal(r.id, emu().state.account.record.id);
    assert.deepEqual(
      requests(emu()).map((x) => x.status),
      [503, 200],
    );
  });

  it("a timeout: the client gives up with SVC_TIMEOUT and the provider explains it", async () => {
    // The provider's client uses the 30 s default timeout and retries a timed-out GET five
    // times, with no way to shorten either; so the timeout is produced by the client with a
    // short timeout and no retries, and turned into the message by the provider's helper.
    emu().setFaults({ seed: 1, latencyMs: 5_000 });
    const client = new SvcClient({
      ...inputs(emu()),
      requestTimeoutMs: 100,
      retry: { maxRetries: 0 },
    });
    let err: unknown;
    try {
      await client.getAccount();
    } catch (e) {
      err = e;
    } finally {
      await client.close();
    }
    assert.equal((err as { code?: string }).code, "SVC_TIMEOUT");
    const explained = explainServiceError(err, "Account", emu().url, "");
    assert.match(
      explained.message,
      /^Account: the service at http:\/\/127\.0\.0\.1:\d+ did not answer in time \(/,
    );
    assert.equal((explained as Error & { code?: string }).code, "SVC_TIMEOUT");
    assertNoSecrets({ error: errorText(explained) }, secretForms({ username: USERNAME, password: PASSWORD }));
  });

  it("missing settings at create time: names every source", async () => {
    const e = await rejection(accountProvider().create({}));
    assert.match(e.message, /^Account: no `accountApiUrl`, `username`, `password` configured/);
    assert.ok(e.message.includes("SVC_PASSWORD"));
  });

  it("refuses plain http to a non-loopback host unless allowInsecureHttp is set", async () => {
    const e = await rejection(
      accountProvider().create({
        accountApiUrl: "http://192.0.2.1:9",
        username: USERNAME,
        password: PASSWORD,
      }),
    );
    assert.match(e.message, /SVC_INSECURE_TRANSPORT/);
    assertNoSecrets({ error: errorText(e) }, secretForms({ username: USERNAME, password: PASSWORD }));
  });
});
