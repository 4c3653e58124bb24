/**
 * The DLQ store: live entries in insertion order, addressable by DLQ ID and by sequence number.
 *
 * Layout, chosen so that one resume request costs the same with 1,000 or 1,000,000 entries:
 * - `slots[i]` holds the entry with sequence number `seqs[i]`, or `null` once it was removed
 *   (a tombstone). `seqs` is strictly increasing, so "continue after sequence S" is a binary search.
 * - `byId` maps DLQ ID to entry, so lookups by ID never scan.
 * - `head` is the first slot that may be live, so scans from the start skip the drained prefix.
 * - `times[i]` is the failure time of slot i. While entries arrive in failure-time order (as an
 *   incident's do, and as the seeders add them), `fromDate` is a binary search and a scan stops
 *   past `toDate`: a request for a window costs what the window holds, not where it lies.
 * - Tombstones are compacted away once they outnumber live entries (amortised O(1) per removal).
 *
 * Every slot visited by {@link DlqStore.select} counts in `lastScanned`/`totalScanned`, which tests
 * use to assert the cost of a request without timing it.
 */
import type { DlqEntry } from "./dlq-entry";

/** Filters of a resume request; all set filters must match (AND). */
export interface EntryFilter {
  /** Failure time on or after, unix ms. */
  readonly fromDate?: number;
  /** Failure time on or before, unix ms. */
  readonly toDate?: number;
  /** Exact workflow URL. */
  readonly workflowUrl?: string;
  /** Run ID or run ID prefix. */
  readonly workflowRunId?: string;
  /** Exact creation time of the failed run, unix ms. */
  readonly workflowCreatedAt?: number;
}

/** Result of {@link DlqStore.select}. */
export interface Selection {
  /** Matching live entries after the start position, in order, at most `limit`. */
  readonly entries: DlqEntry[];
  /** Whether at least one more matching entry exists after the last selected one. */
  readonly more: boolean;
  /** Slots visited (live, tombstoned or not matching). */
  readonly scanned: number;
}

/** Counters describing the store, served by `GET /admin/stats`. */
export interface DlqStats {
  /** Live entries. */
  readonly size: number;
  /** Removed entries still occupying a slot. */
  readonly tombstones: number;
  /** Sequence number the next inserted entry gets. */
  readonly nextSeq: number;
  /** Incremented by every {@link DlqStore.clear}; cursors from another epoch are rejected. */
  readonly epoch: number;
  /** Slots visited by the last select. */
  readonly lastScanned: number;
  /** Slots visited by all selects since the last clear. */
  readonly totalScanned: number;
  /** Compactions run since the last clear. */
  readonly compactions: number;
}

/**
 * The first index of the nondecreasing `values` that holds `bound` or more (`strict`: more than
 * `bound`), `values.length` when none does; by binary search.
 */
function firstFrom(values: readonly number[], bound: number, strict = false): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] < bound || (strict && values[mid] === bound)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Tombstones tolerated before a compaction is considered. */
const MIN_TOMBSTONES_FOR_COMPACTION = 1024;

/**
 * Does an entry match every set filter?
 *
 * @param entry - the entry.
 * @param filter - the filters.
 */
export function matchesFilter(entry: DlqEntry, filter: EntryFilter): boolean {
  return (
    (filter.fromDate === undefined || entry.failedAt >= filter.fromDate) &&
    (filter.toDate === undefined || entry.failedAt <= filter.toDate) &&
    (filter.workflowUrl === undefined || entry.workflowUrl === filter.workflowUrl) &&
    (filter.workflowRunId === undefined || entry.workflowRunId.startsWith(filter.workflowRunId)) &&
    (filter.workflowCreatedAt === undefined || entry.workflowCreatedAt === filter.workflowCreatedAt)
  );
}

/** The live DLQ. See the module comment for the layout. */
export class DlqStore {
  private slots: (DlqEntry | null)[] = [];
  private seqs: number[] = [];
  private times: number[] = [];
  /** `times` is nondecreasing: every entry so far arrived in failure-time order. */
  private inTimeOrder = true;
  private readonly byId = new Map<string, DlqEntry>();
  private head = 0;
  private tombstones = 0;
  private nextSeq = 1;
  private epochValue = 0;
  private compactions = 0;
  /** Slots visited by the last {@link DlqStore.select}. */
  lastScanned = 0;
  /** Slots visited by all selects since the last clear. */
  totalScanned = 0;

  /** Number of live entries. */
  get size(): number {
    return this.byId.size;
  }

  /** Current epoch; incremented by {@link DlqStore.clear}. */
  get epoch(): number {
    return this.epochValue;
  }

  /** Sequence number the next inserted entry will get. */
  get nextSequence(): number {
    return this.nextSeq;
  }

  /** Sequence number of the newest slot (live or not), or 0 when empty. */
  get lastSequence(): number {
    return this.seqs.length === 0 ? 0 : this.seqs[this.seqs.length - 1];
  }

