/**
 * A longer fault soak than the test suite's: a DlqRecovery drain (the provider itself,
 * in process) against the emulator under 5xx answers, 429 bursts, latency spikes,
 * dropped connections and responses lost after commit, with another client using 40 of
 * the account's 100 requests a second, and the account's daily limit spent mid-drain: the
 * drain stops, the emulator starts a new day, and the drain continues from its saved state.
 * Prints the figures that docs/reliability.md records.
 *
 *   npm run soak -- [entries=20000] [seed=1] [dailyLimit=150]
 */
import * as os from "node:os";
import * as path from "node:path";
import * as fs from "node:fs";
import { startEmulator, type RunningEmulator } from "../emulator";
import { accountRateGates } from "../drain";
import { DlqRecoveryController } from "../provider/dlqRecovery/controller";
import { ResourceInitError } from "../provider/resource";
import type { DlqRecoveryInputs, DlqRecoveryOutputs } from "../provider/dlqRecovery/inputs";

const TOKEN = "tok-soak-0000000000";

/** The drain: stopped by the daily limit, continued after a new day. */
async function drain(emulator: RunningEmulator, provider: DlqRecoveryController) {
  const inputs: DlqRecoveryInputs = { all: true, recoveryName: "soak" };
  let stop: ResourceInitError | undefined;
  try {
    await provider.create(inputs);
  } catch (e) {
    if (!(e instanceof ResourceInitError)) throw e;
    stop = e;
  }
  if (stop === undefined) throw new Error("soak failed: the daily limit did not stop the drain");
  if (!/daily limit of \d+ requests is spent/.test(stop.message)) {
    throw new Error(`soak failed: the drain stopped for another reason: ${stop.message}`);
  }
  const day = emulator.state.dailyLimit.view();
  emulator.newDay();
  emulator.setDailyLimit(1_000_000);
  // The provider process would learn the new day at the reset the service named; this one is told.
  accountRateGates.forAccount(emulator.url, TOKEN).clearSpentDay();
  const olds = stop.properties as unknown as DlqRecoveryOutputs;
  const { outs } = await provider.update(stop.id, olds, inputs);
  if (!outs) throw new Error("the provider returned no outputs");
  return { outs, stoppedAfter: olds.resumedCount, dailyRefused: day.refused, message: stop.message };
}

/** The figures of a finished soak. */
function figures(
  emulator: RunningEmulator,
  cwd: string,
  entries: number,
  seconds: number,
  r: Awaited<ReturnType<typeof drain>>,
) {
  const t = emulator.state.ledger.totals();
  const log = emulator.state.log.since(0, Number.MAX_SAFE_INTEGER);
  const byFault: Record<string, number> = {};
  for (const x of log) if (x.fault) byFault[x.fault] = (byFault[x.fault] ?? 0) + 1;
  const runLog = fs
    .readFileSync(path.join(cwd, "svc-recovery", "soak", `${r.outs.specHash}.jsonl`), "utf8")
    .trim()
    .split("\n").length;
  return {
    entries,
    seconds: Number(seconds.toFixed(1)),
    requestsSent: log.length,
    requestsAnswered: r.outs.requestCount,
    faultsInjected: byFault,
    otherClientLoad: emulator.state.rateLimit.otherClientLoad,
    rateLimited429s: log.filter((x) => x.rateLimited === true).length,
    dailyLimitStoppedAfterRuns: r.stoppedAfter,
    dailyLimitRefusedRequests: r.dailyRefused,
    resumedWithKnownIds: r.outs.resumedCount,
    ambiguousRequests: r.outs.ambiguousRequests,
    ledgerDistinctResumed: t.distinctEntriesResumed,
    ledgerDuplicates: t.duplicates,
    ledgerResponseLost: t.responseLostTotal,
    runLogLines: runLog,
    dlqLeft: emulator.state.dlq.size,
    accountedFor: r.outs.resumedCount + t.responseLostTotal === t.distinctEntriesResumed,
  };
}

async function main(): Promise<void> {
  const entries = Number(process.argv[2] ?? 20_000);
  const seed = Number(process.argv[3] ?? 1);
  const dailyLimit = Number(process.argv[4] ?? 150);
  const emulator = await startEmulator({ plan: "payg", token: TOKEN, dailyLimit, otherClientLoad: 40 });
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "svc-soak-"));
  try {
    emulator.seed(entries, seed);
    emulator.setFaults({
      seed,
      error5xxRate: 0.1,
      rateLimit: { burst: 40, windowMs: 1_000, retryAfter: "seconds" },
      latencySpikeRate: 0.05,
      latencySpikeMs: 200,
      dropConnectionRate: 0.05,
      loseResponseAfterCommitRate: 0.02,
    });
    const provider = new DlqRecoveryController(
      { env: { SVC_BASE_URL: emulator.url, SVC_TOKEN: TOKEN }, log: () => undefined, cwd: () => cwd },
      undefined,
    );
    const started = Date.now();
    const result = await drain(emulator, provider);
    const f = figures(emulator, cwd, entries, (Date.now() - started) / 1000, result);
    console.log(JSON.stringify(f, null, 2));
    console.log(`the daily limit's message:\n${result.message}`);
    const t = emulator.state.ledger.totals();
    if (t.duplicates !== 0 || t.distinctEntriesResumed !== entries || emulator.state.dlq.size !== 0) {
      throw new Error("soak failed: an entry was resumed twice or not at all");
    }
  } finally {
    await emulator.close();
    fs.rmSync(cwd, { recursive: true, force: true });
  }
}

main().catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
