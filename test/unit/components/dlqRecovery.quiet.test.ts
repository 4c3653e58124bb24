/**
 * Quiet by default: at most 20 progress lines a drain whatever its size, plurals, one run log a
 * drain with the newest 10 kept, a small `resumedRuns` by default, and the state of an earlier
 * version (1,000 recorded runs) trimmed by the next up without a request.
 */
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import type { RunningEmulator } from "../../../emulator";
import { startEmulator } from "../../../emulator";
import {
  MAX_PROGRESS_LINES,
  Progress,
  RUN_LOGS_KEPT,
  RunLogLines,
  count,
  openRunLog,
} from "../../../components/providers/dlqRecoveryProgress";
import { DEFAULT_MAX_RECORDED_RUNS } from "../../../components/providers/dlqRecoveryInputs";
import { TOKEN, dlqProvider, tempDir } from "./helpers";

/** Runs a simulated drain of `pages` pages, one every `pageMs`, and returns the lines printed. */
function simulate(pages: number, pageMs: number): string[] {
  const lines: string[] = [];
  let t = 0;
  const progress = new Progress(
    "big",
    0,
    { resumed: 0, requests: 0 },
    () => t,
    (l) => lines.push(l),
  );
  for (let i = 1; i <= pages; i++) {
    t += pageMs;
    progress.page({ resumed: i * 50, requests: i, windowsInFlight: 16, allowedPerSecond: 100 });
  }
  progress.page({ resumed: pages * 50, requests: pages }, true);
  return lines;
}

