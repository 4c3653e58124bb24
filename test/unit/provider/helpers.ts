/**
 * Shared fixtures of the provider's unit tests: an in-process emulator per test on
 * loopback, the resources' controllers (their logic) wired to an injected environment and stack
 * config, a happy-path DlqRecovery input factory, a temporary working folder, and secret scans.
 */
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { EmulatorOptions, LoggedRequest, RunningEmulator } from "../../../emulator";
import { startEmulator } from "../../../emulator";
import { FaultInjector } from "../../../emulator/faults";
import {
  AccountController,
  type AccountInputs,
  type AccountOutputs,
} from "../../../provider/account/controller";
import type { StackConfigReader } from "../../../core/connection";
import { ProviderProcess } from "../../../provider/providerProcess";
import {
  DlqRecoveryController,
  type DlqRecoveryInputs,
  type DlqRecoveryOutputs,
} from "../../../provider/dlqRecovery/controller";

/** Credentials of the default test emulator: long and distinctive, so a leak is found by a plain search. */
export const TOKEN = "tok-UNIT-SECRET-5d1c9a7e3b";
export const USERNAME = "unit-ops@svc.invalid";
export const PASSWORD = "pw-UNIT-SECRET-0b8f4e2a6c";

/** A unix-ms instant used for fixed clocks and entry times. */
export const T0 = 1_750_000_000_000;

// One secret scan for every suite.
export { assertNoSecrets, secretForms } from "../../helpers/secrets";

/** Everything an error carries, as text: message, stack, own enumerable properties. */
export function errorText(e: unknown): string {
  const err = e as Error;
  return [String(err?.message), String(err?.stack), JSON.stringify(e)].join("\n");
}

/** Awaits a promise that must reject and returns the rejection. */
export async function rejection(p: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await p;
  } catch (e) {
    return e as Error & Record<string, unknown>;
  }
  assert.fail("expected the promise to reject, but it resolved");
}

/**
 * Starts an emulator for each test of the enclosing `describe` and closes it afterwards.
 * Defaults to the test credentials above and a fixed fault seed.
 */
export function useEmulator(options: EmulatorOptions = {}): () => RunningEmulator {
  let emu: RunningEmulator | undefined;
  beforeEach(async () => {
    emu = await startEmulator({ token: TOKEN, username: USERNAME, password: PASSWORD, ...options });
  });
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });
  return () => {
    if (emu === undefined) throw new Error("emulator not started");
    return emu;
  };
}

/** The `/v2` requests the emulator saw, oldest first. */
export function requests(emu: RunningEmulator): LoggedRequest[] {
  return emu.state.log.since(0);
}

/** Resume requests only. */
export function resumeRequests(emu: RunningEmulator): LoggedRequest[] {
  return requests(emu).filter((r) => r.path === "/v2/workflows/dlq/resume");
}

/** Ledger assertions: every listed DLQ ID resumed exactly once, nothing else resumed. */
export function assertResumedExactlyOnce(emu: RunningEmulator, dlqIds: readonly string[]): void {
  const totals = emu.state.ledger.totals();
  assert.equal(totals.duplicates, 0, "an entry was resumed more than once");
  assert.equal(totals.distinctEntriesResumed, dlqIds.length, "entries resumed");
  for (const id of dlqIds) assert.equal(emu.state.ledger.runsFor(id).length, 1, `runs for ${id}`);
}

/** DLQ IDs currently in the emulator's DLQ. */
export function liveDlqIds(emu: RunningEmulator): string[] {
  return emu.state.dlq.page(0, 1_000_000).map((e) => e.dlqId);
}

/** A fake stack config: `{ "svc:token": "..." }`. */
export function configOf(map: Record<string, string | undefined> = {}): StackConfigReader {
  return { get: (k: string) => map[k] };
}

/**
 * The controllers' methods with the results the tests rely on made non-optional (the Pulumi
 * result types have optional `outs`/`props`; a missing one fails the test's next assertion).
 */
export type TestAccountProvider = Omit<AccountController, "create" | "update" | "read"> & {
  create(inputs: AccountInputs): Promise<{ id: string; outs: AccountOutputs }>;
  update(id: string, olds: AccountOutputs, news: AccountInputs): Promise<{ outs: AccountOutputs }>;
  read(id: string, props: AccountOutputs): Promise<{ id: string; props: AccountOutputs }>;
};
export type TestDlqProvider = Omit<DlqRecoveryController, "create" | "update" | "read"> & {
  create(inputs: DlqRecoveryInputs): Promise<{ id: string; outs: DlqRecoveryOutputs }>;
  update(
    id: string,
    olds: DlqRecoveryOutputs,
    news: DlqRecoveryInputs,
  ): Promise<{ outs: DlqRecoveryOutputs }>;
  read(id: string, props: DlqRecoveryOutputs): Promise<{ id: string; props: DlqRecoveryOutputs }>;
};

/** An `AccountController` with only the given environment and stack config (never `process.env`). */
export function accountProvider(
  env: Record<string, string> = {},
  config: Record<string, string> = {},
): TestAccountProvider {
  return new AccountController({ ...env }, configOf(config)) as unknown as TestAccountProvider;
}

/** A `DlqRecoveryController` with injected environment, config, clock and log, and what it logged. */
export interface DlqHarness {
  provider: TestDlqProvider;
  logs: string[];
  cwd: string;
  /** The provider process's shared state (rate gates, account limits, drain thread). */
  shared: ProviderProcess;
}

