#!/usr/bin/env node
// Copyright the pulumi-svc authors. Licensed under Apache-2.0.
//
// A Node.js language host for the Pulumi CLI ("pulumi-language-nodejs").
//
// Why this file exists: the upstream language host is a Go module
// (github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3) that is published
// only as pseudo-versions, and the Go module proxy these machines reach does not serve
// it (every version answers 403 "This module version is not available"). The CLI itself
// (pkg/v3) and the SDK module are served, so toolchain/provision.sh builds the real CLI
// and uses this host in place of the Go one.
//
// It implements the part of the LanguageRuntime gRPC service that `pulumi preview`,
// `up`, `refresh`, `destroy` and policy packs use, the same way the Go host does:
//   - Run: spawns `node @pulumi/pulumi/cmd/run` (from the program's own node_modules)
//     with the engine/monitor addresses, and PULUMI_CONFIG / PULUMI_CONFIG_SECRET_KEYS.
//   - RunPlugin: spawns `@pulumi/pulumi/cmd/run-policy-pack` (analyzer) or
//     `@pulumi/pulumi/cmd/run-plugin` (resource) and streams stdout/stderr/exit code.
//   - GetRequiredPlugins/GetRequiredPackages: none (dynamic providers and local policy
//     packs need no plugin download), GetPluginInfo, About, GetProgramDependencies,
//     InstallDependencies (nothing to do: the project installs its own dependencies).
// Everything else answers UNIMPLEMENTED, which the CLI handles.
"use strict";

const { spawn } = require("node:child_process");
const net = require("node:net");
const path = require("node:path");

const grpc = require("@grpc/grpc-js");
const langproto = require("@pulumi/pulumi/proto/language_pb");
const langrpc = require("@pulumi/pulumi/proto/language_grpc_pb");
const pluginproto = require("@pulumi/pulumi/proto/plugin_pb");

/** Exit code the Node runtime uses after it has printed a user-actionable error. */
const EXITED_AFTER_USER_MESSAGE = 32;

const VERSION = process.env.PULUMI_SVC_LANGUAGE_HOST_VERSION || "0.0.0";

function parseArgs(argv) {
  const positional = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith("-")) {
      // Flags such as -tracing=x or -root x: accepted and ignored.
      if (!a.includes("=") && i + 1 < argv.length && !argv[i + 1].startsWith("-") && a !== "-typescript") {
        if (a === "-tracing" || a === "-root" || a === "--tracing" || a === "--root") i++;
      }
      continue;
    }
    positional.push(a);
  }
  return { engineAddress: positional[0] || "" };
}

const { engineAddress } = parseArgs(process.argv.slice(2));

/** Processes this host started; ended with it. */
const children = new Set();
function track(child) {
  children.add(child);
  child.on("exit", () => children.delete(child));
  return child;
}

/**
 * Like the Go host's health check: when the engine that started this host is gone (the
 * CLI was killed), end the programs and plugins started here and exit, instead of
 * lingering as orphans.
 */
