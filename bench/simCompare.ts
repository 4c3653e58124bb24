/**
 * Compares two runs of the simulator and checks a planner change as docs/design/drain.md says
 * (`bench/lib/simCompare.ts`: the rows that moved, the targets, the checks):
 *
 *   S="bash toolchain/with-env.sh node -r ts-node/register/transpile-only"
 *   $S bench/windowsSim.ts --rows rates --trials 9 --no-ceiling --out /tmp/before.json   # on main
 *   $S bench/windowsSim.ts --rows rates --trials 9 --no-ceiling --out /tmp/after.json    # changed
 *   $S bench/simCompare.ts /tmp/before.json /tmp/after.json
 *
 * Exit status: 0 when no check failed, 1 when one did, 2 when a file is not a simulator run.
 */
import * as fs from "node:fs";
import type { BenchResult, Table } from "./lib/result";
import { compareSims, formatComparison } from "./lib/simCompare";

/** The simulator's table in the `--out` file `file`; exits 2 naming the file if there is none. */
function tableOf(file: string): Table {
  try {
    const r = JSON.parse(fs.readFileSync(file, "utf8")) as BenchResult;
    const t = r.tables?.[0];
    if (r.name !== "windowsSim" || t === undefined)
      throw new Error("not written by bench/windowsSim.ts --out");
    return t;
  } catch (e) {
    process.stderr.write(`simCompare: ${file}: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(2);
  }
}

const [before, after] = process.argv.slice(2);
if (before === undefined || after === undefined) {
  process.stderr.write(
    "usage: bench/simCompare.ts before.json after.json (from bench/windowsSim.ts --out)\n",
  );
  process.exit(2);
}
try {
  const c = compareSims(tableOf(before), tableOf(after));
  process.stdout.write(formatComparison(c));
  process.exit(c.failures.length === 0 ? 0 : 1);
} catch (e) {
  process.stderr.write(`simCompare: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(2);
}
