/**
 * `pulumi-resource-svc`: the svc resource provider's entry. The engine runs the executable
 * `pulumi-resource-svc` of this folder (a shell script: `node index.js <engine address>`) when a
 * program's `Pulumi.yaml` names the folder (`plugins: providers: [{name: svc, path: …}]`).
 *
 * @packageDocumentation
 */
import "../client/requireNode"; // first: one clear error on a Node.js older than 22.19
import * as fs from "node:fs";
import * as path from "node:path";
import { engineAt, engineAddressOf } from "./engine";
import { serve, servedTypes } from "./server";

/** The package's version (`package.json`, two folders up from `dist/provider/`, one from `provider/`). */
function packageVersion(): string {
  for (const rel of ["../../package.json", "../package.json"]) {
    const file = path.join(__dirname, rel);
    if (fs.existsSync(file))
      return (JSON.parse(fs.readFileSync(file, "utf8")) as { version: string }).version;
  }
  return "0.0.0";
}

void serve(packageVersion(), servedTypes(engineAt(engineAddressOf(process.argv.slice(2)))));
