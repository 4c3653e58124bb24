// Run and Cancel: start the program (`@pulumi/pulumi/cmd/run`) the way the official host does,
// with the same flags, environment and exit-code handling, and stop it on Cancel or when the
// engine drops the request. This is what `pulumi preview` and `pulumi up` exercise.
"use strict";

const { spawn } = require("node:child_process");

const langproto = require("@pulumi/pulumi/proto/language_pb");
const langrpc = require("@pulumi/pulumi/proto/language_grpc_pb");

const { childEnv, locateModule, shlexSplit } = require("./helpers");
const { constructConfig, optionsEnv, parseOptions } = require("./options");
const { stopProgram, track } = require("./processes");

/** `google.protobuf.Empty` of the very module the generated service serializes with. */
const Empty = langrpc.LanguageRuntimeService.cancel.responseType;

/** Exit code the Node runtime uses after it has printed a user-actionable error. */
const EXITED_AFTER_USER_MESSAGE = 32;

const OOM_MARKERS = [
  "<--- Last few GCs --->",
  "Check failed: needs_context && current_scope_ == closure_scope_",
];
const OOM_MESSAGE =
  "Detected a possible out of memory error. Consider increasing the memory available to the nodejs process " +
  "by setting the `nodeargs` runtime option in Pulumi.yaml to `nodeargs: --max-old-space-size=<size>` where " +
  "`<size>` is the maximum memory in megabytes that can be allocated to nodejs. " +
  "See https://www.pulumi.com/docs/concepts/projects/project-file/#runtime-options";

/**
 * The command line and environment of a program (throws with the official host's message when
 * the SDK, the config or the options are wrong).
 */
function prepareRun(state, req) {
  const info = req.getInfo();
  const programDir = (info && info.getProgramDirectory()) || req.getPwd() || process.cwd();
  const entry = (info && info.getEntryPoint()) || req.getProgram() || ".";
  const runPath = locateModule(
    process.env.PULUMI_LANGUAGE_NODEJS_RUN_PATH || "@pulumi/pulumi/cmd/run",
    programDir,
    false,
  );
  const config = constructConfig(req.getConfigMap());
  const opts = parseOptions(info);
  const argv = [...shlexSplit(opts.nodeargs), runPath];
  const add = (k, v) => {
    if (v !== undefined && v !== null && v !== "") argv.push(`--${k}`, String(v));
  };
  add("monitor", req.getMonitorAddress());
  add("engine", state.engineAddress);
  add("organization", req.getOrganization());
  add("project", req.getProject());
  add("root-directory", info && info.getRootDirectory());
  add("stack", req.getStack());
  add("pwd", programDir);
  if (req.getDryrun()) argv.push("--dry-run");
  add("parallel", String(req.getParallel()));
  add("tracing", state.tracing);
  argv.push(entry, ...req.getArgsList());
  const env = childEnv(process.env, {
    PULUMI_CONFIG: config,
    PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(req.getConfigsecretkeysList()),
    ...optionsEnv(opts),
  });
  return { argv, env, programDir };
}

/** Relays the program's stderr and reports whether it has shown a V8 heap exhaustion. */
function relayStderr(child) {
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
  return () => oom;
}

/** The RunResponse fields for how the program ended. */
function runOutcome(code, spawnError, oom) {
  if (spawnError) {
    return { error: `Problem executing program (could not run language executor): ${spawnError.message}` };
  }
  if (code === 0) return {};
  if (code === EXITED_AFTER_USER_MESSAGE) return { bail: true };
  // Go reports -1 for a process ended by a signal.
  const shown = code === null ? -1 : code;
  return { error: `Program exited with non-zero exit code: ${shown}${oom ? `. ${OOM_MESSAGE}` : ""}` };
}

/** The Run RPC: runs the program to its end and answers with its outcome. */
function run(state, call, cb) {
  const respond = (fields) => {
    const res = new langproto.RunResponse();
    if (fields.error) res.setError(fields.error);
    if (fields.bail) res.setBail(true);
    cb(null, res);
  };
  let prepared;
  try {
    prepared = prepareRun(state, call.request);
  } catch (e) {
    respond({ error: e.message });
    return;
  }
  if (state.cancelled) {
    respond({ error: "Problem executing program (could not run language executor): context canceled" });
    return;
  }
  const { argv, env, programDir } = prepared;
  const child = track(
    state,
    spawn(process.execPath, argv, { cwd: programDir, env, stdio: ["ignore", "inherit", "pipe"] }),
  );
  state.runningPrograms.add(child);
  call.on("cancelled", () => stopProgram(child));
  const sawOom = relayStderr(child);
  let spawnError;
  child.on("error", (err) => (spawnError = err));
  child.on("close", (code) => {
    state.runningPrograms.delete(child);
    respond(runOutcome(code, spawnError, sawOom()));
  });
}

/** The Cancel RPC: stops the running programs, and makes later Runs fail as after a cancelled context. */
function cancel(state, _call, cb) {
  state.cancelled = true;
  for (const child of state.runningPrograms) stopProgram(child);
  cb(null, new Empty());
}

module.exports = { run, cancel };
