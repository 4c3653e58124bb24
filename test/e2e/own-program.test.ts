/**
 * Your own program, as docs/own-program.md and the README tell it:
 *
 * - the walkthrough: the shell blocks and files of docs/own-program.md's TypeScript section, run
 *   verbatim as one bash script in an empty folder outside the repository
 *   (only `SVC=` is set to this clone and the port 18080 to a free one), with no `pulumi` on PATH
 *   (so through `toolchain/pulumi.sh`) and none of the isolated PULUMI_* settings of the tests:
 *   the user's backend and passphrase are those the README sets, in a HOME of the test's own;
 * - the newest SDK: the tarball installed beside `@pulumi/pulumi` 3.270.0 leaves one copy of it.
 */
import * as assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { REPO_ROOT } from "../helpers/pulumi";
import { unusedPort } from "../helpers/ports";

/** A @pulumi/pulumi 3.x above package.json's `^3.259.0`, pinned: beside the tarball it stays the one copy. */
const NEWEST_SDK = "3.270.0";
/** The port the README's walkthrough uses; the test substitutes a free one. */
const README_PORT = "18080";

/** A file block (preceded by a line "`name`:") or a shell block of the README's section. */
type Block = { kind: "sh"; text: string } | { kind: "file"; name: string; text: string };

/** The walkthroughs' page; its TypeScript walkthrough starts at this heading, its YAML one at the next. */
const WALKTHROUGH = path.join(REPO_ROOT, "docs", "own-program.md");
const TS_HEADING = "# Your own program";
const YAML_HEADING = "## A YAML program";

