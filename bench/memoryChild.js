// Child process of bench/memory.ts: one in-process DlqRecovery drain with the built provider
// (dist/, plain node, no ts-node in memory), its peak RSS sampled every 10 ms, and the
// kernel's high-water mark. Prints one JSON line.
//
//   node bench/memoryChild.js <baseUrl> <token> <runLogDir>
//   node --expose-gc bench/memoryChild.js <baseUrl> <token> <runLogDir> live
//
// With "live", every progress line the provider prints (at most one a second, and the final
// one, printed while the drain's result is still held) runs a full GC first and records the
// heap still in use: the memory the drain really keeps, garbage excluded.
"use strict";
const fs = require("node:fs");
const { performance } = require("node:perf_hooks");
const timers = require("node:timers");
const path = require("node:path");
const { DlqRecoveryController } = require("../dist/provider/dlqRecovery/controller");

async function main() {
  const [baseUrl, token, dir, mode] = process.argv.slice(2);
  const live = mode === "live";
  const liveHeap = [];
  const gc = globalThis.gc;
  if (live) gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const log = live
    ? () => {
        gc();
        liveHeap.push(process.memoryUsage().heapUsed);
      }
    : () => undefined;
  const rssBefore = process.memoryUsage().rss;
  let peakRss = rssBefore;
  let peakHeap = process.memoryUsage().heapUsed;
  const timer = timers.setInterval(() => {
    const m = process.memoryUsage();
    if (m.rss > peakRss) peakRss = m.rss;
    if (m.heapUsed > peakHeap) peakHeap = m.heapUsed;
  }, 10);
  const provider = new DlqRecoveryController({ log, env: {}, cwd: () => dir });
  const t0 = performance.now();
  const { outs } = await provider.create({ all: true, baseUrl, token, recoveryName: "memory" });
  const ms = performance.now() - t0;
  timers.clearInterval(timer);
  const m = process.memoryUsage();
  peakRss = Math.max(peakRss, m.rss);
  // The run log: svc-recovery/<recoveryName>/<specHash>.jsonl under the working directory.
  const logDir = path.join(dir, "svc-recovery", "memory");
  const logs = fs.existsSync(logDir) ? fs.readdirSync(logDir).filter((f) => f.endsWith(".jsonl")) : [];
  process.stdout.write(
    JSON.stringify({
      ms,
      heapBefore,
      liveHeapEnd: live ? liveHeap[liveHeap.length - 1] : undefined,
      liveHeapMax: live ? Math.max(...liveHeap) : undefined,
      rssBefore,
      peakRss,
      peakHeap,
      maxRss: process.resourceUsage().maxRSS * 1024,
      outputsBytes: Buffer.byteLength(JSON.stringify(outs)),
      resumedCount: outs.resumedCount,
      requestCount: outs.requestCount,
      recordedRuns: outs.resumedRuns.length,
      runLogBytes: logs.reduce((sum, f) => sum + fs.statSync(path.join(logDir, f)).size, 0),
    }) + "\n",
  );
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`${e && e.stack ? e.stack : e}\n`);
    process.exit(1);
  },
);
