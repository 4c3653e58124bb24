/**
 * The svc-limits policy pack end to end: the real Pulumi CLI runs `pulumi preview --policy-pack
 * policies` (the pack as built into dist/, loaded through policies/package.json) on fresh
 * stacks whose programs use the built library, against the emulator in this process (free plan:
 * max_parallelism 2, max_retries 999, max_delay 604800 s) over loopback.
 *
 * Two projects share the work: `limits` has the svc stack config (the live source) and selects
 * its program variant with the environment variable POLICY_CASE, so one stack serves every
 * case; `sources` starts with no svc config at all (no source), then reads the limits from the
 * environment, then from an Account resource.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { PulumiProject, REPO_ROOT, type CliResult } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";

const CREDS = {
  token: "tok-e2e-policies-7c3e91a0d5",
  username: "platform@example.com",
  password: "pw-e2e-policies-4f8b2d6e1a",
};
const WRONG_PASSWORD = "pw-e2e-policies-WRONG-93ad57";

const PACK_DIR = path.join(REPO_ROOT, "policies");
/** The built component, by path (works whether or not `pulumi-svc` re-exports it yet). */
const WORKFLOW_MODULE = path.join(REPO_ROOT, "dist", "components", "Workflow");

const LIMITS_PROGRAM = `
import { Account, DlqRecovery } from "pulumi-svc";
import { Workflow } from ${JSON.stringify(WORKFLOW_MODULE)};

const c = process.env.POLICY_CASE ?? "within";
const replay = new DlqRecovery("replay", {
  workflowUrl: "https://example.com/api/orders",
  fromDate: Date.now() - 3_600_000,
  flowControl: { key: "orders", parallelism: c === "dlq-parallelism" ? 3 : 1 },
  retries: 2,
});
// In "unknown", retries come from a DlqRecovery output: unknown until its drain runs on \`up\` (an
// Account's outputs are known at preview: the svc provider reads its record then).
const retries = c === "unknown" ? replay.resumedCount : c === "retries" ? 1000 : 3;
new Workflow("orders", {
  url: "https://example.com/api/orders",
  retries,
  delay: c === "delay" ? "8d" : "10m",
  flowControl: { key: "orders", parallelism: c === "parallelism" ? 3 : 2, rate: 10, period: "1m" },
});
new Workflow("billing", { url: "https://example.com/api/billing", flowControl: { key: "billing", parallelism: 1 } });
`;

const SOURCES_PROGRAM = `
import * as pulumi from "@pulumi/pulumi";
import { Account } from "pulumi-svc";
import { Workflow } from ${JSON.stringify(WORKFLOW_MODULE)};

const c = process.env.POLICY_CASE ?? "within";
if (c.startsWith("account")) {
  // Credentials under the project's own namespace: the pack's live source (svc:*, SVC_*) stays unset.
  const cfg = new pulumi.Config("acct");
  new Account("account", {
    accountApiUrl: cfg.require("url"),
    username: cfg.require("username"),
    password: cfg.requireSecret("password"),
  });
}
new Workflow("orders", {
  url: "https://example.com/api/orders",
  retries: 3,
  delay: "10m",
  flowControl: { key: "orders", parallelism: c === "account-parallelism" ? 3 : 2 },
});
`;

/** Runs `pulumi preview --policy-pack policies` for one program case. */
function preview(
  project: PulumiProject,
  policyCase: string,
  extra: string[] = [],
  env: Record<string, string> = {},
) {
  return project.preview(["--policy-pack", PACK_DIR, ...extra], {
    allowFailure: true,
    env: { POLICY_CASE: policyCase, ...env },
  });
}

