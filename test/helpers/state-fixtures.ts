/**
 * The state fixtures of `test/fixtures/state/` (stacks written by 0.2) and the emulator they were
 * written against: the unit test feeds them to the providers, the e2e test imports them into a
 * stack of the real CLI.
 */
import { strict as assert } from "node:assert";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type RunningEmulator } from "../../emulator";

/** The folder of the fixtures. */
export const FIXTURES = path.resolve(__dirname, "../fixtures/state");
/** The exported stack. */
export const STACK_FILE = path.join(FIXTURES, "stack.json");
/** The emulator the fixtures were written against, and the stack's passphrase. */
export const settings = JSON.parse(fs.readFileSync(path.join(FIXTURES, "emulator.json"), "utf8")) as {
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
export interface StoredWindow {
  from?: number;
  to?: number;
  cursor?: string;
}

/** One resource of `pulumi stack export`. */
export interface StoredResource {
  urn: string;
  type: string;
  id: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
}

/** The part of the export read here. */
export interface StackExport {
  deployment: {
    secrets_providers: { type: string; state: { salt: string } };
    resources: StoredResource[];
  };
}

let parsed: StackExport | undefined;
/** The exported stack, parsed. */
export function stackExport(): StackExport {
  return (parsed ??= JSON.parse(fs.readFileSync(STACK_FILE, "utf8")) as StackExport);
}

/** The Pulumi secret signature of a stored secret value. */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";

/**
 * The key of the stack's `passphrase` secrets provider: PBKDF2-SHA256 (1,000,000 rounds, 32 bytes)
 * of the fixed test passphrase and the stored salt, checked against the stored check value.
 */
function passphraseKey(): Buffer {
  const provider = stackExport().deployment.secrets_providers;
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
export function stored(name: string): StoredResource {
  const found = stackExport().deployment.resources.filter((r) => r.urn.endsWith(`::${name}`));
  assert.equal(found.length, 1, `one resource named ${name} in the fixture`);
  const r = found[0];
  return { ...r, inputs: plain(r.inputs, key) as never, outputs: plain(r.outputs, key) as never };
}

/**
 * The emulator the fixtures were written against, as it started: same plan, credentials and
 * entries with the same sequence numbers (a fixed clock while it seeds; from there it runs).
 */
export async function seededEmulator(): Promise<RunningEmulator> {
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
  return emu;
}

/** The emulator of the fixtures as the state left it: {@link seededEmulator} less the entries resumed. */
export async function fixtureEmulator(): Promise<RunningEmulator> {
  const emu = await seededEmulator();
  const resumed = JSON.parse(
    fs.readFileSync(path.join(FIXTURES, "resumed-dlq-ids.json"), "utf8"),
  ) as string[];
  for (const id of resumed) assert.ok(emu.state.dlq.remove(id), `${id} is a seeded entry`);
  return emu;
}

/** The stack config of the fixture stack, pointing at `emu`. */
export function stackConfig(emu: RunningEmulator): Record<string, string> {
  return {
    "svc:baseUrl": emu.url,
    "svc:token": settings.token,
    "svc:accountApiUrl": emu.url,
    "svc:username": settings.username,
    "svc:password": settings.password,
  };
}
