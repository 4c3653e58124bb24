/**
 * Reading the emulator's ledger once a drain has stopped: requests in flight are still answered
 * for a moment after a stop, so the count is read once it no longer moves.
 *
 * @packageDocumentation
 */
import type { RunningEmulator } from "../../emulator";

/** The ledger's distinct entries resumed, once no request has been answered for `quietMs`. */
export async function settledResumedCount(emulator: RunningEmulator, quietMs = 200): Promise<number> {
  let last = -1;
  for (;;) {
    const now = emulator.state.ledger.totals().distinctEntriesResumed;
    if (now === last) return now;
    last = now;
    await new Promise((r) => setTimeout(r, quietMs));
  }
}