/**
 * Builds a `DlqRecoveryController` whose run logs go to a fresh temporary folder.
 * The clock advances one second per call, so every progress line is printed.
 */
export function dlqProvider(
  opts: {
    env?: Record<string, string>;
    config?: Record<string, string>;
    cwd?: string;
    /** Another harness's, for controllers of one process; else a new one. */
    shared?: ProviderProcess;
  } = {},
): DlqHarness {
  const logs: string[] = [];
  const shared = opts.shared ?? new ProviderProcess();
  const cwd = opts.cwd ?? tempDir();
  let t = T0;
  const provider = new DlqRecoveryController(
    {
      env: { ...(opts.env ?? {}) },
      now: () => (t += 1000),
      log: (line) => logs.push(line),
      cwd: () => cwd,
      providerProcess: shared,
    },
    configOf(opts.config ?? {}),
  );
  return { provider: provider as unknown as TestDlqProvider, logs, cwd, shared };
}

const tempDirs: string[] = [];

/** A new temporary folder, removed after the test run. */
export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-unit-provider-"));
  tempDirs.push(dir);
  return dir;
}

after(() => {
  for (const dir of tempDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** Lines of a JSON Lines file, parsed. */
export function readJsonLines(file: string): Record<string, unknown>[] {
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Happy-path DlqRecovery inputs: a selection by filters, by `dlqIds`, or `all`. */
export function happyDlq(
  kind: "filters" | "ids" | "all" = "filters",
  patch: Partial<Record<keyof DlqRecoveryInputs, unknown>> = {},
): DlqRecoveryInputs {
  const base: Record<string, unknown> = {
    baseUrl: "http://127.0.0.1:4000",
    token: TOKEN,
    recoveryName: "incident-42",
  };
  if (kind === "filters") {
    base.workflowUrl = "http://127.0.0.1/workflows/orders";
    base.fromDate = T0;
  } else if (kind === "ids") {
    base.dlqIds = ["dlq_a", "dlq_b"];
  } else {
    base.all = true;
  }
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out as DlqRecoveryInputs;
}

/** Inputs that drain everything in `emu` with the test token. */
export function drainAll(emu: RunningEmulator, patch: Partial<DlqRecoveryInputs> = {}): DlqRecoveryInputs {
  // maxRecordedRuns 1,000 (not the default 10): the tests compare the recorded runs with the ledger.
  return {
    all: true,
    baseUrl: emu.url,
    token: TOKEN,
    recoveryName: "drain-all",
    maxRecordedRuns: 1_000,
    ...patch,
  };
}

/**
 * Inputs of the sequential drain (`concurrency: 1`, one cursor): the drain suites count its
 * requests exactly, ceil(N/50). The windowed default is tested in dlqRecovery/windows.test.ts.
 */
export function sequential(emu: RunningEmulator, patch: Partial<DlqRecoveryInputs> = {}): DlqRecoveryInputs {
  return drainAll(emu, { concurrency: 1, ...patch });
}

/** A rejected create/update: the message and the partial state the engine saves. */
export interface PartialRejection extends Error {
  id: string;
  properties: DlqRecoveryOutputs & { __provider?: unknown };
  reasons: string[];
}

/** Awaits a create/update that must reject with the partial state the engine saves. */
export async function partialRejection(p: Promise<unknown>): Promise<PartialRejection> {
  const e = await rejection(p);
  assert.equal(typeof e.id, "string", `no id on the rejection: ${e.message}`);
  assert.equal(typeof e.properties, "object", `no properties on the rejection: ${e.message}`);
  return e as unknown as PartialRejection;
}

/**
 * Makes the client's retry jitter zero for each test of the enclosing `describe`.
 *
 * The controllers' drains build their client with the default retry policy (up to 5 retries,
 * full-jitter backoff of up to 200·2^n ms) and offer no way to pass a policy or a random
 * source; the client reads `Math.random` when it is constructed, so stubbing it keeps retry
 * tests instant. The emulator's own randomness (IDs, fault streams with a seed) does not
 * use `Math.random`.
 */
export function zeroJitter(): void {
  const original = Math.random;
  beforeEach(() => {
    Math.random = () => 0;
  });
  afterEach(() => {
    Math.random = original;
  });
}

/** Captures `console.log` lines (the Account provider logs through it) for each test. */
export function captureConsole(): string[] {
  const lines: string[] = [];
  const original = console.log;
  beforeEach(() => {
    lines.length = 0;
    console.log = (...args: unknown[]) => {
      lines.push(args.map(String).join(" "));
    };
  });
  afterEach(() => {
    console.log = original;
  });
  return lines;
}

/**
 * A fault seed under which `loseResponseAfterCommitRate: rate` loses the response of the first
 * resume request and of none of the next `following` ones (found by replaying the emulator's
 * own deterministic fault decisions).
 */
export function seedLosingFirstResponseOnly(rate: number, following: number): number {
  for (let seed = 1; seed < 100_000; seed++) {
    const inj = new FaultInjector();
    inj.configure({ seed, loseResponseAfterCommitRate: rate });
    const lost = Array.from({ length: following + 1 }, () => inj.plan("resume", T0).loseResponseAfterCommit);
    if (lost[0] && lost.slice(1).every((l) => !l)) return seed;
  }
  throw new Error("no seed found");
}
