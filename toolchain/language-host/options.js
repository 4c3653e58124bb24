// The runtime options of Pulumi.yaml (`runtime.options`) and the stack configuration, turned
// into what programs and plugins receive. One place, because Run, RunPlugin,
// InstallDependencies, About and GetProgramDependencies must validate the options identically
// (same messages as the official host).
"use strict";

const PACKAGE_MANAGERS = ["auto", "npm", "yarn", "pnpm", "bun"];

/** The runtime options of Pulumi.yaml (`runtime.options`), validated as the official host does. */
function parseOptions(info) {
  const raw = (info && info.getOptions && info.getOptions() && info.getOptions().toJavaScript()) || {};
  const opts = { typescript: true, tsconfigpath: "", nodeargs: "", packagemanager: "auto" };
  if ("typescript" in raw) {
    if (typeof raw.typescript !== "boolean") throw new Error("typescript option must be a boolean");
    opts.typescript = raw.typescript;
  }
  if ("tsconfig" in raw) {
    if (typeof raw.tsconfig !== "string") throw new Error("tsconfigpath option must be a string");
    opts.tsconfigpath = raw.tsconfig;
  }
  if ("nodeargs" in raw) {
    if (typeof raw.nodeargs !== "string") throw new Error("nodeargs option must be a string");
    opts.nodeargs = raw.nodeargs;
  }
  if ("packagemanager" in raw) {
    const pm = raw.packagemanager;
    if (typeof pm !== "string") throw new Error("packagemanager option must be a string");
    if (!PACKAGE_MANAGERS.includes(pm)) {
      throw new Error(`packagemanager option must be one of auto, npm, yarn, pnpm or bun, got "${pm}"`);
    }
    opts.packagemanager = pm;
  }
  return opts;
}

/** {@link parseOptions}, its error prefixed as the official host's InstallDependencies and About do. */
function parseOptionsOrExplain(info) {
  try {
    return parseOptions(info);
  } catch (e) {
    throw new Error(`failed to parse options: ${e.message}`, { cause: e });
  }
}

/** The environment variables the runtime options turn into (Run and RunPlugin alike). */
function optionsEnv(opts) {
  const env = {};
  if (opts.typescript) env.PULUMI_NODEJS_TYPESCRIPT = "true";
  if (opts.tsconfigpath) env.PULUMI_NODEJS_TSCONFIG_PATH = opts.tsconfigpath;
  return env;
}

/** JSON of the stack config for a program, keys in the `<ns>:config:<name>` form the official host uses. */
function constructConfig(configMap) {
  const out = {};
  for (const [k, v] of configMap.entries()) {
    const legacy = /^([^:]+):config:(.+)$/.exec(k);
    const i = k.indexOf(":");
    if (legacy) out[k] = v;
    else if (i > 0 && i < k.length - 1) out[`${k.slice(0, i)}:config:${k.slice(i + 1)}`] = v;
    else {
      throw new Error(
        `could not parse ${k} as a configuration key (configuration keys should be of the form \`<namespace>:<name>\`)`,
      );
    }
  }
  return JSON.stringify(out);
}

module.exports = { parseOptions, parseOptionsOrExplain, optionsEnv, constructConfig };
