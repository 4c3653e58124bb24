/**
 * The one concurrency primitive of the drains: up to `limit` jobs in flight, each answer handled
 * one at a time in the order the answers arrived, and every answer that arrived handled before
 * anything new starts. Windows of a windowed drain and `dlqIds` batches both run on it.
 *
 * What it guarantees to its user: when a handler decides to stop (its `take` returns nothing),
 * no job starts any more, and the jobs in flight still finish and are handed to `settle`, so no
 * answer is lost.
 *
 * @packageDocumentation
 */

/** How a job ended. */
export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

/** The jobs a {@link TaskPool} runs. */
export interface PoolJobs<J, R> {
  /** The next job to start now, or `undefined` when none (for now, or any more). */
  take(): J | undefined;
  /** Starts a job (a throw counts as a failed job). */
  start(job: J): Promise<R>;
  /** Handles how a job ended; awaited before the next answer is handled or a job starts. */
  settle(job: J, outcome: Outcome<R>): void | Promise<void>;
}

/** Runs jobs with at most `limit` in flight (see the module comment). */
export class TaskPool {
  /** Jobs in flight now (started, not yet handed to `settle`). */
  inFlight = 0;
  /** Most jobs in flight at once. */
  maxInFlight = 0;

  /**
   * @param limit - jobs in flight at most (≥ 1), or a function read before each start, so the
   * limit can follow what the runner measures (a smaller one lets jobs in flight finish)
   */
  constructor(private readonly limit: number | (() => number)) {}

  /** The limit now. */
  private get most(): number {
    return typeof this.limit === "number" ? this.limit : Math.max(1, this.limit());
  }

  /** Runs until no job is in flight and `take` returns nothing. */
  async run<J, R>(jobs: PoolJobs<J, R>): Promise<void> {
    const settled: [J, Outcome<R>][] = [];
    let wake: (() => void) | undefined;
    const launch = (job: J): void => {
      this.inFlight += 1;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      let pending: Promise<R>;
      try {
        pending = jobs.start(job);
      } catch (error) {
        pending = Promise.reject(error);
      }
      pending
        .then(
          (value): Outcome<R> => ({ ok: true, value }),
          (error: unknown): Outcome<R> => ({ ok: false, error }),
        )
        .then((outcome) => {
          settled.push([job, outcome]);
          wake?.();
        });
    };
    for (;;) {
      while (settled.length > 0) {
        const [job, outcome] = settled.shift() as [J, Outcome<R>];
        this.inFlight -= 1;
        await jobs.settle(job, outcome);
      }
      while (this.inFlight < this.most) {
        const job = jobs.take();
        if (job === undefined) break;
        launch(job);
      }
      if (this.inFlight === 0) return;
      if (settled.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  }
}
