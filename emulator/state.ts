/**
 * Everything the emulator knows, in one object shared by the HTTP routes, the admin API and the
 * programmatic API: the DLQ, the ledger of resumed runs, the request log, the fault injector and
 * the account.
 */
import type { UnknownDlqIds } from "./unknown-dlq-ids";
import { AccountStore } from "./account";
import { DlqStore } from "./dlq";
import type { DlqEntry } from "./dlq-entry";
import { entryFromInput } from "./dlq-entry";
import { FaultInjector } from "./faults";
import { show } from "./http";
import { Ledger } from "./ledger";
import type { PlanName } from "./plans";
import { DailyLimiter } from "./daily-limit";
import { AccountRateLimiter } from "./rate-limit";
import { RequestLog } from "./request-log";
import { seedEntries } from "./seed";
import { mulberry32 } from "./prng";
import { DEFAULT_RUN_ID_SHAPE, RUN_ID_SHAPES, RunIdMaker, isRunIdShape, type RunIdShape } from "./run-ids";

/** Largest number of entries one seed call may create. */
export const MAX_SEED_COUNT = 5_000_000;

/** Settings of a new state. */
export interface StateInit {
  /** Bearer token. */
  readonly token: string;
  /** Basic username (account `customer_id`). */
  readonly username: string;
  /** Basic password. */
  readonly password: string;
  /** Initial plan preset. */
  readonly plan: PlanName;
  /** Clock, unix ms. */
  readonly now: () => number;
  /** Capacity of the request log. */
  readonly logCapacity?: number;
  /** Whether the account's rate limit is enforced on the resume API (default true). */
  readonly rateLimit?: boolean;
  /** Requests per account and UTC day on the resume API; absent for off. */
  readonly dailyLimit?: number;
  /** Requests of every one-second window a simulated other client uses (default 0). */
  readonly otherClientLoad?: number;
  /** What a `dlqIds` batch with IDs not in the DLQ gets (default `"refuse"`). */
  readonly unknownDlqIds?: UnknownDlqIds;
  /** The shape of the run IDs of seeded entries and of entries added without one (default `sdk`). */
  readonly runIds?: RunIdShape;
}

/** The emulator's state. */
export class EmulatorState {
  /** The live DLQ. */
  readonly dlq = new DlqStore();
  /** Runs created by resumes, by original DLQ ID. */
  readonly ledger = new Ledger();
  /** Log of `/v2` requests. */
  readonly log: RequestLog;
  /** Fault configuration and decisions. */
  readonly faults = new FaultInjector();
  /** The account record and credentials. */
  readonly account: AccountStore;
  /** The account's rate limit on the resume API (`max_requests_per_second`). */
  readonly rateLimit: AccountRateLimiter;
  /** The account's daily limit on the resume API (off unless set). */
  readonly dailyLimit: DailyLimiter;
  /** Clock, unix ms. */
  readonly now: () => number;
  /** What a `dlqIds` batch with IDs not in the DLQ gets (see `UnknownDlqIds`); settable at run time. */
  unknownDlqIds: UnknownDlqIds;
  /** The shape of the run IDs of seeded entries and of entries added without one (`run-ids.ts`). */
  readonly runIds: RunIdShape;
  /** Names entries added without a run ID. */
  private readonly runIdMaker: RunIdMaker;

  /**
   * @param init - credentials, plan, clock.
   */
  constructor(init: StateInit) {
    this.now = init.now;
    this.runIds = init.runIds ?? DEFAULT_RUN_ID_SHAPE;
    this.runIdMaker = new RunIdMaker(this.runIds, mulberry32(0x42));
    this.unknownDlqIds = init.unknownDlqIds ?? "refuse";
    this.log = new RequestLog(init.logCapacity);
    this.rateLimit = new AccountRateLimiter(init.rateLimit ?? true, init.otherClientLoad ?? 0);
    this.dailyLimit = new DailyLimiter(init.dailyLimit);
    this.account = new AccountStore({
      token: init.token,
      username: init.username,
      password: init.password,
      plan: init.plan,
      now: init.now(),
    });
  }

  /**
   * Add deterministic failed runs (see `seed.ts`).
   *
   * @param count - number of entries, 0..5,000,000.
   * @param seed - PRNG seed, a non-negative integer.
   * @param runIds - the shape of their run IDs (default: the emulator's, {@link EmulatorState.runIds}).
   * @returns the number added.
   * @throws Error naming the argument and the value.
   */
  seed(count: unknown, seed: unknown = 1, runIds: unknown = this.runIds): number {
    if (typeof count !== "number" || !Number.isSafeInteger(count) || count < 0 || count > MAX_SEED_COUNT) {
      throw new Error(`count must be an integer from 0 to ${MAX_SEED_COUNT}, got ${show(count)}`);
    }
    if (typeof seed !== "number" || !Number.isSafeInteger(seed) || seed < 0) {
      throw new Error(`seed must be a non-negative integer, got ${show(seed)}`);
    }
    if (!isRunIdShape(runIds)) {
      throw new Error(`runIds must be one of ${RUN_ID_SHAPES.join(", ")}, got ${show(runIds)}`);
    }
    return seedEntries(this.dlq, count, seed, this.now(), runIds);
  }

  /**
   * Add entries from partial entry objects (all-or-nothing).
   *
   * @param inputs - an array of partial entries (see `entryFromInput`); one without a
   *   `workflowRunId` gets one of the emulator's shape ({@link EmulatorState.runIds}).
   * @returns the added entries.
   * @throws Error naming the entry, the field and the value.
   */
  addEntries(inputs: unknown): DlqEntry[] {
    if (!Array.isArray(inputs))
      throw new Error(`entries must be a JSON array of partial entries, got ${show(inputs)}`);
    const now = this.now();
    const entries = inputs.map((input, i) => entryFromInput(input, `entries[${i}]`, now));
    const unnamed = entries.filter(
      (_, i) => (inputs[i] as Record<string, unknown>).workflowRunId === undefined,
    );
    const named = this.runIdMaker.name(unnamed.map((e) => e.workflowCreatedAt));
    unnamed.forEach((e, i) => ((e as { workflowRunId: string }).workflowRunId = named[i]));
    const ids = new Set<string>();
    entries.forEach((entry, i) => {
      if (this.dlq.has(entry.dlqId) || ids.has(entry.dlqId)) {
        throw new Error(`entries[${i}].dlqId ${show(entry.dlqId)} is already in the DLQ`);
      }
      ids.add(entry.dlqId);
    });
    return entries.map((entry) => this.dlq.insert(entry));
  }

  /**
   * Empty the DLQ (new cursor epoch), the ledger and the request log, clear the faults, and
   * forget the rate-limit windows, the daily counts and the counters (whether the limits are on,
   * and the other client's load, stay as they are).
   */
  reset(): void {
    this.dlq.clear();
    this.ledger.clear();
    this.log.clear();
    this.faults.configure({});
    this.rateLimit.clear();
    this.dailyLimit.clear();
  }

  /**
   * Replace every occurrence of a current credential in a string by "[redacted]".
   *
   * @param text - any text about to be logged or sent.
   */
  redact(text: string): string {
    let result = text;
    for (const secret of [this.account.token, this.account.password]) {
      if (secret !== "" && result.includes(secret)) result = result.split(secret).join("[redacted]");
    }
    return result;
  }
}
