/**
 * The request log of the `/v2` endpoints, bounded to the most recent entries. Entries never hold
 * the Authorization header; strings are passed through the state's redaction before storing.
 */

/** One logged `/v2` request. */
export interface LoggedRequest {
  /** Position in the log since the last reset, from 0; stable even when old entries are dropped. */
  readonly index: number;
  /** When the request arrived, unix ms. */
  readonly time: number;
  /** HTTP method. */
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  /** Query parameters; repeated ones as arrays. */
  readonly query: Readonly<Record<string, string | readonly string[]>>;
  /** The Svc-* override headers as received (lower-case names, raw values), only those sent. */
  readonly overrideHeaders: Readonly<Record<string, string>>;
  /** Response status; null when no response was sent (dropped or lost). */
  status: number | null;
  /** Runs resumed (committed) by the request. */
  resumed: number;
  /** True when the account's rate limit refused the request (429; nothing resumed). */
  rateLimited?: boolean;
  /** True when the account's daily limit refused the request (429; nothing resumed). */
  dailyLimited?: boolean;
  /** Name of the fault applied, if any. */
  fault?: string;
  /** Error message sent, or the reason for the response (e.g. the unknown DLQ IDs of a 404). */
  error?: string;
}

/** Default number of entries kept. */
export const DEFAULT_LOG_CAPACITY = 100_000;

/** The bounded log. */
export class RequestLog {
  private items: LoggedRequest[] = [];
  private firstIndex = 0;
  private nextIndex = 0;

  /**
   * @param capacity - most entries kept; older ones are dropped.
   */
  constructor(private readonly capacity: number = DEFAULT_LOG_CAPACITY) {}

  /** Index the next request will get (= requests logged since the last reset). */
  get total(): number {
    return this.nextIndex;
  }

  /** Index of the oldest entry still kept. */
  get oldestIndex(): number {
    return this.firstIndex;
  }

  /**
   * Append an entry; the object stays live so the pipeline can fill in status and outcome later.
   *
   * @param entry - the entry without its index.
   * @returns the stored entry.
   */
  add(entry: Omit<LoggedRequest, "index">): LoggedRequest {
    const stored: LoggedRequest = { index: this.nextIndex++, ...entry };
    this.items.push(stored);
    if (this.items.length > this.capacity) {
      // Drop in chunks so appends stay amortised O(1).
      this.items = this.items.slice(Math.max(1, Math.floor(this.capacity / 10)));
      this.firstIndex = this.items[0].index;
    }
    return stored;
  }

  /**
   * Entries with index >= `since`, oldest first.
   *
   * @param since - first index wanted (0 = everything kept).
   * @param limit - most entries returned.
   */
  since(since: number, limit = Number.MAX_SAFE_INTEGER): LoggedRequest[] {
    const start = Math.max(0, since - this.firstIndex);
    return this.items.slice(start, start + limit);
  }

  /** Forget everything; indexes restart at 0. */
  clear(): void {
    this.items = [];
    this.firstIndex = 0;
    this.nextIndex = 0;
  }
}
