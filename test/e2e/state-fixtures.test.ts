/**
 * Stacks of 0.2 upgrade, with the real CLI: the stack of `test/fixtures/state/` (written by 0.2,
 * dynamic resources `pulumi-nodejs:dynamic/svc:*`) is imported into a new stack of the same
 * project and stack name, with the same config keys, and the program of today runs on it. The
 * resources move to the svc provider by their aliases: the preview replaces, creates and deletes
 * nothing and updates only the cut-off DlqRecovery (which the next up continues); refresh reads
 * every resource back under the provider with its outputs as they were; up continues the cut-off
 * drain and leaves the others alone; a preview after it has nothing to do.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import type { RunningEmulator } from "../../emulator";
import { PulumiProject, REPO_ROOT } from "../helpers/pulumi";
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

/** The `Pulumi.yaml` of a 0.2 program with the step docs/upgrading.md's "To 0.3.0" adds, verbatim. */
function upgradedProjectFile(name: string): string {
  const upgrading = fs.readFileSync(path.join(REPO_ROOT, "docs", "upgrading.md"), "utf8");
  const start = upgrading.indexOf("## To 0.3.0");
  assert.ok(start >= 0, "docs/upgrading.md has the section To 0.3.0");
  const block = /^ *```yaml\n([\s\S]*?)^ *```$/m.exec(upgrading.slice(start))?.[1];
  assert.ok(block, "docs/upgrading.md's To 0.3.0 has the step's Pulumi.yaml lines");
  const indent = /^ */.exec(block)?.[0].length ?? 0;
  const lines = block.split("\n").map((l) => l.slice(indent));
  return `name: ${name}\nruntime: nodejs\n${lines.join("\n")}`;
}

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

describe("e2e: a stack written by 0.2 (dynamic resources) upgrades to the svc provider", function () {
  this.timeout(600_000);
  let emu: RunningEmulator;
  let p: PulumiProject;

  before(async () => {
    emu = await fixtureEmulator();
    const name = stored("account").urn.split("::")[1];
    p = await PulumiProject.create({
      name,
      stack: "dev",
      program: program(),
      files: { "Pulumi.yaml": upgradedProjectFile(name) },
    });
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

  it("the first preview replaces, creates and deletes nothing; the DlqRecoveries update only to continue or trim", async () => {
    const res = await p.cli(["preview", "--json"]);
    const steps = (JSON.parse(res.stdout) as { steps: { op: string; urn: string }[] }).steps;
    const ops = steps
      .filter((x) => x.urn.includes("::svc:index:"))
      .map((x) => `${x.op} ${x.urn.slice(x.urn.lastIndexOf("::") + 2)}`)
      .sort();
    // The cut-off drain continues; the two finished ones, written with `maxRecordedRuns`
    // defaulting to 1,000, trim their stored runs and send nothing; the Account is the same.
    assert.deepEqual(ops, ["update by-filter", "update by-ids", "update cut-off"], "the Account is the same");
    assert.equal(res.stdout.match(/the next up trims it and sends nothing/g)?.length, 2, res.stdout);
    assert.match(res.stdout, /the last drain was cut off after 600 runs/);
    assert.equal(emu.state.log.since(0).filter((r) => r.path === "/v2/workflows/dlq/resume").length, 0);
  });

  it("refresh reads every resource back under the svc provider: the Account outputs and each drain's results as they were", async () => {
    // `--run-program`: the program's aliases move the resources to the svc provider, which reads
    // them with the config set above.
    await p.refresh(["--run-program"]);
    assert.equal(emu.state.log.since(0).filter((r) => r.path === "/v2/workflows/dlq/resume").length, 0);
    const { deployment } = await p.exportState();
    const of = (name: string) => deployment.resources.find((r) => r.urn.endsWith(`::${name}`));
    assert.equal(of("account")?.type, "svc:index:Account");
    // The Account: every output, by the same names, but what a dynamic resource stored beside them.
    const account = stored("account").outputs;
    const own = (keys: string[]) => keys.filter((k) => k !== "__provider" && k !== "accountName").sort();
    assert.deepEqual(Object.keys(of("account")?.outputs ?? {}).sort(), own(Object.keys(account)));
    for (const k of own(Object.keys(account)).filter((x) => !["password", "token"].includes(x))) {
      assert.deepEqual(of("account")?.outputs?.[k], account[k], `account.${k}`);
    }
    // Each DlqRecovery: its inputs and public results (its saved position may be migrated).
    for (const name of ["by-filter", "by-ids", "cut-off"]) {
      assert.equal(of(name)?.type, "svc:index:DlqRecovery");
      assert.equal(of(name)?.outputs?.__provider, undefined, `${name} keeps no serialized provider`);
      const before = stored(name).outputs;
      const inputs = Object.keys(stored(name).inputs).filter(
        (x) => x !== "__provider" && x !== "recoveryName",
      );
      for (const k of [...inputs, ...RESULTS]) {
        assert.deepEqual(of(name)?.outputs?.[k], before[k], `${name}.${k}`);
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
