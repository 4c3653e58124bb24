/**
 * What a `DlqRecovery` drain reports while it runs: the progress lines `pulumi up` prints (at
 * most {@link MAX_PROGRESS_LINES} a drain, whatever its size), and the run log, a JSON Lines file
 * that receives every resumed run (the full list of a huge drain lives there; the state keeps
 * the first `maxRecordedRuns`): one file per drain, `svc-recovery/<name>/<specHash>.jsonl`, the
 * newest {@link RUN_LOGS_KEPT} of a resource kept.
 *
 * @packageDocumentation
 */
import "../../client/requireNode"; // first: one clear error on a Node.js older than 22.19
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import type { ResumedRun } from "../../client";
import { specHash, type DlqRecoveryInputs } from "./inputs";

/** Least time between two progress lines, milliseconds. */
export const PROGRESS_INTERVAL_MS = 1000;
/** Most progress lines one drain prints, the final "done" line included. */
export const MAX_PROGRESS_LINES = 20;
/**
 * The gap between two progress lines grows with the drain: at least this share of the time
 * elapsed (lines at about 0 s, 1 s, 2 s, 3 s, 4.5 s, 6.75 s, ...), so that a long drain is still
 * reported now and then.
 */
const PROGRESS_GAP_SHARE = 0.5;
/** Run logs of one resource kept in `svc-recovery/<name>/` (one a drain); older ones are removed. */
export const RUN_LOGS_KEPT = 10;

/** "1 run", "2 runs": a count and its noun, singular or plural. */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

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
  /** What the service last said is left of the account's daily limit (`RateLimit-*`). */
  daily?: { limit?: number; remaining: number };
}

/** Below this share of the daily limit left, progress says how many daily requests remain. */
export const DAILY_LOW_SHARE = 0.1;

/** ", 80 of 1000 daily requests left" when fewer than 10 % of the account's daily requests remain. */
export function dailyLow(daily: ProgressSample["daily"]): string {
  if (daily?.limit === undefined || daily.remaining >= daily.limit * DAILY_LOW_SHARE) return "";
  return `, ${daily.remaining} of ${daily.limit} daily requests left`;
}

/**
 * Prints progress that `pulumi up` shows while a drain runs, e.g. "DlqRecovery `x`: 12345 runs
 * resumed in 260 requests (2400 runs/s, 95 req/s of 100/s allowed), 7 windows in flight"; a
 * `dlqIds` drain ends with ", about 12 s left". At most {@link MAX_PROGRESS_LINES} lines a drain:
 * the first page at once, then at least a second apart and further apart as the drain goes on
 * (half the time elapsed), and the final "done" line.
 */
export class Progress {
  private lastPrint = 0;
  private printed = 0;

  /**
   * @param name - the resource's name
   * @param started - when the drain started, unix ms
   * @param base - runs and requests of the drain before this continuation
   * @param now - the clock
   * @param log - prints the final line (`final`) and the lines before it (`progress`)
   */
  constructor(
    private readonly name: string,
    private readonly started: number,
    private readonly base: { resumed: number; requests: number },
    private readonly now: () => number,
    private readonly log: { final: (line: string) => void; progress: (line: string) => void },
  ) {}

  /** Reports the counts after a page; `final` prints regardless of the interval and says "done". */
  page(p: ProgressSample, final = false): void {
    const t = this.now();
    if (!final) {
      const gap = Math.max(PROGRESS_INTERVAL_MS, (t - this.started) * PROGRESS_GAP_SHARE);
      // The first page is reported at once; then a line after each gap.
      if (this.printed >= MAX_PROGRESS_LINES - 1 || (this.printed > 0 && t - this.lastPrint < gap)) return;
    }
    this.lastPrint = t;
    this.printed++;
    const secs = Math.max((t - this.started) / 1000, 0.001);
    const head =
      `DlqRecovery \`${this.name}\`: ${count(this.base.resumed + p.resumed, "run")} resumed in ` +
      `${count(this.base.requests + p.requests, "request")} (${Math.round(p.resumed / secs)} runs/s`;
    if (final) {
      this.log.final(`${head}), done`);
      return;
    }
    const reqRate = p.requests / secs;
    const allowed = p.allowedPerSecond === undefined ? "" : ` of ${Math.round(p.allowedPerSecond)}/s allowed`;
    const windows =
      p.windowsInFlight === undefined ? "" : `, ${count(p.windowsInFlight, "window")} in flight`;
    const left =
      p.requestsLeft === undefined || reqRate <= 0
        ? ""
        : `, about ${Math.ceil(p.requestsLeft / reqRate)} s left`;
    this.log.progress(
      `${head}, ${Math.round(reqRate)} req/s${allowed})${windows}${left}${dailyLow(p.daily)}`,
    );
  }
}

