// The host's state and the processes it starts: one state object, made by `main` and passed to
// every RPC, so nothing lives in module scope. It tracks the programs and plugins started here
// so that they die with the engine (the official host's health check) and so that Cancel can
// stop the running programs the way Go's `exec.CommandContext` does.
"use strict";

const net = require("node:net");

/** How long a cancelled program has between SIGINT and SIGKILL (the official `WaitDelay`). */
const CANCEL_GRACE_MS = 5_000;

/**
 * @typedef {object} HostState
 * @property {string} version what GetPluginInfo and `-version` report
 * @property {string} tracing the `-tracing` endpoint, passed on to programs
 * @property {string} engineAddress the engine's address (argument, or Handshake)
 * @property {Set<import("node:child_process").ChildProcess>} children every process started here
 * @property {Set<import("node:child_process").ChildProcess>} runningPrograms programs of Run
 * @property {boolean} cancelled set by Cancel: running programs are stopped, later ones refused
 * @property {boolean} watching whether the engine is already being watched
 */

/**
 * A fresh host state.
 *
 * @param {{ version: string, tracing: string, engineAddress: string }} init
 * @returns {HostState}
 */
function createHostState(init) {
  return {
    ...init,
    children: new Set(),
    runningPrograms: new Set(),
    cancelled: false,
    watching: false,
  };
}

/** Remembers a child process until it exits, so it can be killed when the engine goes away. */
function track(state, child) {
  state.children.add(child);
  child.on("exit", () => state.children.delete(child));
  return child;
}

/**
 * Like the official host's health check: when the engine that started this host is gone (the
 * CLI was killed), end the programs and plugins started here and exit.
 */
function watchEngine(state, address) {
  if (state.watching || !/^[\w.:[\]-]+:\d+$/.test(address)) return;
  state.watching = true;
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
        for (const child of state.children) child.kill("SIGKILL");
        process.exit(0);
      }
    };
    socket.setTimeout(1000, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  }, 1000);
  timer.unref();
}

/** Stops a program as `exec.CommandContext` with `Cancel: SIGINT` and `WaitDelay: 5s` does. */
function stopProgram(child) {
  if (child.exitCode !== null || child.signalCode !== null || child.stopping) return;
  child.stopping = true;
  if (!child.kill("SIGINT")) child.kill("SIGKILL");
  const timer = setTimeout(() => child.kill("SIGKILL"), CANCEL_GRACE_MS);
  child.once("exit", () => clearTimeout(timer));
}

module.exports = { createHostState, track, watchEngine, stopProgram };
