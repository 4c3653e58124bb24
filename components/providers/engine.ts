/**
 * What a dynamic provider and the Pulumi engine tell each other beyond the provider protocol:
 * whether the engine that started this provider process is still there, and the error that
 * hands the engine a resource's partial state.
 *
 * When `pulumi up` is killed outright, the engine dies but the provider process it
 * started lives on: a drain would go on resuming runs that no state will ever record.
 * The dynamic-provider process is started with the engine's address as its first
 * argument; a failed TCP connect to it means the engine is gone.
 */
import "../../client/requireNode"; // first: one clear error on a Node.js older than 22.19
import * as net from "node:net";

/** The engine's `host:port` when this process is a dynamic provider; else undefined. */
export function engineAddress(argv: readonly string[] = process.argv): string | undefined {
  if (!/dynamic-provider/.test(argv[1] ?? "")) return undefined;
  const addr = argv[2];
  return addr && /^[\w.-]+:\d+$/.test(addr) ? addr : undefined;
}

/** Resolves false when nothing accepts a connection at `address` within `timeoutMs`. */
export function isListening(address: string, timeoutMs = 1_000): Promise<boolean> {
  const i = address.lastIndexOf(":");
  return new Promise((resolve) => {
    const socket = net.connect({ host: address.slice(0, i), port: Number(address.slice(i + 1)) });
    const done = (alive: boolean) => {
      socket.destroy();
      resolve(alive);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** Thrown by a drain that stops because the engine is gone. */
export class EngineGoneError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EngineGoneError";
  }
}

/**
 * Rejects a create or update that failed part-way: the engine saves `properties` as the
 * resource's state, with `reasons` as its init errors, so nothing done so far is lost (the
 * dynamic-provider server packs `id`, `properties` and `reasons` into `ErrorResourceInitFailed`).
 */
export class PartialStateError extends Error {
  /**
   * @param message - what happened and what to do
   * @param id - the resource's ID
   * @param properties - the state to save
   * @param reasons - the init errors to record (usually `[message]`)
   */
  constructor(
    message: string,
    readonly id: string,
    readonly properties: Record<string, unknown>,
    readonly reasons: string[],
  ) {
    super(message);
    this.name = "PartialStateError";
  }
}

/**
 * In a dynamic-provider process whose engine is gone, nobody will ever call it again:
 * exit shortly, once the last lines are written, instead of lingering as an orphan.
 */
export function exitOrphanedProvider(): void {
  if (engineAddress()) setTimeout(() => process.exit(1), 200).unref();
}
