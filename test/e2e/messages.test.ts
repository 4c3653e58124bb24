/**
 * Messages with the real CLI: an expected failure is printed once, without a stack trace, naming
 * the resource and what to fix (a wrong password in `preview` and in `up`); an unset `baseUrl` and
 * an empty `token` say which setting and how to set it; a misspelled `svc:` config key gets a
 * "did you mean" hint.
 */
import * as assert from "node:assert/strict";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { PulumiProject } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";

const CREDS = {
  token: "tok-e2e-messages-5b8e21",
  username: "msgs@example.com",
  password: "pw-e2e-messages-7c41d0",
};
const WRONG_PASSWORD = "pw-e2e-WRONG-90af3e";

const PROGRAM = `
import { Account, DlqRecovery } from "pulumi-svc";
const account = new Account("account");
new DlqRecovery("recovery", { all: true });
export const plan = account.type;
`;

/** Lines of a stack trace (`    at fn (file:line)`). */
const TRACE = /^\s+at .+[:(]/m;

describe("e2e: messages", function () {
  this.timeout(600_000);
  let emulator: RunningEmulator;
  let p: PulumiProject;

  before(async () => {
    emulator = await startEmulator({ plan: "free", ...CREDS });
    p = await PulumiProject.create({ name: "messages", program: PROGRAM });
    await p.setConfig("svc:accountApiUrl", emulator.url);
    await p.setConfig("svc:username", CREDS.username);
    await p.setConfig("svc:password", CREDS.password, true);
    await p.setConfig("svc:baseUrl", emulator.url);
    await p.setConfig("svc:token", CREDS.token, true);
    await p.up();
  });
  after(async () => {
    try {
      assertNoSecrets({ "CLI output": p.transcript }, [
        ...secretForms(CREDS),
        ...secretForms({ username: CREDS.username, password: WRONG_PASSWORD }),
      ]);
    } finally {
      await p?.cleanup();
      await emulator?.close();
    }
  });

  for (const command of ["preview", "up"] as const) {
    it(`a wrong password: \`pulumi ${command}\` prints the 401 once, naming the resource, without a stack trace`, async () => {
      await p.withConfigRestored(async () => {
        await p.setConfig("svc:password", WRONG_PASSWORD, true);
        const res =
          command === "preview"
            ? await p.preview([], { allowFailure: true })
            : await p.cli(["up", "--yes"], { allowFailure: true });
        const out = `${res.stdout}\n${res.stderr}`;
        assert.notEqual(res.code, 0);
        // Printed once. `up`'s progress display shows each error on the resource's row and again
        // under Diagnostics (the CLI's own echo of every diagnostic); `preview --diff` once.
        assert.equal(out.match(/rejected the credentials/g)?.length, command === "up" ? 2 : 1, out);
        if (command === "up") {
          const diagnostics = res.stdout.slice(res.stdout.indexOf("Diagnostics:"));
          assert.equal(diagnostics.match(/rejected the credentials/g)?.length, 1, out);
        }
        assert.match(
          out,
          /Account `account`: the service at http:\/\/127\.0\.0\.1:\d+ rejected the credentials \(HTTP 401\)/,
        );
        assert.match(out, /`password` from the stack config `svc:password`/);
        assert.doesNotMatch(out, /Account \(preview\)/);
        assert.doesNotMatch(out, /pulumi up` again/);
        assert.doesNotMatch(out, TRACE, out);
      });
    });
  }

  it("an unset baseUrl: the error is the resource's, names the setting and where to set it, no `{<nil>}`", async () => {
    await p.cli(["config", "rm", "svc:baseUrl"]);
    try {
      const res = await p.preview([], { allowFailure: true });
      const out = `${res.stdout}\n${res.stderr}`;
      assert.notEqual(res.code, 0);
      assert.doesNotMatch(out, /<nil>|property baseUrl value/, out);
      assert.match(
        out,
        /resource 'recovery' has a problem: DlqRecovery `recovery`: no `baseUrl` configured\. Set the input `baseUrl`, the stack config `svc:baseUrl` or the environment variable `SVC_BASE_URL`\./,
      );
      assert.doesNotMatch(out, TRACE, out);
    } finally {
      await p.setConfig("svc:baseUrl", emulator.url);
    }
  });

  it("a token set but empty: says it is empty, where, and how to give it a value", async () => {
    await p.withConfigRestored(async () => {
      await p.cli(["config", "set", "--secret", "svc:token", "--", ""]);
      const res = await p.preview([], { allowFailure: true });
      const out = `${res.stdout}\n${res.stderr}`;
      assert.notEqual(res.code, 0);
      assert.match(
        out,
        /DlqRecovery `recovery`: `token` is set but empty in the stack config `svc:token`\. Give it a value \(`pulumi config set --secret svc:token <value>`\)/,
      );
      assert.doesNotMatch(out, /no `token` configured|<nil>/, out);
    });
  });

  it("a misspelled `svc:tokn`: the error names it and says did you mean `svc:token`", async () => {
    await p.withConfigRestored(async () => {
      await p.cli(["config", "rm", "svc:token"]);
      await p.setConfig("svc:tokn", CREDS.token, true);
      const res = await p.preview([], { allowFailure: true });
      const out = `${res.stdout}\n${res.stderr}`;
      assert.notEqual(res.code, 0);
      // The svc provider's config check refuses it before any resource is checked.
      assert.match(
        out,
        /pulumi:providers:svc resource 'default' has a problem: The stack config has `svc:tokn`, which is no setting of pulumi-svc: did you mean `svc:token`\?/,
      );
      assert.equal(out.match(/did you mean/g)?.length, 1, out);
    });
  });
});
