/**
 * The part of the account's per-second limit this process may use, learnt from what the service
 * says is left (`Burst-RateLimit-Remaining` and `-Reset`), so requests of other clients and of
 * other processes of the same account (a second `pulumi up` draining it) are left room.
 *
 * Two rules, both from the headers of the answers (no I/O, the clock is passed in):
 * 1. **What is left now.** An answer saying `R` requests are left in the window that resets at
 *    `reset` leaves this process `R` minus its own requests still in flight (they count in that
 *    window too) and minus the others' requests that reach the service within a round trip, at the
 *    rate they used so far in the window (else two processes at the rate overrun each window by
 *    each other's requests on the way: docs/benchmarks.md, section 9, "Another client"); every
 *    request released before the reset takes one more. At none left, nothing is released
 *    until the reset.
 * 2. **The share.** After each window, the requests of others in it are estimated: the limit minus
 *    the least its answers said was left (the answer to the last of this process's requests the
 *    service counted in it), minus all of this process's requests counted in it. Answers overtake
 *    each other when round trips vary, so a window is settled only once all of its answers are in
 *    (at the answer to a request sent {@link SETTLE_ROUND_TRIPS} of its longest round trips past
 *    its end, or when the window after the next begins): taking only the answers received before
 *    the one that said the least would count every overtaken request of this process as another
 *    client's, and a drain alone on the account would slow itself down. The estimate is
 *    extrapolated to the whole window when that answer's request was counted before the window's
 *    end, never beyond what its own requests left; the highest of the last {@link SHARE_HISTORY}
 *    windows counts. When others used at least the margin, this process paces at the limit minus
 *    their use minus a margin ({@link shareMargin}); it lowers its rate at once and raises it
 *    halfway towards the target per window, so two processes that each see the other settle on
 *    shares that together stay below the limit.
 *
 * @packageDocumentation
 */

/** Windows whose estimate of others' requests counts (the highest one). */
export const SHARE_HISTORY = 2;

/** Requests per window kept free besides the others' estimate: 2 % of the limit, at least 1. */
export function shareMargin(limit: number): number {
  return Math.max(1, Math.ceil(limit * 0.02));
}

/** An answered request of this process, as {@link BurstShare.observe} takes it. */
export interface AnsweredRequest {
  /** When it was sent, unix ms. */
  sent: number;
  /** When its answer came, unix ms. */
  answered?: number;
  /** It was refused with 429: the service did not count it in the window. */
  refused?: boolean;
}

/** A window of the per-second limit this process heard about. */
interface LimitWindow {
  /** When it resets, unix ms. */
  resetAt: number;
  /** Requests this process may still start in it. */
  left: number;
  /** This process's requests counted in it (answered, not refused). */
  own: number;
  /** The least its answers said was left: after the last of this process's requests it counted. */
  leastLeft: number;
  /** When the service counted the request of that answer, unix ms. */
  leastAt: number;
  /** The longest round trip of its answers so far, ms. */
  longest: number;
}

/** Length of a window of the per-second limit, ms. */
const WINDOW_MS = 1_000;

/**
 * Round trips past a window's end (its longest so far) from which a request is sent only after
 * every answer of the window came back, by the time its own answer comes: late answers are those
 * of requests sent just before the end, whose round trips vary about as much as the window's did.
 */
export const SETTLE_ROUND_TRIPS = 1;

/**
 * Others' requests the service will count between this answer's request and the next one this
 * process sends (one round trip later), at the rate they used so far in the window. Their count so
 * far is the window's use less this process's answered requests and less all it has in flight: an
 * overtaken request of its own (counted, not yet answered) is one of those in flight, so a process
 * alone on the account sees no other here, however its answers overtake each other; only an
 * attempt the service counted whose answer was lost (reported with status 0, no headers) counts
 * as another's, for the rest of its window.
 */
