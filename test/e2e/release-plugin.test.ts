/**
 * The release's linux-amd64 plugin archive (`npm run release`, toolchain/release/plugin.ts) as a
 * platform team uses it, with the real CLI and the emulator over loopback, on a PATH with no
 * `node` (only the CLI and the YAML language host): `pulumi plugin install resource svc <version>
 * --file <archive>`; the single executable answers the plugin handshake within 1 s; a YAML program
 * with no `plugins.providers` path (an Account, a Workflow, a DlqRecovery) previews, and `up` drains
 * each DLQ entry once in the drain thread (started inside the executable from its asset); one
 * SIGINT stops a drain with its state saved, and the next `up` completes it. Then, with Node.js
 * back on PATH, the release's policy pack (`svc-limits-policy-pack-v<version>.tar.gz`,
 * toolchain/release/policyPack.ts), unpacked into an empty temporary folder with no npm install,
 * refuses a preview of the program with an over-limit Workflow and passes a within-limit one.
 *
 * The plugin archive is built once and cached under .toolchain/release/ (by the hash of what went
 * in); the pack is bundled afresh (about 2 s).
 */
import * as assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { DLQ_RECOVERY_PROVIDER_TYPE } from "../../core/typeTokens";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { settledResumedCount } from "../helpers/ledger";
import { PulumiProject, REPO_ROOT, resourceOfType } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";
import { LINUX_AMD64, PLUGIN_NAME, pluginArchive, releaseVersions } from "../../toolchain/release/plugin";
import { policyPackArchive, policyPackName } from "../../toolchain/release/policyPack";

const CREDS = {
  username: "release@example.com",
  password: "pw-e2e-release-5c1e9a07",
  token: "tok-e2e-release-83d2f6b4",
};
const ENTRIES = 3_000;

/** The program: no `plugins` section, the provider is the installed plugin; `trigger` starts a new drain. */
const program = (trigger = 0, parallelism = 2): string => `name: release-plugin
runtime: yaml
resources:
  account:
    type: svc:index:Account
  orders:
    type: svc:index:Workflow
    properties:
      url: http://127.0.0.1/workflows/orders
      account: \${account.accountId}
      retries: 3
      flowControl:
        key: orders
        parallelism: ${parallelism}
  everything:
    type: svc:index:DlqRecovery
    properties:
      all: true
      triggers: [${trigger}]
outputs:
  ordersHeaders: \${orders.headers}
  resumedCount: \${everything.resumedCount}
  complete: \${everything.complete}
`;

/** A folder holding only links to the CLI and the YAML language host: the PATH of every CLI run. */
function pathWithoutNode(): string {
  const version = fs.readFileSync(path.join(REPO_ROOT, ".toolchain", "pulumi-version"), "utf8").trim();
  const bin = path.join(REPO_ROOT, ".toolchain", "pulumi", version, "bin");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-svc-no-node-"));
  for (const name of ["pulumi", "pulumi-language-yaml"])
    fs.symlinkSync(path.join(bin, name), path.join(dir, name));
  return dir;
}

/** Starts `exe` as the engine would (an address as its argument): ms until it printed its port, and its RSS at rest 1 s later. */
function handshake(exe: string, env: NodeJS.ProcessEnv): Promise<{ ms: number; rssMb: number }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(exe, ["127.0.0.1:1"], { env, stdio: ["ignore", "pipe", "inherit"] });
    child.on("error", reject);
    child.stdout.setEncoding("utf8").once("data", (port: string) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (!/^\d+\s*$/.test(port)) reject(new Error(`the plugin printed ${JSON.stringify(port)}, not a port`));
      setTimeout(() => {
        const status = fs.readFileSync(`/proc/${child.pid}/status`, "utf8");
        const rssKb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
        child.kill();
        resolve({ ms, rssMb: rssKb / 1024 });
      }, 1_000);
    });
  });
}

