#!/usr/bin/env node
// Copyright the pulumi-svc authors. Licensed under Apache-2.0.
// One file on purpose (over 400 lines): it mirrors the one Go file it stands in for
// (sdk/nodejs/cmd/pulumi-language-nodejs/main.go) and is started as a single script by the shim.
//
// A Node.js language host for the Pulumi CLI ("pulumi-language-nodejs").
//
// Why this file exists: the official host is a Go module
// (github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3) that is published only as
// pseudo-versions, and the Go module proxy these machines reach does not serve it (every
// version answers 403 "This module version is not available"). The CLI itself (pkg/v3) and the
// SDK module are served, so toolchain/provision.sh builds the real CLI and uses this host in
// place of the Go one.
//
// Contract: programs and policy packs must behave under this host exactly as under the official
// one, so that what the tests prove holds for users of the official CLI distribution. It
// follows the official host's source (pulumi/pulumi, sdk/nodejs/cmd/pulumi-language-nodejs/
// main.go, as of v3.259, and sdk/v3 policy_proxy.go, which the CLI build here also uses):
//   - Run: `node <nodeargs> @pulumi/pulumi/cmd/run --monitor --engine --organization --project
//     --root-directory --stack --pwd <program dir> [--dry-run] --parallel [--tracing] <entry>
//     <args>`, resolved from the program's directory, with PULUMI_CONFIG (keys as
//     `<ns>:config:<name>`), PULUMI_CONFIG_SECRET_KEYS, PULUMI_NODEJS_TYPESCRIPT=true (unless
//     `typescript: false`) and PULUMI_NODEJS_TSCONFIG_PATH; the same runtime options
//     (`typescript`, `tsconfig`, `nodeargs`, `packagemanager`) with the same validation; exit
//     code 32 bails; a non-zero exit says "Program exited with non-zero exit code: N", plus the
//     out-of-memory hint when the program's stderr shows a V8 heap exhaustion.
//   - Cancel (and the end of the Run request): the program gets SIGINT and, if it has not
//     exited 5 s later, SIGKILL. After Cancel, a new Run fails ("context canceled"), as there.
//   - RunPlugin: `node @pulumi/pulumi/cmd/run-policy-pack <nodeargs> <args> <pack dir>` (cwd the
//     pack) for analyzers, `node @pulumi/pulumi/cmd/run-plugin <nodeargs> <plugin dir> <args>`
//     (cwd the request's pwd) otherwise, with the request's environment. (The official host
//     puts `nodeargs` after the script there too, so node itself does not see them.) For a
//     policy pack it first serves the Analyzer service itself (the policy proxy): it answers
//     Handshake and ConfigureStack, then starts the pack with PULUMI_CONFIG (the stack's config,
//     secrets decrypted), PULUMI_NODEJS_ORGANIZATION, _PROJECT, _STACK and _DRY_RUN, forwards
//     ConfigureStack to it and relays every other call. So `new pulumi.Config()`,
//     `pulumi.getStack()`, `getProject()`, `getOrganization()` and `runtime.isDryRun()` work
//     inside a pack. A plugin that fails ends the stream with the official host's error.
//   - InstallDependencies (`pulumi install`, `pulumi new`): "Installing dependencies...", the
//     npm/yarn workspace root if any, `npm install --loglevel=error` (or yarn, pnpm, bun: the
//     `packagemanager` option, else the lock file found), streamed, then a check that
//     node_modules exists.
//   - GetRequiredPackages: the packages under node_modules whose package.json says
//     `"pulumi": {"resource": true}` (not inside nested policy packs); GetRequiredPlugins is
//     UNIMPLEMENTED as there. About: the `node` on PATH, its version, the package manager and
//     its version. GetProgramDependencies: the program's packages from package-lock.json
//     (direct ones unless transitive). Handshake, GetPluginInfo, RuntimeOptionsPrompts
//     (packagemanager) and Template as there.
//
// Where it still differs, and why:
//   - No resource-monitor proxy and no `--sync` pipes in Run: the program talks to the engine's
//     monitor directly. The proxy only forwards calls; the pipes serve the deprecated
//     synchronous invokes, which @pulumi/pulumi 3.259 no longer makes.
//   - Not implemented (UNIMPLEMENTED): GenerateProgram, GenerateProject, GeneratePackage, Pack
//     and Link (`pulumi convert`, `pulumi package gen-sdk/add`): they are the Go code generator.
//     No debugger attach (`--attach-debugger`), no `-runtime bun`, no tracing spans of its own
//     (a `-tracing` endpoint is passed on to the program), no pseudo-terminal for
//     InstallDependencies (plain pipes), no fnm for `.nvmrc` (useLanguageVersionTools),
//     and GetProgramDependencies reads package-lock.json only (not yarn/pnpm/bun lock files):
//     none of them is used by this project or its tests.
//   - Programs and plugins run with the Node that runs this host (the project's Node 24),
//     which is put first on their PATH; the official host runs the `node` on PATH. With
//     toolchain/with-env.sh both are the same binary.
//   - When the engine goes away (the CLI was killed), the programs and plugins started here are
//     killed too and the host exits within about 2 s (the official host's health check ends
//     the host; its children then fail on the closed connections).
"use strict";

