/**
 * What is left of the account's daily limit for this process, from the `RateLimit-*` headers of
 * the answers, so a drain sends no request the day cannot take: the last answer said `R` requests
 * are left today, this process has some in flight (they count too), and every request released
 * since takes one more. At none left the gate waits for the answers in flight (it is woken by
 * the next answer); once an answer says none is left (`RateLimit-Remaining: 0` before the
 * reset), the day is spent.
 *
 * @packageDocumentation
 */

/** What {@link DailyBudget.state} says about releasing one more request now. */
export type DailyState = "open" | "wait" | "spent";

/** See the module comment. */
export class DailyBudget {
  private left = Infinity;
  private remaining: number | undefined;
  private resetAt: number | undefined;

  /**
   * Learns from one answer that carried `RateLimit-Remaining`.
   *
   * @param remaining - `RateLimit-Remaining`
   * @param resetAt - `RateLimit-Reset` as unix ms, if sent
   * @param inFlight - this process's requests sent and not answered yet
   */
  observe(remaining: number, resetAt: number | undefined, inFlight: number): void {
    if (resetAt === undefined) return; // no day to relate it to
    if (this.resetAt !== undefined && resetAt < this.resetAt) return; // an answer of a past day
    if (this.resetAt === undefined || resetAt > this.resetAt) {
      this.left = Infinity;
      this.remaining = undefined;
    }
    this.resetAt = resetAt;
    this.remaining = Math.min(this.remaining ?? Infinity, remaining);
    this.left = Math.min(this.left, remaining - inFlight);
  }

  /** A request was released at `t`: it takes one of what is left today. */
  released(t: number): void {
    if (this.resetAt !== undefined && t < this.resetAt) this.left -= 1;
  }

  /**
   * Whether one more request may go at `t`, must wait for the answers in flight, or the day is
   * spent. With nothing in flight, what the last answer said is all there is to go by.
   *
   * @param inFlight - this process's requests sent and not answered yet
   */
  state(t: number, inFlight: number): DailyState {
    if (this.resetAt === undefined || t >= this.resetAt || this.left > 0) return "open";
    if (this.remaining === 0) return "spent";
    if (inFlight > 0) return "wait";
    this.left = this.remaining ?? Infinity;
    return "open";
  }

  /** Forgets what the answers said (the day's count started over before its reset). */
  forget(): void {
    this.left = Infinity;
    this.remaining = undefined;
    this.resetAt = undefined;
  }

  /** When the day resets, unix ms, if known. */
  get reset(): number | undefined {
    return this.resetAt;
  }
}
