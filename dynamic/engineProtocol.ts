/**
 * What the 0.2 dynamic providers (`dynamic/`) rely on from the Pulumi engine and from
 * `@pulumi/pulumi`'s dynamic-provider server (`cmd/dynamic-provider/index.js`) beyond the
 * `ResourceProvider` interface: every such assumption is here, and nowhere else.
 *
 * Checked against `@pulumi/pulumi` {@link PULUMI_CHECKED_VERSION}; its test
 * (`test/unit/dynamic/engine-protocol.test.ts`) reads the installed server and fails when one of
 * these changes:
 *
 * 1. **Process arguments.** The server is started as `node …/cmd/dynamic-provider/index.js
 *    <engine host:port> …` (`main(process.argv.slice(2))`): the engine's address is the first
 *    argument. A failed TCP connect to it means the engine is gone (`pulumi up` was killed
 *    outright), and the provider process lives on as an orphan: a drain would go on resuming
 *    runs no state will ever record. {@link engineLivenessProbe} checks it; a drain stopped by it
 *    ends the process ({@link exitOrphanedProvider}).
 * 2. **Partial state.** When `create` or `update` rejects with an error that has an `id`, the
 *    server (`grpcResponseFromError`) packs `id`, `properties` and `reasons` of the error into an
 *    `ErrorResourceInitFailed`, which the engine saves as the resource's state with `reasons` as its
 *    init errors. The provider's `ResourceInitError` has exactly these fields.
 * 3. **`__provider`.** The server copies the serialized provider ({@link PROVIDER_KEY}) into the
 *    outputs of a successful `create`, `update` and `read` (`resultIncludingProvider`), but not
 *    into the properties of a rejection: a partial state without it could never be updated or
 *    deleted. {@link withSerializedProvider} carries it from the inputs.
 * 4. **Warnings.** The engine's address serves the engine's `Engine` service to its plugins; its
 *    `Log` with severity `WARNING` and no URN is shown as a warning of the update
 *    ({@link engineWarning}), where a line on stdout is only an info diagnostic. It is sent through
 *    the svc provider's engine client (`provider/engine.ts`).
 *
 * @packageDocumentation
 */
import "../client/requireNode"; // first: one clear error on a Node.js older than 22.19
import { engineAt } from "../provider/engine";
import { ResourceInitError } from "../provider/resource";

/** The `@pulumi/pulumi` version whose dynamic-provider server this module was checked against. */
export const PULUMI_CHECKED_VERSION = "3.259.0";

/** The property that holds the serialized provider in a dynamic resource's inputs and state. */
export const PROVIDER_KEY = "__provider";

/** The engine's `host:port` when this process is a dynamic provider; else undefined. */
export function engineAddress(argv: readonly string[] = process.argv): string | undefined {
  if (!/dynamic-provider/.test(argv[1] ?? "")) return undefined;
  const addr = argv[2];
  return addr && /^[\w.-]+:\d+$/.test(addr) ? addr : undefined;
}

/**
 * Whether the engine that started this process is still there: a connect to its address, when
 * this process is a dynamic provider; otherwise (tests, a program's own process) always true.
 */
export function engineLivenessProbe(argv: readonly string[] = process.argv): () => Promise<boolean> {
  const address = engineAddress(argv);
  return address ? engineAt(address).alive : async () => true;
}

/**
 * Sends a warning to the engine (`Log`, severity `WARNING`, no URN: a warning of the update),
 * when this process is a dynamic provider; undefined otherwise (tests, a program's own process).
 * The function resolves false when the engine did not take it (the caller then prints it).
 */
export function engineWarning(
  argv: readonly string[] = process.argv,
): ((message: string) => Promise<boolean>) | undefined {
  const address = engineAddress(argv);
  if (!address) return undefined;
  // The svc provider's engine client: a log without a URN is a warning of the update.
  const engine = engineAt(address);
  return (message) => engine.log("", "warning", message);
}

/**
 * The rejection of a create or update that failed part-way, with the serialized provider of
 * `inputs` in the state to save (the server does not add it to a rejection).
 */
export function withSerializedProvider(e: unknown, inputs: object): unknown {
  if (!(e instanceof ResourceInitError)) return e;
  const properties = { ...e.properties, [PROVIDER_KEY]: (inputs as Record<string, unknown>)[PROVIDER_KEY] };
  return new ResourceInitError(e.message, e.id, properties, e.reasons);
}

/**
 * In a dynamic-provider process whose engine is gone, nobody will ever call it again:
 * exit shortly, once the last lines are written, instead of lingering as an orphan.
 */
export function exitOrphanedProvider(argv: readonly string[] = process.argv): void {
  if (engineAddress(argv)) setTimeout(() => process.exit(1), 200).unref();
}

/** Marks a stream {@link exitWhenOutputCloses} watches already (on the stream: no module state). */
const WATCHED = Symbol("svc.exitWhenOutputCloses");

/**
 * In a dynamic-provider process, ends the process ({@link exitOrphanedProvider}) at the first
 * write to its stdout or stderr that fails with EPIPE: the engine reads both, so the engine is
 * gone. Without it the server's own `uncaughtException` handler prints that error to stderr,
 * which fails the same way, again and again, on `process.nextTick`: the process spins at 100 %
 * CPU and no timer, message or engine check runs any more (seen when `pulumi up` was killed while
 * the drain thread was still sending progress lines).
 */
export function exitWhenOutputCloses(
  argv: readonly string[] = process.argv,
  streams: readonly NodeJS.EventEmitter[] = [process.stdout, process.stderr],
  exit: () => void = () => exitOrphanedProvider(argv),
): void {
  if (!engineAddress(argv)) return;
  for (const stream of streams) {
    const marked = stream as NodeJS.EventEmitter & { [WATCHED]?: true };
    if (marked[WATCHED]) continue;
    marked[WATCHED] = true;
    stream.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "EPIPE") exit();
    });
  }
}
