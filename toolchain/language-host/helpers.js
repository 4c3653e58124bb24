// Small helpers every RPC of the language host shares: Go standard-library behaviours the
// official host gets for free (shlex, exec.LookPath, os/exec error texts and environments) and
// file look-ups. Kept apart so each RPC module reads as the RPC it implements.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

/** Message size limits of the official host's gRPC servers and clients (400 MiB both ways). */
const GRPC_OPTIONS = {
  "grpc.max_receive_message_length": 400 * 1024 * 1024,
  "grpc.max_send_message_length": 400 * 1024 * 1024,
};

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

/** A JSON file's content, or undefined when it is missing or not JSON. */
function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}

/**
 * A server-streaming response of stdout/stderr chunks that ends once: `out` writes a chunk (of
 * `Response`, with setStdout/setStderr) unless ended, `finish` ends the stream, with an UNKNOWN
 * error when given a message (the official host returns nil or an error).
 */
function outputStream(call, Response, grpcStatus) {
  const stream = {
    ended: false,
    out(kind, data) {
      if (stream.ended) return;
      const res = new Response();
      if (kind === "stdout") res.setStdout(data);
      else res.setStderr(data);
      call.write(res);
    },
    finish(err) {
      if (stream.ended) return;
      stream.ended = true;
      if (stream.onFinish) stream.onFinish();
      if (err) call.emit("error", { code: grpcStatus.UNKNOWN, details: err });
      else call.end();
    },
    onFinish: undefined,
  };
  return stream;
}

module.exports = {
  GRPC_OPTIONS,
  shlexSplit,
  locateModule,
  childEnv,
  envListToObject,
  searchUp,
  lookPath,
  exitStatus,
  readJson,
  outputStream,
};