function othersInTransit(
  w: LimitWindow,
  limit: number,
  remaining: number,
  inFlight: number,
  countedAt: number,
  roundTrip: number,
): number {
  const others = limit - remaining - w.own - inFlight;
  if (others <= 0) return 0;
  const elapsed = Math.max(countedAt - (w.resetAt - WINDOW_MS), WINDOW_MS / 10);
  return Math.ceil((others * roundTrip) / elapsed);
}

/** See the module comment. */
export class BurstShare {
  private current: LimitWindow | undefined;
  /** The window before `current` while answers of it may still come back. */
  private settling: LimitWindow | undefined;
  private readonly history: number[] = [];
  private rate: number | undefined;

  /**
   * Learns from one answer that carried the `Burst-RateLimit-*` headers.
   *
   * @param limit - `Burst-RateLimit-Limit`
   * @param remaining - `Burst-RateLimit-Remaining`
   * @param resetAt - `Burst-RateLimit-Reset` as unix ms
   * @param inFlight - this process's requests sent and not answered yet
   * @param request - the answered request: `sent`, about when the service counted it (unix ms;
   *   the answer comes a round trip later, and the others' requests until then are not in it);
   *   `answered`, when its answer came (`sent` if not given); `refused`, a 429 (not counted in
   *   the window)
   */
  observe(
    limit: number,
    remaining: number,
    resetAt: number,
    inFlight: number,
    request: AnsweredRequest,
  ): void {
    const { sent: t, answered: answeredAt = request.sent } = request;
    const late = this.settling !== undefined && resetAt === this.settling.resetAt;
    let w = late ? this.settling : this.current;
    if (w !== undefined && resetAt < w.resetAt) return; // an answer of a window already settled
    if (w === undefined || resetAt > w.resetAt) {
      // A window whose first answer came after it ended: too little of it seen to learn from.
      if (resetAt < answeredAt) return;
      if (this.settling !== undefined) this.close(this.settling, limit);
      this.settling = w;
      w = { resetAt, left: remaining, own: 0, leastLeft: remaining, leastAt: t, longest: 0 };
      this.current = w;
    }
    if (request.refused !== true) w.own += 1;
    w.longest = Math.max(w.longest, answeredAt - t);
    if (remaining < w.leastLeft) {
      w.leastLeft = remaining;
      w.leastAt = t;
    }
    // The service counted this request when it arrived; this process's requests still in flight
    // were mostly sent after that (answers come back in about the order they were sent), so they
    // are not in `remaining` yet; those sent after the window's start take from it (`released`).
    // Others' requests reach it meanwhile too: a round trip's worth at the rate seen so far.
    if (!late) {
      const othersOnTheWay = othersInTransit(w, limit, remaining, inFlight, t, answeredAt - t);
      w.left = Math.min(w.left, remaining - inFlight - othersOnTheWay);
    }
    const settling = this.settling;
    if (settling !== undefined && t >= settling.resetAt + SETTLE_ROUND_TRIPS * settling.longest) {
      this.close(settling, limit);
      this.settling = undefined;
    }
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
   * Others' requests in a settled window: the limit, less the least its answers said was left,
   * less this process's requests in it. When that answer's request was counted before the window's
   * end (this process stopped sending when the window was spent, or simply had no answer in its
   * last moments: 38 of another client's 40 seen at 0.95 s), extrapolated to the whole window, but
   * never more than the window left beside this process's own requests.
   */
  private othersIn(w: LimitWindow, limit: number): number {
    const others = limit - w.leastLeft - w.own;
    const seen = w.leastAt - (w.resetAt - WINDOW_MS);
    if (others <= 0 || seen <= WINDOW_MS / 10 || seen >= WINDOW_MS) return Math.max(0, others);
    return Math.min(Math.ceil((others * WINDOW_MS) / seen), Math.max(others, limit - w.own));
  }

  private close(w: LimitWindow, limit: number): void {
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
