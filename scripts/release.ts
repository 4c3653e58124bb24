/**
 * `npm run release`: writes `release/<version>/` (git-ignored), the release of the version in
 * package.json: the provider plugin archive of each platform (toolchain/release/plugin.ts), the
 * policy pack with its dependencies (toolchain/release/policyPack.ts), the npm tarball, the Python
 * wheel and sdist and the Go module as a GOPROXY folder (toolchain/release/packages.ts), and
 * `checksums.txt`, the SHA-256 of each file (`sha256sum -c checksums.txt` verifies them).
 * `npm run release -- --plugin-download-url <url>` (or SVC_PLUGIN_DOWNLOAD_URL) sets the schema's
 * `pluginDownloadURL` in the plugins and the Python packages; none is set otherwise.
 * Everything it downloads comes from the package registries (npm, PyPI for the Python build
 * environment, the Go module proxy for toolchain/go).
 *
 * The plugins of linux-amd64 (tested by test/e2e/release-plugin.test.ts), linux-arm64,
 * windows-amd64 and darwin-amd64 (built and checksummed, untested here; darwin unsigned): each line
 * of the output says which. A platform whose Node.js package is not served at its version is named
 * as not built, and the rest of the release is still written.
 *
 * @packageDocumentation
 */
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { REPO_ROOT } from "../toolchain/pulumi-project";
import { goProxy, npmPackage, pythonPackages } from "../toolchain/release/packages";
import { policyPackArchive } from "../toolchain/release/policyPack";
import {
  NodeUnavailableError,
  PLUGIN_TARGETS,
  nodeVersionOf,
  platformOf,
  pluginArchive,
  releaseVersions,
  type ReleaseVersions,
} from "../toolchain/release/plugin";

/** The files under `dir`, as paths relative to it, sorted. */
function filesUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => fs.statSync(path.join(dir, f)).isFile())
    .sort();
}

/** `<sha256>  <path>` lines of the files under `dir`, sorted by path (the format `sha256sum -c` reads). */
function checksums(dir: string): string {
  return filesUnder(dir)
    .filter((f) => f !== "checksums.txt")
    .map(
      (f) =>
        `${crypto
          .createHash("sha256")
          .update(fs.readFileSync(path.join(dir, f)))
          .digest("hex")}  ${f}\n`,
    )
    .join("");
}

/** Megabytes, one decimal; kilobytes under 1 MB. */
function mb(bytes: number): string {
  return bytes < 1e6 ? `${(bytes / 1e3).toFixed(1)} kB` : `${(bytes / 1e6).toFixed(1)} MB`;
}

/** The size of a file, or of all files under a folder. */
function sizeOf(p: string): number {
  return fs.statSync(p).isFile()
    ? fs.statSync(p).size
    : filesUnder(p).reduce((n, f) => n + sizeOf(path.join(p, f)), 0);
}

/**
 * Builds artifacts (files or folders) and copies them into `out`, printing each one's size, the
 * build time and `note`.
 */
async function add(out: string, build: () => Promise<string | string[]>, note = ""): Promise<void> {
  const t0 = Date.now();
  const built = await build();
  const s = ((Date.now() - t0) / 1000).toFixed(1);
  for (const artifact of Array.isArray(built) ? built : [built]) {
    const dest = path.join(out, path.basename(artifact));
    fs.cpSync(artifact, dest, { recursive: true });
    console.log(`  ${path.basename(dest)}  ${mb(sizeOf(dest))}  (${s} s)${note ? `  ${note}` : ""}`);
  }
}

/**
 * Builds every platform's plugin into `out`; returns the platforms not built, each with why (its
 * Node.js package is not served at its version). Any other failure fails the release.
 */
async function plugins(out: string, v: ReleaseVersions): Promise<string[]> {
  const missing: string[] = [];
  for (const t of PLUGIN_TARGETS) {
    const note = `${platformOf(t)}, Node.js ${nodeVersionOf(t, v)}: ${t.note}`;
    try {
      await add(out, () => pluginArchive(t, v), note);
    } catch (e) {
      if (!(e instanceof NodeUnavailableError)) throw e;
      missing.push(`${platformOf(t)} (${e.message})`);
      console.log(`  NOT BUILT: ${platformOf(t)}: ${e.message}`);
    }
  }
  return missing;
}

async function main(): Promise<void> {
  const started = Date.now();
  const { values } = parseArgs({ options: { "plugin-download-url": { type: "string" } } });
  const v = releaseVersions(values["plugin-download-url"]);
  const out = path.join(REPO_ROOT, "release", v.version);
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  console.log(`release ${v.version} into release/${v.version}/`);
  console.log(
    `  pluginDownloadURL: ${v.pluginDownloadURL ?? "none (give one with --plugin-download-url <url>)"}`,
  );
  const missing = await plugins(out, v);
  await add(out, () => policyPackArchive(v), "the policy pack: runs in Node.js >= 22.19");
  await add(out, async () => npmPackage(), "npm install <file>: the TypeScript package");
  await add(out, async () => pythonPackages(v), "pip install <file>");
  await add(out, async () => goProxy(v), `GOPROXY=file://…/goproxy: module …/sdk/go v${v.version}`);
  fs.writeFileSync(path.join(out, "checksums.txt"), checksums(out));
  console.log(`  checksums.txt (verify: cd release/${v.version} && sha256sum -c checksums.txt)`);
  console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (missing.length > 0) console.log(`not built: ${missing.join("; ")}`);
}

main().catch((e: unknown) => {
  console.error(`npm run release: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  process.exit(1);
});