describe("e2e: the release's plugin archive (linux-amd64 single executable) on a PATH with no node", function () {
  this.timeout(600_000);
  let emulator: RunningEmulator;
  let p: PulumiProject;
  let noNode: string;
  const { version } = releaseVersions();

  before(async function () {
    this.timeout(1_800_000);
    await promisify(execFile)("bash", [path.join(REPO_ROOT, "toolchain", "provision-yaml.sh")]);
    const t0 = Date.now();
    const archive = await pluginArchive(LINUX_AMD64);
    console.log(
      `      archive ${path.basename(archive)}: ${(fs.statSync(archive).size / 1e6).toFixed(1)} MB, ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
    noNode = pathWithoutNode();
    emulator = await startEmulator({ plan: "payg", dlq: ENTRIES, ...CREDS });
    p = await PulumiProject.create({
      name: "release-plugin",
      program: "",
      files: { "Pulumi.yaml": program() },
      linkNodeModules: false,
      env: { PATH: noNode, NODE_COMPILE_CACHE: undefined, NODE_OPTIONS: undefined },
    });
    await p.cli(["plugin", "install", "resource", PLUGIN_NAME, version, "--file", archive]);
    for (const [k, v] of [
      ["accountApiUrl", emulator.url],
      ["baseUrl", emulator.url],
      ["username", CREDS.username],
    ])
      await p.setConfig(`svc:${k}`, v);
    await p.setConfig("svc:password", CREDS.password, true);
    await p.setConfig("svc:token", CREDS.token, true);
  });
  after(async () => {
    try {
      if (p) assertNoSecrets({ "CLI output": p.transcript }, secretForms(CREDS));
    } finally {
      await p?.cleanup();
      await emulator?.close();
      if (noNode) fs.rmSync(noNode, { recursive: true, force: true });
    }
  });

  /** The installed plugin's executable. */
  function installed(): string {
    return path.join(
      p.dir,
      ".pulumi-home",
      "plugins",
      `resource-${PLUGIN_NAME}-v${version}`,
      `pulumi-resource-${PLUGIN_NAME}`,
    );
  }

  it("is installed by `pulumi plugin install --file`; with no node on PATH it answers the handshake within 1 s", async () => {
    assert.ok(!fs.readdirSync(noNode).includes("node"));
    const ls = await p.cli(["plugin", "ls"]);
    assert.match(
      ls.stdout,
      new RegExp(`^${PLUGIN_NAME}\\s+resource\\s+${version.replace(/\./g, "\\.")}\\s`, "m"),
      ls.stdout,
    );
    const first = await handshake(installed(), { PATH: noNode });
    const second = await handshake(installed(), { PATH: noNode });
    console.log(
      `      handshake ${first.ms.toFixed(0)} ms then ${second.ms.toFixed(0)} ms; RSS at rest ${second.rssMb.toFixed(1)} MB`,
    );
    assert.ok(second.ms < 1_000, `the handshake took ${second.ms} ms`);
  });

  it("a YAML program with no plugins path previews, and `up` drains each entry once", async () => {
    const preview = await p.preview();
    assert.match(preview.stdout, /\+ 4 to create/, preview.stdout);
    assert.equal(emulator.state.ledger.totals().distinctEntriesResumed, 0, "preview resumes nothing");
    await p.up();
    const outputs = await p.outputs();
    assert.deepEqual(outputs, {
      ordersHeaders: {
        "Svc-Flow-Control-Key": "orders",
        "Svc-Flow-Control-Value": "parallelism=2",
        "Svc-Retries": "3",
      },
      resumedCount: ENTRIES,
      complete: true,
    });
    const t = emulator.state.ledger.totals();
    assert.equal(t.distinctEntriesResumed, ENTRIES);
    assert.equal(t.duplicates, 0, "no entry resumed twice");
    assert.equal(emulator.state.dlq.size, 0);
    await p.preview(["--expect-no-changes"]);
  });

  it("one SIGINT 1 s into a 20,000-entry drain stops it with its state saved; the next up completes it, each entry once", async () => {
    emulator.reset();
    emulator.seed(20_000, 27);
    fs.writeFileSync(path.join(p.dir, "Pulumi.yaml"), program(1));
    let signalled = 0;
    const res = await p.up([], {
      allowFailure: true,
      onSpawn: (child) =>
        child.stdout?.on("data", (chunk: Buffer) => {
          if (signalled !== 0 || !/runs resumed in/.test(chunk.toString())) return;
          signalled = -1;
          setTimeout(() => ((signalled = Date.now()), child.kill("SIGINT")), 1_000);
        }),
    });
    const out = `${res.stdout}\n${res.stderr}`;
    assert.ok(signalled > 0, `SIGINT was sent mid-drain:\n${out}`);
    assert.notEqual(res.code, 0, out);
    assert.ok(Date.now() - signalled < 3_000, "the CLI exited within 3 s of the SIGINT");
    assert.match(
      out,
      /DlqRecovery `everything` was stopped \(Ctrl-C, or its `customTimeouts`\) after resuming/,
    );
    const ledger = await settledResumedCount(emulator, 300);
    const saved = resourceOfType((await p.exportState()).deployment, DLQ_RECOVERY_PROVIDER_TYPE).outputs;
    assert.equal(saved?.complete, false);
    assert.equal(saved?.resumedCount, ledger, "the saved state counts what the ledger holds");
    assert.ok(ledger > 0 && ledger < 20_000, `resumed ${ledger} before the stop`);
    await p.up();
    assert.equal((await p.outputs()).resumedCount, 20_000);
    const t = emulator.state.ledger.totals();
    assert.equal(t.distinctEntriesResumed, 20_000);
    assert.equal(t.duplicates, 0, "no entry resumed twice");
  });

  it("with node back on PATH, the release's policy pack, unpacked, refuses an over-limit Workflow and passes a within-limit one", async () => {
    const t0 = Date.now();
    const archive = await policyPackArchive();
    const built = ((Date.now() - t0) / 1000).toFixed(1);
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-svc-release-pack-"));
    try {
      await promisify(execFile)("tar", ["-xzf", archive, "-C", root]);
      const pack = path.join(root, policyPackName(version).folder);
      console.log(
        `      policy pack ${path.basename(archive)}: ${(fs.statSync(archive).size / 1e6).toFixed(1)} MB, built in ${built} s`,
      );
      const withNode = { env: { PATH: process.env.PATH } };
      fs.writeFileSync(path.join(p.dir, "Pulumi.yaml"), program(1, 11));
      const refused = await p.preview(["--policy-pack", pack], { ...withNode, allowFailure: true });
      const out = `${refused.stdout}\n${refused.stderr}`;
      assert.notEqual(refused.code, 0, out);
      const message =
        "Workflow `orders` must not set flowControl.parallelism above 10 (account max_parallelism, " +
        "from the live account record); it sets 11.";
      assert.equal(out.split(message).length - 1, 1, `${message}\n--- output\n${out}`);
      assert.match(
        refused.stdout,
        /\[mandatory\]\s+workflow-max-parallelism\s+\(svc:index:Workflow: orders\)/,
      );
      fs.writeFileSync(path.join(p.dir, "Pulumi.yaml"), program(1, 10));
      const passed = await p.preview(["--policy-pack", pack], withNode);
      assert.doesNotMatch(passed.stdout, /\[mandatory\]|\[advisory\]/, passed.stdout);
      const literal = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      const ran = new RegExp(`^\\s*${literal(`svc-limits|local|${pack}`)}\\s+${literal(version)}$`, "m");
      assert.match(passed.stdout, ran, `the pack ran, version ${version}:\n${passed.stdout}`);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