const { spawn, spawnSync } = require("node:child_process");
const fs = require("node:fs");
const net = require("node:net");
const path = require("node:path");

const grpc = require("@grpc/grpc-js");
const langproto = require("@pulumi/pulumi/proto/language_pb");
const langrpc = require("@pulumi/pulumi/proto/language_grpc_pb");
const analyzerproto = require("@pulumi/pulumi/proto/analyzer_pb");
const analyzerrpc = require("@pulumi/pulumi/proto/analyzer_grpc_pb");
const pluginproto = require("@pulumi/pulumi/proto/plugin_pb");

/** `google.protobuf.Empty` of the very module the generated service serializes with. */
const Empty = langrpc.LanguageRuntimeService.cancel.responseType;

/** Exit code the Node runtime uses after it has printed a user-actionable error. */
const EXITED_AFTER_USER_MESSAGE = 32;
/** How long a cancelled program has between SIGINT and SIGKILL (the official `WaitDelay`). */
const CANCEL_GRACE_MS = 5_000;

const VERSION = process.env.PULUMI_SVC_LANGUAGE_HOST_VERSION || "0.0.0";

// ------------------------------------------------------------------------------ arguments

/** Parses the flags the CLI passes (Go `flag` syntax: -name, -name=value, -name value). */
function parseArgs(argv) {
  const flags = { tracing: "", runtime: "nodejs", version: false };
  const withValue = new Set(["tracing", "runtime", "v", "root"]);
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      i++;
      break;
    }
    if (!a.startsWith("-") || a === "-") break;
    const body = a.replace(/^--?/, "");
    const eq = body.indexOf("=");
    const name = eq >= 0 ? body.slice(0, eq) : body;
    let value = eq >= 0 ? body.slice(eq + 1) : undefined;
    if (value === undefined && withValue.has(name)) value = argv[++i] ?? "";
    if (name === "tracing") flags.tracing = value;
    else if (name === "runtime") flags.runtime = value;
    else if (name === "version") flags.version = value === undefined || value === "true";
    // Other flags (-logtostderr, -v=N, ...) are accepted and ignored.
  }
  return { ...flags, engineAddress: argv[i] || "" };
}

const args = parseArgs(process.argv.slice(2));
if (args.version) {
  process.stdout.write(`${VERSION}\n`);
  process.exit(0);
}
if (args.runtime !== "nodejs") {
  console.error(`unsupported runtime: ${args.runtime} (this host runs nodejs only)`);
  process.exit(1);
}
let engineAddress = args.engineAddress;

// ------------------------------------------------------------------------------ helpers

/** Processes this host started; killed when the engine goes away. */
const children = new Set();
function track(child) {
  children.add(child);
  child.on("exit", () => children.delete(child));
  return child;
}

