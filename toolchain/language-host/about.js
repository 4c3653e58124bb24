// The host's descriptive RPCs: GetPluginInfo (its version), About (`pulumi about`: node and the
// package manager), RuntimeOptionsPrompts (`pulumi new` asks for the package manager) and
// Template. They answer as the official host does so the CLI's output is the same.
"use strict";

const { spawnSync } = require("node:child_process");

const grpc = require("@grpc/grpc-js");
const langproto = require("@pulumi/pulumi/proto/language_pb");
const pluginproto = require("@pulumi/pulumi/proto/plugin_pb");

const { childEnv, lookPath } = require("./helpers");
const { parseOptionsOrExplain } = require("./options");
const { resolvePackageManager } = require("./package-manager");

/** The GetPluginInfo RPC: the version the shim passed (PULUMI_SVC_LANGUAGE_HOST_VERSION). */
function getPluginInfo(state, _call, cb) {
  cb(null, new pluginproto.PluginInfo().setVersion(state.version));
}

/** The first line `exe --version` prints, or "" when it fails. */
function versionOf(exe) {
  const r = spawnSync(exe, ["--version"], {
    encoding: "utf8",
    env: childEnv(process.env, {}),
    timeout: 30_000,
  });
  return r.status === 0 ? r.stdout.trim() : "";
}

/** The About RPC: the `node` on PATH and its version, the package manager and its version. */
function about(call, cb) {
  const info = call.request.getInfo();
  try {
    const opts = parseOptionsOrExplain(info);
    const dir = (info && info.getProgramDirectory()) || process.cwd();
    let pm;
    try {
      pm = resolvePackageManager(opts.packagemanager, dir);
    } catch (e) {
      throw new Error(`could not resolve packagemanager: ${e.message}`, { cause: e });
    }
    const node = lookPath("node");
    if (!node) throw new Error('could not find executable "node"');
    const res = new langproto.AboutResponse().setExecutable(node).setVersion(versionOf(node));
    res.getMetadataMap().set("packagemanager", pm.name);
    const pmVersion = versionOf(pm.exe);
    if (/^\d+\.\d+\.\d+/.test(pmVersion)) res.getMetadataMap().set("packagemanagerVersion", pmVersion);
    else res.getMetadataMap().set("packagemanagerVersion", "");
    cb(null, res);
  } catch (e) {
    cb({ code: grpc.status.UNKNOWN, details: e.message });
  }
}

/** The RuntimeOptionsPrompts RPC: asks for `packagemanager` unless set, found ones first. */
function runtimeOptionsPrompts(call, cb) {
  const info = call.request.getInfo();
  const raw = (info && info.getOptions() && info.getOptions().toJavaScript()) || {};
  const res = new langproto.RuntimeOptionsResponse();
  if (!("packagemanager" in raw)) {
    const STRING = langproto.RuntimeOptionPrompt.RuntimeOptionType.STRING;
    const found = ["npm", "pnpm", "yarn", "bun"].map((name) => ({
      name,
      found: lookPath(name) !== undefined,
    }));
    found.sort((a, b) => (a.found === b.found ? 0 : a.found ? -1 : 1));
    const value = (s, display) => {
      const v = new langproto.RuntimeOptionPrompt.RuntimeOptionValue()
        .setPrompttype(STRING)
        .setStringvalue(s);
      if (display !== undefined) v.setDisplayname(display);
      return v;
    };
    res.setPromptsList([
      new langproto.RuntimeOptionPrompt()
        .setKey("packagemanager")
        .setDescription("The package manager to use for installing dependencies")
        .setPrompttype(STRING)
        .setChoicesList(found.map((p) => value(p.name, p.found ? p.name : `${p.name} [not found]`)))
        .setDefault(value("npm")),
    ]);
  }
  cb(null, res);
}

/** The Template RPC: nothing to do for Node.js templates (as in the official host). */
function template(_call, cb) {
  cb(null, new langproto.TemplateResponse());
}

module.exports = { getPluginInfo, about, runtimeOptionsPrompts, template };
