/**
 * The Node.js version check: every entry point of the built package throws one error naming the
 * version needed and the version found, before anything else loads (undici would fail later
 * with a TypeError); the `pulumi-svc-emulator` command prints that message alone, with no stack
 * trace, and exits 1. An older Node is simulated by a preload that sets `process.versions.node`,
 * and the command is also run with a real Node 20 where the machine has one (`/usr/bin/node`).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  MIN_NODE_VERSION,
  NodeVersionError,
  assertNodeVersion,
  exitOnUnsupportedNode,
  nodeVersionSupported,
} from "../../../client/nodeVersion";

const ROOT = path.resolve(__dirname, "../../..");

/** The entry points of the package, as built in dist/: every module `pulumi-svc/providers/*` can load. */
const ENTRY_POINTS = [
  "dist/components/index.js", // pulumi-svc
  "dist/client/index.js", // pulumi-svc/client
  "dist/drain/index.js", // pulumi-svc/drain
  ...fs
    .readdirSync(path.join(ROOT, "dynamic"))
    .filter((f) => f.endsWith(".ts"))
    .map((f) => `dist/dynamic/${f.replace(/\.ts$/, ".js")}`), // pulumi-svc/providers/*
  "dist/policies/index.js", // the policy pack
];

/** The package's command, which exits with the message rather than throwing. */
const COMMAND = "dist/bin/pulumi-svc-emulator.js";

/** A real Node.js older than 22.19 on this machine, if any (Debian's `/usr/bin/node` 20 here). */
function oldNode(): string | undefined {
  const r = spawnSync("/usr/bin/node", ["-p", "process.versions.node"], { encoding: "utf8" });
  return r.status === 0 && !nodeVersionSupported(r.stdout.trim()) ? "/usr/bin/node" : undefined;
}

/** What the command prints on stderr on Node.js `found`: the message alone, one line. */
function commandMessage(found: string): string {
  return `pulumi-svc-emulator: ${new NodeVersionError(found).message}\n`;
}

describe("Node.js version check", function () {
  this.timeout(120_000);

  it("accepts 22.19.0 and newer, refuses older ones", () => {
    assert.equal(MIN_NODE_VERSION, "22.19.0");
    for (const v of ["22.19.0", "v22.19.0", "22.20.1", "23.0.0", "24.21.0"])
      assert.ok(nodeVersionSupported(v), v);
    for (const v of ["20.20.2", "v20.11.1", "22.18.9", "22.0.0", "18.19.0"])
      assert.ok(!nodeVersionSupported(v), v);
  });

  it("names the version needed and the version found", () => {
    assert.throws(
      () => assertNodeVersion("20.11.1"),
      (e: unknown) =>
        e instanceof NodeVersionError &&
        e.code === "SVC_NODE_VERSION" &&
        e.message.startsWith("pulumi-svc needs Node.js >= 22.19.0; this is Node.js 20.11.1."),
    );
    assert.doesNotThrow(() => assertNodeVersion("22.19.0"));
  });

  it("a command goes on on a supported Node (exitOnUnsupportedNode)", () => {
    const exits: number[] = [];
    exitOnUnsupportedNode("cmd", "24.1.0", (c) => exits.push(c));
    assert.deepEqual(exits, []);
  });

  it("the pulumi-svc-emulator command on Node 20: the message, exit 1, no stack trace", function () {
    assert.ok(fs.existsSync(path.join(ROOT, COMMAND)), "dist/ is missing: run `bash toolchain/build.sh`");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "node-version-"));
    const preload = path.join(dir, "node20.js");
    fs.writeFileSync(preload, 'Object.defineProperty(process.versions, "node", { value: "20.11.1" });\n');
    const runs: { node: string; args: string[]; found: string }[] = [
      { node: process.execPath, args: ["-r", preload], found: "20.11.1" },
    ];
    const real = oldNode();
    if (real !== undefined) {
      const found = spawnSync(real, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout.trim();
      runs.push({ node: real, args: [], found });
    }
    try {
      for (const { node, args, found } of runs) {
        const r = spawnSync(node, [...args, path.join(ROOT, COMMAND), "--port", "0"], {
          encoding: "utf8",
          timeout: 30_000,
        });
        assert.equal(r.status, 1, `${node}: exit code (stderr: ${r.stderr})`);
        assert.equal(r.stderr, commandMessage(found), `${node}: stderr is the message alone`);
        assert.equal(r.stdout, "", `${node}: nothing on stdout (the emulator did not start)`);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    if (real === undefined) this.skip(); // checked with the preload only: no real Node < 22.19 here
  });

  it("every entry point of dist/ throws that one error on Node 20", () => {
    const missing = ENTRY_POINTS.filter((f) => !fs.existsSync(path.join(ROOT, f)));
    assert.deepEqual(missing, [], "dist/ is missing files: run `bash toolchain/build.sh`");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "node-version-"));
    const preload = path.join(dir, "node20.js");
    fs.writeFileSync(preload, 'Object.defineProperty(process.versions, "node", { value: "20.11.1" });\n');
    try {
      for (const entry of ENTRY_POINTS) {
        const r = spawnSync(
          process.execPath,
          ["-r", preload, "-e", `require(${JSON.stringify(path.join(ROOT, entry))})`],
          {
            encoding: "utf8",
          },
        );
        assert.notEqual(r.status, 0, entry);
        const errors = r.stderr.split("\n").filter((l) => /^[A-Za-z]*Error\b/.test(l));
        assert.deepEqual(
          errors,
          [
            "NodeVersionError: pulumi-svc needs Node.js >= 22.19.0; this is Node.js 20.11.1. " +
              new NodeVersionError("x").message.split("Node.js x. ")[1],
          ],
          `${entry}: ${r.stderr}`,
        );
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
