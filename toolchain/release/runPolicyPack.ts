/**
 * The runner of the release's policy pack, shipped in it as
 * `node_modules/@pulumi/pulumi/cmd/run-policy-pack/index.js`: the module a Node.js language host
 * looks up from the pack's folder and runs with node (`<engine address> <pack folder>`) for
 * `pulumi preview --policy-pack <folder>`. Pulumi's own runner (in `@pulumi/pulumi`) first
 * registers ts-node and TypeScript to compile a pack written in TypeScript; the release's pack is
 * already one JavaScript file (toolchain/release/policyPack.ts) with @pulumi/pulumi and
 * @pulumi/policy inside, so this runner only loads it as Pulumi's does: the pack folder's
 * `package.json` `main`, process arguments cleared, any uncaught error printed and the exit code 1.
 *
 * @packageDocumentation
 */
import * as path from "node:path";

const positional = process.argv.slice(2).filter((a) => !a.startsWith("-"));
if (positional.length < 2) {
  console.error("usage: run-policy-pack <engine-address> <policy-pack-folder>");
  process.exit(1);
}
const pack = path.resolve(positional[1]);
const reported = new Set<unknown>();
const fail = (e: unknown): void => {
  if (reported.has(e)) return;
  reported.add(e);
  const text = e instanceof Error ? (e.stack ?? e.message) : String(e);
  console.error(`Running policy pack '${pack}' failed with an unhandled exception:\n${text}`);
  process.exitCode = 1;
};
process.on("uncaughtException", fail);
process.on("unhandledRejection", fail);
process.argv = process.argv.slice(0, 2);
require(pack);
