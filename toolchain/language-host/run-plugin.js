// RunPlugin: runs a plugin written in Node.js, which for this project means its policy pack
// (`pulumi preview --policy-pack`). Analyzers go through the policy proxy (policy-proxy.js) so
// that the pack knows its stack; other plugins are started directly. Output is streamed back
// and the stream ends with the official host's error texts.
"use strict";

const { spawn } = require("node:child_process");

const grpc = require("@grpc/grpc-js");
const langproto = require("@pulumi/pulumi/proto/language_pb");

const { childEnv, envListToObject, locateModule, outputStream, shlexSplit } = require("./helpers");
const { optionsEnv, parseOptions } = require("./options");
const { attachPack, stackEnv, startPolicyProxy, stopPolicyProxy } = require("./policy-proxy");
const { track } = require("./processes");

/** The script, arguments and environment of the plugin (throws when the SDK or options are wrong). */
function pluginLaunch(req, analyzer) {
  const info = req.getInfo();
  const programDir = (info && info.getProgramDirectory()) || req.getPwd();
  const opts = parseOptions(info);
  const script = locateModule(
    analyzer
      ? "@pulumi/pulumi/cmd/run-policy-pack"
      : process.env.PULUMI_LANGUAGE_NODEJS_RUN_PATH || "@pulumi/pulumi/cmd/run-plugin",
    programDir,
    true,
  );
  const nodeargs = shlexSplit(opts.nodeargs);
  // The official host puts `nodeargs` after the script too, so node itself does not see them.
  const argv = analyzer
    ? [script, ...nodeargs, ...req.getArgsList(), programDir]
    : [script, ...nodeargs, programDir, ...req.getArgsList()];
  const reqEnv = req.getEnvList().length > 0 ? envListToObject(req.getEnvList()) : process.env;
  return {
    argv,
    reqEnv,
    extraEnv: optionsEnv(opts),
    cwd: analyzer ? programDir : req.getPwd() || programDir,
  };
}

/**
 * Starts the policy proxy, tells the engine its port and waits for the stack configuration.
 * Returns the pack's stack environment, or undefined when the stream has ended meanwhile.
 */
async function proxyStackEnv(session) {
  session.proxy = startPolicyProxy();
  let port;
  try {
    port = await new Promise((resolve, reject) =>
      session.proxy.server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
  } catch (e) {
    session.stream.finish(`could not start policy pack proxy: ${e.message}`);
    return undefined;
  }
  session.stream.out("stdout", Buffer.from(`${port}\n`));
  const raw = await session.proxy.configuration.promise;
  if (session.stream.ended) return undefined;
  try {
    return stackEnv(raw);
  } catch (e) {
    session.stream.finish(`could not get stack configuration: ${e.message}`);
    return undefined;
  }
}

/** Starts the plugin process and ends the stream when it ends. */
function startPlugin(state, session, launch, extraEnv) {
  const { stream } = session;
  const child = track(
    state,
    spawn(process.execPath, launch.argv, {
      cwd: launch.cwd,
      env: childEnv(launch.reqEnv, extraEnv),
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  session.child = child;
  child.stderr.on("data", (d) => stream.out("stderr", d));
  let attachError;
  if (session.proxy) attachPack(session.proxy, child, stream.out, (message) => (attachError = message));
  else child.stdout.on("data", (d) => stream.out("stdout", d));
  child.on("error", (err) => {
    stream.finish(`Problem executing plugin program (could not run language executor): ${err.message}`);
  });
  child.on("close", (code, signal) => {
    if (attachError) stream.finish(attachError);
    else if (code === 0) stream.finish();
    else if (code === null && signal !== null) stream.finish(`Program exited with non-zero exit code: -1`);
    else stream.finish(`Program exited with non-zero exit code: ${code}`);
  });
}

/** The RunPlugin RPC (server streaming): runs the plugin, streaming its output. */
async function runPlugin(state, call) {
  const req = call.request;
  const analyzer = req.getKind() === "analyzer";
  const session = { stream: outputStream(call, langproto.RunPluginResponse, grpc.status), child: undefined };
  const cleanup = () => session.proxy && stopPolicyProxy(session.proxy);
  session.stream.onFinish = cleanup;
  call.on("cancelled", () => {
    // The engine closed the plugin: the request's context ends, which kills the process.
    session.stream.ended = true;
    if (session.child) session.child.kill("SIGKILL");
    cleanup();
  });
  let launch;
  try {
    launch = pluginLaunch(req, analyzer);
  } catch (e) {
    session.stream.finish(e.message);
    return;
  }
  let extraEnv = launch.extraEnv;
  if (analyzer) {
    const packEnv = await proxyStackEnv(session);
    if (packEnv === undefined) return;
    extraEnv = { ...extraEnv, ...packEnv };
  }
  startPlugin(state, session, launch, extraEnv);
}

module.exports = { runPlugin };
