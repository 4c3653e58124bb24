/**
 * The part of the account's per-second limit this process may use, learnt from what the service
 * says is left (`Burst-RateLimit-Remaining` and `-Reset`), so requests of other clients and of
 * other processes of the same account (a second `pulumi up` draining it) are left room.
 *
 * Two rules, both from the headers of the answers (no I/O, the clock is passed in):
 * 1. **What is left now.** An answer saying `R` requests are left in the window that resets at
 *    `reset` leaves this process `R` minus its own requests still in flight (they count in that
 *    window too); every request released before the reset takes one more. At none left, nothing
 *    is released until the reset.
 * 2. **The share.** After each window, the requests of others in it are estimated (the limit minus
 *    what was left, minus this process's own answered requests of that window, extrapolated to
 *    the whole window when its last answer came before the window's end, never beyond what its
 *    own requests left; the highest of the last {@link SHARE_HISTORY} windows counts). When
 *    others used at least the margin, this process paces at the limit minus their use minus a
 *    margin ({@link shareMargin}); it lowers its rate at once and raises it halfway towards the
 *    target per window, so two processes that each see the other settle on shares that together
 *    stay below the limit.
 *
 * @packageDocumentation
 */

/** Windows whose estimate of others' requests counts (the highest one). */
export const SHARE_HISTORY = 2;

/** Requests per window kept free besides the others' estimate: 2 % of the limit, at least 1. */
export function shareMargin(limit: number): number {
  return Math.max(1, Math.ceil(limit * 0.02));
}

/** The window this process last heard about. */
interface CurrentWindow {
  /** When it resets, unix ms. */
  resetAt: number;
  /** Requests this process may still start in it. */
  left: number;
  /** This process's answers counted in it. */
  own: number;
  /** Highest estimate of others' requests in it. */
  others: number;
  /** When that estimate was made, unix ms. */
  othersAt: number;
}

/** Length of a window of the per-second limit, ms. */
const WINDOW_MS = 1_000;

/** See the module comment. */
export class BurstShare {
  private current: CurrentWindow | undefined;
  private readonly history: number[] = [];
  private rate: number | undefined;

  /**
   * Learns from one answer that carried the `Burst-RateLimit-*` headers.
   *
   * @param limit - `Burst-RateLimit-Limit`
   * @param remaining - `Burst-RateLimit-Remaining`
   * @param resetAt - `Burst-RateLimit-Reset` as unix ms
   * @param inFlight - this process's requests sent and not answered yet
   * @param t - when the service counted the answered request, unix ms: about when it was sent
   *   (the answer comes a round trip later, and the others' requests until then are not in it)
   */
  observe(limit: number, remaining: number, resetAt: number, inFlight: number, t: number): void {
    let w = this.current;
    if (w !== undefined && resetAt < w.resetAt) return; // a late answer of a past window
    if (w === undefined || resetAt > w.resetAt) {
      if (w !== undefined) this.close(w, limit);
      w = { resetAt, left: remaining, own: 0, others: 0, othersAt: t };
      this.current = w;
    }
    w.own += 1;
    // The service counted this request when it arrived; this process's requests still in flight
    // were mostly sent after that (answers come back in about the order they were sent), so they
    // are not in `remaining` yet and are not subtracted here: one answered out of order is counted
    // as the others' (too many, the safe side). Subtracting them would take about rate × round
    // trip off the others' estimate, and the share would go over by as much.
    const others = limit - remaining - w.own;
    if (others >= w.others) {
      w.others = others;
      w.othersAt = t;
    }
    w.left = Math.min(w.left, remaining - inFlight);
  }

  /** A request was released at `t`: it takes one of what is left in the current window. */
  released(t: number): void {
    const w = this.current;
    if (w !== undefined && t < w.resetAt) w.left -= 1;
  }

  /** The earliest time from `t` on when the window has room for one more request. */
  releasableAt(t: number): number {
    const w = this.current;
    if (w === undefined || t >= w.resetAt) return t;
    return w.left > 0 ? t : w.resetAt;
  }

  /** This process's share, requests per second; `undefined` while no other user was seen. */
  get ratePerSecond(): number | undefined {
    return this.rate;
  }

  /** Estimates of others' requests in the last windows, oldest first (for tests). */
  get othersSeen(): readonly number[] {
    return this.history;
  }

  /**
   * Others' requests in a closed window: when the last estimate was made before the window's end
   * (this process stopped sending when the window was spent, or simply had no answer in its last
   * moments: 38 of another client's 40 seen at 0.95 s), extrapolated to the whole window, but
   * never more than the window left beside this process's own requests.
   */
  private othersIn(w: CurrentWindow, limit: number): number {
    const seen = w.othersAt - (w.resetAt - WINDOW_MS);
    if (w.others <= 0 || seen <= WINDOW_MS / 10 || seen >= WINDOW_MS) return Math.max(0, w.others);
    return Math.min(Math.ceil((w.others * WINDOW_MS) / seen), Math.max(w.others, limit - w.own));
  }

  private close(w: CurrentWindow, limit: number): void {
    this.history.push(this.othersIn(w, limit));
    if (this.history.length > SHARE_HISTORY) this.history.shift();
    const others = Math.max(...this.history);
    // Below the margin it is noise (a request counted in the window next to where it was sent).
    if (others < shareMargin(limit)) {
      this.rate = undefined;
      return;
    }
    const target = Math.max(1, limit - others - shareMargin(limit));
    const rate = this.rate ?? limit;
    this.rate = target < rate ? target : (rate + target) / 2;
  }
}
