/**
 * Runs the benches, each in a process of its own with a time limit, writes the results as JSON
 * to bench/results/<time>.json and prints the markdown for docs/benchmarks.md.
 *
 *   bash toolchain/with-env.sh tsc -p tsconfig.build.json      # the CLI benches use dist/
 *   bash toolchain/with-env.sh node -r ts-node/register/transpile-only bench/run.ts [names…]
 *
 * Names: scale client drain count byids engine memory policy windows shared (default: all, in that order).
 * BENCH_TIMEOUT_S (default 300; 2,400 for windows) bounds each bench.
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { REPO_ROOT } from "./lib/emulator";
import { markdown, result, type BenchResult } from "./lib/result";

export const BENCHES = [
  "scale",
  "client",
  "drain",
  "count",
  "byids",
  "engine",
  "memory",
  "policy",
  "windows",
  "windowsSim",
  "shared",
] as const;
const TITLES: Record<string, string> = {
  scale: "1. Emulator scale",
  client: "2. Client overhead",
  drain: "3. Drain throughput",
  count: "4. Request count",
  byids: "5. Explicit dlqIds",
  engine: "6. Engine overhead",
  memory: "7. Memory and state",
  policy: "8. Policy overhead",
  windows: "9. Windowed drain at the rate limit",
  windowsSim: "9s. Windowed drain at the rate limit, simulated on a virtual clock",
  shared: "9. Windowed drain at the rate limit: the shared budget",
};
const TIMEOUT_S = Number(process.env.BENCH_TIMEOUT_S ?? 300);
/** Benches that need longer than the default: `windows` runs two 100,000-entry sequential drains' worth. */
const LONG_TIMEOUT_S: Record<string, number> = { windows: 2_400 };

function runOne(name: string, out: string): Promise<BenchResult> {
  const limitS = process.env.BENCH_TIMEOUT_S !== undefined ? TIMEOUT_S : (LONG_TIMEOUT_S[name] ?? TIMEOUT_S);
  return new Promise((resolve) => {
    const started = performance.now();
    // A process group of its own, so a bench that overruns is stopped with everything it started.
    const child = spawn(
      process.execPath,
      ["-r", "ts-node/register/transpile-only", path.join("bench", `${name}.ts`), "--out", out],
      { cwd: REPO_ROOT, stdio: ["ignore", "inherit", "inherit"], detached: true },
    );
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, "SIGTERM");
      } catch {
        // already gone
      }
    }, limitS * 1000);
    const fail = (why: string): void => {
      clearTimeout(timer);
      const failed = result(name, TITLES[name] ?? name);
      failed.skipped = `FAILED: ${why}`;
      failed.durationMs = Math.round(performance.now() - started);
      resolve(failed);
    };
    child.on("error", (e) => fail(`could not start (${e.message})`));
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code === 0 && fs.existsSync(out)) {
        resolve(JSON.parse(fs.readFileSync(out, "utf8")) as BenchResult);
        return;
      }
      fail(timedOut ? `stopped after the ${limitS} s limit` : `exit code ${code}`);
    });
  });
}

function git(args: string[]): string {
  try {
    return execFileSync("git", args, { cwd: REPO_ROOT, encoding: "utf8" }).trim();
  } catch {
    return "";
  }
}

async function main(): Promise<void> {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((n) => !(BENCHES as readonly string[]).includes(n));
  if (unknown.length > 0) {
    process.stderr.write(`unknown bench ${unknown.join(", ")}; known: ${BENCHES.join(" ")}\n`);
    process.exit(2);
  }
  const names = asked.length > 0 ? BENCHES.filter((n) => asked.includes(n)) : [...BENCHES];
  const dir = path.join(REPO_ROOT, "bench", "results");
  fs.mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const env = {
    date: new Date().toISOString(),
    command: `node -r ts-node/register/transpile-only bench/run.ts ${asked.join(" ")}`.trim(),
    node: process.version,
    pulumi: (() => {
      try {
        return execFileSync("pulumi", ["version"], { encoding: "utf8" }).trim();
      } catch {
        return "not on PATH";
      }
    })(),
    cpu: `${os.cpus().length} × ${os.cpus()[0]?.model ?? "unknown"}`,
    memory: `${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    platform: `${os.platform()} ${os.release()}`,
    commit: `${git(["rev-parse", "--short", "HEAD"])}${git(["status", "--porcelain"]) ? " (with uncommitted changes)" : ""}`,
    loadavgBefore: os.loadavg().map((l) => Number(l.toFixed(2))),
    loadavgAfter: [] as number[],
  };
  const results: BenchResult[] = [];
  const file = path.join(dir, `${stamp}.json`);
  for (const name of names) {
    process.stderr.write(`bench ${name}…\n`);
    const out = path.join(dir, `.${stamp}-${name}.json`);
    const r = await runOne(name, out);
    fs.rmSync(out, { force: true });
    process.stderr.write(
      `bench ${name}: ${r.skipped ?? "done"} (${((r.durationMs ?? 0) / 1000).toFixed(1)} s)\n`,
    );
    results.push(r);
    // Written after every bench, so a crash loses nothing measured so far.
    fs.writeFileSync(file, JSON.stringify({ env, results }, null, 2));
  }
  env.loadavgAfter = os.loadavg().map((l) => Number(l.toFixed(2)));
  fs.writeFileSync(file, JSON.stringify({ env, results }, null, 2));
  const header = [
    `Run ${env.date} · \`${env.command}\` · commit ${env.commit}`,
    `Machine: ${env.cpu}, ${env.memory}, ${env.platform}; Node ${env.node}; Pulumi ${env.pulumi}; ` +
      `load average ${env.loadavgBefore.join(" / ")} before, ${env.loadavgAfter.join(" / ")} after.`,
    `Durations: ${results.map((r) => `${r.name} ${((r.durationMs ?? 0) / 1000).toFixed(0)} s`).join(", ")}.`,
    "",
  ].join("\n\n");
  process.stdout.write(`${header}\n${markdown(results)}\n\nJSON: ${path.relative(REPO_ROOT, file)}\n`);
  process.exit(results.some((r) => r.skipped?.startsWith("FAILED")) ? 1 : 0);
}

void main();