  /**
   * Append an entry; assigns `entry.seq`.
   *
   * @param entry - the entry; its `dlqId` must not be live already.
   * @returns the same entry object.
   * @throws Error naming the DLQ ID when it is already live.
   */
  insert(entry: DlqEntry): DlqEntry {
    if (this.byId.has(entry.dlqId)) {
      throw new Error(`dlqId ${JSON.stringify(entry.dlqId)} is already in the DLQ`);
    }
    entry.seq = this.nextSeq++;
    if (entry.failedAt < (this.times[this.times.length - 1] ?? -Infinity)) this.inTimeOrder = false;
    this.slots.push(entry);
    this.seqs.push(entry.seq);
    this.times.push(entry.failedAt);
    this.byId.set(entry.dlqId, entry);
    return entry;
  }

  /**
   * Whether a DLQ ID is live.
   *
   * @param dlqId - the ID.
   */
  has(dlqId: string): boolean {
    return this.byId.has(dlqId);
  }

  /**
   * Look up a live entry by DLQ ID.
   *
   * @param dlqId - the ID.
   */
  get(dlqId: string): DlqEntry | undefined {
    return this.byId.get(dlqId);
  }

  /**
   * Remove a live entry by DLQ ID (O(log n)). Call {@link DlqStore.maybeCompact} after a batch.
   *
   * @param dlqId - the ID.
   * @returns whether an entry was removed.
   */
  remove(dlqId: string): boolean {
    const entry = this.byId.get(dlqId);
    if (entry === undefined) return false;
    const index = firstFrom(this.seqs, entry.seq);
    this.slots[index] = null;
    this.byId.delete(dlqId);
    this.tombstones++;
    // Keep `head` on the first live slot; each slot is passed at most once (amortised O(1)).
    if (index === this.head) {
      while (this.head < this.slots.length && this.slots[this.head] === null) this.head++;
    }
    return true;
  }

  /**
   * Select matching live entries with a sequence number greater than `afterSeq`, in order.
   * Scans from the first slot after `afterSeq` only as far as needed to fill `limit` and to learn
   * whether one more match exists.
   *
   * @param filter - the filters (empty = everything).
   * @param afterSeq - start after this sequence number (0 = from the start).
   * @param limit - most entries to return.
   */
  select(filter: EntryFilter, afterSeq: number, limit: number): Selection {
    const entries: DlqEntry[] = [];
    let more = false;
    let scanned = 0;
    let i = afterSeq <= 0 ? this.head : Math.max(this.head, firstFrom(this.seqs, afterSeq, true));
    const unfiltered = Object.keys(filter).length === 0;
    const { fromDate, toDate } = filter;
    if (this.inTimeOrder && fromDate !== undefined) i = Math.max(i, firstFrom(this.times, fromDate));
    for (; i < this.slots.length; i++) {
      if (this.inTimeOrder && toDate !== undefined && this.times[i] > toDate) break;
      scanned++;
      const entry = this.slots[i];
      if (entry === null) continue;
      if (!unfiltered && !matchesFilter(entry, filter)) continue;
      if (entries.length === limit) {
        more = true;
        break;
      }
      entries.push(entry);
    }
    this.lastScanned = scanned;
    this.totalScanned += scanned;
    return { entries, more, scanned };
  }

  /**
   * A page of live entries in order (admin listing; O(offset)).
   *
   * @param offset - live entries to skip.
   * @param limit - most entries to return.
   */
  page(offset: number, limit: number): DlqEntry[] {
    const page: DlqEntry[] = [];
    let skipped = 0;
    for (let i = this.head; i < this.slots.length && page.length < limit; i++) {
      const entry = this.slots[i];
      if (entry === null) continue;
      if (skipped < offset) skipped++;
      else page.push(entry);
    }
    return page;
  }

  /** Drop tombstones once they outnumber live entries; amortised O(1) per removal. */
  maybeCompact(): void {
    if (this.tombstones < MIN_TOMBSTONES_FOR_COMPACTION || this.tombstones * 2 < this.slots.length) return;
    const slots: DlqEntry[] = [];
    const seqs: number[] = [];
    const times: number[] = [];
    for (let i = this.head; i < this.slots.length; i++) {
      const entry = this.slots[i];
      if (entry === null) continue;
      slots.push(entry);
      seqs.push(entry.seq);
      times.push(entry.failedAt);
    }
    this.slots = slots;
    this.seqs = seqs;
    this.times = times;
    this.head = 0;
    this.tombstones = 0;
    this.compactions++;
  }

  /** Remove every entry and start a new epoch (sequence numbers restart at 1). */
  clear(): void {
    this.slots = [];
    this.seqs = [];
    this.times = [];
    this.inTimeOrder = true;
    this.byId.clear();
    this.head = 0;
    this.tombstones = 0;
    this.nextSeq = 1;
    this.epochValue++;
    this.compactions = 0;
    this.lastScanned = 0;
    this.totalScanned = 0;
  }

  /** Counters for diagnostics and tests. */
  stats(): DlqStats {
    return {
      size: this.size,
      tombstones: this.tombstones,
      nextSeq: this.nextSeq,
      epoch: this.epochValue,
      lastScanned: this.lastScanned,
      totalScanned: this.totalScanned,
      compactions: this.compactions,
    };
  }
}
