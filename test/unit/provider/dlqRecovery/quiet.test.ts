/**
 * Quiet by default: at most 20 progress lines a drain whatever its size, plurals, one run log a
 * drain with the newest 10 kept, a small `resumedRuns` by default, and the state of an earlier
 * version (1,000 recorded runs) trimmed by the next up without a request.
 */
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import type { RunningEmulator } from "../../../../emulator";
import { startEmulator } from "../../../../emulator";
import {
  MAX_PROGRESS_LINES,
  Progress,
  RUN_LOGS_KEPT,
  RunLogLines,
  count,
  openRunLog,
} from "../../../../provider/dlqRecovery/progress";
import { DEFAULT_MAX_RECORDED_RUNS } from "../../../../provider/dlqRecovery/inputs";
import { DlqRecoveryController } from "../../../../provider/dlqRecovery/controller";
import { DlqRecoveryAdapter } from "../../../../provider/dlqRecovery/adapter";
import { TOKEN, dlqProvider, resumeRequests, tempDir } from "../helpers";

/** Runs a simulated drain of `pages` pages, one every `pageMs`, and returns the lines printed. */
function simulate(pages: number, pageMs: number): string[] {
  const lines: string[] = [];
  let t = 0;
  const progress = new Progress("big", 0, { resumed: 0, requests: 0 }, () => t, {
    final: (l) => lines.push(l),
    progress: (l) => lines.push(l),
  });
  for (let i = 1; i <= pages; i++) {
    t += pageMs;
    progress.page({ resumed: i * 50, requests: i, windowsInFlight: 16, allowedPerSecond: 100 });
  }
  progress.page({ resumed: pages * 50, requests: pages }, true);
  return lines;
}

