/**
 * The CLI benches run programs that import the built package `pulumi-svc` (dist/). This says
 * whether dist/ is missing or older than the sources, so a stale build is never measured silently.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO_ROOT } from "./emulator";

function newest(dir: string): number {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p));
    else if (e.name.endsWith(".ts") && !e.name.endsWith(".d.ts")) t = Math.max(t, fs.statSync(p).mtimeMs);
  }
  return t;
}

/** A problem with the build, or undefined when dist/ is at least as new as every source. */
export function buildProblem(): string | undefined {
  const entry = path.join(REPO_ROOT, "dist", "components", "index.js");
  if (!fs.existsSync(entry)) {
    return "dist/ is missing: run `bash toolchain/with-env.sh tsc -p tsconfig.build.json` first";
  }
  const built = fs.statSync(entry).mtimeMs;
  const src = Math.max(
    ...["components", "client", "emulator", "policies"].map((d) => newest(path.join(REPO_ROOT, d))),
  );
  return src > built + 1000
    ? "dist/ is older than the sources: run `bash toolchain/with-env.sh tsc -p tsconfig.build.json` first"
    : undefined;
}
