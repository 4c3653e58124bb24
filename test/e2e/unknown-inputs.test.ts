/**
 * Inputs a resource does not take, with the real CLI: a program whose arguments are
 * not type-checked (from stack config here) and whose DlqRecovery has `workflowURL` fails
 * `pulumi preview` naming it and `workflowUrl`, once and without a stack trace, and `pulumi up`
 * resumes nothing (the emulator's DLQ and ledger unchanged); the same for an Account's
 * `userName` and a Provider's; a DlqRecovery registered without the class (as a Python or Go
 * program's is) is refused by the provider's `Check` at `up`; a YAML program's `workflowURL`
 * fails its preview. Six CLI runs of one TypeScript project (the case is stack config), one of
 * a YAML project.
 */
import * as assert from "node:assert/strict";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { PulumiProject, type CliResult } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";
import { yamlProgramHead, yamlProject } from "../helpers/yaml";

const CREDS = {
  token: "tok-e2e-unknown-inputs-4f2a9c",
  username: "unknown-inputs@example.com",
  password: "pw-e2e-unknown-inputs-81d3e7",
};
const ORDERS = "http://127.0.0.1/workflows/orders";
const RESUME = "/v2/workflows/dlq/resume";
/** Lines of a stack trace (`    at fn (file:line)`). */
const TRACE = /^\s+at .+[:(]/m;

/**
 * The arguments come from stack config, as JSON: `case` says which resource gets them. `raw`
 * registers the provider's DlqRecovery without the class, as a Python or Go program does.
 */
const PROGRAM = `
import * as pulumi from "@pulumi/pulumi";
import { Account, DlqRecovery, Provider } from "pulumi-svc";
const config = new pulumi.Config();
const args = JSON.parse(config.require("args"));
switch (config.require("case")) {
  case "recovery":
    new DlqRecovery("recovery", args);
    break;
  case "raw":
    new pulumi.CustomResource("svc:index:DlqRecovery", "raw", args);
    break;
  case "account":
    new Account("account", args);
    break;
  case "provider":
    new Account("prod", {}, { provider: new Provider("prod", args) });
    break;
}
`;

/** Both streams of a CLI run. */
function text(res: CliResult): string {
  return `${res.stdout}\n${res.stderr}`;
}

describe("e2e: inputs a resource does not take are refused before anything is sent", function () {
  this.timeout(600_000);
  let emulator: RunningEmulator;
  let p: PulumiProject;
  const projects: PulumiProject[] = [];
  /** The window of the mistaken selection: every failure of every workflow. */
  const window = { fromDate: 0, toDate: Date.now() + 86_400_000 };

  before(async () => {
    emulator = await startEmulator({ plan: "payg", dlq: 300, ...CREDS });
    // Every setting from the environment: no secret config, no CLI run to set one.
    p = await PulumiProject.create({
      name: "unknown-inputs",
      program: PROGRAM,
      env: {
        SVC_BASE_URL: emulator.url,
        SVC_TOKEN: CREDS.token,
        SVC_ACCOUNT_API_URL: emulator.url,
        SVC_USERNAME: CREDS.username,
        SVC_PASSWORD: CREDS.password,
      },
    });
    projects.push(p);
  });
  after(async () => {
    try {
      const places = Object.fromEntries(projects.map((x) => [`${x.dir} CLI output`, x.transcript]));
      assertNoSecrets(places, secretForms(CREDS));
    } finally {
      for (const x of projects) await x.cleanup();
      await emulator?.close();
    }
  });

  /** Sets the case and its arguments (written with the next CLI run). */
  async function program(kind: string, args: Record<string, unknown>): Promise<void> {
    await p.setConfig("case", kind);
    await p.setConfig("args", JSON.stringify(args));
  }

  /** Asserts nothing reached the resume API and every entry is still in the DLQ. */
  function assertNothingResumed(): void {
    assert.equal(emulator.state.log.since(0, 1_000_000).filter((r) => r.path === RESUME).length, 0);
    assert.equal(emulator.state.ledger.totals().distinctEntriesResumed, 0);
    assert.equal(emulator.state.dlq.size, 300);
  }

  /**
   * Asserts a failed run printed `message` once, and no stack trace. `up`'s progress display
   * shows an error on the resource's row and again under Diagnostics (the CLI's own echo of
   * every diagnostic): once in each.
   */
  function assertRefused(res: CliResult, message: RegExp): void {
    const out = text(res);
    const count = (s: string) => s.match(new RegExp(message.source, "g"))?.length;
    assert.notEqual(res.code, 0, out);
    assert.match(out, message);
    const up = res.command.includes(" up ");
    assert.equal(count(out), up ? 2 : 1, out);
    if (up) assert.equal(count(res.stdout.slice(res.stdout.indexOf("Diagnostics:"))), 1, out);
    assert.doesNotMatch(out, TRACE, out);
  }

  const RECOVERY =
    /DlqRecovery `recovery`: `workflowURL` \(did you mean `workflowUrl`\?\) is not an input of DlqRecovery; its inputs are `dlqIds`, [^\n]* and `runLogFile`\./;

  it("a DlqRecovery's `workflowURL`: `pulumi preview` fails naming it and `workflowUrl`", async () => {
    await program("recovery", { workflowURL: ORDERS, ...window });
    assertRefused(await p.preview([], { allowFailure: true }), RECOVERY);
    assertNothingResumed();
  });

  it("…and `pulumi up` resumes nothing (the DLQ and the ledger unchanged)", async () => {
    assertRefused(await p.up([], { allowFailure: true }), RECOVERY);
    assertNothingResumed();
  });

  it("a DlqRecovery registered without the class (a Python or Go program's): the provider's Check refuses it at `up`", async () => {
    await program("raw", { workflowURL: ORDERS, ...window });
    assertRefused(
      await p.up([], { allowFailure: true }),
      /resource 'raw' has a problem: DlqRecovery `raw`: `workflowURL` \(did you mean `workflowUrl`\?\) is not an input of DlqRecovery; its inputs are /,
    );
    assertNothingResumed();
  });

  it("an Account's `userName`: `pulumi preview` fails naming it and `username`, reading nothing", async () => {
    await program("account", { accountApiUrl: emulator.url, userName: CREDS.username });
    const since = emulator.state.log.total;
    assertRefused(
      await p.preview([], { allowFailure: true }),
      /Account `account`: `userName` \(did you mean `username`\?\) is not an input of Account; its inputs are `accountApiUrl`, `username`, `password` and `allowInsecureHttp`\./,
    );
    assert.equal(emulator.state.log.total, since);
  });

  it("a Provider's `userName`: `pulumi preview` fails naming it and `username`", async () => {
    await program("provider", { accountApiUrl: emulator.url, userName: CREDS.username });
    assertRefused(
      await p.preview([], { allowFailure: true }),
      /Provider `prod`: `userName` \(did you mean `username`\?\) is not an input of Provider; its inputs are `accountApiUrl`, `username`, `password`, `baseUrl` and `token`\./,
    );
  });

  it("a YAML program's `workflowURL`: `pulumi preview` fails naming it; nothing is resumed", async () => {
    const yaml = await yamlProject(
      "unknown-inputs-yaml",
      `${yamlProgramHead("unknown-inputs-yaml")}resources:
  recovery:
    type: svc:index:DlqRecovery
    properties:
      workflowURL: ${ORDERS}
      fromDate: ${window.fromDate}
      toDate: ${window.toDate}
`,
      {},
    );
    projects.push(yaml);
    const res = await yaml.preview([], {
      allowFailure: true,
      env: { SVC_BASE_URL: emulator.url, SVC_TOKEN: CREDS.token },
    });
    // The YAML host's own check against the schema: "Property workflowURL does not exist on
    // 'svc:index:DlqRecovery' … Existing properties are: workflowUrl, …".
    assert.notEqual(res.code, 0, text(res));
    assert.match(text(res), /workflowURL/);
    assert.match(text(res), /workflowUrl/);
    assertNothingResumed();
  });
});
