/**
 * The CLI benches run programs that import the built package `pulumi-svc` (dist/). This says
 * whether dist/ is missing or older than the sources, so a stale build is never measured silently.
 *
 * The rule itself (which sources, hashed how, against which stamp) is written once, in
 * toolchain/build.sh; this asks it with `bash toolchain/build.sh --check`, which builds nothing.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { REPO_ROOT } from "./emulator";

/** A problem with the build, or undefined when dist/ is current by toolchain/build.sh's rule. */
export function buildProblem(): string | undefined {
  const r = spawnSync("bash", [path.join(REPO_ROOT, "toolchain", "build.sh"), "--check"], {
    cwd: REPO_ROOT,
    encoding: "utf8",
  });
  if (r.status === 0) return undefined;
  const why = `${r.stderr ?? ""}`.trim().replace(/^\[build\] /, "");
  return why || `toolchain/build.sh --check failed (${r.error?.message ?? `exit ${r.status}`})`;
}
