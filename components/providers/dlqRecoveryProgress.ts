/**
 * What a `DlqRecovery` drain reports while it runs: the progress lines `pulumi up` prints, and
 * the run log, a JSON Lines file that receives every resumed run (the full list of a huge drain
 * lives there; the state keeps the first `maxRecordedRuns`).
 *
 * @packageDocumentation
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { ResumedRun } from "../../client";
import type { DlqRecoveryInputs } from "./dlqRecoveryInputs";

/** Least time between two progress lines, milliseconds. */
export const PROGRESS_INTERVAL_MS = 1000;

/** Prints progress that `pulumi up` shows while a drain runs (at most one line a second). */
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
  page(resumed: number, requests: number, final = false): void {
    const t = this.now();
    if (!final && t - this.lastPrint < PROGRESS_INTERVAL_MS) return;
    this.lastPrint = t;
    const totalResumed = this.base.resumed + resumed;
    const secs = Math.max((t - this.started) / 1000, 0.001);
    this.log(
      `DlqRecovery \`${this.name}\`: ${totalResumed} runs resumed in ${this.base.requests + requests} requests ` +
        `(${Math.round(resumed / secs)} runs/s)${final ? ", done" : ""}`,
    );
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
