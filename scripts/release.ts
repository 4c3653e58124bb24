/**
 * `npm run release`: writes `release/<version>/` (git-ignored), the release of the version in
 * package.json: the provider plugin archive of each platform (toolchain/release/plugin.ts), the
 * policy pack with its dependencies (toolchain/release/policyPack.ts) and `checksums.txt`, the
 * SHA-256 of each artifact (`sha256sum -c checksums.txt` verifies them). Everything it downloads
 * comes from the npm registry.
 *
 * Built today: the linux-amd64 plugin and the policy pack (both tested by
 * test/e2e/release-plugin.test.ts).
 *
 * @packageDocumentation
 */
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO_ROOT } from "../toolchain/pulumi-project";
import { policyPackArchive } from "../toolchain/release/policyPack";
import { LINUX_AMD64, pluginArchive, releaseVersions, type PluginTarget } from "../toolchain/release/plugin";

/** The platforms whose plugin is built. */
const TARGETS: PluginTarget[] = [LINUX_AMD64];

/** `<sha256>  <name>` lines of the files of `dir`, sorted by name (the format `sha256sum -c` reads). */
function checksums(dir: string): string {
  return fs
    .readdirSync(dir)
    .filter((f) => f !== "checksums.txt")
    .sort()
    .map(
      (f) =>
        `${crypto
          .createHash("sha256")
          .update(fs.readFileSync(path.join(dir, f)))
          .digest("hex")}  ${f}\n`,
    )
    .join("");
}

/** Megabytes, one decimal. */
function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** Builds one artifact and copies it into `out`, printing its size and build time. */
async function add(out: string, build: () => Promise<string>): Promise<void> {
  const t0 = Date.now();
  const artifact = await build();
  const dest = path.join(out, path.basename(artifact));
  fs.copyFileSync(artifact, dest);
  const s = ((Date.now() - t0) / 1000).toFixed(1);
  console.log(`  ${path.basename(dest)}  ${mb(fs.statSync(dest).size)}  (${s} s)`);
}

async function main(): Promise<void> {
  const started = Date.now();
  const v = releaseVersions();
  const out = path.join(REPO_ROOT, "release", v.version);
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  console.log(`release ${v.version} (Node.js ${v.node} in the plugins) into release/${v.version}/`);
  for (const t of TARGETS) await add(out, () => pluginArchive(t, v));
  await add(out, () => policyPackArchive(v));
  fs.writeFileSync(path.join(out, "checksums.txt"), checksums(out));
  console.log(`  checksums.txt (verify: cd release/${v.version} && sha256sum -c checksums.txt)`);
  console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((e: unknown) => {
  console.error(`npm run release: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  process.exit(1);
});
