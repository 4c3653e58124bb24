/**
 * Existing stacks keep working: the states in `test/fixtures/state/` were written by the real
 * Pulumi CLI with the code of main before issue 21 (see `write-fixtures.ts` there). Each
 * resource's stored state goes through today's providers, called as the engine calls them
 * (`diff`, `update`, `read` with the stored outputs as `olds` and the stored inputs as `news`),
 * against an emulator that holds what the service held when the state was written.
 *
 * Only the providers' public methods and the stored JSON are used, so a rewrite of the
 * providers' internals (or of their state format, with a migration) is held to the same test.
 */
import { strict as assert } from "node:assert";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type RunningEmulator } from "../../../emulator";
import {
  accountProvider,
  assertResumedExactlyOnce,
  dlqProvider,
  liveDlqIds,
  resumeRequests,
} from "./helpers";

const FIXTURES = path.resolve(__dirname, "../../fixtures/state");
const settings = JSON.parse(fs.readFileSync(path.join(FIXTURES, "emulator.json"), "utf8")) as {
  now: number;
  seed: number;
  entries: number;
  plan: "payg";
  token: string;
  username: string;
  password: string;
  passphrase: string;
};

/** A window of a stored `windowState`, as main wrote it. */
interface StoredWindow {
  from?: number;
  to?: number;
  cursor?: string;
}

/** One resource of `pulumi stack export`. */
interface StoredResource {
  urn: string;
  type: string;
  id: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
}

interface StackExport {
  deployment: {
    secrets_providers: { type: string; state: { salt: string } };
    resources: StoredResource[];
  };
}

const stack = JSON.parse(fs.readFileSync(path.join(FIXTURES, "stack.json"), "utf8")) as StackExport;
/** DLQ IDs the service had resumed when the state was written (all three drains together). */
const resumedBefore = JSON.parse(
  fs.readFileSync(path.join(FIXTURES, "resumed-dlq-ids.json"), "utf8"),
) as string[];

/** The Pulumi secret signature of a stored secret value. */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";

/**
 * The key of the stack's `passphrase` secrets provider: PBKDF2-SHA256 (1,000,000 rounds, 32 bytes)
 * of the fixed test passphrase and the stored salt, checked against the stored check value.
 */
function passphraseKey(): Buffer {
  const provider = stack.deployment.secrets_providers;
  assert.equal(provider.type, "passphrase");
  const [, salt, ...check] = provider.state.salt.split(":");
  const key = crypto.pbkdf2Sync(settings.passphrase, Buffer.from(salt, "base64"), 1_000_000, 32, "sha256");
  assert.equal(decrypt(key, check.join(":")), "pulumi", "the fixture passphrase opens the stack's secrets");
  return key;
}

/** Decrypts `v1:<nonce>:<ciphertext and tag>` (AES-256-GCM). */
function decrypt(key: Buffer, text: string): string {
  const [version, nonce, data] = text.split(":");
  assert.equal(version, "v1");
  const raw = Buffer.from(data, "base64");
  const d = crypto.createDecipheriv("aes-256-gcm", key, Buffer.from(nonce, "base64"));
  d.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([d.update(raw.subarray(0, raw.length - 16)), d.final()]).toString("utf8");
}

/** The values as the engine hands them to a provider: secrets decrypted. */
function plain(value: unknown, key: () => Buffer): unknown {
  if (Array.isArray(value)) return value.map((v) => plain(v, key));
  if (value === null || typeof value !== "object") return value;
  const o = value as Record<string, unknown>;
  if (o[SECRET_SIG] === "1b47061264138c4ac30d75fd1eb44270") {
    return JSON.parse(decrypt(key(), o.ciphertext as string)) as unknown;
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, plain(v, key)]));
}

let cachedKey: Buffer | undefined;
const key = (): Buffer => (cachedKey ??= passphraseKey());

/** The stored resource named `name`, its inputs and outputs as the engine hands them over. */
function stored(name: string): StoredResource {
  const found = stack.deployment.resources.filter((r) => r.urn.endsWith(`::${name}`));
  assert.equal(found.length, 1, `one resource named ${name} in the fixture`);
  const r = found[0];
  return { ...r, inputs: plain(r.inputs, key) as never, outputs: plain(r.outputs, key) as never };
}

/**
 * The emulator of the fixtures: same plan, credentials and entries (a fixed clock while it
 * seeds), less the entries resumed before the state was written.
 */
async function fixtureEmulator(): Promise<RunningEmulator> {
  let clock = (): number => settings.now;
  const emu = await startEmulator({
    plan: settings.plan,
    token: settings.token,
    username: settings.username,
    password: settings.password,
    now: () => clock(),
  });
  emu.seed(settings.entries, settings.seed);
  const t0 = Date.now();
  clock = () => settings.now + (Date.now() - t0);
  for (const id of resumedBefore) assert.ok(emu.state.dlq.remove(id), `${id} is a seeded entry`);
  return emu;
}

/** The stack config of the fixture stack, pointing at `emu`. */
function stackConfig(emu: RunningEmulator): Record<string, string> {
  return {
    "svc:baseUrl": emu.url,
    "svc:token": settings.token,
    "svc:accountApiUrl": emu.url,
    "svc:username": settings.username,
    "svc:password": settings.password,
  };
}

describe("state fixtures: stacks written before issue 21 keep working", function () {
  this.timeout(120_000);
  let emu: RunningEmulator;
  beforeEach(async () => {
    emu = await fixtureEmulator();
  });
  afterEach(async () => {
    await emu.close();
  });

  it("the fixture holds what it claims: the four resources, their secrets encrypted", () => {
    const text = fs.readFileSync(path.join(FIXTURES, "stack.json"), "utf8");
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
    it(`${name} (complete): no change; a tuning change sends nothing and keeps the results`, async () => {
      const r = stored(name);
      const { provider } = dlqProvider({ config: stackConfig(emu) });
      const olds = r.outputs as never;
      assert.equal(
        (await provider.diff(r.id, olds, r.inputs as never)).changes,
        false,
        "same inputs: no change",
      );
      const tuned = { ...r.inputs, concurrency: 2 } as never;
      assert.equal((await provider.diff(r.id, olds, tuned)).changes, true);
      const outs = (await provider.update(r.id, olds, tuned)).outs as unknown as Record<string, unknown>;
      assert.equal(resumeRequests(emu).length, 0, "a tuning change sends no resume request");
      assert.equal(outs.complete, true);
      for (const k of ["resumedCount", "requestCount", "resumedRuns", "specHash", "startedAt"]) {
        assert.deepEqual(outs[k], r.outputs[k], k);
      }
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
    // The first requests are the stored windows, each from its stored cursor.
    const first = resumeRequests(emu).slice(0, saved.length);
    const sent = first.map((q) => JSON.stringify([q.query.fromDate, q.query.toDate, q.query.cursor]));
    const expected = saved.map((w) => JSON.stringify([w.from?.toString(), w.to?.toString(), w.cursor]));
    assert.deepEqual(sent.sort(), expected.sort());
  });
});
