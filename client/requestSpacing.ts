/**
 * Request spacing: a token bucket of size one, i.e. consecutive request starts are at least
 * `1000 / maxRequestsPerSecond` ms apart. Slots are reserved synchronously, so concurrent
 * callers get distinct, ordered slots. One drain's own cap (`maxRequestsPerSecond`); the
 * account's shared limit is the rate gate's (`drain/rateGate.ts`).
 *
 * @packageDocumentation
 */
import { SvcError } from "./errors";

/** Something that is awaited before each request attempt. */
export type RequestGate = () => Promise<void>;

/** A gate that never waits. */
export const OPEN_GATE: RequestGate = () => Promise.resolve();

/**
 * Creates a gate that lets at most `maxRequestsPerSecond` request starts through per second.
 *
 * @param maxRequestsPerSecond - positive number (fractions allowed, e.g. `0.5`)
 * @param now - clock, unix milliseconds
 * @param sleep - waits the given milliseconds
 * @throws SvcError `SVC_INVALID_ARGUMENT` when the rate is not a positive finite number
 */
export function spacingGate(
  maxRequestsPerSecond: number,
  now: () => number,
  sleep: (ms: number) => Promise<void>,
): RequestGate {
  if (
    typeof maxRequestsPerSecond !== "number" ||
    !Number.isFinite(maxRequestsPerSecond) ||
    maxRequestsPerSecond <= 0
  ) {
    throw new SvcError("SVC_INVALID_ARGUMENT", "`maxRequestsPerSecond` must be a positive number");
  }
  const intervalMs = 1000 / maxRequestsPerSecond;
  let nextSlot = -Infinity;
  return async () => {
    const t = now();
    const slot = Math.max(t, nextSlot);
    nextSlot = slot + intervalMs;
    const wait = Math.ceil(slot - t);
    if (wait > 0) await sleep(wait);
  };
}
