/**
 * The one Node.js version check of the package. Every entry point (the package root,
 * `pulumi-svc/providers/*`, `pulumi-svc/client`, the policy pack, the emulator command) imports
 * `client/requireNode.ts` first, which calls {@link assertNodeVersion}: on an older Node the
 * first thing that fails is this one error, not a `TypeError` deep inside undici.
 *
 * @packageDocumentation
 */
import { writeSync } from "node:fs";

/** The oldest Node.js the package runs on (undici 8 needs it); `engines.node` in package.json says the same. */
export const MIN_NODE_VERSION = "22.19.0";

/** Thrown by {@link assertNodeVersion}; `code` is stable. */
export class NodeVersionError extends Error {
  /** Stable code. */
  readonly code = "SVC_NODE_VERSION";

  /**
   * @param found - the running Node.js version, e.g. `20.11.1`
   */
  constructor(readonly found: string) {
    super(
      `pulumi-svc needs Node.js >= ${MIN_NODE_VERSION}; this is Node.js ${found}. ` +
        "Install Node.js 22.19 or newer (https://nodejs.org), or put a newer one first on PATH: a clone " +
        "of the repository has Node 24 in `node_modules/node/bin` after `npm start` (its " +
        "`toolchain/pulumi.sh` runs `pulumi` with it).",
    );
    this.name = "NodeVersionError";
  }
}

/**
 * True when `found` is at least {@link MIN_NODE_VERSION}.
 *
 * @param found - a version such as `22.19.0` or `v24.1.0`
 */
export function nodeVersionSupported(found: string): boolean {
  const parse = (v: string) =>
    v
      .replace(/^v/, "")
      .split(".")
      .map((p) => Number.parseInt(p, 10) || 0);
  const [a, b] = [parse(found), parse(MIN_NODE_VERSION)];
  for (let i = 0; i < 3; i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return true;
}

/**
 * Throws {@link NodeVersionError} on a Node.js older than {@link MIN_NODE_VERSION}.
 *
 * @param found - the version to check; default the running one
 */
export function assertNodeVersion(found: string = process.versions.node): void {
  if (!nodeVersionSupported(found)) throw new NodeVersionError(found);
}

/**
 * The check of a command (the `pulumi-svc-emulator` bin), not of a library: on a Node.js older
 * than {@link MIN_NODE_VERSION} it prints the one message of {@link NodeVersionError} on stderr,
 * with no stack trace (an uncaught throw would print the trace and the source line), and exits 1.
 *
 * @param command - the command's name, which starts the line
 * @param found - the version to check; default the running one
 * @param exit - ends the process (tests pass their own)
 */
export function exitOnUnsupportedNode(
  command: string,
  found: string = process.versions.node,
  exit: (code: number) => void = (code) => process.exit(code),
): void {
  if (nodeVersionSupported(found)) return;
  // Synchronous, so the line is out before the process exits, whatever stderr is (file, pipe, TTY).
  writeSync(2, `${command}: ${new NodeVersionError(found).message}\n`);
  exit(1);
}
