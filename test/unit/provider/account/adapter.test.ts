/**
 * The adapter of `svc:index:Account` (`provider/account/adapter.ts`): a read with no properties
 * (`pulumi import`, a program's `get`) reads the record with the provider's configuration, and
 * refuses an ID that is not the record's, saying which ID the credentials read; the preview of a
 * new Account reads its record, so its outputs (limits, `accountId`) are known at the first
 * preview.
 */
import * as assert from "node:assert/strict";
import { startEmulator, type RunningEmulator } from "../../../../emulator";
import { AccountController } from "../../../../provider/account/controller";
import { AccountIdMismatchError, AccountAdapter } from "../../../../provider/account/adapter";
import { configReader } from "../../../../provider/config";
import { engineAt } from "../../../../provider/engine";
import { UNKNOWN } from "../../../../core/unknownValue";

const CREDS = {
  username: "unit-import@example.com",
  password: "pw-unit-import-5c1e",
  token: "tok-unit-import-7a2b",
};
const URN = "urn:pulumi:dev::p::svc:index:Account::imported";
const NONE = { values: {}, secrets: new Set<string>() };

describe("provider Account: read with no properties (import, get)", () => {
  let emulator: RunningEmulator;
  let account: AccountAdapter;

  before(async () => {
    emulator = await startEmulator({ plan: "free", ...CREDS });
    account = new AccountAdapter(
      engineAt(undefined, () => undefined),
      new AccountController({}),
    );
    await account.configure(
      configReader({ accountApiUrl: emulator.url, username: CREDS.username, password: CREDS.password }),
    );
  });
  after(async () => emulator?.close());

  it("reads the record of the provider's credentials: outputs with the secrets named, no input kept", async () => {
    const id = emulator.state.account.record.id;
    const res = await account.read(id, URN, NONE, NONE);
    assert.equal(res.id, id);
    assert.equal(res.outputs.values.accountId, id);
    assert.equal(res.outputs.values.type, "free");
    assert.equal(res.outputs.values.accountName, undefined, "the name is the URN's, not stored");
    assert.ok(res.outputs.secrets.has("password") && res.outputs.secrets.has("token"));
    // The connection came from the provider's configuration: no resource input to keep.
    assert.deepEqual(
      Object.entries(res.inputs.values).filter(([, v]) => v !== undefined),
      [],
    );
  });

  it("refuses an ID that is not the record's, naming both and what to do; nothing is returned", async () => {
    const id = emulator.state.account.record.id;
    const wrong = "00000000-0000-4000-8000-000000000000";
    const err = await account.read(wrong, URN, NONE, NONE).then(
      () => assert.fail("the read must fail"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof AccountIdMismatchError);
    assert.equal(err.code, "SVC_ACCOUNT_ID_MISMATCH");
    assert.equal(
      err.message,
      `Account \`imported\`: the ID \`${wrong}\` is not the account its provider's credentials read ` +
        `(\`${id}\`); nothing was imported or read. Give the ID \`${id}\`, or read \`${wrong}\` with ` +
        "that account's `accountApiUrl`, `username` and `password` (the `svc:` stack config, or an " +
        "explicit provider: `--provider` of `pulumi import`, `options: provider` in a program).",
    );
    assert.ok(!err.message.includes(CREDS.password));
  });

  it("a refused password names the ID asked (no refresh) and where the password came from", async () => {
    const refused = new AccountAdapter(
      engineAt(undefined, () => undefined),
      new AccountController({}),
    );
    await refused.configure(
      configReader({ accountApiUrl: emulator.url, username: CREDS.username, password: "pw-unit-wrong-9d3f" }),
    );
    const id = emulator.state.account.record.id;
    await assert.rejects(refused.read(id, URN, NONE, NONE), (e: Error) => {
      assert.match(e.message, new RegExp(`^Account \`imported\` \\(read of the ID \`${id}\`\\): `));
      assert.match(e.message, /rejected the credentials \(HTTP 401\)/);
      assert.match(e.message, /`password` from the stack config `svc:password`/);
      assert.ok(!e.message.includes("pw-unit-wrong-9d3f"));
      return true;
    });
  });
});

describe("provider Account: the preview of a new Account", () => {
  let emulator: RunningEmulator;
  const NEW_URN = "urn:pulumi:dev::p::svc:index:Account::one";

  before(async () => {
    emulator = await startEmulator({ plan: "free", ...CREDS });
  });
  after(async () => emulator?.close());

  async function adapter(password: string): Promise<AccountAdapter> {
    const a = new AccountAdapter(
      engineAt(undefined, () => undefined),
      new AccountController({}),
    );
    await a.configure(configReader({ accountApiUrl: emulator.url, username: CREDS.username, password }));
    return a;
  }

  it("reads the record when every input is known: the limits and accountId are known, secrets named", async () => {
    const before = emulator.state.log.total;
    const res = await (await adapter(CREDS.password)).create(NEW_URN, NONE, true);
    assert.equal(res.id, "", "a preview creates nothing");
    const record = emulator.state.account.record;
    assert.equal(res.outputs.values.accountId, record.id);
    assert.equal(res.outputs.values.maxParallelism, record.max_parallelism);
    assert.equal(res.outputs.values.accountName, undefined, "the name is the URN's, not stored");
    assert.ok(res.outputs.secrets.has("password") && res.outputs.secrets.has("token"));
    assert.equal(emulator.state.log.total - before, 1, "one GET, nothing else");
  });

  it("leaves the record unknown when an input is unknown (another resource's output), and sends nothing", async () => {
    const before = emulator.state.log.total;
    const news = { values: { accountApiUrl: UNKNOWN }, secrets: new Set<string>() };
    const res = await (await adapter(CREDS.password)).create(NEW_URN, news, true);
    assert.equal(res.outputs.values.maxParallelism, UNKNOWN);
    assert.equal(res.outputs.values.password, UNKNOWN);
    assert.equal(emulator.state.log.total, before);
  });

  it("leaves the record unknown when a provider setting is unknown (an explicit provider's computed input)", async () => {
    const before = emulator.state.log.total;
    const res = await (await adapter(UNKNOWN)).create(NEW_URN, NONE, true);
    assert.equal(res.outputs.values.maxParallelism, UNKNOWN);
    assert.equal(emulator.state.log.total, before, "nothing is sent");
  });

  it("fails the preview on a refused password, naming the Account and where the password came from", async () => {
    await assert.rejects((await adapter("pw-unit-wrong-2b7e")).create(NEW_URN, NONE, true), (e: Error) => {
      assert.match(e.message, /^Account `one`: the service at \S+ rejected the credentials \(HTTP 401\)/);
      assert.match(e.message, /`password` from the stack config `svc:password`/);
      assert.ok(!e.message.includes("pw-unit-wrong-2b7e"));
      return true;
    });
  });
});
