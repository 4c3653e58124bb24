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

/** What an option of {@link USAGE} takes: nothing (a flag), or a value of this kind. */
type Kind = "flag" | "value" | "count" | "counts" | "rates";

/** Options whose value is checked beyond being given: counts (integers from 0), lists of them. */
const KINDS: Record<string, Kind> = {
  trials: "count",
  "first-trial": "count",
  jitter: "count",
  allowance: "count",
  concurrency: "count",
  sizes: "counts",
  small: "counts",
  rate: "counts",
  rtt: "counts",
  rows: "rates",
};

/** The options {@link USAGE} lists, each with what it takes: a line without a value is a flag. */
function optionKinds(): Map<string, Kind> {
  const out = new Map<string, Kind>();
  for (const m of USAGE.matchAll(/^ {2}--([a-z-]+)( \S+)?/gm)) {
    out.set(m[1], m[2] === undefined ? "flag" : (KINDS[m[1]] ?? "value"));
  }
  return out;
}

/** Why `value` is no value of `kind`, or undefined when it is one. */
function badValue(kind: Kind, value: string | undefined): string | undefined {
  if (value === undefined || value.startsWith("--")) return "needs a value";
  if (kind === "count" && !/^\d+$/.test(value)) return `takes a whole number, not "${value}"`;
  if (kind === "counts" && !/^(\d+(,\d+)*)?$/.test(value))
    return `takes whole numbers, comma-separated, not "${value}"`;
  if (kind === "rates" && value !== "rates") return `takes "rates", not "${value}"`;
  return undefined;
}

/** Refuses the run with `why` (exit status 2), pointing at `--help`. */
export function refuseOption(why: string): never {
  process.stderr.write(`windowsSim: ${why}; --help lists the options\n`);
  process.exit(2);
}

/**
 * Refuses, naming it, an option {@link USAGE} does not list, one given twice, and a missing or
 * malformed value (a misspelt option would run the defaults for minutes); prints the usage for
 * `--help`.
 */
export function checkOptions(argv: readonly string[]): void {
  const kinds = optionKinds();
  const seen = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].startsWith("--") ? argv[i].slice(2) : undefined;
    const kind = name === undefined ? undefined : kinds.get(name);
    if (name === undefined || kind === undefined) refuseOption(`"${argv[i]}" is not an option`);
    if (seen.has(name as string)) refuseOption(`--${name} is given twice`);
    seen.add(name as string);
    if (name === "help") {
      process.stdout.write(USAGE);
      process.exit(0);
    }
    if (kind === "flag") continue;
    const why = badValue(kind as Kind, argv[i + 1]);
    if (why !== undefined) refuseOption(`--${name} ${why}`);
    i += 1;
  }
}
