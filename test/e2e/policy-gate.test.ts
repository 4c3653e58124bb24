/**
 * The policy pack as a gate, end to end: the real Pulumi CLI runs `pulumi preview --policy-pack
 * policies` (the built pack) against emulators in this process over loopback.
 *
 * 1. wrong password, no Account: the preview fails, naming the 401 and the opt-out; with the
 *    opt-out it passes with an advisory;
 * 2. the account API unreachable: the same;
 * 3. two emulators (free and pay-as-you-go), two Accounts, a Workflow bound to each at
 *    parallelism 5: the one on the free account is refused with its own limit, the other passes;
 * 4. two overlapping DlqRecovery resources: the advisory names both;
 * 5. a DlqRecovery bound to an Account with no token drains with the record's token, which is
 *    in plaintext neither in the state nor in the CLI output.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { PulumiProject, REPO_ROOT, type CliResult } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";
import { unusedPort } from "../helpers/ports";

const PACK_DIR = path.join(REPO_ROOT, "policies");
const FREE = {
  username: "free@example.com",
  password: "pw-gate-free-8c1d2e3f4a",
  token: "tok-gate-free-5b6c7d8e9f",
};
const PAYG = {
  username: "payg@example.com",
  password: "pw-gate-payg-1a2b3c4d5e",
  token: "tok-gate-payg-6f7a8b9c0d",
};
const WRONG_PASSWORD = "pw-gate-WRONG-0e9d8c7b6a";
const OPT_OUT = '{"account-limits-source": "advisory"}';

/** A greedy workflow: far above the free plan's max_retries (999) and max_parallelism (2). */
const GREEDY_PROGRAM = `
import { Workflow } from "pulumi-svc";
new Workflow("orders", {
  url: "https://example.com/api/orders",
  retries: 5000,
  flowControl: { key: "orders", parallelism: 50 },
});
`;

const TWO_ACCOUNTS_PROGRAM = `
import * as pulumi from "@pulumi/pulumi";
import { Account, Workflow } from "pulumi-svc";

function account(name: string): Account {
  const cfg = new pulumi.Config(name);
  return new Account(name, {
    accountApiUrl: cfg.require("url"),
    username: cfg.require("username"),
    password: cfg.requireSecret("password"),
  });
}
const free = account("free");
const payg = account("payg");
new Workflow("staging-orders", {
  url: "https://example.com/api/orders",
  flowControl: { key: "staging-orders", parallelism: 5 },
  account: free,
});
new Workflow("prod-orders", {
  url: "https://example.com/api/orders",
  flowControl: { key: "prod-orders", parallelism: 5 },
  account: payg,
});
`;

const OVERLAP_PROGRAM = `
import { DlqRecovery } from "pulumi-svc";
new DlqRecovery("everything", { all: true });
new DlqRecovery("orders-outage", { workflowUrl: "https://example.com/api/orders" });
`;

const BOUND_RECOVERY_PROGRAM = `
import * as pulumi from "@pulumi/pulumi";
import { Account, DlqRecovery } from "pulumi-svc";
const cfg = new pulumi.Config("acct");
const account = new Account("platform", {
  accountApiUrl: cfg.require("url"),
  username: cfg.require("username"),
  password: cfg.requireSecret("password"),
});
new DlqRecovery("replay", { all: true, account, baseUrl: cfg.require("url"), concurrency: 1 });
`;

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

/** The account-record requests an emulator answered since `since`. */
function accountReads(emulator: RunningEmulator, since = 0): number {
  return emulator.state.log.since(since).filter((r) => r.path === "/v2/svc/user").length;
}