/** Asserts a preview failed on one mandatory violation with exactly this message. */
function assertMandatory(res: CliResult, policy: string, resource: string, message: string): void {
  assert.notEqual(res.code, 0, `${res.command} should fail\n${res.stdout}`);
  assert.match(res.stdout, new RegExp(`\\[mandatory\\]\\s+${policy}\\s+\\(${escape(resource)}\\)`));
  assert.ok(res.stdout.includes(message), `expected the message:\n${message}\n--- stdout\n${res.stdout}`);
  assert.equal(count(res.stdout, "[mandatory]"), 1, res.stdout);
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

/** The account-record requests the emulator answered since `since`. */
function accountReads(emulator: RunningEmulator, since: number): number {
  return emulator.state.log.since(since).filter((r) => r.path === "/v2/svc/user").length;
}

describe("e2e: the svc-limits policy pack", function () {
  this.timeout(600_000);
  let emulator: RunningEmulator;
  let limits: PulumiProject;
  let sources: PulumiProject;
  let configDir: string;

  before(async () => {
    assert.ok(
      fs.existsSync(path.join(REPO_ROOT, "dist", "policies", "index.js")) &&
        fs.existsSync(`${WORKFLOW_MODULE}.js`),
      "the pack and the library must be built first: run `npm run build` (npm test does)",
    );
    emulator = await startEmulator({ plan: "free", ...CREDS });
    limits = await PulumiProject.create({ name: "limits", program: LIMITS_PROGRAM });
    await limits.setConfig("svc:accountApiUrl", emulator.url);
    await limits.setConfig("svc:username", CREDS.username);
    await limits.setConfig("svc:password", CREDS.password, true);
    await limits.setConfig("svc:baseUrl", emulator.url);
    await limits.setConfig("svc:token", CREDS.token, true);
    sources = await PulumiProject.create({ name: "sources", program: SOURCES_PROGRAM });
    configDir = fs.mkdtempSync(path.join(limits.dir, "policy-config-"));
  });

  after(async () => {
    try {
      const places: Record<string, string> = {};
      if (limits) places["limits CLI output"] = limits.transcript;
      if (sources) places["sources CLI output"] = sources.transcript;
      assertNoSecrets(places, [
        ...secretForms(CREDS),
        ...secretForms({ username: CREDS.username, password: WRONG_PASSWORD }),
      ]);
    } finally {
      await sources?.cleanup();
      await limits?.cleanup();
      await emulator?.close();
    }
  });

  function configFile(name: string, config: unknown): string {
    const file = path.join(configDir, name);
    fs.writeFileSync(file, JSON.stringify(config));
    return file;
  }

  describe("limits from the live account record (stack config), on a fresh stack", () => {
    it("a stack within the limits previews clean", async () => {
      const res = await preview(limits, "within");
      assert.equal(res.code, 0, res.stdout + res.stderr);
      assert.match(res.stdout, /svc-limits\|local\|\S+\s+\d+\.\d+\.\d+/, "the pack ran");
      assert.doesNotMatch(res.stdout, /\[(mandatory|advisory)\]/);
    });

    const cases: [string, string, string, string][] = [
      [
        "parallelism",
        "workflow-max-parallelism",
        "svc:index:Workflow: orders",
        "Workflow `orders` must not set flowControl.parallelism above 2 (account max_parallelism, from the live " +
          "account record); it sets 3.",
      ],
      [
        "retries",
        "workflow-max-retries",
        "svc:index:Workflow: orders",
        "Workflow `orders` must not set retries above 999 (account max_retries, from the live account record); it sets 1000.",
      ],
      [
        "delay",
        "workflow-max-delay",
        "svc:index:Workflow: orders",
        "Workflow `orders` must not set delay above 604800 seconds (7d) (account max_delay, from the live account " +
          "record); it sets 691200 seconds (8d).",
      ],
      [
        "dlq-parallelism",
        "workflow-max-parallelism",
        "svc:index:DlqRecovery: replay",
        "DlqRecovery `replay` must not override flowControl.parallelism above 2 (account max_parallelism, from the " +
          "live account record); it sets 3.",
      ],
    ];
    for (const [policyCase, policy, resource, message] of cases) {
      it(`${policy} fails a mandatory preview (${policyCase})`, async () => {
        assertMandatory(await preview(limits, policyCase), policy, resource, message);
      });
    }

    it("advisory via --policy-pack-config warns and passes", async () => {
      const res = await preview(limits, "parallelism", [
        "--policy-pack-config",
        configFile("advisory.json", { all: "advisory" }),
      ]);
      assert.equal(res.code, 0, res.stdout + res.stderr);
      assert.match(res.stdout, /\[advisory\]\s+workflow-max-parallelism\s+\(svc:index:Workflow: orders\)/);
      assert.ok(
        res.stdout.includes("Workflow `orders` must not set flowControl.parallelism above 2"),
        res.stdout,
      );
      assert.doesNotMatch(res.stdout, /\[mandatory\]/);
    });

    it("a static limit in the pack config comes first", async () => {
      const res = await preview(limits, "within", [
        "--policy-pack-config",
        configFile("static.json", { "workflow-max-retries": { maxRetries: 2 } }),
      ]);
      assertMandatory(
        res,
        "workflow-max-retries",
        "svc:index:Workflow: orders",
        "Workflow `orders` must not set retries above 2 (account max_retries, from the policy pack config " +
          "`workflow-max-retries.maxRetries`); it sets 3.",
      );
    });

    it("a value unknown in preview is reported as unknown, and the preview passes", async () => {
      const res = await preview(limits, "unknown");
      assert.equal(res.code, 0, res.stdout + res.stderr);
      assert.match(
        res.stdout,
        /\[advisory\]\s+workflow-max-retries[\s\S]*can't run policy 'workflow-max-retries' from policy pack 'svc-limits@v\d+\.\d+\.\d+' during preview: Workflow `orders`: `retries` is unknown/,
      );
      assert.doesNotMatch(res.stdout, /\[mandatory\]/);
    });
  });

  describe("other sources", () => {
    it("with no source at all, the pack fails closed once, naming the unchecked Workflow and the opt-out", async () => {
      const res = await preview(sources, "within");
      assert.notEqual(res.code, 0, res.stdout + res.stderr);
      assert.equal(count(res.stdout, "These checks could not run"), 1, res.stdout);
      assert.match(res.stdout, /\[mandatory\]\s+account-limits-source/);
      assert.match(res.stdout, /max_parallelism \(workflow-max-parallelism\): Workflow `orders`/);
      assert.match(
        res.stdout,
        /The live account record is not configured: set the stack config `svc:accountApiUrl`/,
      );
      assert.ok(res.stdout.includes('set "account-limits-source" to "advisory"'), res.stdout);
    });

    it("reads the live record once per preview, from the SVC_* environment", async () => {
      const since = emulator.state.log.total;
      const res = await preview(sources, "within", [], {
        SVC_ACCOUNT_API_URL: emulator.url,
        SVC_USERNAME: CREDS.username,
        SVC_PASSWORD: CREDS.password,
      });
      assert.equal(res.code, 0, res.stdout + res.stderr);
      assert.doesNotMatch(res.stdout, /\[(mandatory|advisory)\]/);
      // Five policies needed limits; one request served them all.
      assert.equal(accountReads(emulator, since), 1);
    });

    it("reports rejected credentials once and clearly, without a stack trace or the password, and fails", async () => {
      const res = await preview(sources, "within", [], {
        SVC_ACCOUNT_API_URL: emulator.url,
        SVC_USERNAME: CREDS.username,
        SVC_PASSWORD: WRONG_PASSWORD,
      });
      assert.notEqual(res.code, 0, res.stdout + res.stderr);
      assert.equal(count(res.stdout, "rejected the credentials"), 1, res.stdout);
      assert.ok(
        res.stdout.includes(
          `The live account record could not be read: the service at ${emulator.url} rejected the credentials ` +
            "(HTTP 401). They came from: `username` from the environment variable `SVC_USERNAME`, `password` from the " +
            "environment variable `SVC_PASSWORD`. Check those values. There is no Account resource in this stack.\n",
        ),
        res.stdout,
      );
      assert.doesNotMatch(res.stdout + res.stderr, /\n\s+at .*\(.*:\d+:\d+\)/, "no stack trace");
    });

    it("takes the limits from an Account resource in the stack (its own settings) once it exists", async () => {
      await sources.setConfig("acct:url", emulator.url);
      await sources.setConfig("acct:username", CREDS.username);
      await sources.setConfig("acct:password", CREDS.password, true);
      await sources.up([], { env: { POLICY_CASE: "account-within" } });
      const res = await preview(sources, "account-parallelism");
      assertMandatory(
        res,
        "workflow-max-parallelism",
        "svc:index:Workflow: orders",
        "Workflow `orders` must not set flowControl.parallelism above 2 (account max_parallelism, from the live " +
          "record of the Account `account`); it sets 3.",
      );
      assert.doesNotMatch(res.stdout, /account-limits-source/);
    });
  });
});
