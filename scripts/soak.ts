/**
 * A longer fault soak than the test suite's: a DlqRecovery drain (the provider itself,
 * in process) against the emulator under 5xx answers, 429 bursts, latency spikes,
 * dropped connections and responses lost after commit. Prints the figures that
 * docs/reliability.md records.
 *
 *   npm run soak -- [entries=20000] [seed=1]
 */
import * as os from "node:os";
import * as path from "node:path";
import * as fs from "node:fs";
import { startEmulator } from "../emulator";
import { DlqRecoveryProvider } from "../components/providers/dlqRecovery";

async function main(): Promise<void> {
  const entries = Number(process.argv[2] ?? 20_000);
  const seed = Number(process.argv[3] ?? 1);
  const emulator = await startEmulator({ plan: "payg", token: "tok-soak-0000000000" });
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
    const provider = new DlqRecoveryProvider(
      {
        env: { SVC_BASE_URL: emulator.url, SVC_TOKEN: "tok-soak-0000000000" },
        log: () => undefined,
        cwd: () => cwd,
      },
      undefined,
    );
    const started = Date.now();
    const { outs } = await provider.create({ all: true, recoveryName: "soak" });
    if (!outs) throw new Error("the provider returned no outputs");
    const seconds = (Date.now() - started) / 1000;
    const t = emulator.state.ledger.totals();
    const log = emulator.state.log.since(0, Number.MAX_SAFE_INTEGER);
    const byFault: Record<string, number> = {};
    for (const r of log) if (r.fault) byFault[r.fault] = (byFault[r.fault] ?? 0) + 1;
    const runLog = fs
      .readFileSync(path.join(cwd, "svc-recovery", "soak", `${outs.specHash}.jsonl`), "utf8")
      .trim()
      .split("\n").length;
    const figures = {
      entries,
      seconds: Number(seconds.toFixed(1)),
      requestsSent: log.length,
      requestsAnswered: outs.requestCount,
      faultsInjected: byFault,
      resumedWithKnownIds: outs.resumedCount,
      ambiguousRequests: outs.ambiguousRequests,
      ledgerDistinctResumed: t.distinctEntriesResumed,
      ledgerDuplicates: t.duplicates,
      ledgerResponseLost: t.responseLostTotal,
      runLogLines: runLog,
      dlqLeft: emulator.state.dlq.size,
      accountedFor: outs.resumedCount + t.responseLostTotal === t.distinctEntriesResumed,
    };
    console.log(JSON.stringify(figures, null, 2));
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
