/**
 * The drain thread: one worker thread of the provider process in which its drains run, both ends
 * of it (the provider's side, {@link DrainThread}, and the worker's, at the bottom of this file).
 *
 * Why a thread: a provider process loads the Pulumi SDK (the svc provider its protocol stubs, a
 * 0.2 stack's dynamic provider all of it), and V8 sizes a heap's young generation by what
 * survived its collections since it last grew, counting the SDK's start-up; a drain's steady
 * allocation then doubles it and nothing shrinks it while the drain runs (docs/benchmarks.md
 * section 7). A worker has a heap of its own, without the SDK, whose young
 * generation the product may cap ({@link DRAIN_THREAD_YOUNG_MB}: `resourceLimits`, an API, not a
 * Node flag). Every drain of the process runs in the one thread, so the account's rate gate is
 * still shared by the drains of that account.
 *
 * What crosses: the {@link DrainJob} (plain data; the token never leaves the process), progress
 * lines, the engine check, and the outputs or the error (rebuilt on this side with its class, so
 * the engine still saves the partial state of a cut-off drain).
 *
 * @packageDocumentation
 */
import "../../client/requireNode"; // first: one clear error on a Node.js older than 22.19
import * as path from "node:path";
import * as sea from "node:sea";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { RateGateRegistry } from "../../drain";
import { recoveryLabel, type DlqRecoveryOutputs } from "./inputs";
import { runDrainJob, type DrainDeps, type DrainJob } from "./run";
import { ServiceError } from "../../core/serviceErrors";
import { ResourceInitError } from "../resource";

/**
 * Young generation of the drain thread, MB: a drain keeps little alive from page to page, so a
 * small one costs no speed and keeps the provider's peak RSS away from 200 MB (docs/benchmarks.md
 * section 7 has the figures with 2 and with 8).
 */
export const DRAIN_THREAD_YOUNG_MB = 2;

/** The single executable's asset holding this module bundled on its own (`scripts/release.ts`). */
export const DRAIN_THREAD_ASSET = "drain-thread.js";

/** What the provider's side sends: a drain to run, or the answer to an engine check. */
type ToThread =
  | { type: "run"; n: number; job: DrainJob; cwd: string }
  | { type: "alive"; n: number; alive: boolean }
  | { type: "alive"; n: number; failed: string }
  | { type: "cancel"; n: number };

/** What the drain thread sends. */
type FromThread =
  | { type: "log"; n: number; line: string }
  | { type: "status"; n: number; line: string }
  | { type: "warn"; n: number; line: string }
  | { type: "alive?"; n: number }
  | { type: "orphaned"; n: number }
  | { type: "done"; n: number; outs: DlqRecoveryOutputs }
  | { type: "failed"; n: number; error: CrossingError };

/** A drain in the thread, as the provider's side tracks it. */
interface Running {
  label: string;
  deps: DrainDeps;
  settle: (m: FromThread) => void;
}

/** The provider's side: starts the thread on the first drain and lets the process exit when idle. */
export class DrainThread {
  private worker: Worker | undefined;
  private next = 0;
  private readonly running = new Map<number, Running>();

