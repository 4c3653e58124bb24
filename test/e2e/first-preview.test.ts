/**
 * Every Workflow is checked on the first preview, end to end: the real Pulumi CLI runs
 * `pulumi preview --policy-pack policies` (the built pack) on a new stack against two emulators
 * in this process over loopback.
 *
 * The program has two Accounts: `one` from the stack's `svc:` config (its record: max_parallelism
 * 4), `two` with its own `accountApiUrl`, `username` and `password` (pay-as-you-go:
 * max_parallelism 10), and a Workflow on each. The svc provider reads a new Account's record at
 * preview, so its limits are known before its first `up`:
 *
 * 1. the first preview refuses the Workflow on `one` (parallelism 6 above 4) and says nothing of
 *    the one on `two` (8, within 10), with no advisory that a check waits for `up`;
 * 2. a refused password of `two`: the preview fails on the Account, before any stack policy runs,
 *    and the policy section says so (`account-limits-source`), never `✅ svc-limits`.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { PulumiProject, REPO_ROOT, type CliResult } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";

const PACK_DIR = path.join(REPO_ROOT, "policies");
const ONE = { username: "one@example.com", password: "pw-first-one-3c8d1e", token: "tok-first-one-7a2f" };
const TWO = { username: "two@example.com", password: "pw-first-two-9e4b6a", token: "tok-first-two-1d5c" };
const WRONG_PASSWORD = "pw-first-two-WRONG-6f0a";

const PROGRAM = `
import * as pulumi from "@pulumi/pulumi";
import { Account, Workflow } from "pulumi-svc";

const cfg = new pulumi.Config("two");
const one = new Account("one"); // the stack's svc: settings
const two = new Account("two", {
  accountApiUrl: cfg.require("url"),
  username: cfg.require("username"),
  password: cfg.requireSecret("password"),
});
new Workflow("on-one", {
  url: "https://example.com/api/one",
  flowControl: { key: "one", parallelism: 6 },
  account: one,
});
new Workflow("on-two", {
  url: "https://example.com/api/two",
  flowControl: { key: "two", parallelism: 8 },
  account: two,
});
`;

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

describe("e2e: every Workflow is checked on the first preview", function () {
  this.timeout(600_000);
  let one: RunningEmulator;
  let two: RunningEmulator;
  let p: PulumiProject;

  before(async () => {
    assert.ok(
      fs.existsSync(path.join(REPO_ROOT, "dist", "policies", "index.js")),
      "the pack and the library must be built first: run `bash toolchain/build.sh` (npm test does)",
    );
    one = await startEmulator({ plan: "free", ...ONE });
    one.state.account.patch({ max_parallelism: 4 });
    two = await startEmulator({ plan: "payg", ...TWO });
    p = await PulumiProject.create({ name: "first-preview", program: PROGRAM });
    await p.setConfig("svc:accountApiUrl", one.url);
    await p.setConfig("svc:username", ONE.username);
    await p.setConfig("svc:password", ONE.password, true);
    await p.setConfig("two:url", two.url);
    await p.setConfig("two:username", TWO.username);
    await p.setConfig("two:password", TWO.password, true);
  });

  after(async () => {
    try {
      if (p) {
        assertNoSecrets({ "CLI output": p.transcript }, [
          ...secretForms(ONE),
          ...secretForms(TWO),
          ...secretForms({ username: TWO.username, password: WRONG_PASSWORD }),
        ]);
      }
    } finally {
      await p?.cleanup();
      await one?.close();
      await two?.close();
    }
  });

  function preview(): Promise<CliResult> {
    return p.preview(["--policy-pack", PACK_DIR], { allowFailure: true });
  }

  it("1. a new stack's first preview refuses the Workflow on `one` (6 above 4), nothing of the one on `two`", async () => {
    const res = await preview();
    assert.notEqual(res.code, 0, res.stdout + res.stderr);
    assert.match(res.stdout, /\[mandatory\]\s+workflow-max-parallelism\s+\(svc:index:Workflow: on-one\)/);
    assert.match(
      res.stdout,
      /Workflow `on-one` must not set flowControl\.parallelism above 4 \(account max_parallelism, from [^\n]*`one`[^\n]*\); it sets 6\./,
    );
    assert.equal(count(res.stdout, "[mandatory]"), 1, res.stdout);
    assert.doesNotMatch(res.stdout, /Workflow `on-two`/, "nothing about the Workflow within its limits");
    assert.doesNotMatch(res.stdout, /\[advisory\]|during preview|pulumi up` with/, "no check waits for `up`");
    assert.deepEqual((await p.exportState()).deployment.resources ?? [], [], "a preview creates nothing");
  });

  it("2. a refused password of `two`: the policy section names the 401, never `✅ svc-limits`", async () => {
    await p.withConfigRestored(async () => {
      await p.setConfig("two:password", WRONG_PASSWORD, true);
      // The default display (no `--diff`): its "Policies:" section gives each pack ✅, ⚠️ or ❌.
      const res = await p.cli(["preview", "--policy-pack", PACK_DIR], { allowFailure: true });
      const out = `${res.stdout}\n${res.stderr}`;
      assert.notEqual(res.code, 0, out);
      assert.doesNotMatch(out, /✅ svc-limits/);
      assert.match(out, /❌ svc-limits/);
      assert.match(res.stdout, /\[mandatory\]\s+account-limits-source\s+\(svc:index:Account: two\)/);
      assert.match(
        res.stdout,
        /The live record of the Account `two` could not be read: the service at http:\/\/127\.0\.0\.1:\d+ rejected the credentials \(HTTP 401\)/,
      );
      assert.ok(res.stdout.includes('set "account-limits-source" to "advisory"'), res.stdout);
      assert.doesNotMatch(out, /\n\s+at .*\(.*:\d+:\d+\)/, "no stack trace");
    });
  });
});
