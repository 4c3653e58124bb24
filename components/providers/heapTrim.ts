/**
 * Keeps the memory of a long drain down.
 *
 * A drain allocates a steady stream of short-lived objects (responses, pages, run-log lines;
 * about 2 GB over a 1,000,000-entry drain) while keeping almost nothing (about 1 MB). Under such
 * a stream V8 grows its young generation to its maximum and keeps it there, about 100 MB of RSS
 * more than the drain needs (measured: a 1,000,000-entry drain under the CLI peaks at 386 MB
 * in the provider process, 266 MB with `--max-semi-space-size=1`). The provider process is
 * started by the Pulumi CLI, so it cannot be given that flag; instead, while a drain runs, a
 * full collection that reduces the memory footprint ("last-resort", which also shrinks the young
 * generation) runs every {@link TRIM_INTERVAL_MS}: about 25–40 ms each, under 2 % of the drain.
 *
 * Where V8 does not offer that collection, nothing is done.
 *
 * @packageDocumentation
 */
import "../../client/requireNode"; // first: one clear error on a Node.js older than 22.19
import * as v8 from "node:v8";
import * as vm from "node:vm";

/** Time between two trims while a drain runs, ms. */
export const TRIM_INTERVAL_MS = 2_000;

type GcFunction = (options?: { type?: string; execution?: string; flavor?: string }) => unknown;

let gcFunction: GcFunction | null | undefined;

/** V8's `gc` function: the process's own, else one exposed for a fresh context; null when unavailable. */
function loadGc(): GcFunction | null {
  const own = (globalThis as { gc?: unknown }).gc;
  if (typeof own === "function") return own as GcFunction;
  try {
    v8.setFlagsFromString("--expose-gc");
    const gc: unknown = vm.runInNewContext("gc");
    return typeof gc === "function" ? (gc as GcFunction) : null;
  } catch {
    return null;
  } finally {
    v8.setFlagsFromString("--no-expose-gc");
  }
}

let holders = 0;
let timer: NodeJS.Timeout | undefined;

function trim(): void {
  try {
    gcFunction?.({ type: "major", execution: "sync", flavor: "last-resort" });
  } catch {
    gcFunction = null; // an engine without these options: stop trying
  }
}

/**
 * Trims the heap every {@link TRIM_INTERVAL_MS} until every holder has released it (drains of
 * the process share one timer).
 *
 * @returns release: call it once when the drain ends
 */
export function holdHeapTrim(): () => void {
  if (gcFunction === undefined) gcFunction = loadGc();
  holders += 1;
  if (timer === undefined && gcFunction !== null) {
    timer = setInterval(trim, TRIM_INTERVAL_MS);
    timer.unref();
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holders -= 1;
    if (holders === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}