describe("provider/dlqRecovery: quiet by default", function () {
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
      log?.append([{ workflowRunId: `wfr_${i}`, workflowCreatedAt: i }], 1);
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
    finished?.append([run(1), run(2)], 1);
    finished?.close();
    const died = openRunLog(inputs, cwd);
    assert.equal(died?.unrecorded, 0, "a drain that finished left nothing unrecorded");
    assert.equal(died?.unrecordedRequests, 0);
    died?.append([run(3), run(4)], 1);
    died?.append([], 2); // a request that resumed nothing
    died?.append([run(5)], 3); // then killed: never closed, never saved
    const next = openRunLog(inputs, cwd);
    assert.equal(next?.unrecorded, 3, "the died drain's lines, not the finished one's");
    assert.equal(next?.unrecordedRequests, 3, "and its requests, the empty one included");
    next?.append([run(6)], 1); // stopped by a cancel: its mark stays, and the state holds it
    const after = openRunLog(inputs, cwd, next?.mark);
    assert.equal(after?.unrecorded, 0, "a drain the state holds is not counted again");
    assert.equal(after?.unrecordedRequests, 0);
    assert.notEqual(after?.mark, next?.mark);
    assert.equal(openRunLog(inputs, cwd)?.unrecorded, 0, "nothing written since the last mark");
    assert.equal(openRunLog({ ...inputs, runLogFile: "" }, cwd), undefined);
  });

  it("counts two unrecorded drains in a row, runs and requests: the second carries the first's", () => {
    const cwd = tempDir();
    const inputs = { all: true, recoveryName: "r" };
    const run = (i: number) => ({ workflowRunId: `wfr_${i}`, workflowCreatedAt: i });
    const first = openRunLog(inputs, cwd);
    first?.append([run(1), run(2)], 1);
    first?.append([run(3)], 2); // killed
    const second = openRunLog(inputs, cwd);
    assert.equal(second?.unrecorded, 3);
    assert.equal(second?.unrecordedRequests, 2);
    second?.append([run(4)], 1); // killed too, before its state (which counted the first's) was saved
    const third = openRunLog(inputs, cwd);
    assert.equal(third?.unrecorded, 4, "both drains' lines");
    assert.equal(third?.unrecordedRequests, 3, "both drains' requests");
  });

  it("reads a start mark written before marks counted requests: its runs, no requests", () => {
    const cwd = tempDir();
    const inputs = { all: true, recoveryName: "r" };
    const log = openRunLog(inputs, cwd);
    log?.append([{ workflowRunId: "wfr_1", workflowCreatedAt: 1 }], 1);
    const dir = path.join(cwd, "svc-recovery", "r");
    const markFile = path.join(dir, fs.readdirSync(dir).find((f) => f.endsWith(".open")) as string);
    const { offset, mark } = JSON.parse(fs.readFileSync(markFile, "utf8")) as {
      offset: number;
      mark: string;
    };
    fs.writeFileSync(markFile, JSON.stringify({ offset, mark }));
    const next = openRunLog(inputs, cwd);
    assert.equal(next?.unrecorded, 1);
    assert.equal(next?.unrecordedRequests, 0);
  });

  it("after a drain whose engine went away, the next counts its runs and requests from the run log", async () => {
    emulator.reset();
    emulator.seed(400, 5);
    const cwd = tempDir();
    const inputs = { all: true, baseUrl: emulator.url, token: TOKEN, recoveryName: "killed", concurrency: 1 };
    let checks = 0;
    let t = 0;
    const killed = new DlqRecoveryController({
      now: () => (t += 1000), // every page checks the engine
      log: () => {},
      warn: () => {},
      cwd: () => cwd,
      engineAlive: async () => ++checks <= 3, // gone at the fourth page: the CLI was killed
      exitOrphaned: () => {},
    });
    await assert.rejects(killed.create(inputs), /cut off after resuming 200 runs in 4 requests/);
    const sent = resumeRequests(emulator).length;
    assert.equal(sent, 4, "the killed drain's requests, all answered");
    const { provider, logs } = dlqProvider({ cwd });
    const { outs } = await provider.create(inputs);
    assert.equal(outs.resumedCount, 400, "every run, the killed drain's from the run log");
    assert.equal(outs.requestCount, resumeRequests(emulator).length, "every request the service answered");
    assert.ok(outs.requestCount > sent);
    assert.ok(
      logs.some((l) =>
        /the run log holds 200 runs resumed by a drain .*, in 4 requests; they are counted in `resumedCount` and `requestCount`/.test(
          l,
        ),
      ),
      logs.join("\n"),
    );
  });

  it("the svc provider sends each line to the engine once per operation: a drain stopped at `maxRuns`, then continued", async () => {
    emulator.reset();
    emulator.seed(600, 6);
    const cwd = tempDir();
    let sent: string[] = [];
    const severities = new Map<string, string>();
    const engine = {
      log: async (_urn: string, severity: string, message: string) => (
        sent.push(message),
        severities.set(message, severity),
        true
      ),
      alive: async () => true,
    };
    let t = 0;
    const adapter = new DlqRecoveryAdapter(engine, {
      drainIn: "this thread",
      cwd: () => cwd,
      now: () => (t += 1000),
    });
    await adapter.configure({ get: () => undefined });
    const urn = "urn:pulumi:dev::quiet::svc:index:DlqRecovery::recovery";
    const props = (maxRuns: number) => ({
      values: { all: true, baseUrl: emulator.url, token: TOKEN, maxRuns, concurrency: 1 },
      secrets: new Set<string>(),
    });
    const noRepeats = (phase: string) => {
      const twice = sent.filter((l, i) => sent.indexOf(l) !== i);
      assert.deepEqual(twice, [], `${phase}: lines sent more than once:\n${sent.join("\n")}`);
    };
    // `pulumi up --skip-preview` of a new resource: check, then create.
    await adapter.check(urn, { values: {}, secrets: new Set() }, props(100));
    const created = await adapter.create(urn, props(100), false);
    noRepeats("the first up");
    assert.equal(sent.filter((l) => /stopped at `maxRuns` \(100\)/.test(l)).length, 1, sent.join("\n"));
    // Progress is a status line (on the row, not in the diagnostics); the line that ends the drain is kept.
    const progress = sent.filter((l) => /runs resumed in .*req\/s/.test(l));
    assert.ok(progress.length > 0, sent.join("\n"));
    for (const l of progress) assert.equal(severities.get(l), "status", l);
    for (const l of sent.filter((x) => /stopped at `maxRuns`/.test(x)))
      assert.equal(severities.get(l), "info", l);
    // `pulumi up` with a higher cap: its preview phase (check, diff, update as a preview), then its update.
    for (const preview of [true, false]) {
      sent = [];
      await adapter.check(urn, created.outputs, props(300));
      assert.equal(await adapter.diff(created.id, urn, created.outputs, props(300)), true);
      await adapter.update(created.id, urn, created.outputs, props(300), preview);
      noRepeats(preview ? "the preview phase" : "the update phase");
      const continues = sent.filter((l) =>
        /the last drain stopped at `maxRuns` after 100 runs; the next up continues it/.test(l),
      );
      assert.equal(continues.length, 1, sent.join("\n"));
      assert.equal(
        sent.filter((l) => /stopped at `maxRuns` \(300\)/.test(l)).length,
        preview ? 0 : 1,
        sent.join("\n"),
      );
    }
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