/**
 * The run log's path relative to the program folder: `runLogFile` when set (one file, appended to
 * by every drain), else one file per drain, `svc-recovery/<name>/<specHash>.jsonl` (a drain cut
 * off and continued appends to its own file; a new drain, after a change of the selection, an
 * override or `triggers`, starts a new one).
 */
export function runLogPath(inputs: DlqRecoveryInputs): string {
  return (
    inputs.runLogFile ??
    path.join("svc-recovery", inputs.recoveryName ?? "dlq-recovery", `${specHash(inputs)}.jsonl`)
  );
}

/** An open run log: appends runs, and knows what a drain whose result reached no state wrote. */
export interface RunLog {
  /**
   * Appends the runs of one page, one JSON object a line, then records in the start mark that
   * `requests` requests of this drain are answered and written.
   *
   * @param requests - requests this drain has had answered so far, this page's included
   */
  append(runs: readonly ResumedRun[], requests: number): void;
  /**
   * Runs the run log holds from a drain whose result reached no state (a second Ctrl-C, a killed
   * `pulumi`, a lost drain thread): the lines it wrote after its start mark.
   */
  readonly unrecorded: number;
  /**
   * The requests of those runs' drain, as its start mark recorded them page by page (0 for a mark
   * written before marks counted requests).
   */
  readonly unrecordedRequests: number;
  /** This drain's mark, stored in its outputs (`runLogMark`). */
  readonly mark: string;
  /** The drain ended and its result goes to the engine as it should: its start mark is removed. */
  close(): void;
}

/**
 * A drain's start mark, in `<file>.open`: the file's size when it started, the mark's name, and
 * the requests whose runs the file holds after `offset`, rewritten after each page. A drain that
 * finds the mark of a drain no state recorded keeps its `offset` and `requests` and adds its own,
 * so drains cut off one after the other (two kills) are all counted by the next.
 */
interface StartMark {
  readonly offset: number;
  readonly mark: string;
  readonly requests?: number;
}

/** The start mark's file of the run log `file`. */
function markFileOf(file: string): string {
  return `${file}.open`;
}

/** The start mark in `markFile`, or undefined (none, or not one of ours). */
function readMark(markFile: string): StartMark | undefined {
  try {
    const m = JSON.parse(fs.readFileSync(markFile, "utf8")) as Partial<StartMark>;
    if (!Number.isSafeInteger(m.offset) || typeof m.mark !== "string") return undefined;
    const requests = Number.isSafeInteger(m.requests) && (m.requests as number) >= 0 ? m.requests : 0;
    return { offset: m.offset as number, mark: m.mark, requests };
  } catch {
    return undefined;
  }
}

/** Lines of `file` after byte `from` (0 when the file is gone). */
function linesAfter(file: string, from: number): number {
  if (!fs.existsSync(file)) return 0;
  let n = 0;
  for (const b of fs.readFileSync(file).subarray(from)) if (b === 0x0a) n += 1;
  return n;
}

/** Removes the marks of the run logs in `dir` whose drain reached the state (`saved`). */
function removeSavedMarks(dir: string, saved: string | undefined): void {
  if (saved === undefined) return;
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith(".open"))) {
    if (readMark(path.join(dir, f))?.mark === saved) fs.rmSync(path.join(dir, f), { force: true });
  }
}

/**
 * Opens the run log. A new default run log removes the oldest of the resource's folder beyond
 * the newest {@link RUN_LOGS_KEPT} (files of other names there, and logs elsewhere, such as the
 * single `svc-recovery/<name>.jsonl` of earlier versions, are left where they are).
 *
 * While a drain runs, a start mark beside the file (`<file>.open`: the file's size at the start,
 * the mark's name, which the drain's outputs store as `runLogMark`, and the requests answered and
 * written so far) says where its lines begin. A drain stopped by a cancel keeps its mark, since
 * the CLI may end before it saves the result (a second Ctrl-C). The next drain finds the mark: if
 * the state holds that mark the drain was saved; otherwise its lines are runs no state recorded
 * ({@link RunLog.unrecorded}), in the requests the mark counted ({@link RunLog.unrecordedRequests}).
 *
 * @param inputs - `runLogFile` (`""` for none), `recoveryName` and the drain's spec
 * @param cwd - the program folder
 * @param saved - the `runLogMark` of the resource's state, if any
 * @returns the run log, or undefined when it is disabled
 */