/**
 * Like the official host's health check: when the engine that started this host is gone (the
 * CLI was killed), end the programs and plugins started here and exit.
 */
let watching = false;
function watchEngine(address) {
  if (watching || !/^[\w.:[\]-]+:\d+$/.test(address)) return;
  watching = true;
  const i = address.lastIndexOf(":");
  const host = address.slice(0, i).replace(/^\[|\]$/g, "");
  const port = Number(address.slice(i + 1));
  let misses = 0;
  const timer = setInterval(() => {
    const socket = net.connect({ host, port });
    const done = (alive) => {
      socket.destroy();
      misses = alive ? 0 : misses + 1;
      if (misses >= 2) {
        for (const child of children) child.kill("SIGKILL");
        process.exit(0);
      }
    };
    socket.setTimeout(1000, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  }, 1000);
  timer.unref();
}

/** Splits a string like a POSIX shell (github.com/google/shlex): quotes, escapes, no expansion. */
function shlexSplit(s) {
  const words = [];
  let word = null;
  let quote = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === "\\" && i + 1 < s.length && '"\\$`\n'.includes(s[i + 1])) word += s[++i];
      else word += c;
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'" || c === '"') {
      quote = c;
      word = word ?? "";
    } else if (c === "\\" && i + 1 < s.length) {
      word = (word ?? "") + s[++i];
    } else if (c === "#" && word === null) {
      break; // a comment
    } else {
      word = (word ?? "") + c;
    }
  }
  if (quote) throw new Error("EOF found when expecting closing quote");
  if (word !== null) words.push(word);
  return words;
}

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
    if (!["auto", "npm", "yarn", "pnpm", "bun"].includes(pm)) {
      throw new Error(`packagemanager option must be one of auto, npm, yarn, pnpm or bun, got "${pm}"`);
    }
    opts.packagemanager = pm;
  }
  return opts;
}

/** The environment variables the runtime options turn into (Run and RunPlugin alike). */
function optionsEnv(opts) {
  const env = {};
  if (opts.typescript) env.PULUMI_NODEJS_TYPESCRIPT = "true";
  if (opts.tsconfigpath) env.PULUMI_NODEJS_TSCONFIG_PATH = opts.tsconfigpath;
  return env;
}

/** Resolves a module of @pulumi/pulumi from the program's directory, as the official host does. */
function locateModule(mod, programDir, isPlugin) {
  try {
    return require.resolve(mod, { paths: [programDir] });
  } catch (e) {
    if (e && e.code === "MODULE_NOT_FOUND") {
      const install = isPlugin ? `npm install in ${programDir}` : "pulumi install";
      throw new Error(`It looks like the Pulumi SDK has not been installed. Have you run ${install}?`, {
        cause: e,
      });
    }
    throw e;
  }
}

/** A child environment: `base`, plus `extra`, with this host's Node first on PATH. */
function childEnv(base, extra) {
  const env = { ...base, ...extra };
  env.PATH = `${path.dirname(process.execPath)}${path.delimiter}${env.PATH || ""}`;
  return env;
}

/** "K=V" strings to an object (later entries win, as in Go's os/exec). */
function envListToObject(list) {
  const env = {};
  for (const kv of list) {
    const i = kv.indexOf("=");
    if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return env;
}

/** The first directory, from `dir` upwards, that contains `name`; undefined if none. */
function searchUp(dir, name) {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, name))) return d;
    if (path.dirname(d) === d) return undefined;
  }
}