describe("e2e: the policy pack is a gate", function () {
  this.timeout(600_000);
  let free: RunningEmulator;
  let payg: RunningEmulator;
  const projects: PulumiProject[] = [];
  let optOutFile: string;

  before(async () => {
    assert.ok(
      fs.existsSync(path.join(REPO_ROOT, "dist", "policies", "index.js")),
      "the pack and the library must be built first: run `npm run build` (npm test does)",
    );
    free = await startEmulator({ plan: "free", dlq: 120, ...FREE });
    payg = await startEmulator({ plan: "payg", ...PAYG });
  });

  after(async () => {
    try {
      const places: Record<string, string> = {};
      for (const p of projects) places[`${p.dir} CLI output`] = p.transcript;
      assertNoSecrets(places, [
        ...secretForms(FREE),
        ...secretForms(PAYG),
        ...secretForms({ username: FREE.username, password: WRONG_PASSWORD }),
      ]);
    } finally {
      for (const p of projects) await p.cleanup();
      await free?.close();
      await payg?.close();
    }
  });

  async function project(name: string, program: string): Promise<PulumiProject> {
    const p = await PulumiProject.create({ name, program });
    projects.push(p);
    optOutFile ??= path.join(p.dir, "opt-out.json");
    if (!fs.existsSync(optOutFile)) fs.writeFileSync(optOutFile, OPT_OUT);
    return p;
  }

  function preview(p: PulumiProject, extra: string[] = []): Promise<CliResult> {
    return p.preview(["--policy-pack", PACK_DIR, ...extra], { allowFailure: true });
  }

  /** Asserts the gate closed: a non-zero exit, one mandatory account-limits-source naming `cause` and the opt-out. */
  function assertClosed(res: CliResult, cause: string): void {
    assert.notEqual(res.code, 0, `${res.command} should fail\n${res.stdout}`);
    assert.match(res.stdout, /\[mandatory\]\s+account-limits-source/);
    assert.equal(count(res.stdout, "These checks could not run"), 1, res.stdout);
    assert.ok(res.stdout.includes(cause), `expected the cause:\n${cause}\n--- stdout\n${res.stdout}`);
    assert.match(res.stdout, /max_parallelism \(workflow-max-parallelism\): Workflow `orders`/);
    assert.match(res.stdout, /max_retries \(workflow-max-retries\): Workflow `orders`/);
    assert.ok(res.stdout.includes(`set "account-limits-source" to "advisory"`), res.stdout);
    assert.doesNotMatch(res.stdout + res.stderr, /\n\s+at .*\(.*:\d+:\d+\)/, "no stack trace");
  }

  /** Asserts the opt-out: exit 0, the same report as an advisory. */
  function assertOptedOut(res: CliResult, cause: string): void {
    assert.equal(res.code, 0, res.stdout + res.stderr);
    assert.match(res.stdout, /\[advisory\]\s+account-limits-source/);
    assert.doesNotMatch(res.stdout, /\[mandatory\]/);
    assert.ok(res.stdout.includes(cause), res.stdout);
  }

  it("1. wrong password, no Account: fails naming the 401 and the opt-out; the opt-out passes with an advisory", async () => {
    const p = await project("gate-401", GREEDY_PROGRAM);
    await p.setConfig("svc:accountApiUrl", free.url);
    await p.setConfig("svc:username", FREE.username);
    await p.setConfig("svc:password", WRONG_PASSWORD, true);
    const cause = `The live account record could not be read: the service at ${free.url} rejected the credentials (HTTP 401)`;
    assertClosed(await preview(p), cause);
    assertOptedOut(await preview(p, ["--policy-pack-config", optOutFile]), cause);
  });

  it("2. the account API unreachable: fails naming the network error and the opt-out; the opt-out passes", async () => {
    const p = await project("gate-unreachable", GREEDY_PROGRAM);
    const url = `http://127.0.0.1:${await unusedPort()}`;
    await p.setConfig("svc:accountApiUrl", url);
    await p.setConfig("svc:username", FREE.username);
    await p.setConfig("svc:password", FREE.password, true);
    const cause = `The live account record could not be read: cannot reach the service at ${url}`;
    const closed = await preview(p);
    assertClosed(closed, cause);
    // The service error's own question, then a new sentence: not "right?, and there is no Account".
    assert.match(
      closed.stdout,
      /Is it running, and is the URL right\? There is no Account resource in this stack\.\n/,
    );
    assert.doesNotMatch(closed.stdout, /\?, and/);
    assertOptedOut(await preview(p, ["--policy-pack-config", optOutFile]), cause);
  });

  it("3. two accounts: the Workflow on the free account is refused with its own limit, the other passes", async () => {
    const p = await project("gate-accounts", TWO_ACCOUNTS_PROGRAM);
    for (const [name, emu, creds] of [
      ["free", free, FREE],
      ["payg", payg, PAYG],
    ] as const) {
      await p.setConfig(`${name}:url`, emu.url);
      await p.setConfig(`${name}:username`, creds.username);
      await p.setConfig(`${name}:password`, creds.password, true);
    }
    const [freeBefore, paygBefore] = [free.state.log.total, payg.state.log.total];
    const res = await preview(p);
    assert.notEqual(res.code, 0, res.stdout);
    assert.match(
      res.stdout,
      /\[mandatory\]\s+workflow-max-parallelism\s+\(svc:index:Workflow: staging-orders\)/,
    );
    assert.ok(
      res.stdout.includes(
        "Workflow `staging-orders` must not set flowControl.parallelism above 2 (account max_parallelism, from the " +
          "live record of the Account `free`); it sets 5.",
      ),
      res.stdout,
    );
    assert.equal(count(res.stdout, "[mandatory]"), 1, res.stdout);
    assert.doesNotMatch(res.stdout, /prod-orders.*must not/);
    // Each account's record was read twice, with that account's own credentials: once by the svc
    // provider's preview of the new Account (its outputs), once by the pack for every policy.
    assert.equal(accountReads(free, freeBefore), 2);
    assert.equal(accountReads(payg, paygBefore), 2);
  });

  it("4. two overlapping DlqRecovery resources: the advisory names both", async () => {
    const p = await project("gate-overlap", OVERLAP_PROGRAM);
    await p.setConfig("svc:accountApiUrl", free.url);
    await p.setConfig("svc:username", FREE.username);
    await p.setConfig("svc:password", FREE.password, true);
    await p.setConfig("svc:baseUrl", free.url);
    await p.setConfig("svc:token", FREE.token, true);
    const res = await preview(p);
    assert.equal(res.code, 0, res.stdout + res.stderr);
    assert.match(res.stdout, /\[advisory\]\s+dlq-recovery-overlap/);
    assert.ok(
      res.stdout.includes(
        "DlqRecovery `everything` (`all: true`) and DlqRecovery `orders-outage` (`workflowUrl` " +
          '"https://example.com/api/orders"), both on the stack\'s `svc:` account, may select the same DLQ entries: ' +
          "DlqRecovery `everything` selects every entry, the other's included.",
      ),
      res.stdout,
    );
  });

  it("5. a DlqRecovery bound to an Account with no token drains with the record's token, never in plaintext", async () => {
    const p = await project("gate-bound", BOUND_RECOVERY_PROGRAM);
    await p.setConfig("acct:url", free.url);
    await p.setConfig("acct:username", FREE.username);
    await p.setConfig("acct:password", FREE.password, true);
    const resumedBefore = free.state.ledger.totals().distinctEntriesResumed;
    await p.up(["--policy-pack", PACK_DIR]);
    // No `svc:token` anywhere: the emulator accepts only its account's token, which the Account read.
    assert.equal(free.state.ledger.totals().distinctEntriesResumed - resumedBefore, 120);
    assert.equal(free.state.ledger.totals().duplicates, 0);
    const { text, deployment } = await p.exportState();
    const recovery = deployment.resources.find((r) => r.type === "svc:index:DlqRecovery");
    assert.ok(recovery?.inputs?.token !== undefined, "the token input is in the state (encrypted)");
    assert.equal(recovery?.outputs?.resumedCount, 120);
    assertNoSecrets({ "exported state": text, "CLI output": p.transcript }, [FREE.token, FREE.password]);
    // The next preview sends nothing and shows no change.
    await p.preview(["--expect-no-changes"]);
  });
});
