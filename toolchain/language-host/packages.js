// GetRequiredPackages: the resource plugins a program needs, found as the official host finds
// them (packages under node_modules whose package.json says `"pulumi": {"resource": true}`), so
// the engine installs and loads the same providers. GetRequiredPlugins stays UNIMPLEMENTED, as
// in the official host (server.js).
"use strict";

const fs = require("node:fs");
const path = require("node:path");

const langproto = require("@pulumi/pulumi/proto/language_pb");
const pluginproto = require("@pulumi/pulumi/proto/plugin_pb");

const { readJson } = require("./helpers");

const POLICY_PACK_FILES = ["PulumiPolicy.yaml", "PulumiPolicy.yml", "PulumiPolicy.json"];

/** The PackageDependency a package.json declares, or undefined when it is not a resource plugin. */
function packageDependency(file) {
  const pkg = readJson(file);
  const pulumi = pkg && pkg.pulumi;
  if (!pulumi || pulumi.resource !== true) return undefined;
  let name = pulumi.name;
  if (!name) {
    if (typeof pkg.name !== "string" || !pkg.name.startsWith("@pulumi/")) return undefined;
    name = pkg.name.slice("@pulumi/".length);
  }
  let version = pulumi.version || pkg.version;
  if (!version) return undefined;
  if (!version.startsWith("v")) version = `v${version}`;
  const dep = new pluginproto.PackageDependency().setName(name).setKind("resource").setVersion(version);
  if (pulumi.server) dep.setServer(pulumi.server);
  if (pulumi.parameterization) {
    const p = pulumi.parameterization;
    dep.setParameterization(
      new pluginproto.PackageParameterization()
        .setName(p.name || "")
        .setVersion(p.version || "")
        .setValue(Buffer.from(p.value || "", "base64")),
    );
  }
  return dep;
}

/** A directory entry as a real path and whether it is a directory (links followed); undefined if broken. */
function resolveEntry(dir, e) {
  const curr = path.join(dir, e.name);
  if (!e.isSymbolicLink()) return { curr, isDir: e.isDirectory() };
  try {
    const real = fs.realpathSync(curr);
    return { curr: real, isDir: fs.statSync(real).isDirectory() };
  } catch {
    return undefined;
  }
}

/**
 * Whether a directory whose entries are `entries` is a policy pack (it has a PulumiPolicy file),
 * read from the listing already made instead of a stat per candidate name and directory.
 */
function isPolicyPack(dir, entries) {
  return entries.some((e) => POLICY_PACK_FILES.includes(e.name) && fs.existsSync(path.join(dir, e.name)));
}

/**
 * getPackagesFromDir: plugin packages (`"pulumi": {"resource": true}`) under node_modules, deeply;
 * not into nested policy packs (their plugins are not the program's), the program's own folder
 * (`nested` false) excepted, as there.
 */
function packagesFromDir(dir, inNodeModules, visited, out, nested = false) {
  dir = path.resolve(dir);
  if (visited.has(dir)) return;
  visited.add(dir);
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  if (nested && isPolicyPack(dir, entries)) return;
  for (const e of entries) {
    const entry = resolveEntry(dir, e);
    if (!entry) continue;
    if (entry.isDir) {
      packagesFromDir(entry.curr, inNodeModules || path.basename(dir) === "node_modules", visited, out, true);
    } else if (inNodeModules && e.name === "package.json") {
      const dep = packageDependency(entry.curr);
      if (dep) out.push(dep);
    }
  }
}

/** The GetRequiredPackages RPC. */
function getRequiredPackages(call, cb) {
  const info = call.request.getInfo();
  const out = [];
  if (info && info.getProgramDirectory()) packagesFromDir(info.getProgramDirectory(), false, new Set(), out);
  cb(null, new langproto.GetRequiredPackagesResponse().setPackagesList(out));
}

module.exports = { getRequiredPackages };