  /** Runs `job` in the drain thread; resolves with its outputs or rejects as the drain would. */
  run(job: DrainJob, deps: DrainDeps): Promise<DlqRecoveryOutputs> {
    const n = this.next++;
    const message: ToThread = { type: "run", n, job, cwd: deps.cwd() };
    const worker = this.started();
    return new Promise((resolve, reject) => {
      const settle = (m: FromThread) =>
        m.type === "done" ? resolve(m.outs) : m.type === "failed" ? reject(rebuiltError(m.error)) : undefined;
      this.running.set(n, { label: recoveryLabel(job.inputs), deps, settle });
      worker.ref();
      worker.postMessage(message);
      // The drain stops in the thread as it would here: no request after the signal.
      const cancel = () => worker.postMessage({ type: "cancel", n } satisfies ToThread);
      if (deps.signal?.aborted) cancel();
      else deps.signal?.addEventListener("abort", cancel, { once: true });
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const [file, options] = workerEntry();
    const resourceLimits = { maxYoungGenerationSizeMb: DRAIN_THREAD_YOUNG_MB };
    const worker = new Worker(file, { ...options, resourceLimits });
    worker.on("message", (m: FromThread) => this.received(worker, m));
    worker.on("error", (e) => this.lost(worker, e));
    worker.on("exit", (code) => this.lost(worker, new Error(`the drain thread stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private received(worker: Worker, m: FromThread): void {
    const r = this.running.get(m.n);
    if (!r) return;
    if (m.type === "log") r.deps.log(m.line);
    else if (m.type === "status") (r.deps.status ?? r.deps.log)(m.line);
    else if (m.type === "warn") r.deps.warn(m.line);
    else if (m.type === "orphaned") r.deps.exitOrphaned();
    else if (m.type === "alive?") {
      const answer = (a: ToThread) => worker.postMessage(a);
      r.deps.engineAlive().then(
        (alive) => answer({ type: "alive", n: m.n, alive }),
        (e: unknown) => answer({ type: "alive", n: m.n, failed: e instanceof Error ? e.message : String(e) }),
      );
    } else {
      this.running.delete(m.n);
      r.settle(m);
      if (this.running.size === 0) worker.unref();
    }
  }

  /**
   * The thread failed or stopped: every drain in it fails, naming it. A thread started after
   * this one starts with fresh rate gates (a spent daily limit is learnt again from one answer).
   */
  private lost(worker: Worker, e: Error): void {
    // A thread's "exit" follows its "error": by then its drains have failed, and a new thread may
    // run the drains started since.
    if (this.worker !== worker) return;
    this.worker = undefined;
    for (const [n, r] of this.running) {
      const message = `${r.label}: the drain thread failed (${e.message}); the drain stopped. Runs resumed so far are in its run log.`;
      r.settle({ type: "failed", n, error: { kind: "error", message } });
    }
    this.running.clear();
  }
}

/**
 * The worker's file and options: the built module, or its TypeScript source through ts-node (tests),
 * or, in the single executable plugin (`npm run release`), which has no file of its own, this
 * module's own bundle, embedded as its asset {@link DRAIN_THREAD_ASSET}, run as code.
 */
function workerEntry(): [string, { eval?: boolean; workerData: unknown }] {
  const data = { svcDrainThread: true };
  if (sea.isSea()) return [sea.getAsset(DRAIN_THREAD_ASSET, "utf8"), { eval: true, workerData: data }];
  if (path.extname(__filename) !== ".ts") return [__filename, { workerData: data }];
  // Resolved here, beside this module: an eval'd worker resolves from the working folder.
  const tsNode = require.resolve("ts-node/register/transpile-only");
  const code = `require(${JSON.stringify(tsNode)}); require(${JSON.stringify(__filename)});`;
  return [code, { eval: true, workerData: data }];
}

/**
 * The worker's side: runs each job it is sent with deps that talk to the provider's side. An
 * error nothing caught is printed with every running drain's lines and the thread goes on, as
 * a 0.2 stack's dynamic-provider server does in its own thread.
 */
function serveDrains(port: NonNullable<typeof parentPort>): void {
  const running = new Map<number, { resolve: (alive: boolean) => void; reject: (e: Error) => void }>();
  // The thread's drains share these: every drain of the provider process runs in this thread.
  const rateGates = new RateGateRegistry();
  const cancels = new Map<number, AbortController>();
  const send = (m: FromThread) => port.postMessage(m);
  const stray = (e: unknown) => {
    for (const n of running.keys()) send({ type: "log", n, line: `drain thread: ${String(e)}` });
  };
  process.on("uncaughtException", stray);
  process.on("unhandledRejection", stray);
  port.on("message", (m: ToThread) => {
    if (m.type === "cancel") return cancels.get(m.n)?.abort();
    if (m.type === "alive") {
      const a = running.get(m.n);
      return "failed" in m ? a?.reject(new Error(m.failed)) : a?.resolve(m.alive);
    }
    running.set(m.n, { resolve: () => undefined, reject: () => undefined });
    const cancel = new AbortController();
    cancels.set(m.n, cancel);
    const deps: DrainDeps = {
      signal: cancel.signal,
      now: Date.now,
      log: (line) => send({ type: "log", n: m.n, line }),
      status: (line) => send({ type: "status", n: m.n, line }),
      warn: (line) => send({ type: "warn", n: m.n, line }),
      cwd: () => m.cwd,
      engineAlive: () =>
        new Promise(
          (resolve, reject) => (running.set(m.n, { resolve, reject }), send({ type: "alive?", n: m.n })),
        ),
      exitOrphaned: () => send({ type: "orphaned", n: m.n }),
      rateGates,
    };
    runDrainJob(m.job, deps)
      .then(
        (outs) => send({ type: "done", n: m.n, outs }),
        (e: unknown) => send({ type: "failed", n: m.n, error: crossingError(e) }),
      )
      .finally(() => (running.delete(m.n), cancels.delete(m.n)));
  });
}

if (!isMainThread && parentPort && (workerData as { svcDrainThread?: boolean } | null)?.svcDrainThread) {
  serveDrains(parentPort);
}

/** An error of a drain as it crosses to the provider's thread (`drainThread.ts`): its class and fields kept. */
export type CrossingError =
  | { kind: "partial"; message: string; id: string; properties: Record<string, unknown>; reasons: string[] }
  | { kind: "service"; what: string; detail: string; code?: ServiceError["code"] }
  | { kind: "error"; message: string };

/** The error `e` as data that crosses the boundary. */
export function crossingError(e: unknown): CrossingError {
  if (e instanceof ResourceInitError) {
    return {
      kind: "partial",
      message: e.message,
      id: e.id,
      properties: e.properties,
      reasons: [...e.reasons],
    };
  }
  if (e instanceof ServiceError) return { kind: "service", what: e.what, detail: e.detail, code: e.code };
  return { kind: "error", message: e instanceof Error ? e.message : String(e) };
}

/** The error of the class it was thrown with, rebuilt on this side of the boundary. */
export function rebuiltError(e: CrossingError): Error {
  switch (e.kind) {
    case "partial":
      return new ResourceInitError(e.message, e.id, e.properties, e.reasons);
    case "service":
      return new ServiceError(e.what, e.detail, e.code, undefined);
    default:
      return new Error(e.message);
  }
}