function watchEngine(address) {
  const i = address.lastIndexOf(":");
  let misses = 0;
  const timer = setInterval(() => {
    const socket = net.connect({ host: address.slice(0, i), port: Number(address.slice(i + 1)) });
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

/** Reads the runtime options (`runtime.options` of Pulumi.yaml) from a ProgramInfo. */
function runtimeOptions(info) {
  const opts = info && info.getOptions && info.getOptions();
  return opts ? opts.toJavaScript() : {};
}

/** Resolves a module of @pulumi/pulumi from the program's directory, as the Go host does. */
function resolveFrom(dir, request) {
  return require.resolve(request, { paths: [dir, process.cwd()] });
}

function envWith(extra) {
  const env = { ...process.env, ...extra };
  // Children must find this same Node first.
  env.PATH = `${path.dirname(process.execPath)}${path.delimiter}${env.PATH || ""}`;
  return env;
}

function typescriptEnv(options) {
  const env = {};
  env.PULUMI_NODEJS_TYPESCRIPT = options.typescript === false ? "false" : "true";
  if (options.tsconfig) env.PULUMI_NODEJS_TSCONFIG_PATH = String(options.tsconfig);
  if (options.nodeargs) env.PULUMI_NODEJS_NODEARGS = String(options.nodeargs);
  return env;
}

function unimplemented(name) {
  return (_call, cb) =>
    cb({ code: grpc.status.UNIMPLEMENTED, details: `${name} is not implemented by this host` });
}

function run(call, cb) {
  const req = call.request;
  const info = req.getInfo();
  const programDir = (info && info.getProgramDirectory()) || req.getPwd() || process.cwd();
  const entry = (info && info.getEntryPoint()) || req.getProgram() || ".";
  const options = runtimeOptions(info);
  let runPath;
  try {
    runPath = resolveFrom(programDir, "@pulumi/pulumi/cmd/run");
  } catch {
    cb(
      null,
      new langproto.RunResponse().setError(
        "It looks like the Pulumi SDK has not been installed. Have you run npm install?",
      ),
    );
    return;
  }
  const args = [runPath];
  const add = (k, v) => {
    if (v !== undefined && v !== null && v !== "") args.push(`--${k}`, String(v));
  };
  add("monitor", req.getMonitorAddress());
  add("engine", engineAddress);
  add("organization", req.getOrganization());
  add("project", req.getProject());
  add("stack", req.getStack());
  add("pwd", req.getPwd());
  add("root-directory", info && info.getRootDirectory());
  if (req.getDryrun()) args.push("--dry-run");
  add("parallel", req.getParallel());
  args.push(entry, ...req.getArgsList());

  const config = {};
  for (const [k, v] of req.getConfigMap().entries()) config[k] = v;
  const env = envWith({
    PULUMI_CONFIG: JSON.stringify(config),
    PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(req.getConfigsecretkeysList()),
    ...typescriptEnv(options),
  });
  const child = track(
    spawn(process.execPath, args, {
      cwd: req.getPwd() || programDir,
      env,
      stdio: ["ignore", "inherit", "inherit"],
    }),
  );
  child.on("error", (err) => {
    cb(null, new langproto.RunResponse().setError(`Problem executing program: ${err.message}`));
  });
  child.on("exit", (code, signal) => {
    const res = new langproto.RunResponse();
    if (code === 0) {
      // success
    } else if (code === EXITED_AFTER_USER_MESSAGE) {
      res.setBail(true);
    } else if (signal) {
      res.setError(`Program exited on signal ${signal}`);
    } else {
      res.setError(`Program exited with non-zero exit code: ${code}`);
    }
    cb(null, res);
  });
}

function runPlugin(call) {
  const req = call.request;
  const info = req.getInfo();
  const programDir = (info && info.getProgramDirectory()) || req.getPwd();
  const entry = (info && info.getEntryPoint()) || ".";
  const options = runtimeOptions(info);
  const kind = req.getKind();
  const finish = (code) => {
    call.write(new langproto.RunPluginResponse().setExitcode(code));
    call.end();
  };
  let script;
  try {
    script = resolveFrom(
      programDir,
      kind === "analyzer" ? "@pulumi/pulumi/cmd/run-policy-pack" : "@pulumi/pulumi/cmd/run-plugin",
    );
  } catch {
    call.write(
      new langproto.RunPluginResponse().setStderr(
        Buffer.from("Cannot find module '@pulumi/pulumi/cmd/run-policy-pack'\n"),
      ),
    );
    finish(1);
    return;
  }
  // run-policy-pack takes <engine-address> <program>; run-plugin takes <program> [args].
  const args =
    kind === "analyzer" ? [script, ...req.getArgsList(), entry] : [script, entry, ...req.getArgsList()];
  const extraEnv = {};
  for (const kv of req.getEnvList()) {
    const i = kv.indexOf("=");
    if (i > 0) extraEnv[kv.slice(0, i)] = kv.slice(i + 1);
  }
  const child = track(
    spawn(process.execPath, args, {
      cwd: programDir,
      env: envWith({ ...extraEnv, ...typescriptEnv(options) }),
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  child.stdout.on("data", (d) => call.write(new langproto.RunPluginResponse().setStdout(d)));
  child.stderr.on("data", (d) => call.write(new langproto.RunPluginResponse().setStderr(d)));
  child.on("error", (err) => {
    call.write(new langproto.RunPluginResponse().setStderr(Buffer.from(`${err.message}\n`)));
    finish(1);
  });
  child.on("close", (code) => finish(code === null ? 1 : code));
  call.on("cancelled", () => child.kill("SIGINT"));
}

const server = new grpc.Server({
  "grpc.max_receive_message_length": 400 * 1024 * 1024,
  "grpc.max_send_message_length": 400 * 1024 * 1024,
});
server.addService(langrpc.LanguageRuntimeService, {
  handshake: (_call, cb) => cb(null, new langproto.LanguageHandshakeResponse()),
  getRequiredPlugins: (_call, cb) => cb(null, new langproto.GetRequiredPluginsResponse()),
  getRequiredPackages: (_call, cb) => cb(null, new langproto.GetRequiredPackagesResponse()),
  run,
  getPluginInfo: (_call, cb) => cb(null, new pluginproto.PluginInfo().setVersion(VERSION)),
  installDependencies: (call) => call.end(),
  runtimeOptionsPrompts: (_call, cb) => cb(null, new langproto.RuntimeOptionsResponse()),
  template: unimplemented("Template"),
  about: (_call, cb) =>
    cb(null, new langproto.AboutResponse().setExecutable(process.execPath).setVersion(process.version)),
  getProgramDependencies: (_call, cb) => cb(null, new langproto.GetProgramDependenciesResponse()),
  runPlugin,
  generateProgram: unimplemented("GenerateProgram"),
  generateProject: unimplemented("GenerateProject"),
  generatePackage: unimplemented("GeneratePackage"),
  pack: unimplemented("Pack"),
  link: unimplemented("Link"),
  cancel: (_call, cb) => cb(null, new (require("google-protobuf/google/protobuf/empty_pb").Empty)()),
});
server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) {
    console.error(`language host could not listen: ${err.message}`);
    process.exit(1);
  }
  process.stdout.write(`${port}\n`);
  if (/^[\w.-]+:\d+$/.test(engineAddress)) watchEngine(engineAddress);
});