/** Finds an executable on PATH (exec.LookPath). */
function lookPath(name) {
  for (const dir of (process.env.PATH || "").split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (fs.statSync(p).isFile()) return p;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Go's exec error text for a process that exited with `code` or was killed by `signal`. */
function exitStatus(code, signal) {
  return code === null ? `signal: ${signal === "SIGKILL" ? "killed" : signal}` : `exit status ${code}`;
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

// ------------------------------------------------------------------------------ Run and Cancel

/** Set by the Cancel RPC; running programs are stopped, and later ones refused. */
let cancelled = false;
/** Stops for the programs that are running (SIGINT, then SIGKILL after the grace period). */
const runningPrograms = new Set();

/** Stops a program as `exec.CommandContext` with `Cancel: SIGINT` and `WaitDelay: 5s` does. */
function stopProgram(child) {
  if (child.exitCode !== null || child.signalCode !== null || child.stopping) return;
  child.stopping = true;
  if (!child.kill("SIGINT")) child.kill("SIGKILL");
  const timer = setTimeout(() => child.kill("SIGKILL"), CANCEL_GRACE_MS);
  child.once("exit", () => clearTimeout(timer));
}

const OOM_MARKERS = [
  "<--- Last few GCs --->",
  "Check failed: needs_context && current_scope_ == closure_scope_",
];
const OOM_MESSAGE =
  "Detected a possible out of memory error. Consider increasing the memory available to the nodejs process " +
  "by setting the `nodeargs` runtime option in Pulumi.yaml to `nodeargs: --max-old-space-size=<size>` where " +
  "`<size>` is the maximum memory in megabytes that can be allocated to nodejs. " +
  "See https://www.pulumi.com/docs/concepts/projects/project-file/#runtime-options";

function run(call, cb) {
  const req = call.request;
  const respond = (fields) => {
    const res = new langproto.RunResponse();
    if (fields.error) res.setError(fields.error);
    if (fields.bail) res.setBail(true);
    cb(null, res);
  };
  const info = req.getInfo();
  const programDir = (info && info.getProgramDirectory()) || req.getPwd() || process.cwd();
  const entry = (info && info.getEntryPoint()) || req.getProgram() || ".";

  let opts;
  let runPath;
  let nodeargs;
  let config;
  try {
    runPath = locateModule(
      process.env.PULUMI_LANGUAGE_NODEJS_RUN_PATH || "@pulumi/pulumi/cmd/run",
      programDir,
      false,
    );
    config = constructConfig(req.getConfigMap());
    opts = parseOptions(info);
    nodeargs = shlexSplit(opts.nodeargs);
  } catch (e) {
    respond({ error: e.message });
    return;
  }

  const argv = [...nodeargs, runPath];
  const add = (k, v) => {
    if (v !== undefined && v !== null && v !== "") argv.push(`--${k}`, String(v));
  };
  add("monitor", req.getMonitorAddress());
  add("engine", engineAddress);
  add("organization", req.getOrganization());
  add("project", req.getProject());
  add("root-directory", info && info.getRootDirectory());
  add("stack", req.getStack());
  add("pwd", programDir);
  if (req.getDryrun()) argv.push("--dry-run");
  add("parallel", String(req.getParallel()));
  add("tracing", args.tracing);
  argv.push(entry, ...req.getArgsList());

  if (cancelled) {
    respond({ error: "Problem executing program (could not run language executor): context canceled" });
    return;
  }
  const env = childEnv(process.env, {
    PULUMI_CONFIG: config,
    PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(req.getConfigsecretkeysList()),
    ...optionsEnv(opts),
  });
  const child = track(
    spawn(process.execPath, argv, { cwd: programDir, env, stdio: ["ignore", "inherit", "pipe"] }),
  );
  runningPrograms.add(child);
  call.on("cancelled", () => stopProgram(child));

  let oom = false;
  let tail = "";
  child.stderr.on("data", (d) => {
    process.stderr.write(d);
    if (!oom) {
      const text = tail + d.toString("utf8");
      oom = OOM_MARKERS.some((m) => text.includes(m));
      tail = text.slice(-200);
    }
  });
  let spawnError;
  child.on("error", (err) => (spawnError = err));
  child.on("close", (code) => {
    runningPrograms.delete(child);
    if (spawnError) {
      respond({
        error: `Problem executing program (could not run language executor): ${spawnError.message}`,
      });
    } else if (code === 0) {
      respond({});
    } else if (code === EXITED_AFTER_USER_MESSAGE) {
      respond({ bail: true });
    } else {
      // Go reports -1 for a process ended by a signal.
      const shown = code === null ? -1 : code;
      respond({
        error: `Program exited with non-zero exit code: ${shown}${oom ? `. ${OOM_MESSAGE}` : ""}`,
      });
    }
  });
}

function cancel(_call, cb) {
  cancelled = true;
  for (const child of runningPrograms) stopProgram(child);
  cb(null, new Empty());
}

// ------------------------------------------------------------------------------ RunPlugin

/** The Analyzer service with raw (undecoded) messages, so the proxy relays every field as sent. */
const RAW_ANALYZER = Object.fromEntries(
  Object.entries(analyzerrpc.AnalyzerService).map(([name, def]) => {
    if (def.requestStream || def.responseStream) throw new Error(`Analyzer.${name} is streaming`);
    const id = (b) => b;
    return [
      name,
      {
        ...def,
        requestSerialize: id,
        requestDeserialize: id,
        responseSerialize: id,
        responseDeserialize: id,
      },
    ];
  }),
);

function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  let settled = false;
  return {
    promise,
    resolve: (v) => !settled && ((settled = true), resolve(v)),
    reject: (e) => !settled && ((settled = true), reject(e)),
  };
}

/**
 * The policy proxy (sdk/v3 policy_proxy.go): an Analyzer server the engine connects to. It
 * answers Handshake and ConfigureStack itself, hands the stack configuration to `start`, which
 * starts the real pack with it, and relays every other call to the pack once attached.
 */
function startPolicyProxy() {
  const configuration = deferred(); // the raw ConfigureStack request, or null
  const client = deferred(); // the grpc.Client of the real pack
  const server = new grpc.Server({
    "grpc.max_receive_message_length": 400 * 1024 * 1024,
    "grpc.max_send_message_length": 400 * 1024 * 1024,
  });
  const relay = (name) => (call, cb) => {
    // The engine calls e.g. GetPluginInfo before ConfigureStack in `pulumi policy publish`: the
    // pack then starts without a stack configuration.
    configuration.resolve(null);
    client.promise.then(
      (c) =>
        c.makeUnaryRequest(
          RAW_ANALYZER[name].path,
          (b) => b,
          (b) => b,
          call.request,
          (err, res) => cb(err, res),
        ),
      (err) => cb({ code: grpc.status.UNKNOWN, details: `policy pack not started: ${err.message}` }),
    );
  };
  const handlers = {};
  for (const name of Object.keys(RAW_ANALYZER)) handlers[name] = relay(name);
  handlers.handshake = (_call, cb) =>
    cb(null, Buffer.from(new analyzerproto.AnalyzerHandshakeResponse().serializeBinary()));
  handlers.configureStack = (call, cb) => {
    configuration.resolve(call.request);
    cb(null, Buffer.from(new analyzerproto.AnalyzerStackConfigureResponse().serializeBinary()));
  };
  server.addService(RAW_ANALYZER, handlers);
  return { server, configuration, client };
}

/** The environment that tells a pack about its stack, from a raw ConfigureStack request. */
function stackEnv(raw) {
  if (!raw) return {};
  const req = analyzerproto.AnalyzerStackConfigureRequest.deserializeBinary(raw);
  const env = {};
  const set = (k, v) => {
    if (v !== "") env[k] = v;
  };
  set("PULUMI_NODEJS_ORGANIZATION", req.getOrganization());
  set("PULUMI_NODEJS_PROJECT", req.getProject());
  set("PULUMI_NODEJS_STACK", req.getStack());
  set("PULUMI_NODEJS_DRY_RUN", String(req.getDryRun()));
  const config = {};
  for (const [k, v] of req.getConfigMap().entries()) config[k] = v;
  if (Object.keys(config).length > 0) set("PULUMI_CONFIG", JSON.stringify(config));
  return env;
}

async function runPlugin(call) {
  const req = call.request;
  const info = req.getInfo();
  const programDir = (info && info.getProgramDirectory()) || req.getPwd();
  const analyzer = req.getKind() === "analyzer";
  let ended = false;
  let child;
  let proxy;
  const write = (kind, data) => {
    if (ended) return;
    const res = new langproto.RunPluginResponse();
    if (kind === "stdout") res.setStdout(data);
    else res.setStderr(data);
    call.write(res);
  };
  const cleanup = () => {
    if (proxy) {
      proxy.server.forceShutdown();
      proxy.client.promise.then(
        (c) => c.close(),
        () => undefined,
      );
    }
  };
  // The official host returns nil (the stream ends: exit code 0) or an error.
  const finish = (err) => {
    if (ended) return;
    ended = true;
    cleanup();
    if (err) call.emit("error", { code: grpc.status.UNKNOWN, details: err });
    else call.end();
  };
  call.on("cancelled", () => {
    // The engine closed the plugin: the request's context ends, which kills the process.
    ended = true;
    if (child) child.kill("SIGKILL");
    cleanup();
  });

  let opts;
  let script;
  let nodeargs;
  try {
    opts = parseOptions(info);
    script = locateModule(
      analyzer
        ? "@pulumi/pulumi/cmd/run-policy-pack"
        : process.env.PULUMI_LANGUAGE_NODEJS_RUN_PATH || "@pulumi/pulumi/cmd/run-plugin",
      programDir,
      true,
    );
    nodeargs = shlexSplit(opts.nodeargs);
  } catch (e) {
    finish(e.message);
    return;
  }
  const argv = analyzer
    ? [script, ...nodeargs, ...req.getArgsList(), programDir]
    : [script, ...nodeargs, programDir, ...req.getArgsList()];
  const reqEnv = req.getEnvList().length > 0 ? envListToObject(req.getEnvList()) : process.env;
  let extraEnv = optionsEnv(opts);

  if (analyzer) {
    proxy = startPolicyProxy();
    let port;
    try {
      port = await new Promise((resolve, reject) =>
        proxy.server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
          err ? reject(err) : resolve(p),
        ),
      );
    } catch (e) {
      finish(`could not start policy pack proxy: ${e.message}`);
      return;
    }
    write("stdout", Buffer.from(`${port}\n`));
    const raw = await proxy.configuration.promise;
    if (ended) return;
    try {
      extraEnv = { ...extraEnv, ...stackEnv(raw) };
    } catch (e) {
      finish(`could not get stack configuration: ${e.message}`);
      return;
    }
  }

  child = track(
    spawn(process.execPath, argv, {
      cwd: analyzer ? programDir : req.getPwd() || programDir,
      env: childEnv(reqEnv, extraEnv),
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  child.stderr.on("data", (d) => write("stderr", d));

  let attachError;
  if (analyzer) {
    // The first line the pack prints is its port; the rest is the pack's output.
    let head = Buffer.alloc(0);
    let attached = false;
    child.stdout.on("data", (d) => {
      if (attached) return write("stdout", d);
      head = Buffer.concat([head, d]);
      const nl = head.indexOf(10);
      if (nl < 0) return;
      attached = true;
      const line = head.subarray(0, nl).toString("utf8").trim();
      const rest = head.subarray(nl + 1);
      if (rest.length > 0) write("stdout", rest);
      if (!/^\d+$/.test(line)) {
        attachError = `could not attach policy pack proxy: could not read policy pack port: expected integer, got "${line}"`;
        proxy.client.reject(new Error(attachError));
        child.kill("SIGKILL");
        return;
      }
      attach(Number(line));
    });
    const attach = (packPort) => {
      const packClient = new grpc.Client(`127.0.0.1:${packPort}`, grpc.credentials.createInsecure(), {
        "grpc.max_receive_message_length": 400 * 1024 * 1024,
        "grpc.max_send_message_length": 400 * 1024 * 1024,
      });
      proxy.configuration.promise.then((raw) => {
        if (!raw) return proxy.client.resolve(packClient);
        packClient.makeUnaryRequest(
          RAW_ANALYZER.configureStack.path,
          (b) => b,
          (b) => b,
          raw,
          (err) => {
            if (err && err.code !== grpc.status.UNIMPLEMENTED) {
              attachError = `could not attach policy pack proxy: policy pack configuration failed: ${err.details || err.message}`;
              proxy.client.reject(new Error(attachError.replace("could not attach policy pack proxy: ", "")));
              packClient.close();
              child.kill("SIGKILL");
              return;
            }
            proxy.client.resolve(packClient);
          },
        );
      });
    };
    child.stdout.on("end", () => {
      if (!attached) {
        attachError = "could not attach policy pack proxy: could not read policy pack port: EOF";
        proxy.client.reject(new Error("could not read policy pack port: EOF"));
      }
    });
  } else {
    child.stdout.on("data", (d) => write("stdout", d));
  }

  child.on("error", (err) => {
    finish(`Problem executing plugin program (could not run language executor): ${err.message}`);
  });
  child.on("close", (code, signal) => {
    if (attachError) finish(attachError);
    else if (code === 0) finish();
    else if (code === null && signal !== null) finish(`Program exited with non-zero exit code: -1`);
    else finish(`Program exited with non-zero exit code: ${code}`);
  });
}

// ------------------------------------------------------------------------------ packages

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

function installDependencies(call) {
  const req = call.request;
  const info = req.getInfo();
  const programDir = (info && info.getProgramDirectory()) || req.getDirectory();
  let ended = false;
  const out = (kind, data) => {
    if (ended) return;
    const res = new langproto.InstallDependenciesResponse();
    if (kind === "stdout") res.setStdout(data);
    else res.setStderr(data);
    call.write(res);
  };
  const finish = (err) => {
    if (ended) return;
    ended = true;
    if (err) call.emit("error", { code: grpc.status.UNKNOWN, details: err });
    else call.end();
  };
  try {
    out("stdout", Buffer.from("Installing dependencies...\n\n"));
    let root = programDir;
    const ws = findWorkspaceRoot(programDir);
    if (ws) {
      out("stdout", Buffer.from(`Detected workspace root at ${ws}\n`));
      root = ws;
    }
    let opts;
    try {
      opts = parseOptions(info);
    } catch (e) {
      throw new Error(`failed to parse options: ${e.message}`, { cause: e });
    }
    const pm = resolvePackageManager(opts.packagemanager, root);
    const installArgs = { npm: ["install", "--loglevel=error"], pnpm: ["install", "--use-stderr"] }[
      pm.name
    ] ?? ["install"];
    const child = track(
      spawn(pm.exe, installArgs, {
        cwd: root,
        env: childEnv(process.env, {}),
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    call.on("cancelled", () => child.kill("SIGKILL"));
    child.stdout.on("data", (d) => out("stdout", d));
    child.stderr.on("data", (d) => out("stderr", d));
    child.on("error", (e) => finish(e.message));
    child.on("close", (code, signal) => {
      if (code !== 0) return finish(exitStatus(code, signal));
      if (!searchUp(root, "node_modules")) {
        return finish(`${pm.name} install reported success, but node_modules directory is missing`);
      }
      out("stdout", Buffer.from("Finished installing dependencies\n\n"));
      finish();
    });
  } catch (e) {
    finish(e.message);
  }
}

/** package.json of a directory, or undefined. */
function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}

/** getPackagesFromDir: plugin packages (`"pulumi": {"resource": true}`) under node_modules, deeply. */
function packagesFromDir(dir, inNodeModules, visited, out) {
  dir = path.resolve(dir);
  if (visited.has(dir)) return;
  visited.add(dir);
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    let curr = path.join(dir, e.name);
    let isDir = e.isDirectory();
    if (e.isSymbolicLink()) {
      try {
        curr = fs.realpathSync(curr);
        isDir = fs.statSync(curr).isDirectory();
      } catch {
        continue;
      }
    }
    if (isDir) {
      // Not into nested policy packs: their plugins are not the program's.
      if (
        ["PulumiPolicy.yaml", "PulumiPolicy.yml", "PulumiPolicy.json"].some((f) =>
          fs.existsSync(path.join(curr, f)),
        )
      ) {
        continue;
      }
      packagesFromDir(curr, inNodeModules || path.basename(dir) === "node_modules", visited, out);
    } else if (inNodeModules && e.name === "package.json") {
      const pkg = readJson(curr);
      const pulumi = pkg && pkg.pulumi;
      if (!pulumi || pulumi.resource !== true) continue;
      let name = pulumi.name;
      if (!name) {
        if (typeof pkg.name !== "string" || !pkg.name.startsWith("@pulumi/")) continue;
        name = pkg.name.slice("@pulumi/".length);
      }
      let version = pulumi.version || pkg.version;
      if (!version) continue;
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
      out.push(dep);
    }
  }
}

function getRequiredPackages(call, cb) {
  const info = call.request.getInfo();
  const out = [];
  if (info && info.getProgramDirectory()) packagesFromDir(info.getProgramDirectory(), false, new Set(), out);
  cb(null, new langproto.GetRequiredPackagesResponse().setPackagesList(out));
}

/** The program's packages from package-lock.json (npm's ListPackages). */
function listPackages(dir, transitive) {
  const lockDir = searchUp(dir, "package-lock.json");
  if (!lockDir) throw new Error(`no package-lock.json found (searching upwards from ${dir})`);
  const lock = readJson(path.join(lockDir, "package-lock.json"));
  if (!lock) throw new Error(`could not parse ${path.join(lockDir, "package-lock.json")}`);
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

function about(call, cb) {
  const info = call.request.getInfo();
  try {
    let opts;
    try {
      opts = parseOptions(info);
    } catch (e) {
      throw new Error(`failed to parse options: ${e.message}`, { cause: e });
    }
    const dir = (info && info.getProgramDirectory()) || process.cwd();
    let pm;
    try {
      pm = resolvePackageManager(opts.packagemanager, dir);
    } catch (e) {
      throw new Error(`could not resolve packagemanager: ${e.message}`, { cause: e });
    }
    const node = lookPath("node");
    if (!node) throw new Error('could not find executable "node"');
    const versionOf = (exe) => {
      const r = spawnSync(exe, ["--version"], {
        encoding: "utf8",
        env: childEnv(process.env, {}),
        timeout: 30_000,
      });
      return r.status === 0 ? r.stdout.trim() : "";
    };
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

function handshake(call, cb) {
  const address = call.request.getEngineAddress();
  if (address) {
    engineAddress = address;
    watchEngine(address);
  }
  cb(null, new langproto.LanguageHandshakeResponse());
}

function unimplemented(name) {
  return (_call, cb) => cb({ code: grpc.status.UNIMPLEMENTED, details: `method ${name} not implemented` });
}

// ------------------------------------------------------------------------------ server

const server = new grpc.Server({
  "grpc.max_receive_message_length": 400 * 1024 * 1024,
  "grpc.max_send_message_length": 400 * 1024 * 1024,
});
server.addService(langrpc.LanguageRuntimeService, {
  handshake,
  getRequiredPlugins: unimplemented("GetRequiredPlugins"),
  getRequiredPackages,
  run,
  getPluginInfo: (_call, cb) => cb(null, new pluginproto.PluginInfo().setVersion(VERSION)),
  installDependencies,
  runtimeOptionsPrompts,
  template: (_call, cb) => cb(null, new langproto.TemplateResponse()),
  about,
  getProgramDependencies,
  runPlugin: (call) => {
    runPlugin(call).catch((e) => call.emit("error", { code: grpc.status.UNKNOWN, details: e.message }));
  },
  generateProgram: unimplemented("GenerateProgram"),
  generateProject: unimplemented("GenerateProject"),
  generatePackage: unimplemented("GeneratePackage"),
  pack: unimplemented("Pack"),
  link: unimplemented("Link"),
  cancel,
});
server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) {
    console.error(`could not start language host RPC server: ${err.message}`);
    process.exit(1);
  }
  process.stdout.write(`${port}\n`);
  if (engineAddress) watchEngine(engineAddress);
});
