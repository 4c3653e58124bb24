/**
 * The options of the simulator (`bench/windowsSim.ts`): one list, as `--help` prints it, from which
 * an unknown option is refused.
 */

/** The options, one line each, as `--help` prints them. */
export const USAGE = `node -r ts-node/register/transpile-only bench/windowsSim.ts [options]
  --sizes 2500,5000,20000,100000   entries of section 9's rows
  --scenarios uniform,hour,window,outage,bursts,urls
  --horizons unknown,payg,free     account settings: none (90 days), 7-day, 3-day with a daily limit
  --small 237,500,501,1200         the small drains' sizes ("" for none)
  --run-ids sdk                    run-ID shapes (emulator/run-ids.ts), a row each: sdk,app,mixed,numeric,hex; all: but numeric
  --rate 100                       per-second limits (a list: every rate and round trip a block of rows)
  --rtt 50                         round trips, ms (a list)
  --rows rates                     instead of section 9's grid, the rate rows (bench/lib/rateRows.ts)
  --trials 5                       trials a row (the median is reported; 25 for tuning)
  --first-trial 0                  start at this trial (its seed): --first-trial 6 --trials 1 --trace
  --jitter 9                       0 to n − 1 ms added to each round trip, seeded per trial
  --allowance 4                    windows a drain may open before it has resumed anything
  --concurrency n                  the drains' cap instead of the default
  --sequential                     a row of the sequential drain (concurrency: 1) before each size
  --no-ceiling                     leave out the oracle drain (faster)
  --trace                          every answer on stderr (time, runs, start/cursor, window), then per round trip
  --svg file                       the table as a chart too
  --out file.json                  the result as JSON, for bench/simCompare.ts (two runs compared)
  --help                           this
`;

/** Options that take no value. */
const FLAGS = new Set(["sequential", "no-ceiling", "trace", "help"]);

/**
 * Refuses an option {@link USAGE} does not list (a misspelt one would run the defaults for
 * minutes), naming it; prints the usage for `--help`.
 */
export function checkOptions(argv: readonly string[]): void {
  const known = new Set([...USAGE.matchAll(/^ {2}--([a-z-]+)/gm)].map((m) => m[1]));
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].startsWith("--") ? argv[i].slice(2) : undefined;
    if (name === undefined || !known.has(name)) {
      process.stderr.write(`windowsSim: "${argv[i]}" is not an option; --help lists them\n`);
      process.exit(2);
    }
    if (name === "help") {
      process.stdout.write(USAGE);
      process.exit(0);
    }
    if (!FLAGS.has(name)) i += 1;
  }
}

/** The value of `--name`, when given. */
export function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}
