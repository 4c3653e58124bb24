/**
 * What a `DlqRecovery` drain reports while it runs: the progress lines `pulumi up` prints, and
 * the run log, a JSON Lines file that receives every resumed run (the full list of a huge drain
 * lives there; the state keeps the first `maxRecordedRuns`).
 *
 * @packageDocumentation
 */
import "../../client/requireNode"; // first: one clear error on a Node.js older than 22.19
import * as fs from "node:fs";
import * as path from "node:path";
import type { ResumedRun } from "../../client";
import type { DlqRecoveryInputs } from "./dlqRecoveryInputs";

/** Least time between two progress lines, milliseconds. */
export const PROGRESS_INTERVAL_MS = 1000;

/** What a drain has done so far in this continuation, and how it goes. */
export interface ProgressSample {
  /** Runs resumed by this continuation. */
  resumed: number;
  /** Requests answered in this continuation. */
  requests: number;
  /** Windows with a request in flight (filter and `all` drains). */
  windowsInFlight?: number;
  /** Requests per second the account's rate gate (or `maxRequestsPerSecond`) allows now. */
  allowedPerSecond?: number;
  /** Requests still to send (`dlqIds` drains, where the total is known). */
  requestsLeft?: number;
}

/**
 * Prints progress that `pulumi up` shows while a drain runs (at most one line a second), e.g.
 * "DlqRecovery `x`: 12345 runs resumed in 260 requests (2400 runs/s, 95 req/s of 100/s allowed),
 * 7 windows in flight"; a `dlqIds` drain ends with ", about 12 s left".
 */
export class Progress {
  private lastPrint = 0;

  /**
   * @param name - the resource's name
   * @param started - when the drain started, unix ms
   * @param base - runs and requests of the drain before this continuation
   * @param now - the clock
   * @param log - prints one line
   */
  constructor(
    private readonly name: string,
    private readonly started: number,
    private readonly base: { resumed: number; requests: number },
    private readonly now: () => number,
    private readonly log: (line: string) => void,
  ) {}

  /** Reports the counts after a page; `final` prints regardless of the interval and says "done". */
  page(p: ProgressSample, final = false): void {
    const t = this.now();
    if (!final && t - this.lastPrint < PROGRESS_INTERVAL_MS) return;
    this.lastPrint = t;
    const secs = Math.max((t - this.started) / 1000, 0.001);
    const head =
      `DlqRecovery \`${this.name}\`: ${this.base.resumed + p.resumed} runs resumed in ` +
      `${this.base.requests + p.requests} requests (${Math.round(p.resumed / secs)} runs/s`;
    if (final) {
      this.log(`${head}), done`);
      return;
    }
    const reqRate = p.requests / secs;
    const allowed = p.allowedPerSecond === undefined ? "" : ` of ${Math.round(p.allowedPerSecond)}/s allowed`;
    const windows = p.windowsInFlight === undefined ? "" : `, ${p.windowsInFlight} windows in flight`;
    const left =
      p.requestsLeft === undefined || reqRate <= 0
        ? ""
        : `, about ${Math.ceil(p.requestsLeft / reqRate)} s left`;
    this.log(`${head}, ${Math.round(reqRate)} req/s${allowed})${windows}${left}`);
  }
}

/** The run log's path relative to the program folder: `runLogFile`, else `svc-recovery/<name>.jsonl`. */
export function runLogPath(inputs: DlqRecoveryInputs): string {
  return inputs.runLogFile ?? path.join("svc-recovery", `${inputs.recoveryName ?? "dlq-recovery"}.jsonl`);
}

/**
 * Opens the run log: a function that appends runs to it, one JSON object a line.
 *
 * @param inputs - `runLogFile` (`""` for none) and `recoveryName`
 * @param cwd - the program folder
 * @returns the appender, or undefined when the run log is disabled
 */
export function openRunLog(
  inputs: DlqRecoveryInputs,
  cwd: string,
): ((runs: ResumedRun[]) => void) | undefined {
  if (inputs.runLogFile === "") return undefined;
  const file = path.resolve(cwd, runLogPath(inputs));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  return (runs) => {
    if (runs.length === 0) return;
    fs.appendFileSync(file, runs.map((r) => JSON.stringify(r)).join("\n") + "\n");
  };
}
