/**
 * The svc limits policy pack as a release artifact: `svc-limits-policy-pack-v<version>.tar.gz`,
 * one folder ready for `pulumi preview --policy-pack <folder>` once unpacked, with no
 * `npm install`:
 *
 * - `PulumiPolicy.yaml` (policies/PulumiPolicy.yaml) and a `package.json` (the version, `main`);
 * - `index.js`: the pack (`policies/index.ts`) bundled by esbuild with what it loads, @pulumi/policy,
 *   @pulumi/pulumi, gRPC, undici; TypeScript, which @pulumi/pulumi loads only to serialize
 *   closures (never in a policy pack), is left out (9 MB of the 14 MB bundle);
 * - `node_modules/@pulumi/pulumi/cmd/run-policy-pack/index.js`: the module the Node.js language
 *   host runs the pack with (toolchain/release/runPolicyPack.ts), since there is no @pulumi/pulumi
 *   installed beside the pack.
 *
 * It runs in Node.js >= 22.19, as every TypeScript policy pack runs in Node.js.
 *
 * @packageDocumentation
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Plugin } from "esbuild";
import { REPO_ROOT } from "../pulumi-project";
import { RELEASE_CACHE, bundleOptions, releaseVersions, tarGz, type ReleaseVersions } from "./plugin";

/** The pack's npm name (policies/package.json). */
const PACK_PACKAGE = "svc-limits-policy-pack";

/** The folder the archive holds, and the archive's name. */
export function policyPackName(version: string): { folder: string; archive: string } {
  const folder = `${PACK_PACKAGE}-v${version}`;
  return { folder, archive: `${folder}.tar.gz` };
}

/** Resolves `typescript` to an empty module: @pulumi/pulumi loads it at start but uses it only for closures. */
const NO_TYPESCRIPT: Plugin = {
  name: "no-typescript",
  setup(build) {
    build.onResolve({ filter: /^typescript$/ }, () => ({ path: "typescript", namespace: "no-typescript" }));
    build.onLoad({ filter: /.*/, namespace: "no-typescript" }, () => ({
      contents: "module.exports = {};",
      loader: "js",
    }));
  },
};

/** Bundles the pack and its runner into `dir`. */
async function bundlePack(dir: string, v: ReleaseVersions): Promise<void> {
  const esbuild = require("esbuild") as typeof import("esbuild");
  const common = bundleOptions(v.node);
  await esbuild.build({
    ...common,
    entryPoints: ["policies/index.ts"],
    outfile: path.join(dir, "index.js"),
    plugins: [NO_TYPESCRIPT],
  });
  await esbuild.build({
    ...common,
    entryPoints: ["toolchain/release/runPolicyPack.ts"],
    outfile: path.join(dir, "node_modules", "@pulumi", "pulumi", "cmd", "run-policy-pack", "index.js"),
  });
}

/** Writes the pack's `PulumiPolicy.yaml`, `package.json` and its runner's `package.json` into `dir`. */
function writeManifests(dir: string, v: ReleaseVersions): void {
  fs.copyFileSync(path.join(REPO_ROOT, "policies", "PulumiPolicy.yaml"), path.join(dir, "PulumiPolicy.yaml"));
  const source = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "policies", "package.json"), "utf8")) as {
    license: string;
  };
  const json = (o: object): string => `${JSON.stringify(o, null, 2)}\n`;
  fs.writeFileSync(
    path.join(dir, "package.json"),
    json({
      name: PACK_PACKAGE,
      version: v.version,
      private: true,
      description:
        "Policy pack: configured svc workflows must stay within the account's limits. index.js is the pack " +
        "bundled with its dependencies; run it with `pulumi preview --policy-pack <this folder>` (Node.js >= 22.19).",
      license: source.license,
      main: "index.js",
      engines: { node: ">=22.19" },
    }),
  );
  const pulumi = JSON.parse(
    fs.readFileSync(path.join(REPO_ROOT, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8"),
  ) as { version: string };
  fs.writeFileSync(
    path.join(dir, "node_modules", "@pulumi", "pulumi", "package.json"),
    json({
      name: "@pulumi/pulumi",
      version: pulumi.version,
      private: true,
      description: `Only the runner the Node.js language host starts the pack with; @pulumi/pulumi ${pulumi.version} is inside ../../index.js.`,
    }),
  );
}

/** Builds the pack's archive from the current sources; returns its path under the release cache. */
export async function policyPackArchive(v = releaseVersions()): Promise<string> {
  const { folder, archive } = policyPackName(v.version);
  const work = path.join(RELEASE_CACHE, "build", "policy-pack");
  fs.rmSync(work, { recursive: true, force: true });
  const dir = path.join(work, folder);
  await bundlePack(dir, v);
  writeManifests(dir, v);
  const out = path.join(RELEASE_CACHE, "policy-pack", archive);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  tarGz(work, folder, `${out}.tmp`);
  fs.renameSync(`${out}.tmp`, out);
  return out;
}