/** The blocks of the README from `heading` to the next heading given (or the next section), in order. */
function walkthroughBlocks(readme: string, heading: string, until = "\n## "): Block[] {
  const start = readme.indexOf(heading);
  assert.ok(start >= 0, `docs/own-program.md has the section ${heading}`);
  const ends = [readme.indexOf(until, start + 1), readme.indexOf("\n## ", start + 1)].filter((i) => i > 0);
  const section = readme.slice(start, Math.min(...ends));
  const blocks: Block[] = [];
  const fence = /(?:^`([^`\n]+)`:\n\n)?^```(\w+)\n([\s\S]*?)^```$/gm;
  for (const m of section.matchAll(fence)) {
    if (m[1] !== undefined) blocks.push({ kind: "file", name: m[1], text: m[3] });
    else if (m[2] === "sh") blocks.push({ kind: "sh", text: m[3] });
  }
  return blocks;
}

/** The walkthrough as one bash script: shell blocks as they are, files as here-documents. */
function walkthroughScript(blocks: Block[], port: number): string {
  const lines = ["set -eo pipefail"];
  for (const b of blocks) {
    if (b.kind === "file") lines.push(`cat > ${b.name} <<'README_FILE_END'\n${b.text}README_FILE_END`);
    else lines.push(b.text);
  }
  return lines
    .join("\n")
    .replace(/^SVC=.*$/m, `SVC=${JSON.stringify(REPO_ROOT)}`)
    .replaceAll(README_PORT, String(port));
}

/** The environment of a user without a `pulumi` and without PULUMI_* settings, in a HOME of its own. */
function userEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!/^(PULUMI_|SVC_|npm_|NODE_COMPILE_CACHE)/.test(k)) env[k] = v;
  const dirs = (process.env.PATH ?? "")
    .split(path.delimiter)
    .filter((d) => d !== "" && !fs.existsSync(path.join(d, "pulumi")) && !d.startsWith(REPO_ROOT));
  // Node >= 22.19 first (the README's requirement), the npm cache as it is (no re-download).
  env.PATH = [path.dirname(process.execPath), ...dirs].join(path.delimiter);
  env.HOME = home;
  env.npm_config_cache = process.env.npm_config_cache ?? path.join(os.homedir(), ".npm");
  env.npm_config_update_notifier = "false";
  // Go's caches as they are too: with this HOME they would be empty, and the YAML host that
  // toolchain/pulumi.sh builds on first use would download and compile every module again
  // (about 100 s of CPU instead of 3 s), which no user with a Go of their own pays.
  Object.assign(env, goCaches());
  return env;
}

/** The machine's Go module and build caches (`go env`), or none when Go is missing. */
function goCaches(): { GOMODCACHE?: string; GOCACHE?: string } {
  try {
    const [modcache, cache] = execFileSync("go", ["env", "GOMODCACHE", "GOCACHE"], { encoding: "utf8" })
      .trim()
      .split("\n");
    return { GOMODCACHE: modcache, GOCACHE: cache };
  } catch {
    return {};
  }
}

/** The policy pack, as every walkthrough passes it to `preview` and to `up` (where checks deferred at preview run). */
const PACK_FLAG = "--policy-pack node_modules/pulumi-svc/policies";

/**
 * Asserts a walkthrough's policy checks: its shell passes the pack to `pulumi preview` and
 * `pulumi up`, the first preview checked everything (no advisory, nothing left to `up`) and
 * both runs show the pack as passed.
 */
function assertPolicyRuns(blocks: Block[], out: string): void {
  const sh = blocks.map((b) => (b.kind === "sh" ? b.text : "")).join("\n");
  assert.match(sh, new RegExp(`^pulumi preview ${PACK_FLAG}$`, "m"));
  assert.match(sh, new RegExp(`^pulumi up --yes ${PACK_FLAG}$`, "m"));
  assert.doesNotMatch(out, /\[advisory\]|during preview/, "the first preview checks every Workflow");
  const passed = out.match(/✅ svc-limits@v[\d.]+ \(local: node_modules\/pulumi-svc\/policies\)/g) ?? [];
  assert.ok(passed.length >= 2, `the pack ran at preview and at up:\n${out}`);
}

/** Runs a bash script; resolves with its exit code and output. */
function runBash(script: string, cwd: string, env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn("bash", ["-c", script], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("close", (code) => resolve({ code, out }));
  });
}

describe("e2e: your own program", function () {
  this.timeout(900_000);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-svc-own-"));
  const home = path.join(root, "home");
  const program = path.join(root, "my-infra");
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it("the README's minimal program is the walkthrough's (its Pulumi.yaml and index.ts)", () => {
    const walkthrough = walkthroughBlocks(
      fs.readFileSync(WALKTHROUGH, "utf8"),
      TS_HEADING,
      `\n${YAML_HEADING}`,
    );
    const minimal = walkthroughBlocks(
      fs.readFileSync(path.join(REPO_ROOT, "README.md"), "utf8"),
      "## A minimal program",
    );
    const files = (blocks: Block[]) => blocks.filter((b) => b.kind === "file");
    assert.deepEqual(
      files(minimal),
      files(walkthrough).filter((b) => b.kind === "file" && b.name !== "package.json"),
    );
  });

  it("the walkthrough runs as written, in an empty folder, through toolchain/pulumi.sh", async () => {
    fs.mkdirSync(home);
    const readme = fs.readFileSync(WALKTHROUGH, "utf8");
    const blocks = walkthroughBlocks(readme, TS_HEADING, `\n${YAML_HEADING}`);
    assert.deepEqual(
      blocks.filter((b) => b.kind === "file").map((b) => (b.kind === "file" ? b.name : "")),
      ["package.json", "Pulumi.yaml", "index.ts"],
    );
    const port = await unusedPort();
    const stacksInClone = () => {
      const dir = path.join(REPO_ROOT, ".toolchain", "state", ".pulumi", "stacks");
      return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
    };
    const before = stacksInClone();
    const { code, out } = await runBash(walkthroughScript(blocks, port), root, userEnv(home));
    assert.equal(code, 0, out);
    // Automatic plugin acquisition stays on (no PULUMI_* of the tests): the svc provider is found
    // through Pulumi.yaml, with no download attempt.
    assert.doesNotMatch(out, /download(ing)? plugin|acquir/i, "no plugin is downloaded");
    assert.match(out, /\+ {2}svc:index:DlqRecovery +incident-42 +create/);

    // The emulator's start-up text, the policy preview, the drain, the outputs.
    assert.match(out, new RegExp(`pulumi config set svc:baseUrl http://127\\.0\\.0\\.1:${port}`));
    const packVersion = (
      JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "policies", "package.json"), "utf8")) as {
        version: string;
      }
    ).version.replace(/\./g, "\\.");
    assert.match(
      out,
      new RegExp(`✅ svc-limits@v${packVersion} \\(local: node_modules/pulumi-svc/policies\\)`),
    );
    const done = /DlqRecovery `incident-42`: (\d+) runs resumed in \d+ requests? \(\d+ runs\/s\), done/.exec(
      out,
    );
    assert.ok(done, out);
    const resumed = Number(done[1]);
    assert.ok(resumed > 50 && resumed < 500, `the orders runs of the 500: ${resumed}`);
    assert.match(out, new RegExp(`^${resumed}$`, "m"), "pulumi stack output resumedCount");
    assert.match(out, /svc emulator: SIGTERM, closing/);
    assertPolicyRuns(blocks, out);

    // The state is the user's (HOME/.pulumi-state), not the clone's; the run log in the program.
    assert.deepEqual(fs.readdirSync(path.join(home, ".pulumi-state", ".pulumi", "stacks")), ["my-infra"]);
    assert.deepEqual(stacksInClone(), before, "nothing of the user's stack in the clone's .toolchain/");
    const logDir = path.join(program, "svc-recovery", "incident-42");
    const [log] = fs.readdirSync(logDir);
    assert.equal(fs.readFileSync(path.join(logDir, log), "utf8").trim().split("\n").length, resumed);
    // The emulator is stopped: its port is free again.
    await new Promise<void>((resolve, reject) => {
      const server = net
        .createServer()
        .once("error", reject)
        .listen(port, "127.0.0.1", () => server.close(() => resolve()));
    });
  });

  it("the YAML walkthrough runs as written, in an empty folder, with no plugin download", async () => {
    fs.mkdirSync(home, { recursive: true });
    const readme = fs.readFileSync(WALKTHROUGH, "utf8");
    const blocks = walkthroughBlocks(readme, YAML_HEADING);
    assert.deepEqual(
      blocks.map((b) => (b.kind === "file" ? b.name : b.kind)),
      ["sh", "Pulumi.yaml", "sh"],
    );
    const port = await unusedPort();
    // Automatic plugin acquisition stays on (no PULUMI_* of the tests): a download attempt would show.
    const { code, out } = await runBash(walkthroughScript(blocks, port), root, userEnv(home));
    assert.equal(code, 0, out);
    assert.doesNotMatch(out, /download|acquir/i, "no plugin is downloaded");
    assert.match(out, /\+ {2}svc:index:DlqRecovery +incident42 +create/);
    assert.match(out, /\+ {2}svc:index:Workflow +orders +create/);
    const done = /DlqRecovery `incident42`: (\d+) runs resumed in \d+ requests? \(\d+ runs\/s\), done/.exec(
      out,
    );
    assert.ok(done, out);
    const resumed = Number(done[1]);
    assert.ok(resumed > 50 && resumed < 500, `the orders runs of the 500: ${resumed}`);
    assert.match(out, new RegExp(`^${resumed}$`, "m"), "pulumi stack output resumedCount");
    assert.match(out, /svc emulator: SIGTERM, closing/);
    assertPolicyRuns(blocks, out);
    const stacks = fs.readdirSync(path.join(home, ".pulumi-state", ".pulumi", "stacks"));
    assert.ok(stacks.includes("my-yaml-infra"), stacks.join(", "));
  });

  it(`the tarball beside @pulumi/pulumi ${NEWEST_SDK} leaves one copy of the SDK`, async () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
      version: string;
    };
    const tarball = path.join(program, `pulumi-svc-${version}.tgz`);
    assert.ok(fs.existsSync(tarball), `the walkthrough's tarball ${tarball} (run the whole file)`);
    const dir = path.join(root, "newest-sdk");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "newest-sdk", private: true }));
    const install = await runBash(
      `npm install --no-audit --no-fund --loglevel=error ${JSON.stringify(tarball)} @pulumi/pulumi@${NEWEST_SDK}`,
      dir,
      userEnv(home),
    );
    assert.equal(install.code, 0, install.out);
    const ls = await runBash("npm ls @pulumi/pulumi --all --json", dir, userEnv(home));
    assert.equal(ls.code, 0, ls.out);
    const versions = new Set<string>();
    const walk = (deps: Record<string, { version?: string; dependencies?: object }> = {}): void => {
      for (const [name, d] of Object.entries(deps)) {
        if (name === "@pulumi/pulumi" && d.version) versions.add(d.version);
        walk(d.dependencies as typeof deps);
      }
    };
    walk((JSON.parse(ls.out) as { dependencies?: Record<string, { version?: string }> }).dependencies);
    assert.deepEqual([...versions], [NEWEST_SDK]);
    const copies = await runBash(
      "find node_modules -path '*/@pulumi/pulumi/package.json' | wc -l",
      dir,
      userEnv(home),
    );
    assert.equal(copies.out.trim(), "1", "one @pulumi/pulumi folder in node_modules");
    const load = await runBash(
      `node -e 'require("pulumi-svc"); require("pulumi-svc/providers/dlqRecovery")'`,
      dir,
      userEnv(home),
    );
    assert.equal(load.code, 0, load.out);
  });
});
