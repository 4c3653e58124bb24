/**
 * What the svc provider asks of the engine that started it, as the plugin protocol promises it:
 * the engine's address is the plugin's first argument (`pulumi-resource-svc <host:port>`, flags
 * such as `--logtostderr` and `-v=9` aside), and that address serves the `Engine` service, whose
 * `Log` with a resource's URN shows on that resource's row.
 *
 * @packageDocumentation
 */
import * as net from "node:net";
import * as grpc from "@grpc/grpc-js";
import { EngineClient } from "@pulumi/pulumi/proto/engine_grpc_pb";
import { LogRequest, LogSeverity } from "@pulumi/pulumi/proto/engine_pb";

/** The engine's `host:port` among the plugin's arguments (the first that is not a flag). */
export function engineAddressOf(args: readonly string[]): string | undefined {
  const first = args.find((a) => !a.startsWith("-"));
  return first !== undefined && /^[\w.[\]:-]+:\d+$/.test(first) ? first : undefined;
}

/**
 * The severities the provider logs with. A `status` line is an info line the engine shows on the
 * resource's row while its step runs and leaves out of the update's diagnostics (an ephemeral
 * log): progress, which the next line replaces.
 */
export type Severity = "info" | "warning" | "status";

/** The engine as the provider's resources see it: logs on a resource's row, and whether it is there. */
export interface Engine {
  /** Logs `message` on the row of `urn`; resolves false when the engine did not take it. */
  log(urn: string, severity: Severity, message: string): Promise<boolean>;
  /** False once nothing listens at the engine's address (`pulumi` was killed outright). */
  alive(): Promise<boolean>;
}

/** The engine at `address`, or, with none (tests, a provider started by hand), lines on `print`. */
export function engineAt(
  address: string | undefined,
  print: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Engine {
  if (address === undefined) {
    return {
      log: async (_urn, severity, message) => (
        print(severity === "warning" ? `${severity}: ${message}` : message),
        true
      ),
      alive: async () => true,
    };
  }
  let client: EngineClient | undefined;
  return {
    log: (urn, severity, message) =>
      new Promise((resolve) => {
        client ??= new EngineClient(address, grpc.credentials.createInsecure());
        const req = new LogRequest()
          .setSeverity(severity === "warning" ? LogSeverity.WARNING : LogSeverity.INFO)
          .setEphemeral(severity === "status")
          .setMessage(message)
          .setUrn(urn);
        client.log(req, (err) => resolve(err === null));
      }),
    alive: () => isListening(address),
  };
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
