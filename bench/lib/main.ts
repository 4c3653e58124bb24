/**
 * Entry point of one bench file: `node -r ts-node/register/transpile-only bench/<name>.ts
 * [--out file.json]` runs it and prints its markdown, or, with `--out`, writes its result as JSON
 * instead (bench/run.ts runs each bench this way, in a process of its own, and prints them all).
 */
import * as fs from "node:fs";
import { markdown, type BenchResult } from "./result";

/** The value of the command line's `--name`, when given. */
export function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** Runs `bench` when `mod` is the main module. */
export function benchMain(mod: NodeModule, bench: () => Promise<BenchResult>): void {
  if (require.main !== mod) return;
  const out = arg("out");
  const started = performance.now();
  bench()
    .then((r) => {
      r.durationMs = Math.round(performance.now() - started);
      if (out) fs.writeFileSync(out, JSON.stringify(r, null, 2));
      else process.stdout.write(`${markdown([r])}\n`);
      // Anything still open (pools, timers) must not keep a finished bench alive.
      process.exit(0);
    })
    .catch((e: unknown) => {
      process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exit(1);
    });
}
