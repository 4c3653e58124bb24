/**
 * Is the Pulumi engine that started this provider process still there?
 *
 * When `pulumi up` is killed outright, the engine dies but the provider process it
 * started lives on: a drain would go on resuming runs that no state will ever record.
 * The dynamic-provider process is started with the engine's address as its first
 * argument; a failed TCP connect to it means the engine is gone.
 */
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
 * In a dynamic-provider process whose engine is gone, nobody will ever call it again:
 * exit shortly, once the last lines are written, instead of lingering as an orphan.
 */
export function exitOrphanedProvider(): void {
  if (engineAddress()) setTimeout(() => process.exit(1), 200).unref();
}