describe("components/providers/dlqRecovery: quiet by default", function () {
  this.timeout(60_000);
  let emulator: RunningEmulator;
  before(async () => {
    emulator = await startEmulator({ plan: "payg", token: TOKEN, rateLimit: false });
  });
  after(async () => emulator?.close());

  it(`prints at most ${MAX_PROGRESS_LINES} progress lines a drain, whatever its size`, () => {
    // 50,000 entries at 100 requests a second (10 s) and 1,000,000 entries (200 s).
    for (const pages of [1_000, 20_000]) {
      const lines = simulate(pages, 10);
      assert.ok(lines.length <= MAX_PROGRESS_LINES, `${pages} pages: ${lines.length} lines`);
      assert.ok(lines.length >= 5, `${pages} pages: still reported now and then (${lines.length} lines)`);
      assert.match(
        lines[lines.length - 1],
        new RegExp(`: ${pages * 50} runs resumed in ${pages} requests .*, done$`),
      );
    }
    // Three weeks of pages, one a second: still capped.
    assert.ok(simulate(2_000_000, 1000).length <= MAX_PROGRESS_LINES);
  });

  it("writes singular and plural right", () => {
    assert.equal(count(1, "request"), "1 request");
    assert.equal(count(2, "window"), "2 windows");
    assert.equal(count(0, "run"), "0 runs");
    const lines = simulate(1, 1000);
    assert.match(lines[0], /: 50 runs resumed in 1 request \(.*\), 16 windows in flight$/);
  });

  it(`keeps the newest ${RUN_LOGS_KEPT} run logs of a resource, one a drain, and leaves other files alone`, () => {
    const cwd = tempDir();
    const dir = path.join(cwd, "svc-recovery", "r");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(cwd, "svc-recovery", "r.jsonl"), "{}\n"); // an earlier version's log
    fs.writeFileSync(path.join(dir, "notes.txt"), "mine");
    for (let i = 0; i < RUN_LOGS_KEPT + 3; i++) {
      const log = openRunLog({ all: true, recoveryName: "r", triggers: [i] }, cwd);
      log?.append([{ workflowRunId: `wfr_${i}`, workflowCreatedAt: i }]);
      log?.close();
      const file = fs
        .readdirSync(dir)
        .find((f) => fs.readFileSync(path.join(dir, f), "utf8").includes(`wfr_${i}"`));
      assert.ok(file, `drain ${i} has its file`);
      fs.utimesSync(path.join(dir, file), i + 1, i + 1); // in drain order
    }
    const logs = fs.readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
    assert.equal(logs.length, RUN_LOGS_KEPT);
    const kept = logs.map((f) => fs.readFileSync(path.join(dir, f), "utf8")).join("");
    assert.ok(kept.includes(`wfr_${RUN_LOGS_KEPT + 2}"`) && !kept.includes('wfr_0"'), kept);
    assert.equal(fs.readFileSync(path.join(cwd, "svc-recovery", "r.jsonl"), "utf8"), "{}\n");
    assert.equal(fs.readFileSync(path.join(dir, "notes.txt"), "utf8"), "mine");
  });

  it("counts the runs of a drain whose result reached no state, once; not those of a drain the state holds", () => {
    const cwd = tempDir();
    const inputs = { all: true, recoveryName: "r" };
    const run = (i: number) => ({ workflowRunId: `wfr_${i}`, workflowCreatedAt: i });
    const finished = openRunLog(inputs, cwd);
    finished?.append([run(1), run(2)]);
    finished?.close();
    const died = openRunLog(inputs, cwd);
    assert.equal(died?.unrecorded, 0, "a drain that finished left nothing unrecorded");
    died?.append([run(3), run(4), run(5)]); // then killed: never closed, never saved
    const next = openRunLog(inputs, cwd);
    assert.equal(next?.unrecorded, 3, "the died drain's lines, not the finished one's");
    next?.append([run(6)]); // stopped by a cancel: its mark stays, and the state holds it
    const after = openRunLog(inputs, cwd, next?.mark);
    assert.equal(after?.unrecorded, 0, "a drain the state holds is not counted again");
    assert.notEqual(after?.mark, next?.mark);
    assert.equal(openRunLog(inputs, cwd)?.unrecorded, 0, "nothing written since the last mark");
    assert.equal(openRunLog({ ...inputs, runLogFile: "" }, cwd), undefined);
  });

  it(`keeps ${DEFAULT_MAX_RECORDED_RUNS} resumed runs in state by default, every run in the run log`, async () => {
    emulator.reset();
    emulator.seed(120, 3);
    const { provider, cwd } = dlqProvider();
    const inputs = { all: true, baseUrl: emulator.url, token: TOKEN, recoveryName: "small" };
    const { outs } = await provider.create(inputs);
    assert.equal(outs.resumedCount, 120);
    assert.equal(outs.resumedRuns.length, DEFAULT_MAX_RECORDED_RUNS);
    assert.equal(outs.resumedRunsTruncated, true);
    const log = fs.readFileSync(path.join(cwd, "svc-recovery", "small", `${outs.specHash}.jsonl`), "utf8");
    assert.equal(log.trim().split("\n").length, 120);
  });

  it("trims the state of an earlier version (1,000 recorded runs) on the next up, sending nothing", async () => {
    emulator.reset();
    emulator.seed(60, 4);
    const { provider, logs } = dlqProvider();
    const inputs = { all: true, baseUrl: emulator.url, token: TOKEN, recoveryName: "old" };
    const { outs } = await provider.create({ ...inputs, maxRecordedRuns: 1_000 });
    const stored = { ...outs, maxRecordedRuns: undefined }; // as an earlier version stored it
    assert.equal(stored.resumedRuns.length, 60);
    const since = emulator.state.log.total;
    assert.equal((await provider.diff("id", stored, inputs)).changes, true);
    assert.match(
      logs[logs.length - 1],
      /keeps 60 resumed runs, more than `maxRecordedRuns` \(10\); the next up trims it/,
    );
    const { outs: trimmed } = await provider.update("id", stored, inputs);
    assert.equal(emulator.state.log.total, since, "no request");
    assert.deepEqual(trimmed.resumedRuns, outs.resumedRuns.slice(0, DEFAULT_MAX_RECORDED_RUNS));
    assert.equal(trimmed.resumedCount, 60);
    assert.equal(trimmed.resumedRunsTruncated, true);
    assert.equal(trimmed.startedAt, outs.startedAt);
    assert.equal((await provider.diff("id", trimmed, inputs)).changes, false, "then nothing more to do");
  });

  it("writes run log lines exactly as JSON.stringify would, for any ID, into one reused buffer", () => {
    const lines = new RunLogLines();
    const odd = [
      "wfr_plain",
      'wfr_"quoted"',
      "wfr_back\\slash",
      "wfr_ünï€😀",
      "wfr_\u0001ctl",
      "x".repeat(40_000),
    ];
    const runs = odd.map((workflowRunId, i) => ({ workflowRunId, workflowCreatedAt: 1_750_000_000_000 + i }));
    const expected = runs.map((r) => JSON.stringify(r) + "\n").join("");
    assert.equal(lines.encode(runs).toString("utf8"), expected);
    assert.equal(
      lines.encode(runs.slice(0, 1)).toString("utf8"),
      JSON.stringify(runs[0]) + "\n",
      "a view of this page only",
    );
  });
});
