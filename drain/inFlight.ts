/**
 * How many requests a drain keeps in flight: about the account's rate times the round trip
 * (Little's law: a gate that lets `rate` requests a second through, each answered a round trip
 * later, is kept busy by `rate × round trip` requests), plus {@link GATE_BACKLOG} so the gate
 * never waits for the next request under jitter, and never more than a cap for sockets and memory.
 * More would only wait at the gate; fewer leave it idle. Windows of a filter drain and `dlqIds`
 * batches both follow it.
 *
 * @packageDocumentation
 */
import { SvcError } from "../client/errors";
import { BASE_WINDOWS, GATE_BACKLOG } from "./planKnobs";

export { BASE_WINDOWS };

/**
 * The most requests one drain keeps in flight, whatever its `concurrency`: each holds a socket
 * (well under the usual 1,024 open files a process gets) and an answer of up to 50 runs (a few kB),
 * so 256 hold a few MB. 500 requests a second at a 300 ms round trip need 152; 256 leaves room
 * for slower round trips.
 */
export const MAX_IN_FLIGHT = 256;

/** The wait at the gate {@link GATE_BACKLOG} requests make at 100 requests a second, ms. */
const BACKLOG_MS = (GATE_BACKLOG * 1000) / 100;

/**
 * Requests waiting at a gate of `ratePerSecond` that are a backlog, not jitter: {@link GATE_BACKLOG}
 * at 100 a second or less, as many as wait as long (20 ms) at a faster rate (10 at 500 a second),
 * and, for a drain that needs more than {@link BASE_WINDOWS} in flight at `roundTripMs`, at least
 * half of what the gate lets through in one (7 at 100 a second and 150 ms): answers come back
 * bunched, and the windows that continue queue at the gate for a while and leave it idle later in
 * the round trip unless more are sent.
 */
export function gateBacklog(ratePerSecond: number | undefined, roundTripMs?: number): number {
  if (ratePerSecond === undefined) return GATE_BACKLOG;
  const need = roundTripMs === undefined ? 0 : (ratePerSecond * roundTripMs) / 1000;
  const half = need > BASE_WINDOWS ? Math.floor(need / 2 + 1e-9) : 0;
  return Math.max(GATE_BACKLOG, Math.ceil((ratePerSecond * BACKLOG_MS) / 1000 - 1e-9), half);
}

/**
 * Requests in flight that keep a gate of `ratePerSecond` busy at `roundTripMs`:
 * `ceil(rate × round trip)` plus the gate's backlog ({@link gateBacklog}), at most `cap`, at least 1.
 */
export function inFlightFor(ratePerSecond: number, roundTripMs: number, cap: number = MAX_IN_FLIGHT): number {
  const need = Math.ceil((ratePerSecond * roundTripMs) / 1000 - 1e-9) + gateBacklog(ratePerSecond);
  return Math.max(1, Math.min(cap, need));
}

/**
 * The floor of recent round trips, ms: what latency takes without the time spent waiting at the
 * gate (a request that did not wait brings it down at once; when every request takes longer it
 * rises by 5 % an answer).
 */
export class RoundTripFloor {
  /** The floor now; `undefined` before the first answer. */
  ms: number | undefined;

  /** Takes one round trip, ms. */
  add(rtt: number): number {
    this.ms = Math.min(rtt, (this.ms ?? rtt) * 1.05);
    return this.ms;
  }
}

/**
 * Checks a `concurrency` option: unset (automatic), or an integer from 1 to {@link MAX_IN_FLIGHT}.
 *
 * @throws SvcError `SVC_INVALID_ARGUMENT` naming the range
 */
export function checkConcurrency(value: number | undefined): void {
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1 || value > MAX_IN_FLIGHT) {
    throw new SvcError(
      "SVC_INVALID_ARGUMENT",
      `\`concurrency\` must be an integer from 1 to ${MAX_IN_FLIGHT} (requests in flight at most; unset: about the rate × the round trip)`,
    );
  }
}
