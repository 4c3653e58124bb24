/**
 * The drain thread: one worker thread of the provider process in which its drains run, both ends
 * of it (the provider's side, {@link DrainThread}, and the worker's, at the bottom of this file).
 *
 * Why a thread: the dynamic-provider process loads the Pulumi SDK, and V8 sizes a heap's young
 * generation by what survived its collections since it last grew, counting the SDK's start-up;
 * a drain's steady allocation then doubles it and nothing shrinks it while the drain runs
 * (docs/benchmarks.md section 7). A worker has a heap of its own, without the SDK, whose young
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
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { ServiceError } from "../../core/messages";
import type { DlqRecoveryOutputs } from "./dlqRecoveryInputs";
import { runDrainJob, type DrainDeps, type DrainJob } from "./dlqRecoveryRun";
import { PartialStateError } from "./engineProtocol";

/** Young generation of the drain thread, MB: a drain keeps little alive from page to page. */
export const DRAIN_THREAD_YOUNG_MB = 8;

/** An error as it crosses the thread boundary. */
export type CrossingError =
  | { kind: "partial"; message: string; id: string; properties: Record<string, unknown>; reasons: string[] }
  | { kind: "service"; what: string; detail: string; code?: ServiceError["code"] }
  | { kind: "error"; message: string };

/** What the provider's side sends. */
type ToThread =
  { type: "run"; n: number; job: DrainJob; cwd: string } | { type: "alive"; n: number; alive: boolean };

/** What the drain thread sends. */
type FromThread =
  | { type: "log"; n: number; line: string }
  | { type: "alive?"; n: number }
  | { type: "orphaned"; n: number }
  | { type: "done"; n: number; outs: DlqRecoveryOutputs }
  | { type: "failed"; n: number; error: CrossingError };

/** The error `e` as data that crosses the boundary. */
export function crossingError(e: unknown): CrossingError {
  if (e instanceof PartialStateError) {
    return { kind: "partial", message: e.message, id: e.id, properties: e.properties, reasons: e.reasons };
  }
  if (e instanceof ServiceError) return { kind: "service", what: e.what, detail: e.detail, code: e.code };
  return { kind: "error", message: e instanceof Error ? e.message : String(e) };
}

/** The error of the class it was thrown with, rebuilt on this side of the boundary. */
export function rebuiltError(e: CrossingError): Error {
  switch (e.kind) {
    case "partial":
      return new PartialStateError(e.message, e.id, e.properties, e.reasons);
    case "service":
      return new ServiceError(e.what, e.detail, e.code, undefined);
    default:
      return new Error(e.message);
  }
}

/** The provider's side: starts the thread on the first drain and lets the process exit when idle. */
export class DrainThread {
  private worker: Worker | undefined;
  private next = 0;
  private readonly running = new Map<number, { deps: DrainDeps; settle: (m: FromThread) => void }>();

  /** Runs `job` in the drain thread; resolves with its outputs or rejects as the drain would. */
  run(job: DrainJob, deps: DrainDeps): Promise<DlqRecoveryOutputs> {
    const n = this.next++;
    const worker = this.started();
    return new Promise((resolve, reject) => {
      this.running.set(n, {
        deps,
        settle: (m) =>
          m.type === "done"
            ? resolve(m.outs)
            : m.type === "failed"
              ? reject(rebuiltError(m.error))
              : undefined,
      });
      worker.ref();
      worker.postMessage({ type: "run", n, job, cwd: deps.cwd() } satisfies ToThread);
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const [file, options] = workerEntry();
    const resourceLimits = { maxYoungGenerationSizeMb: DRAIN_THREAD_YOUNG_MB };
    const worker = new Worker(file, { ...options, resourceLimits });
    worker.on("message", (m: FromThread) => this.received(worker, m));
    worker.on("error", (e) => this.lost(e));
    worker.on("exit", (code) => this.lost(new Error(`the drain thread stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private received(worker: Worker, m: FromThread): void {
    const r = this.running.get(m.n);
    if (!r) return;
    if (m.type === "log") r.deps.log(m.line);
    else if (m.type === "orphaned") r.deps.exitOrphaned();
    else if (m.type === "alive?") {
      void r.deps
        .engineAlive()
        .then((alive) => worker.postMessage({ type: "alive", n: m.n, alive } satisfies ToThread));
    } else {
      this.running.delete(m.n);
      r.settle(m);
      if (this.running.size === 0) worker.unref();
    }
  }

  /** The thread failed or stopped: every drain in it fails (their runs are in the run log). */
  private lost(e: Error): void {
    this.worker = undefined;
    const error = crossingError(new Error(`${e.message}; the drains in it stopped, see their run logs`));
    for (const [n, r] of this.running) r.settle({ type: "failed", n, error });
    this.running.clear();
  }
}

/** The worker's file and options: the built module, or its TypeScript source through ts-node (tests). */
function workerEntry(): [string, { eval?: boolean; workerData: unknown }] {
  const data = { svcDrainThread: true };
  if (path.extname(__filename) !== ".ts") return [__filename, { workerData: data }];
  const code = `require("ts-node/register/transpile-only"); require(${JSON.stringify(__filename)});`;
  return [code, { eval: true, workerData: data }];
}

let shared: DrainThread | undefined;

/** The provider process's one drain thread. */
export function drainThread(): DrainThread {
  shared ??= new DrainThread();
  return shared;
}

/** The worker's side: runs each job it is sent with deps that talk to the provider's side. */
function serveDrains(port: NonNullable<typeof parentPort>): void {
  const asked = new Map<number, (alive: boolean) => void>();
  const send = (m: FromThread) => port.postMessage(m);
  port.on("message", (m: ToThread) => {
    if (m.type === "alive") return asked.get(m.n)?.(m.alive);
    const deps: DrainDeps = {
      now: Date.now,
      log: (line) => send({ type: "log", n: m.n, line }),
      cwd: () => m.cwd,
      engineAlive: () =>
        new Promise((resolve) => (asked.set(m.n, resolve), send({ type: "alive?", n: m.n }))),
      exitOrphaned: () => send({ type: "orphaned", n: m.n }),
    };
    runDrainJob(m.job, deps).then(
      (outs) => send({ type: "done", n: m.n, outs }),
      (e: unknown) => send({ type: "failed", n: m.n, error: crossingError(e) }),
    );
  });
}

if (!isMainThread && parentPort && (workerData as { svcDrainThread?: boolean } | null)?.svcDrainThread) {
  serveDrains(parentPort);
}
