/**
 * Existing stacks keep working, with the real CLI: the stack of `test/fixtures/state/` (written
 * by main before issue 21) is imported into a new stack of the same project and stack name, with
 * the same config keys. Refresh runs the providers the stored state names (module IDs
 * `pulumi-svc/providers/account` and `.../dlqRecovery`) and finds no change; up continues the
 * cut-off drain and leaves the others alone; a preview after it has nothing to do.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import type { RunningEmulator } from "../../emulator";
import { PulumiProject } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";
import {
  STACK_FILE,
  fixtureEmulator,
  settings,
  stackConfig,
  stackExport,
  stored,
} from "../helpers/state-fixtures";

/** The outputs of a DlqRecovery that say what a drain did (README reference). */
const RESULTS = [
  "complete",
  "resumedCount",
  "requestCount",
  "resumedRuns",
  "resumedRunsTruncated",
  "ambiguousRequests",
  "unconfirmedDlqIds",
  "overrideHeaders",
  "startedAt",
  "finishedAt",
];

/** The program that wrote the fixture, rebuilt from the stored inputs of each resource. */
function program(): string {
  const lines = [
    'import { Account, DlqRecovery } from "pulumi-svc";',
    'const account = new Account("account");',
    "export const maxParallelism = account.maxParallelism;",
  ];
  for (const r of stackExport().deployment.resources.filter((x) => x.type.endsWith(":DlqRecovery"))) {
    const name = r.urn.slice(r.urn.lastIndexOf("::") + 2);
    const { __provider: _p, recoveryName: _n, ...args } = stored(name).inputs;
    lines.push(`new DlqRecovery(${JSON.stringify(name)}, ${JSON.stringify(args)});`);
  }
  return `${lines.join("\n")}\n`;
}

describe("e2e: a stack written before issue 21", function () {
  this.timeout(600_000);
  let emu: RunningEmulator;
  let p: PulumiProject;

  before(async () => {
    emu = await fixtureEmulator();
    const name = stored("account").urn.split("::")[1];
    p = await PulumiProject.create({ name, stack: "dev", program: program() });
    // The fixture's secrets are encrypted with this stack passphrase.
    assert.equal(settings.passphrase, "e2e-passphrase", "PulumiProject's passphrase");
    await p.cli(["stack", "import", "--file", STACK_FILE]);
    const config = stackConfig(emu);
    for (const key of ["svc:baseUrl", "svc:accountApiUrl", "svc:username"])
      await p.setConfig(key, config[key]);
    for (const key of ["svc:token", "svc:password"]) await p.setConfig(key, config[key], true);
  });
  after(async () => {
    try {
      assertNoSecrets(
        { "CLI output": p.transcript, "state file": fs.readFileSync(p.stateFile(), "utf8") },
        secretForms({ token: settings.token, username: settings.username, password: settings.password }),
      );
    } finally {
      await p?.cleanup();
      await emu?.close();
    }
  });

  it("refresh runs the stored providers (module IDs unchanged): the Account outputs and each drain's results read back as they were", async () => {
    // `--run-program`: with the config set above (a plain refresh would use the provider config
    // stored in the state: the URL of the emulator that wrote it).
    await p.refresh(["--run-program"]);
    assert.equal(emu.state.log.since(0).filter((r) => r.path === "/v2/workflows/dlq/resume").length, 0);
    const { deployment } = await p.exportState();
    const outputsOf = (name: string) =>
      deployment.resources.find((r) => r.urn.endsWith(`::${name}`))?.outputs ?? {};
    // The Account: every output, by the same names (the secrets are ciphertext: compared by name only).
    const account = stored("account").outputs;
    assert.deepEqual(Object.keys(outputsOf("account")).sort(), Object.keys(account).sort());
    for (const k of Object.keys(account).filter((x) => !["__provider", "password", "token"].includes(x))) {
      assert.deepEqual(outputsOf("account")[k], account[k], `account.${k}`);
    }
    // Each DlqRecovery: its inputs and public results (its saved position may be migrated).
    for (const name of ["by-filter", "by-ids", "cut-off"]) {
      const before = stored(name).outputs;
      for (const k of [...Object.keys(stored(name).inputs).filter((x) => x !== "__provider"), ...RESULTS]) {
        assert.deepEqual(outputsOf(name)[k], before[k], `${name}.${k}`);
      }
    }
  });

  it("up continues the cut-off drain (each remaining entry once) and leaves the others alone", async () => {
    const remaining = emu.state.dlq.page(0, 1_000_000).map((e) => e.dlqId);
    await p.up();
    assert.equal(emu.state.dlq.size, 0, "the DLQ is drained");
    const totals = emu.state.ledger.totals();
    assert.equal(totals.duplicates, 0);
    assert.equal(totals.distinctEntriesResumed, remaining.length);
    const { deployment } = await p.exportState();
    const cut = deployment.resources.find((r) => r.urn.endsWith("::cut-off"));
    assert.equal(cut?.outputs?.complete, true);
    assert.equal(
      cut?.outputs?.resumedCount,
      (stored("cut-off").outputs.resumedCount as number) + remaining.length,
    );
    for (const name of ["by-filter", "by-ids"]) {
      const r = deployment.resources.find((x) => x.urn.endsWith(`::${name}`));
      assert.equal(r?.outputs?.finishedAt, stored(name).outputs.finishedAt, `${name} was not drained again`);
    }
  });

  it("a preview after it has nothing to do", async () => {
    await p.preview(["--expect-no-changes"]);
  });
});
