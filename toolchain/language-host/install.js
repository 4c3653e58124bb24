// InstallDependencies (`pulumi install`, `pulumi new`): installs the program's packages with
// its package manager, streaming the output, with the official host's messages, so that the
// commands a user types behave here as with the official CLI distribution.
"use strict";

const { spawn } = require("node:child_process");

const grpc = require("@grpc/grpc-js");
const langproto = require("@pulumi/pulumi/proto/language_pb");

const { childEnv, exitStatus, outputStream, searchUp } = require("./helpers");
const { parseOptionsOrExplain } = require("./options");
const { findWorkspaceRoot, resolvePackageManager } = require("./package-manager");
const { track } = require("./processes");

/** The install command of each package manager (the official host's arguments). */
const INSTALL_ARGS = { npm: ["install", "--loglevel=error"], pnpm: ["install", "--use-stderr"] };

/** Runs the install in `root` and ends `stream` when it ends (checking node_modules exists). */
function runInstall(state, call, stream, root, pm) {
  const child = track(
    state,
    spawn(pm.exe, INSTALL_ARGS[pm.name] ?? ["install"], {
      cwd: root,
      env: childEnv(process.env, {}),
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  call.on("cancelled", () => child.kill("SIGKILL"));
  child.stdout.on("data", (d) => stream.out("stdout", d));
  child.stderr.on("data", (d) => stream.out("stderr", d));
  child.on("error", (e) => stream.finish(e.message));
  child.on("close", (code, signal) => {
    if (code !== 0) return stream.finish(exitStatus(code, signal));
    if (!searchUp(root, "node_modules")) {
      return stream.finish(`${pm.name} install reported success, but node_modules directory is missing`);
    }
    stream.out("stdout", Buffer.from("Finished installing dependencies\n\n"));
    stream.finish();
  });
}

/** The InstallDependencies RPC (server streaming). */
function installDependencies(state, call) {
  const req = call.request;
  const info = req.getInfo();
  const programDir = (info && info.getProgramDirectory()) || req.getDirectory();
  const stream = outputStream(call, langproto.InstallDependenciesResponse, grpc.status);
  try {
    stream.out("stdout", Buffer.from("Installing dependencies...\n\n"));
    let root = programDir;
    const ws = findWorkspaceRoot(programDir);
    if (ws) {
      stream.out("stdout", Buffer.from(`Detected workspace root at ${ws}\n`));
      root = ws;
    }
    const opts = parseOptionsOrExplain(info);
    const pm = resolvePackageManager(opts.packagemanager, root);
    runInstall(state, call, stream, root, pm);
  } catch (e) {
    stream.finish(e.message);
  }
}

module.exports = { installDependencies };
