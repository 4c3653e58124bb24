/**
 * The tuned constants of the windowed drain's planner (`windowPlan.ts`) and window budget
 * (`windows.ts`), in one place. Each line says what it trades and which rows of
 * docs/benchmarks.md, section 9, it serves; the figures are there, the rules in
 * docs/design/drain.md. The package's entry points (`drain/index.ts`, `client/index.ts`) export
 * the public ones from here. Before changing one, run the simulator as docs/design/drain.md says
 * and compare every row, not only the one it serves.
 *
 * @packageDocumentation
 */

// The allowance: requests a drain may send beyond ceil(N/50), one per window at most.

/** Requests beyond ceil(N/50) per page once past 500 runs (the 1.10 ×): more windows for more requests; large spread, outage and burst rows. */
export const WINDOW_OVERHEAD = 0.1;
/** Windows a drain may open before it has resumed anything (the + 4): an early split against cost on small drains; the 237 and 500 rows, and clustered rows before 500 runs. */
export const DEFAULT_WINDOW_ALLOWANCE = 4;
/** Runs resumed before the larger allowance is earned: small drains stay near ceil(N/50); the 500 / 501 and 1,200 rows. */
export const SMALL_DRAIN_RUNS = 500;
/** Requests earned beyond the allowance past SMALL_DRAIN_RUNS (the + 24 with the + 4): splits to find a cluster; outage and burst rows. */
export const LARGE_DRAIN_CREDIT = 20;
/** Share of a known daily limit one drain may spend beyond ceil(N/50): the account's day against speed; the free plan's rows. */
export const DAILY_LIMIT_SHARE = 0.02;
/** How far back failures are looked for without fromDate (the longest retention): where splits fall, never correctness; rows with no account settings. */
export const DEFAULT_HORIZON_MS = 90 * 86_400_000;
/** Most windows a saved state may hold: the stored state's size against the windows a continued drain keeps; no row (the cut-off drain tests). */
export const MAX_SAVED_WINDOWS = 64;

// How many windows keep the gate busy.

/** Requests waiting at the gate from which no window is opened, at 100 a second (faster rates and long round trips scale it: `gateBacklog` in inFlight.ts): idle gate under jitter against empty requests; every spread row. */
export const GATE_BACKLOG = 2;
/** Windows in flight a drain's rate and shortest round trip need beyond which it tiles what is left past 500 runs once the density is known, and probes no spread failures (`WindowPlan.wide`, rule 8): tiling against section 9's rows, which need 7 (16 leaves room for drains sharing a gate, whose every round trip includes a wait); the rate rows (section 10). */
export const WIDE_WINDOWS = 16;
/** Windows in flight that 100 a second at 50 ms need, which the other constants were tuned at; a drain that needs more pays fewer than PAY_PAGES pages a window, measures the gate's backlog against the round trip and keeps room for only this many when it narrows a cluster: the rate rows (100/s at 150 and 300 ms, 500/s; their outages). */
export const BASE_WINDOWS = 8;

// Where a window is split.

/** Pieces of the first ladder of a selection open below: finding recent failures fast against empty rungs; all spread rows without fromDate. */
export const MAX_PIECES = 4;
/** Pieces of any later split: windows in flight against one page that is not full per piece; spread rows. */
export const LATER_PIECES = 3;
/** Pieces of the ladder of an oldest ladder piece (its far rungs are mostly empty): requests against parallelism; the 1,200 row, spread rows. */
export const OLDER_LADDER_PIECES = 2;
/** Above this width ratio (oldest to newest, back from now) a window is split evenly in log(now − t): recent failures first; rows without fromDate. */
export const LOG_SPLIT_AFTER = 3;
/** The newest rung of a ladder of a window that ends now: how narrow the first guess is; the last-hour, outage and burst rows. */
export const LADDER_FIRST_MS = 15 * 60_000;
/** Each rung of a ladder ending now this many times as far back: fewer empty rungs against coarser ones; rows without fromDate. */
export const LADDER_RATIO = 6;
/** A ladder of a window ending d before now splits at 3d, 9d, 27d back: the same trade one level down; outage and burst rows. */
export const LADDER_OLDER_RATIO = 3;

// Clustered failures: probing, narrowing.

/** Share of a clustered window its probe covers: fewer empty probes against more probes per cluster; outage and burst rows. */
export const PROBE_SHARE = 0.85;
/** Probes in a row with runs after which the window is taken as no wider than its cluster and split: probing cost against parallelism; outage and burst rows. */
export const DENSE_AFTER = 4;
/** Most pieces of a split that narrows a cluster, all sent (fewer as the room left nears the windows the gate needs, BASE_WINDOWS at most): round trips to find a cluster against empty answers per round trip; the outage rows. */
export const NARROW_PIECES = 4;
/** Windows sent at most while a cluster is narrowed: narrowing against other windows keeping the gate busy; burst rows at 20,000. */
export const NARROW_WINDOWS = 1;
/** Times what a located cluster's density says a window held beyond which the window's own resumed entries say its density (the closed pieces were the cluster's thin edges): splitting a wide cluster against trusting its edges; the one-second outage rows at 500/s. */
export const THIN_EDGE_RATIO = 2;

// Spread failures: the density of failures in time.

/** Entries the closed windows must have held before their density is trusted: early splits against misplaced ones; the 1,200 and 2,500 spread rows. */
export const DENSITY_SAMPLE = 10;
/** Full pages each window opened past 500 runs must pay for: fewer windows against less parallelism; the 1,200 row (≤ 30 requests). */
export const PAY_PAGES = 4;
/** Full pages each piece of a split past 500 runs is expected to hold, and the least share a tiling drain cuts: fewer pieces against fewer in flight; the 1,200 and 2,500 spread rows, the rate rows' tails. */
export const PIECE_PAGES = 1;
/** Runs after which the last windows are halved whatever the density says: a busy gate at the tail against extra requests; spread rows from 2,500. */
export const TAIL_SPLIT_RUNS = 2_000;
/** Windows sent at most for that tail rule: tail speed against extra requests; spread rows from 2,500. */
export const TAIL_WINDOWS = 3;
/** Share of the windows needed below which a tiling drain (rule 8) halves any window that returns a full page, whatever the density says: tail speed against extra requests; the 1,000,000 rows. */
export const TILE_TAIL_SHARE = 0.25;
/** How far back a window open below is taken to reach when what it holds is estimated (shares, paying pieces), in multiples of how far before now it ends: lower, a wide drain cuts its tiles too small, closing on pages that are not full; higher (4), too large, each cut again a round trip later; the 500/s rows at 20,000. */
export const OPEN_BELOW_REACH = 3;
/** Most of a followed window's width taken as resumed when it is split (its first piece covers that part and its share of the rest): lower, the first piece of a nearly drained window comes back empty; higher, a first piece holds more than its share; large spread rows, the tails of the rate rows. */
export const DRAINED_MAX = 0.9;
/** Least of a followed window's width taken as resumed when the density says less: an empty first piece against a late one; spread rows. */
export const DRAINED_MIN = 0.4;
