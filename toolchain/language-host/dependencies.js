// GetProgramDependencies (`pulumi about`, update metadata): the program's packages and their
// versions, read from package-lock.json as npm's ListPackages does. Only npm projects are
// listed; the official host also reads yarn/pnpm/bun lock files, which this project never uses.
"use strict";

const path = require("node:path");

const grpc = require("@grpc/grpc-js");
const langproto = require("@pulumi/pulumi/proto/language_pb");

const { readJson, searchUp } = require("./helpers");
const { parseOptions } = require("./options");
const { resolvePackageManager } = require("./package-manager");

/** Every package a lock file records, lockfileVersion 2/3 (`packages`) or 1 (`dependencies`). */
function lockedPackages(lock) {
  const deps = [];
  if (lock.packages) {
    for (const [key, entry] of Object.entries(lock.packages)) {
      if (!key.includes("node_modules/")) continue;
      const name = key.slice(key.lastIndexOf("node_modules/") + "node_modules/".length);
      if (entry.version || entry.link) deps.push({ name, version: entry.version || "" });
    }
  } else {
    const walk = (o) => {
      for (const [name, entry] of Object.entries(o || {})) {
        deps.push({ name, version: entry.version || "" });
        walk(entry.dependencies);
      }
    };
    walk(lock.dependencies);
  }
  return deps;
}

/** The program's packages from package-lock.json (npm's ListPackages): direct ones unless `transitive`. */
function listPackages(dir, transitive) {
  const lockDir = searchUp(dir, "package-lock.json");
  if (!lockDir) throw new Error(`no package-lock.json found (searching upwards from ${dir})`);
  const lock = readJson(path.join(lockDir, "package-lock.json"));
  if (!lock) throw new Error(`could not parse ${path.join(lockDir, "package-lock.json")}`);
  const deps = lockedPackages(lock);
  if (transitive) return deps;
  const manifest = readJson(path.join(lockDir, "package.json"));
  if (!manifest) throw new Error(`could not find package.json or package.yaml in ${lockDir}`);
  const direct = new Set([
    ...Object.keys(manifest.dependencies || {}),
    ...Object.keys(manifest.devDependencies || {}),
  ]);
  const out = [];
  for (const d of deps) {
    if (direct.delete(d.name)) out.push(d);
  }
  return out;
}

/** The GetProgramDependencies RPC. */
function getProgramDependencies(call, cb) {
  const req = call.request;
  const info = req.getInfo();
  try {
    const opts = parseOptions(info);
    const dir = (info && info.getProgramDirectory()) || req.getPwd();
    const pm = resolvePackageManager(opts.packagemanager, dir);
    if (pm.name !== "npm")
      throw new Error(`listing the packages of ${pm.name} projects is not supported by this host`);
    let packages;
    try {
      packages = listPackages(dir, req.getTransitivedependencies());
    } catch (e) {
      throw new Error(`failed to get node dependencies: ${e.message}`, { cause: e });
    }
    const res = new langproto.GetProgramDependenciesResponse();
    res.setDependenciesList(
      packages.map((p) => new langproto.DependencyInfo().setName(p.name).setVersion(p.version)),
    );
    cb(null, res);
  } catch (e) {
    cb({ code: grpc.status.UNKNOWN, details: e.message });
  }
}

module.exports = { getProgramDependencies };
