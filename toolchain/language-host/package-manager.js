// Which package manager a program uses and where its workspace root is (the official host's
// npm.ResolvePackageManager and npm.FindWorkspaceRoot). InstallDependencies, About and
// GetProgramDependencies all need the same answer, so it is decided here once.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

const { lookPath, searchUp } = require("./helpers");

/** The package manager to use (npm.ResolvePackageManager): the option, else the lock file found. */
function resolvePackageManager(option, dir) {
  const pick = (name) => {
    const exe = lookPath(name);
    return exe ? { name, exe } : undefined;
  };
  if (option !== "auto") {
    const pm = pick(option);
    if (!pm) throw new Error(`could not find ${option} on the $PATH`);
    return pm;
  }
  const truthy = /^(1|true|yes)$/i.test(process.env.PULUMI_PREFER_YARN || "");
  if ((truthy || searchUp(dir, "yarn.lock")) && pick("yarn")) return pick("yarn");
  if (searchUp(dir, "pnpm-lock.yaml") && pick("pnpm")) return pick("pnpm");
  if ((searchUp(dir, "bun.lock") || searchUp(dir, "bun.lockb")) && pick("bun")) return pick("bun");
  const npm = pick("npm");
  if (!npm) {
    throw new Error(
      "could not find npm on the $PATH; npm is installed with Node.js available at https://nodejs.org/",
    );
  }
  return npm;
}

/** Go's filepath.Match for one path segment: `*`, `?` and `[...]`. */
function segmentMatches(pattern, name) {
  let re = "^";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else if (c === "[") {
      const j = pattern.indexOf("]", i + 1);
      if (j < 0) return false;
      re += `[${pattern
        .slice(i + 1, j)
        .replace(/^\^/, "^")
        .replace(/\\/g, "\\\\")}]`;
      i = j;
    } else re += c.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  return new RegExp(`${re}$`).test(name);
}

/** True when `dir` is `base/<glob>` (each segment of the glob matched as filepath.Glob does). */
function globMatchesDir(base, glob, dir) {
  const rel = path.relative(base, dir);
  if (!rel || rel.startsWith("..")) return false;
  const want = glob.split("/").filter((s) => s !== "" && s !== ".");
  const got = rel.split(path.sep);
  return want.length === got.length && want.every((p, i) => segmentMatches(p, got[i]));
}

/** The `packages:` list of a pnpm-workspace.yaml (its simple list form). */
function pnpmWorkspaces(file) {
  const out = [];
  let inPackages = false;
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (/^packages:\s*$/.test(line)) inPackages = true;
    else if (inPackages && /^\s+-\s*/.test(line))
      out.push(
        line
          .replace(/^\s+-\s*/, "")
          .replace(/^['"]|['"]\s*$/g, "")
          .trim(),
      );
    else if (inPackages && /^\S/.test(line)) inPackages = false;
  }
  return out;
}

/** npm.FindWorkspaceRoot: the npm/yarn/pnpm workspace that contains the program, if any. */
function findWorkspaceRoot(start) {
  const manifestDir = searchUp(start, "package.json");
  if (!manifestDir) return undefined;
  for (let d = manifestDir; path.dirname(d) !== d; d = path.dirname(d)) {
    const manifest = path.join(d, "package.json");
    if (!fs.existsSync(manifest)) continue;
    let globs;
    const pnpm = path.join(d, "pnpm-workspace.yaml");
    if (fs.existsSync(pnpm)) globs = pnpmWorkspaces(pnpm);
    else {
      const ws = JSON.parse(fs.readFileSync(manifest, "utf8")).workspaces;
      globs = Array.isArray(ws) ? ws : (ws && Array.isArray(ws.packages) && ws.packages) || [];
    }
    if (globs.some((g) => globMatchesDir(d, g, manifestDir))) return d;
  }
  return undefined;
}

module.exports = { resolvePackageManager, findWorkspaceRoot };