export function openRunLog(inputs: DlqRecoveryInputs, cwd: string, saved?: string): RunLog | undefined {
  if (inputs.runLogFile === "") return undefined;
  const file = path.resolve(cwd, runLogPath(inputs));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (inputs.runLogFile === undefined && !fs.existsSync(file)) {
    fs.writeFileSync(file, "");
    pruneRunLogs(path.dirname(file), RUN_LOGS_KEPT, path.basename(file));
  }
  removeSavedMarks(path.dirname(file), saved);
  const markFile = markFileOf(file);
  const left = readMark(markFile);
  const unrecorded = left === undefined ? 0 : linesAfter(file, left.offset);
  const unrecordedRequests = left?.requests ?? 0;
  const mark = crypto.randomBytes(8).toString("hex");
  // Where this drain's lines begin, or the unrecorded drain's, which this one counts and carries.
  const offset = left?.offset ?? (fs.existsSync(file) ? fs.statSync(file).size : 0);
  const startMark = (requests: number) =>
    JSON.stringify({ offset, mark, requests: unrecordedRequests + requests } satisfies StartMark);
  fs.writeFileSync(markFile, startMark(0));
  const lines = new RunLogLines();
  return {
    unrecorded,
    unrecordedRequests,
    mark,
    append: (runs, requests) => {
      if (runs.length > 0) fs.appendFileSync(file, lines.encode(runs));
      rewriteMark(markFile, startMark(requests));
    },
    close: () => fs.rmSync(markFile, { force: true }),
  };
}

/**
 * Rewrites a start mark in place, in one write from its first byte and without truncating it: a
 * process killed at any point leaves the old mark or the new one, never an empty file. The new
 * text is never shorter (only its request count changes, and it only grows).
 */
function rewriteMark(markFile: string, text: string): void {
  let fd: number;
  try {
    fd = fs.openSync(markFile, "r+");
  } catch {
    return; // removed meanwhile (`pruneRunLogs` of another drain of the resource): nothing to keep
  }
  try {
    fs.writeSync(fd, text, 0, "utf8");
  } finally {
    fs.closeSync(fd);
  }
}

/** An ID that JSON writes as it is, between quotes: printable ASCII without `"` or `\`. */
const PLAIN_ID = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * Encodes a page of runs as run log lines, `{"workflowRunId":"…","workflowCreatedAt":…}` each, into
 * one buffer reused from page to page: a drain writes a million lines, and a string a run (then a
 * joined string, then its bytes) is what grew the provider's young generation (docs/benchmarks.md
 * section 7). The lines are exactly `JSON.stringify` of each run.
 */
export class RunLogLines {
  private buf = Buffer.allocUnsafe(16 * 1024);

  /** The lines of `runs`, each ending in a newline: a view of the reused buffer, valid until the next call. */
  encode(runs: readonly ResumedRun[]): Buffer {
    let at = 0;
    for (let i = 0; i < runs.length; i++) {
      const r = runs[i];
      const id = PLAIN_ID.test(r.workflowRunId)
        ? r.workflowRunId
        : JSON.stringify(r.workflowRunId).slice(1, -1);
      // Every character of `id` is at most 3 bytes in UTF-8; the rest of a line at most 66 (42 fixed,
      // and any number's shortest form has at most 24 characters).
      this.reserve(at + id.length * 3 + 80);
      at += this.buf.write('{"workflowRunId":"', at, "latin1");
      at += this.buf.write(id, at, "utf8");
      at += this.buf.write('","workflowCreatedAt":', at, "latin1");
      at += this.buf.write(String(r.workflowCreatedAt), at, "latin1");
      at += this.buf.write("}\n", at, "latin1");
    }
    return this.buf.subarray(0, at);
  }

  private reserve(bytes: number): void {
    if (bytes <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(bytes, this.buf.length * 2));
    this.buf.copy(bigger);
    this.buf = bigger;
  }
}

/**
 * Removes the oldest drain run logs (`<16 hex digits>.jsonl`) of a folder beyond the newest `keep`.
 *
 * @param dir - a resource's run log folder, `svc-recovery/<name>`
 * @param keep - how many to keep, `current` included
 * @param current - the file of the drain that starts now: always kept
 */
export function pruneRunLogs(dir: string, keep: number, current: string): void {
  const logs = fs
    .readdirSync(dir)
    .filter((f) => f !== current && /^[0-9a-f]{16}\.jsonl$/.test(f))
    .map((f) => ({ f, t: fs.statSync(path.join(dir, f)).mtimeMs }))
    .sort((a, b) => b.t - a.t);
  for (const { f } of logs.slice(Math.max(keep - 1, 0))) {
    fs.rmSync(path.join(dir, f), { force: true });
    fs.rmSync(markFileOf(path.join(dir, f)), { force: true });
  }
}
