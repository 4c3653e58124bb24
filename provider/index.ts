/**
 * `pulumi-resource-svc`: the svc resource provider's entry. The engine runs the executable
 * `pulumi-resource-svc` of this folder (a shell script: `node index.js <engine address>`) when a
 * program's `Pulumi.yaml` names the folder (`plugins: providers: [{name: svc, path: …}]`). The
 * release bundles it into a single executable, `pulumi-resource-svc` itself, that needs no Node.js
 * (`npm run release`, toolchain/release/plugin.ts).
 *
 * @packageDocumentation
 */
import "../client/requireNode"; // first: one clear error on a Node.js older than 22.19
import * as fs from "node:fs";
import * as path from "node:path";
import { engineAt, engineAddressOf } from "./engine";
import { serve, servedTypes } from "./server";

/**
 * The package's version written into the single executable plugin by its bundler
 * (`scripts/release.ts`, esbuild's `define`): it has no `package.json` beside it.
 */
declare const SVC_BUNDLED_VERSION: string | undefined;

/** The package's version (`package.json`, two folders up from `dist/provider/`, one from `provider/`). */
function packageVersion(): string {
  if (typeof SVC_BUNDLED_VERSION === "string") return SVC_BUNDLED_VERSION;
  for (const rel of ["../../package.json", "../package.json"]) {
    const file = path.join(__dirname, rel);
    if (fs.existsSync(file))
      return (JSON.parse(fs.readFileSync(file, "utf8")) as { version: string }).version;
  }
  return "0.0.0";
}

void serve(packageVersion(), servedTypes(engineAt(engineAddressOf(process.argv.slice(2)))));
