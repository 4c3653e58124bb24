// size: one pure planner: the open windows and every rule an answer applies to them (close, follow, split, probe, density); apart, the rules that must agree on the allowance would be read in separate files
/**
 * The planner of a windowed drain: which failure-time windows are open, which one is sent next,
 * and what an answer does to them (close a window, follow its cursor, or split it). Pure: no
 * I/O, no timers, no clock of its own; the runner (`windowDrain.ts`) tells it what came back, how
 * many requests are in flight, how many wait at the rate gate and what time it is.
 *
 * How it decides, in short:
 * - A selection open below (no `fromDate`) starts as its ladder (below), up to 4 rungs sent
 *   together: the first round trip shows where failures lie, for up to 4 requests on up to 50
 *   entries. Any other starts with ONE window, the whole selection (or the windows of a saved
 *   state), so up to 50 entries cost one request; `concurrency: 1` is the sequential drain.
 * - A window is split only when it just returned a full page with a cursor (so it holds more),
 *   fewer windows are open than keep the rate gate busy ({@link targetWindows}: the gate's rate
 *   times the round trip, plus {@link GATE_BACKLOG}), fewer than {@link GATE_BACKLOG} requests
 *   wait at the gate (latency, not the rate, bounds the drain), no other splittable window has
 *   run longer, and the window budget (`windows.ts`, {@link windowRoom}) has room. Every window
 *   opened costs up to one request that is not full, so no more are opened than the gate needs.
 * - A split makes as many pieces as are missing, at most {@link MAX_PIECES} for the first split of
 *   a selection open below (its ladder), {@link OLDER_LADDER_PIECES} for the ladder of its oldest
 *   piece and {@link LATER_PIECES} for any other; a ladder's rungs split oldest first (the older,
 *   the wider); once a window came
 *   back empty (the failures are clustered, or the windows are running out: most pieces would
 *   hold little), it halves.
 * - Where the selection has no `fromDate`, the horizon (the retention, or 90 days) is far wider
 *   than the failures' span, and failures are usually recent: a window open below is split as a
 *   ladder back from its upper end, narrow first ({@link splitOpenBelow}: 15 minutes, 90 minutes,
 *   9 hours for a window that ends now), and a window far wider than its distance from now is
 *   split evenly in log(now − t). Empty ladder pieces say where failures are not; they do not
 *   start the probing below. Nothing here depends on the guess for correctness: the pieces
 *   still tile the window, the oldest keeping its open lower bound.
 * - Where a split into more than two pieces had one come back empty and one full with a cursor
 *   on their first pages (in it or in a split it descends from), the cluster is narrowed with
 *   probes: the window is split into a probe (its first
 *   {@link PROBE_SHARE}, sent) and the rest (held aside: open, saved in the state, not sent). An
 *   empty probe sends the rest, which holds the entries; a probe with runs keeps the rest held,
 *   merged with the held window next to it, so narrowing costs about one empty request per
 *   `1 / (1 − PROBE_SHARE)` probes instead of one per halving. After {@link DENSE_AFTER} probes
 *   in a row with runs the window is taken to be no wider than its cluster: it is split into
 *   pieces that are all sent, and what was held is sent too. A probe that finishes sends its
 *   (merged) rest; held windows are sent at the latest when no other window is open.
 * - Past {@link SMALL_DRAIN_RUNS} (500) runs, a window opened must pay for itself, once the
 *   density of failures is known: a window that closes with a page that is not full held exactly
 *   what it returned over its width, so closed windows with a lower bound give entries per ms
 *   ({@link WindowPlan.density}; unknown while they held fewer than {@link DENSITY_SAMPLE}, and
 *   once one held none: clustered failures keep the rules above). Then the windows opened past
 *   500 runs stay within the work past 500 runs (runs since, plus what the open windows are
 *   expected to hold) over {@link PAY_PAGES} pages each, and every piece is expected to hold a
 *   full page ({@link PIECE_PAGES}): a drain of 1,200 evenly spread entries opens about 3 more
 *   windows, not 7 (30 requests, not 36 to 38); from 2,500 entries the gate's need decides.
 *   Past {@link TAIL_SPLIT_RUNS} runs, while at most {@link TAIL_WINDOWS} windows are sent, a
 *   window is halved whatever the density says: the gate needs more, and each of them runs one
 *   page a round trip. A window the density says holds under two pages does not hold back the
 *   split of another that ran fewer pages (it would not be split itself). An empty piece of a
 *   ladder says where failures are not, not how dense they are: it is not in the density.
 * - While failures are clustered (a window came back empty and the density is unknown) and at
 *   most {@link NARROW_WINDOWS} window is sent, a window with a lower bound that returned a full
 *   page is narrowed ({@link WindowPlan.narrows}): split evenly over its width (not past what its
 *   cursor is guessed to have resumed: a cluster is far narrower than the window, so the guess
 *   would place it in the first piece three times in four) into {@link NARROW_PIECES} pieces, all
 *   sent, fewer (two at least) as the room left nears the windows the gate needs once the cluster
 *   is found ({@link BASE_WINDOWS} of them at most). Each round trip cuts the window the cluster
 *   is in that many times over, for an empty answer from every piece but one, whatever the run IDs
 *   look like: the gate is idle meanwhile, so fewer round trips are worth the empty answers the
 *   allowance leaves. Once two pieces of one split come back full on their first page, the
 *   cluster is found at that width ({@link SplitGroup.located}; in a drain that needs more than
 *   {@link WIDE_WINDOWS} windows, of any split off the ladder), and the pieces below are split by
 *   the rules above, never probed, with the cluster's own density
 *   ({@link WindowPlan.clusterDensity}) where the drain's is unknown; until a piece closes, such a
 *   drain cuts each full piece of a narrowed cluster into a share of the windows it lacks, not in
 *   halves, and once one closes it tiles the cluster by that density, as below. The other pieces
 *   of the split the window came from that have not answered yet do not count as sent: they most
 *   likely come back empty, and waiting for them would leave the window the cluster is in to the
 *   other rules (its split placed past what its cursor is guessed to have resumed).
 * - A followed window is split past what its cursor is guessed to have resumed (its oldest
 *   entries), unless a split it descends from had a piece come back empty above one that came
 *   back full: the entries left are clustered, not spread, so the guess says nothing of where they
 *   lie, and the window is halved at its middle (one empty piece a halving, not one per quarter).
 * - A drain whose rate and round trip need more than {@link WIDE_WINDOWS} windows in flight
 *   tiles what is left once the density is known past 500 runs (spread failures): each window
 *   that returns a full page is cut into as many pieces as it holds fair shares (the entries left
 *   over the windows needed), so pieces cut at any time end together; a window open below is cut
 *   back from its upper end into pieces of a fair share each. From then on an empty window says
 *   where failures are not, and no window is probed. Where the drain's density is unknown, a window
 *   of a located cluster whose own density is known is tiled by it, the windows sent with neither
 *   density left out of the share. Before any window closed or came back empty among the failures
 *   (a ladder's empty rungs older than every full piece do not count), such a drain cuts a full
 *   bounded window into a share of the windows it lacks. With the density known, a window whose
 *   full page comes back while answers in flight may take the drain past 500 runs is held
 *   (parked) until none may: then split if the allowance allows (past 500 runs, the larger one),
 *   else sent on.
 * - Windows are pairwise disjoint and cover what is left of the selection, so requests in flight
 *   never select the same entry, and a window split between its pages loses nothing.
 *
 * @packageDocumentation
 */
import { CursorChain } from "./cursorDrain";
import { MAX_RUNS_PER_REQUEST, type DlqSelection } from "../client/contract";
import type { DrainWindow, OpenWindow, WindowDrainState } from "./types";
import {
  MAX_PIECES,
  LATER_PIECES,
  OLDER_LADDER_PIECES,
  PROBE_SHARE,
  DENSE_AFTER,
  PAY_PAGES,
  PIECE_PAGES,
  TAIL_SPLIT_RUNS,
  TAIL_WINDOWS,
  TILE_TAIL_SHARE,
  WIDE_WINDOWS,
  DRAINED_MAX,
  DRAINED_MIN,
  OPEN_BELOW_REACH,
  DENSITY_SAMPLE,
  NARROW_PIECES,
  NARROW_WINDOWS,
  SMALL_DRAIN_RUNS,
  THIN_EDGE_RATIO,
} from "./planKnobs";
import {
  effectiveRange,
  rootWindow,
  splitOpenBelow,
  cutOpenBelow,
  splitWindowInto,
  windowAllowance,
  windowRoom,
  type WindowBudget,
} from "./windows";
import { BASE_WINDOWS, gateBacklog, inFlightFor } from "./inFlight";

/**
 * Windows that keep the rate gate busy: `ceil(rate × round trip)` plus the gate's backlog
 * ({@link inFlightFor}), at most `concurrency`; `concurrency` when the gate's rate or the round
 * trip is not known.
 */
export function targetWindows(
  concurrency: number,
  at: Pick<PlanContext, "ratePerSecond" | "roundTripMs">,
): number {
  if (at.ratePerSecond === undefined || at.roundTripMs === undefined) return concurrency;
  return inFlightFor(at.ratePerSecond, at.roundTripMs, concurrency);
}

/** A window of the plan, with its cursor and what the planner knows about it. */
export interface PlannedWindow {
  /** The window's bounds. */
  readonly window: DrainWindow;
  /** Where the window continues; `undefined`: from its start. */
  cursor: string | undefined;
  /** The loop checks of the window's cursor chain. */
  chain: CursorChain;
  /** The cursor came from saved state and was not accepted yet (a 400 restarts the window). */
  restored: boolean;
  /** Full pages since the window was opened: the longest-running window is split first. */
  pages: number;
  /** The window cannot be split (a single millisecond). */
  atomic: boolean;
  /** The window is a piece of a split (not the selection or a saved window). */
  piece: boolean;
  /** Held aside: part of the plan (and of the saved state) but not sent until released. */
  held: boolean;
  /** For a probe: the held rest of the window it was split from, until the probe's first answer. */
  rest?: PlannedWindow;
  /** Probes in a row, up to this window, that came back with runs. */
  fullProbes: number;
  /** The split this window is a piece of, if any. */
  group?: SplitGroup;
  /** The window starts where an earlier window's cursor pages resumed the oldest entries. */
  drainedBelow?: boolean;
  /** Runs this window returned since it was opened. */
  resumed: number;
  /** Opened without a cursor: when it closes, `resumed` is everything it held. */
  whole: boolean;
}

/** The pieces of one split: whether one came back empty, and the split its window came from. */
export interface SplitGroup {
  /** A piece came back empty on its first page: the failures here are clustered. */
  empty: boolean;
  /** The group of the window that was split. */
  readonly parent: SplitGroup | undefined;
  /**
   * The window split had been followed for pages: its oldest part is resumed already, so a
   * piece there coming back empty says nothing about clusters.
   */
  readonly followed: boolean;
  /**
   * Pieces the split made. Only an empty piece among more than two says clusters: one of two
   * halves comes back empty whenever a window runs out in it.
   */
  readonly pieces: number;
  /**
   * The split was a ladder ({@link splitOpenBelow}): its empty pieces say where failures are not
   * (the horizon is wider than their span), not that they are clustered.
   */
  readonly ladder: boolean;
  /**
   * A piece came back full with a cursor on its first page. With an empty piece, the failures
   * here are clustered; an empty piece beside pieces that held a page or less is a window
   * running out, not a cluster.
   */
  full?: boolean;
  /**
   * Exact counts of the pieces of this split, and of their splits, that closed whole (as the
   * density sample takes them): entries held and their width, ms. Where failures are not evenly
   * spread, they say more of a piece's neighbours than the drain's average does.
   */
  closed?: { runs: number; ms: number };
  /** The split narrowed a cluster ({@link WindowPlan.narrows}). */
  narrowing?: boolean;
  /**
   * For a located split ({@link SplitGroup.located}): exact counts of the pieces below it that
   * closed whole with runs; their median density is the cluster's own
   * ({@link WindowPlan.clusterDensity}). The empty pieces at its edges are left out.
   */
  filled?: Densities;
  /** Pieces of this split that came back full with a cursor on their first page. */
  fulls?: number;
  /**
   * The cluster is found at this split's scale: two of its pieces (or of a split it descends
   * from) came back full on their first page. Its pieces are not narrowed any more.
   */
  located?: boolean;
  /** Lowest start (−∞: open below) of a piece that came back full with a cursor on its first page. */
  lowestFull?: number;
  /** Highest start (−∞: open below) of a piece that came back empty on its first page. */
  highestEmpty?: number;
}

/**
 * Exact counts of closed windows (entries held, width in ms), kept in order of density, and the
 * median of their densities (entries per ms), each window weighing the entries it held: a wide
 * window at the edge of the failures (a few entries over hours) does not pull it down as their
 * pooled ratio would. Kept as each window closes: the planner reads it on every answer.
 */
export class Densities {
  private readonly byDensity: { runs: number; ms: number }[] = [];
  /** Entries the windows held. */
  runs = 0;
  /** The weighted median; `undefined` while the windows held nothing. */
  median: number | undefined;

  add(runs: number, ms: number): void {
    const at = this.byDensity.findIndex((c) => c.runs / c.ms > runs / ms);
    this.byDensity.splice(at < 0 ? this.byDensity.length : at, 0, { runs, ms });
    this.runs += runs;
    let below = 0;
    this.median = undefined;
    for (const c of this.byDensity) {
      below += c.runs;
      if (this.runs > 0 && below >= this.runs / 2) {
        this.median = c.runs / c.ms;
        return;
      }
    }
  }
}

/**
 * Whether `saved` is a drain cut off before any answer: the whole selection, no cursor, nothing
 * resumed ({@link WindowPlan.snapshot}).
 */
function unanswered(saved: WindowDrainState, root: DrainWindow): boolean {
  const [w, ...more] = saved.windows;
  return (
    w !== undefined &&
    more.length === 0 &&
    saved.runs === 0 &&
    saved.shortfall === 0 &&
    w.cursor === undefined &&
    w.runIdPrefix === undefined &&
    w.from === root.from &&
    w.to === root.to
  );
}

/** Whether `g` or a split it descends from passes `test`. */
function inLineage(g: SplitGroup | undefined, test: (x: SplitGroup) => boolean): boolean {
  for (let x = g; x !== undefined; x = x.parent) if (test(x)) return true;
  return false;
}

/** Whether `g` or a split it descends from located its cluster ({@link SplitGroup.located}). */
function locatedIn(g: SplitGroup | undefined): boolean {
  return inLineage(g, (x) => x.located === true);
}

/** Whether `g` or a split it descends from narrowed a cluster ({@link SplitGroup.narrowing}). */
function narrowedIn(g: SplitGroup | undefined): boolean {
  return inLineage(g, (x) => x.narrowing === true);
}

/** Whether `g` is `of` or a split of one of its pieces' descendants. */
function descends(g: SplitGroup | undefined, of: SplitGroup): boolean {
  return inLineage(g, (x) => x === of);
}

/**
 * Whether a split `g` descends from (or `g`) had a piece come back empty above one that came back
 * full with a cursor, both on their first pages, and is no ladder: the entries left are below
 * where evenly spread failures would put them (a cursor resumes the oldest first, so what is
 * left of an even spread lies towards the top), so they are clustered. A piece empty below a
 * full one says less: the cursor may have passed it.
 */
function clusteredBelowIn(g: SplitGroup | undefined): boolean {
  return inLineage(
    g,
    (x) =>
      !x.ladder &&
      x.lowestFull !== undefined &&
      x.highestEmpty !== undefined &&
      x.highestEmpty > x.lowestFull,
  );
}

/**
 * Whether a piece of `g`'s split, or of a split it descends from, came back empty, and no split
 * it descends from narrowed a cluster: below a narrowing split the cluster is narrowed, then
 * located, and split by its density, where a probe and its held rest would each take a round trip
 * with one window sent.
 */
function clusteredIn(g: SplitGroup | undefined): boolean {
  return !narrowedIn(g) && inLineage(g, (x) => x.empty && x.full === true && x.pieces > 2 && !x.ladder);
}

/** What the runner tells the planner with an answer. */
export interface PlanContext {
  /** Requests in flight now, the answered one not included. */
  inFlight: number;
  /** Requests waiting at the rate gate now. */
  gateWaiting: number;
  /** Unix ms now. */
  now: number;
  /** Requests per second the rate gate lets through, when it limits. */
  ratePerSecond?: number;
  /** Round-trip time of a request (recent average, gate wait included), ms, when known. */
  roundTripMs?: number;
  /**
   * The shortest round trip measured, ms: what the window budget credits and the gate's backlog is
   * measured against (a wait at a busy gate lengthens the others, and is no latency to keep
   * requests in flight for). `roundTripMs` when unset.
   */
  shortestRoundTripMs?: number;
  /** The account's daily limit as the last answer stated it (`RateLimit-Limit`), when it did. */
  dailyLimit?: number;
}

/** What an answer did to its window. */
export type Decision =
  | { kind: "closed" }
  /** Open with its cursor: sent again, or parked ({@link WindowPlan.answer}). */
  | { kind: "continue" }
  | { kind: "split"; into: readonly PlannedWindow[] }
  | { kind: "loop"; reason: string };

/** Settings of a plan. */
export interface PlanSettings extends WindowBudget {
  /** Requests in flight at most. */
  concurrency: number;
  /** Pages with a cursor and no runs in a row, per window, before giving up. */
  maxEmptyPages: number;
  /** How far back failures may lie when the selection has no `fromDate`, ms. */
  horizonMs: number;
}

/** The open windows of a drain and the budget counters, with the decisions on them. */
export class WindowPlan {
  /** Windows not finished, in failure-time order. */
  readonly open: PlannedWindow[] = [];
  /** Open windows waiting to be sent, in the order they are sent. */
  private readonly queue: PlannedWindow[] = [];
  /** Runs reported so far (continuations included): the budget's credit. */
  runs: number;
  /** Σ (50 − runs) over the pages that were not full: the budget's debit. */
  shortfall: number;
  /** Windows opened by splitting. */
  splits = 0;
  /**
   * Some window came back empty on its first page: the failures are clustered, or the windows are
   * running out (the tail of any drain). Either way a new piece holds little, so from then on
   * splits halve and a piece may be split after its first page. Not the same as
   * {@link clusteredIn}, which asks whether one split found a cluster, to narrow it with probes.
   */
  private sawEmptyWindow = false;
  /**
   * A window that is no ladder rung came back empty on its first page (a saved window too: it
   * lost its place in a ladder): the failures are clustered or running out.
   */
  private sawEmptyPiece = false;
  /** The newest end of the ladder rungs that came back empty (+∞: one ending now), unix ms. */
  private emptyRungsTop = -Infinity;
  /** The oldest start of the bounded pieces whose first page came back full, unix ms. */
  private fullPiecesBottom = Infinity;
  /**
   * Exact counts of closed windows with a lower bound, opened without a cursor and not starting
   * where another window's cursor resumed, one per window: entries held and their width (ms);
   * the density is their median. A bounded window that held nothing makes the density unknown
   * (the failures are clustered).
   */
  private readonly sample = new Densities();
  /** A window of the sample held nothing: the density is unknown. */
  private sampledEmpty = false;
  /**
   * The same counts without the ladder's pieces (their empty rungs say where failures are not,
   * not how dense they are), empty windows kept: how much of a followed window its cursor pages
   * have resumed ({@link WindowPlan.drainedShare}).
   */
  private readonly offLadder = { runs: 0, ms: 0 };
  /**
   * Entries the drain resumes at least: its runs, and one for each window whose cursor (from this
   * drain's answers, not a saved one) says it holds more. It never falls: whatever the windows are
   * split into, those entries are resumed by this drain or the one that continues it.
   */
  least = 0;
  /**
   * Full windows not sent again while answers in flight may take a wide drain past
   * {@link SMALL_DRAIN_RUNS} runs ({@link crossing}): split then by the larger allowance, they
   * keep the gate busy a round trip sooner than continued (each page of the ramp to 500 runs
   * leaves it mostly idle). Open and saved as any window; split or sent again once nothing in
   * flight may cross ({@link unpark}).
   */
  private readonly parked: PlannedWindow[] = [];
  /** Windows opened by splits after {@link SMALL_DRAIN_RUNS} runs came back. */
  private openedPast = 0;
  /** The drain has tiled what is left ({@link tiling}): its density stays known. */
  private tiled = false;
  /** The whole selection, while the drain started as its ladder and no answer came back. */
  private unansweredRoot: DrainWindow | undefined;

  /**
   * @param windows - the windows to start from, disjoint and in failure-time order
   * @param counters - the budget counters to start from (a saved state's, or zero)
   * @param settings - concurrency, loop checks, horizon and budget
   */
  constructor(
    windows: readonly OpenWindow[],
    counters: Pick<WindowDrainState, "runs" | "shortfall">,
    private readonly settings: PlanSettings,
  ) {
    this.runs = counters.runs;
    this.shortfall = counters.shortfall;
    for (const w of windows) {
      const p = this.planned(w, true);
      this.open.push(p);
      this.queue.push(p);
    }
  }

  /**
   * The plan of a drain: the saved state's windows, else the whole selection (with `startCursor`),
   * which, open below, starts as its ladder ({@link startLadder}) when `start` is given. A state
   * saved before any answer holds the whole selection ({@link snapshot}): it starts as a new drain.
   *
   * @param start - `now` (unix ms), where the ladder's rungs are placed back from, and the most
   *   rungs the runner's caps allow (`maxRuns`, `maxRequests`); the runner always gives it,
   *   without it the selection starts whole, as one continued from its cursor does
   */
  static start(
    selection: DlqSelection,
    saved: WindowDrainState | undefined,
    startCursor: string | undefined,
    settings: PlanSettings,
    start?: { now: number; most?: number },
  ): WindowPlan {
    const root: OpenWindow = { ...rootWindow(selection) };
    if (saved !== undefined && !unanswered(saved, root))
      return new WindowPlan(saved.windows, saved, settings);
    if (startCursor !== undefined) root.cursor = startCursor;
    const plan = new WindowPlan([root], { runs: 0, shortfall: 0 }, settings);
    if (startCursor === undefined && start !== undefined) plan.startLadder(start.now, start.most);
    return plan;
  }

  /**
   * A selection open below (no `fromDate`) is split into its ladder before anything is sent, up to
   * {@link MAX_PIECES} rungs (no more than `concurrency` and the window allowance allow): the
   * first round trip shows where failures lie, which the whole selection's first page (its 50
   * oldest) would not, a round trip sooner. Each rung ends with at most one page that is not full,
   * so no more rungs than the window allowance (with a daily limit's share) keep the requests
   * within ceil(N/50) + that allowance for any N: up to 50 entries cost at most 4 requests.
   */
  private startLadder(now: number, most = MAX_PIECES): void {
    const root = this.open[0];
    const allowance = Math.floor(windowAllowance(0, this.settings) + 1e-9);
    const k = Math.min(MAX_PIECES, most, this.settings.concurrency, allowance);
    const rungs = k >= 2 ? splitOpenBelow(root.window, k, now, this.settings.horizonMs) : undefined;
    if (rungs === undefined) return;
    const group: SplitGroup = {
      empty: false,
      parent: undefined,
      followed: false,
      pieces: rungs.length,
      ladder: true,
      narrowing: false,
    };
    const into = rungs.map((x) => ({ ...this.planned(x, false), piece: true, group }));
    this.open.splice(0, 1, ...into);
    this.queue.splice(0, 1, ...into);
    this.splits += into.length - 1;
    this.unansweredRoot = { ...root.window };
  }

  /** Whether every window is finished. */
  get done(): boolean {
    return this.open.length === 0;
  }

  /** Windows waiting to be sent. */
  get waiting(): number {
    return this.queue.length;
  }

  /** The next window to send, or `undefined` when none waits. */
  take(): PlannedWindow | undefined {
    return this.queue.shift();
  }

  /**
   * Records an answer of `runs` runs and the cursor `next` for `w`, and decides what follows:
   * the window is closed (no cursor), continues with its cursor (sent again, or parked until
   * the answers in flight show whether the drain passed 500 runs), is split, or loops.
   */
  answer(w: PlannedWindow, runs: number, next: string | undefined, at: PlanContext): Decision {
    this.unansweredRoot = undefined;
    this.runs += runs;
    if (runs < MAX_RUNS_PER_REQUEST) this.shortfall += MAX_RUNS_PER_REQUEST - runs;
    w.restored = false;
    // The window's first page, opened without a cursor, came back empty: it held nothing.
    const emptyFirst = runs === 0 && next === undefined && w.pages === 0 && w.cursor === undefined;
    if (emptyFirst) this.sawEmptyWindow = true;
    if (emptyFirst && w.group?.ladder !== true) this.sawEmptyPiece = true;
    if (emptyFirst && w.group?.ladder === true) {
      this.emptyRungsTop = Math.max(this.emptyRungsTop, w.window.to ?? Infinity);
    }
    if (
      runs >= MAX_RUNS_PER_REQUEST &&
      next !== undefined &&
      w.pages === 0 &&
      w.cursor === undefined &&
      w.group
    ) {
      w.group.full = true;
      w.group.fulls = (w.group.fulls ?? 0) + 1;
      w.group.lowestFull = Math.min(w.group.lowestFull ?? Infinity, w.window.from ?? -Infinity);
      if (w.window.from !== undefined) this.fullPiecesBottom = Math.min(this.fullPiecesBottom, w.window.from);
      if (w.group.fulls >= 2 && (w.group.narrowing === true || this.locatesWide(w.group, at))) {
        w.group.located = true;
      }
    }
    if (emptyFirst && w.group) {
      w.group.highestEmpty = Math.max(w.group.highestEmpty ?? -Infinity, w.window.from ?? -Infinity);
    }
    if (emptyFirst && w.group && !w.group.followed) {
      w.group.empty = true;
      // A piece came back empty: its cluster is narrower than the split window, so probe again.
      for (const o of this.open) if (descends(o.group, w.group)) o.fullProbes = 0;
    }
    if (emptyFirst) this.passedBy(w);
    if (w.rest !== undefined) this.probed(w, runs, next === undefined);
    w.resumed += runs;
    if (next === undefined) {
      this.learn(w, at.now);
      this.open.splice(this.open.indexOf(w), 1);
      if (!this.open.some((o) => !o.held)) this.release();
      this.unpark(at);
      return { kind: "closed" };
    }
    const loop = w.chain.loopReason(next, runs);
    w.cursor = next;
    if (runs >= MAX_RUNS_PER_REQUEST) w.pages += 1;
    if (loop !== undefined) return { kind: "loop", reason: loop };
    const promised = this.open.filter((o) => o.cursor !== undefined && !o.restored).length;
    this.least = Math.max(this.least, this.runs + promised);
    const into = runs >= MAX_RUNS_PER_REQUEST ? this.split(w, at) : undefined;
    if (into !== undefined) {
      this.unpark(at);
      return { kind: "split", into };
    }
    if (runs >= MAX_RUNS_PER_REQUEST && !w.atomic && this.crossing(at)) this.parked.push(w);
    else this.queue.push(w);
    this.unpark(at);
    return { kind: "continue" };
  }

  /**
   * Whether answers in flight may take a {@link wideSpread} drain past {@link SMALL_DRAIN_RUNS}
   * runs: a window whose full page comes back then is {@link parked} until they did.
   */
  private crossing(at: PlanContext): boolean {
    if (this.runs > SMALL_DRAIN_RUNS || !this.wideSpread(at)) return false;
    return this.runs + MAX_RUNS_PER_REQUEST * at.inFlight > SMALL_DRAIN_RUNS;
  }

  /**
   * Once no answer in flight may take the drain past {@link SMALL_DRAIN_RUNS} runs (it crossed,
   * or they came back short), each parked window is split by what the drain knows now, else
   * continued.
   */
  private unpark(at: PlanContext): void {
    if (this.parked.length === 0 || this.crossing(at)) return;
    for (const p of this.parked.splice(0)) if (this.split(p, at) === undefined) this.queue.push(p);
  }

  /**
   * A saved cursor the service no longer accepts (400): the window starts over without it, first
   * in line. Resumed entries have left the DLQ, so this resumes nothing twice.
   *
   * @returns false when the cursor was not a restored one (the refusal is a failure)
   */
  refused(w: PlannedWindow): boolean {
    if (!w.restored) return false;
    w.cursor = undefined;
    w.restored = false;
    w.chain = new CursorChain(undefined, this.settings.maxEmptyPages);
    this.queue.unshift(w);
    return true;
  }

  /** The state to continue from: the open windows with their cursors, and the counters. */
  snapshot(): WindowDrainState {
    // Before any answer the rungs say nothing yet: the whole selection, laddered again from the
    // `now` of the drain that continues it (restored rungs would lack their ladder).
    const open: { window: DrainWindow; cursor?: string }[] =
      this.unansweredRoot !== undefined ? [{ window: this.unansweredRoot }] : this.open;
    const windows: OpenWindow[] = open.map((p) => ({
      ...p.window,
      ...(p.cursor !== undefined ? { cursor: p.cursor } : {}),
    }));
    return {
      version: 1,
      windows,
      runs: this.runs,
      shortfall: this.shortfall,
    };
  }

  /** How many pieces `w` is split into now: 0 or 1 means not at all. */
  pieces(w: PlannedWindow, at: PlanContext, narrow = false): number {
    const idle = this.settings.concurrency - at.inFlight - this.queue.length - 1;
    const sent = this.open.filter((o) => !o.held).length;
    const need = targetWindows(this.settings.concurrency, at);
    const missing = need - sent;
    const backlog = gateBacklog(at.ratePerSecond, at.shortestRoundTripMs ?? at.roundTripMs);
    if (idle < 1 || missing < 1 || at.gateWaiting >= backlog || w.atomic) return 0;
    // Once a window came back empty, the failures are clustered (the piece holding the cluster
    // is narrowed) or running out: a new piece holds little, so splits halve.
    const halve = this.sawEmptyWindow;
    // A cluster narrowed (the one window sent, the gate idle) earns the larger allowance once its
    // cursor says the drain holds over 500 entries, a page before its runs do. Other splits wait
    // for the runs: spent on a spread drain's ladder, that page cost up to 0.03 of the bound
    // (section 9: the last hour at 2,500, the 30-minute outage at 5,000; the 500/s spread rows).
    const counters = narrow ? this : { runs: this.runs, shortfall: this.shortfall };
    const room = windowRoom(counters, this.open.length, this.budget(at), true);
    const rho = narrow ? undefined : this.tileDensity(w, at);
    if (rho !== undefined) {
      // The last windows run one page a round trip each: below a share of the windows needed, halve.
      const thin = sent < TILE_TAIL_SHARE * need;
      const k = Math.round(this.expected(w, rho, at.now) / this.tileSize(at));
      return Math.min(1 + idle, 1 + missing, 1 + room, thin ? Math.max(2, k) : k);
    }
    if (!narrow && this.ramps(w, at)) {
      // The windows come back full: the windows missing are shared out among those sent.
      return Math.min(1 + idle, 1 + missing, 1 + room, 1 + Math.ceil(missing / Math.max(1, sent)));
    }
    if (this.longerRunning(w, at) || this.olderRungFirst(w, at)) return 0;
    // A window that is no piece (the selection, or a saved window) and open below: its ladder.
    const first = w.window.from === undefined && !w.piece;
    // A piece open below ends before now: its ladder's rungs past the first lie further back still.
    const older = w.window.from === undefined && w.piece;
    // A narrowing split keeps the room of the windows the gate needs once the cluster is found
    // (the one narrowed is one of them): fewer pieces a round trip, at least two, as room runs out.
    // A drain that needs more than BASE_WINDOWS keeps room for that many: it earns the rest page
    // by page once the cluster is found, and a halving in place of a quartering costs it a round
    // trip with its gate idle.
    const most = narrow
      ? Math.min(NARROW_PIECES, Math.max(2, 2 + room - Math.min(need, BASE_WINDOWS)))
      : halve
        ? 2
        : first
          ? MAX_PIECES
          : older
            ? OLDER_LADDER_PIECES
            : LATER_PIECES;
    // The last windows of a large drain run one page a round trip each, and the gate needs more:
    // halving one costs at most one request and can halve its time left, whatever the density says.
    const tail = sent <= TAIL_WINDOWS && this.runs >= TAIL_SPLIT_RUNS;
    const paying = tail
      ? Math.max(2, this.payingPieces(w, at.now))
      : Math.min(this.paying(at), this.payingPieces(w, at.now));
    return Math.min(1 + idle, 1 + missing, 1 + room, paying, most);
  }

  /**
   * Whether the account's rate and the shortest round trip measured need more than
   * {@link WIDE_WINDOWS} windows in flight. Not the recent round trip: a wait at a busy gate
   * lengthens it, and is no latency to keep requests in flight for; drains that share a gate wait
   * at it on every request, hence the margin over {@link BASE_WINDOWS}.
   */
  private wide(at: PlanContext): boolean {
    return this.latencyNeeds(at) > WIDE_WINDOWS;
  }

  /** The windows the account's rate and the shortest round trip measured need in flight. */
  private latencyNeeds(at: PlanContext): number {
    const roundTripMs = at.shortestRoundTripMs ?? at.roundTripMs;
    return targetWindows(this.settings.concurrency, { ratePerSecond: at.ratePerSecond, roundTripMs });
  }

  /**
   * Whether the drain is {@link wide} and knows the density (spread failures): no window is probed
   * (a probe and its held rest take a round trip each, one window at a time).
   */
  private wideSpread(at: PlanContext): boolean {
    return this.wide(at) && this.density() !== undefined;
  }

  /**
   * Whether the drain tiles what is left ({@link tileSize}, {@link tile}): it is {@link wide},
   * past {@link SMALL_DRAIN_RUNS} runs, and knows the density. Once it does, its density stays
   * known ({@link learn}).
   */
  private tiling(at: PlanContext): boolean {
    if (this.runs <= SMALL_DRAIN_RUNS || !this.wide(at) || this.density() === undefined) return false;
    this.tiled = true;
    return true;
  }

  /**
   * Entries per ms by which `w` is tiled: the drain's density once it {@link tiling tiles}; in a
   * {@link wide} drain past {@link SMALL_DRAIN_RUNS} runs whose density is unknown, that of the
   * located cluster `w` lies in ({@link clusterDensity}): the cluster's pieces end together too.
   */
  private tileDensity(w: PlannedWindow, at: PlanContext): number | undefined {
    if (this.tiling(at)) return this.density();
    if (this.runs <= SMALL_DRAIN_RUNS || !this.wide(at)) return undefined;
    return this.clusterDensity(w);
  }

  /**
   * Entries one window of a tiling drain is to hold: what the windows sent are expected to hold
   * (each by the drain's density, else its cluster's; those with neither left out), over the
   * windows the gate needs, {@link PIECE_PAGES} pages at least. A window cut to this size at any
   * time ends about when the drain does: the gate resumes that many a window a round trip.
   */
  private tileSize(at: PlanContext): number {
    const drain = this.density();
    let left = 0;
    for (const o of this.open) {
      const rho = o.held ? undefined : (drain ?? this.clusterDensity(o));
      if (rho !== undefined) left += this.expected(o, rho, at.now);
    }
    return Math.max(PIECE_PAGES * MAX_RUNS_PER_REQUEST, left / this.latencyNeeds(at));
  }

  /**
   * `w` cut into `k` pieces by a tiling drain. A window with a lower bound is cut evenly past what
   * its cursor resumed (its oldest entries, as wide as the density says they were); one open below
   * is cut back from its upper end into pieces of {@link tileSize} each by the density, the oldest
   * open below.
   */
  private tile(w: PlannedWindow, k: number, at: PlanContext, rho: number): DrainWindow[] | undefined {
    const range = effectiveRange(w.window, at.now, this.settings.horizonMs);
    if (range === undefined) return undefined;
    const [lo, hi] = range;
    if (w.window.from !== undefined) {
      const drained = Math.min(DRAINED_MAX, w.resumed / (rho * (hi - lo + 1)));
      return splitWindowInto(w.window, k, at.now, this.settings.horizonMs, drained);
    }
    const width = Math.max(1, Math.floor(this.tileSize(at) / rho));
    const ends: number[] = [];
    for (let i = k - 1; i >= 1; i--) if (hi - i * width > lo) ends.push(hi - i * width);
    return ends.length === 0 ? undefined : cutOpenBelow(w.window, ends);
  }

  /**
   * Whether an older rung of `w`'s ladder is to split first: one open, not more than a full page
   * behind `w` (unanswered rungs included), that no window but `w` holds back ({@link
   * longerRunning}). The older a rung, the wider, and the more it likely holds; sent together, the
   * rungs answer in an order jitter decides, and the room the allowance leaves while the drain may
   * hold under 500 entries (a split or two) would go to whichever came first. So two windows may
   * wait for each other (`w` for the rung a page behind, it for `w`), never more: the next answer
   * of either ends it.
   */
  private olderRungFirst(w: PlannedWindow, at: PlanContext): boolean {
    if (w.group?.ladder !== true) return false;
    const from = w.window.from ?? -Infinity;
    return this.open.some(
      (o) =>
        o !== w &&
        o.group === w.group &&
        !o.held &&
        (o.window.to ?? Infinity) < from &&
        o.pages + 1 >= w.pages &&
        !this.longerRunning(o, at, w),
    );
  }

  /**
   * Whether another window sent (but `except`) ran more full pages than `w` and may be split: the
   * longest-running window is split first. One that the density says holds under two pages is not
   * split, so it does not hold back a window with a lower bound; a window open below (where its
   * failures start, and so what it holds, is a guess) still waits for every longer-running one.
   */
  private longerRunning(w: PlannedWindow, at: PlanContext, except?: PlannedWindow): boolean {
    const known = w.window.from !== undefined;
    return this.open.some(
      (o) =>
        o !== w &&
        o !== except &&
        !o.atomic &&
        !o.held &&
        o.pages > w.pages &&
        (!known || this.payingPieces(o, at.now) >= 2),
    );
  }

  /**
   * Whether full window `w` is split into a share of the windows missing, in a {@link wide} drain
   * while no density says what it holds: halving would reach the windows the gate needs only a
   * round trip a doubling. Either spread failures past {@link SMALL_DRAIN_RUNS} runs (a bounded
   * window: where one open below starts is a guess) before any window closed or came back empty
   * among them ({@link emptyAmongFailures}),
   * or a located cluster ({@link SplitGroup.located}) whose own density is not known
   * ({@link clusterDensity}): every piece of it came back full, so it holds more than the windows
   * sent drain in a round trip. Only a cluster found by narrowing ({@link narrows}: the one window
   * sent), whose windows are all the drain's: a share of the windows missing would overrun one of
   * several clusters. Once a window closes, the density rules (rules 4 and 8).
   */
  private ramps(w: PlannedWindow, at: PlanContext): boolean {
    if (!this.wide(at)) return false;
    const spread =
      this.runs > SMALL_DRAIN_RUNS &&
      !this.emptyAmongFailures() &&
      this.density() === undefined &&
      w.window.from !== undefined;
    return spread || (locatedIn(w.group) && narrowedIn(w.group) && this.clusterDensity(w) === undefined);
  }

  /**
   * Whether a window came back empty among the failures: one that is no ladder rung, or a rung no
   * older than a bounded piece that came back full (an empty newest rung above full older ones:
   * bursts, or an outage hours ago). Empty rungs all older than the full pieces say only that the
   * failures are recent (all within the last hour), and a spread drain still ramps ({@link ramps}).
   * A full piece open below says nothing of where its failures start, so it counts for neither.
   */
  private emptyAmongFailures(): boolean {
    return this.sawEmptyPiece || this.emptyRungsTop >= this.fullPiecesBottom;
  }

  /**
   * Whether two pieces of `g`, a split that did not narrow (several windows were sent: several
   * clusters, or a cluster and the rest), coming back full on their first page locate its cluster
   * ({@link SplitGroup.located}): in a {@link wide} drain, off the ladder, outside a located cluster.
   * Halving on inside such a cluster makes pieces that close on pages that are not full, and an
   * empty answer at each of its edges every round trip: at a fast rate that spends the allowance
   * before the gate is busy. Not at 100 a second and 50 ms, whose rows halve on (section 9).
   */
  private locatesWide(g: SplitGroup, at: PlanContext): boolean {
    return this.wide(at) && !g.ladder && !locatedIn(g);
  }

  /**
   * Whether a split of `w` narrows a cluster: failures are clustered (a window came back empty, and
   * the density is unknown), `w` has a lower bound (the ladder places pieces of a window open
   * below) and is not inside a located cluster ({@link SplitGroup.located}).
   */
  narrows(w: PlannedWindow): boolean {
    if (!this.sawEmptyWindow || this.density() !== undefined || w.window.from === undefined) return false;
    if (locatedIn(w.group)) return false;
    return this.open.filter((o) => !o.held && !this.probing(o, w)).length <= NARROW_WINDOWS;
  }

  /**
   * Whether `w` is split at its middle, not past what its cursor is guessed to have resumed:
   * failures are clustered (a window came back empty, the density is unknown), `w` has a lower
   * bound, is not inside a located cluster, and a split it descends from found the entries left
   * below where an even spread would put them ({@link clusteredBelowIn}).
   */
  private clusteredBelow(w: PlannedWindow): boolean {
    if (!this.sawEmptyWindow || this.density() !== undefined || w.window.from === undefined) return false;
    return !locatedIn(w.group) && clusteredBelowIn(w.group);
  }

  /**
   * Whether `o` is a piece of the narrowing split `w` came from that was not answered yet: it
   * most likely comes back empty (the cluster is in `w`), so it does not count as a window that
   * keeps the gate busy, and does not stop `w` from being narrowed in turn.
   */
  private probing(o: PlannedWindow, w: PlannedWindow): boolean {
    return (
      o !== w && o.group === w.group && o.group?.narrowing === true && o.pages === 0 && o.cursor === undefined
    );
  }

  /**
   * An oldest piece that starts where its window's cursor resumed (`drainedBelow`) came back empty
   * on its first page: that cursor had passed its top, into the piece above it. So that piece is
   * drained below too: its count is not all it held (it stays out of the density) and it takes
   * what the cursor resumed, to place its own split past it ({@link WindowPlan.drainedShare}).
   */
  private passedBy(w: PlannedWindow): void {
    if (w.drainedBelow !== true || w.group === undefined) return;
    const above = this.open[this.open.indexOf(w) + 1];
    if (above === undefined || above.group !== w.group) return;
    above.drainedBelow = true;
    above.whole = false;
    above.resumed += w.resumed;
  }

  /**
   * Adds a closed window's exact count to the density sample, and to the counts of the splits it
   * descends from ({@link SplitGroup.closed}), when it held all it was opened with: a lower bound,
   * no cursor at the start, not where another window's cursor resumed, no run-ID prefix (it would
   * hold a share of its width's entries). An empty piece of a ladder is
   * left out: it says where failures are not (the horizon is wider than their span), not how
   * dense they are, and an empty window makes the density unknown.
   */
  private learn(w: PlannedWindow, now: number): void {
    if (w.window.from === undefined || !w.whole || w.drainedBelow === true) return;
    if (w.window.runIdPrefix !== undefined) return;
    if (w.group?.ladder === true && w.resumed === 0) return;
    const range = effectiveRange(w.window, now, this.settings.horizonMs);
    if (range === undefined) return;
    const ms = range[1] - range[0] + 1;
    // Once the drain tiles (spread failures), an empty window says where failures are not.
    if (w.resumed === 0 && this.tiled) return;
    if (w.resumed === 0) this.sampledEmpty = true;
    this.sample.add(w.resumed, ms);
    if (w.group?.ladder !== true) {
      this.offLadder.runs += w.resumed;
      this.offLadder.ms += ms;
    }
    for (let g = w.group; g !== undefined && !g.ladder; g = g.parent) {
      g.closed = { runs: (g.closed?.runs ?? 0) + w.resumed, ms: (g.closed?.ms ?? 0) + ms };
      if (g.located === true && w.resumed > 0) {
        (g.filled ??= new Densities()).add(w.resumed, ms);
      }
    }
  }

  /**
   * Entries per ms learnt from the exact counts of closed windows (a window that closes with a
   * page that is not full held exactly what it returned over its width): the median of their
   * densities, each window weighing the entries it held, so one wide window over where failures
   * start (a few entries over hours) does not pull it down as their pooled ratio would;
   * `undefined` while they held fewer than {@link DENSITY_SAMPLE} entries, or once one of them
   * held none (clustered failures: a density says nothing there, and the rules of before apply).
   */
  density(): number | undefined {
    return this.sampledEmpty || this.sample.runs < DENSITY_SAMPLE ? undefined : this.sample.median;
  }

  /**
   * The most pieces a split may make now so that every window opened past
   * {@link SMALL_DRAIN_RUNS} runs pays for itself ({@link PAY_PAGES}): unlimited while the
   * density is not known or fewer than 500 runs came back. A drain whose rate and round trip need
   * more than {@link BASE_WINDOWS} windows in flight pays proportionally fewer pages a window, one
   * at least: a window's page that is not full costs the gate the same, and it saves more time.
   */
  private paying(at: PlanContext): number {
    const rho = this.density();
    if (rho === undefined || this.runs <= SMALL_DRAIN_RUNS) return Infinity;
    const sent = this.open.filter((o) => !o.held);
    const expected = sent.reduce((sum, o) => sum + this.expected(o, rho, at.now), 0);
    const work = this.runs - SMALL_DRAIN_RUNS + expected;
    const need = targetWindows(this.settings.concurrency, at);
    const pages = Math.max(1, (PAY_PAGES * BASE_WINDOWS) / Math.max(BASE_WINDOWS, need));
    const windows = Math.floor(work / (pages * MAX_RUNS_PER_REQUEST));
    return 1 + Math.max(0, windows - this.openedPast);
  }

  /**
   * The share of `w`'s width, from its start, that its cursor pages have resumed (a window followed
   * by its cursor resumes its oldest failures first): half, the median guess when nothing else is
   * known, else what the density near `w` says `w` resumed of what it held, from
   * {@link DRAINED_MIN} to {@link DRAINED_MAX}. The density near `w` is that of the closed pieces
   * of the nearest split `w` descends from ({@link SplitGroup.closed}), else of the closed windows
   * off the ladder. In a located cluster, the cluster's own density ({@link clusterDensity}), up
   * to {@link DRAINED_MAX} and with no floor: the cursor resumed the cluster's oldest entries,
   * packed at that density, from the window's start.
   */
  private drainedShare(w: PlannedWindow, now: number): number {
    let g = w.group;
    while (g !== undefined && (g.closed?.runs ?? 0) < DENSITY_SAMPLE) g = g.parent;
    const { runs, ms } = g?.closed ?? this.offLadder;
    const range = effectiveRange(w.window, now, this.settings.horizonMs);
    // In a located cluster its own density says what the cursor resumed (the closed counts of
    // its splits hold the empty pieces at its edges: a split there would peel off empty tops).
    const cluster = this.clusterDensity(w);
    if (cluster !== undefined && range !== undefined) {
      return Math.min(DRAINED_MAX, w.resumed / (cluster * (range[1] - range[0] + 1)));
    }
    if (runs < DENSITY_SAMPLE || range === undefined) return 0.5;
    const share = w.resumed / ((runs / ms) * (range[1] - range[0] + 1));
    return Math.min(DRAINED_MAX, Math.max(DRAINED_MIN, share));
  }

  /**
   * Entries per ms of the located cluster `w` lies in ({@link SplitGroup.located}, the nearest):
   * the median of the densities of its pieces that closed whole with runs
   * ({@link SplitGroup.filled}), each weighing its entries, once they held {@link DENSITY_SAMPLE}
   * entries (pieces at the cluster's edges hold few over their width, and would pull a pooled
   * ratio down); `undefined` before, and outside a located cluster.
   * The drain's density is unknown there (the narrowing's pieces came back empty), but the
   * cluster's own is, so its windows are split only into pieces that hold a page each.
   */
  private clusterDensity(w: PlannedWindow): number | undefined {
    let g = w.group;
    while (g !== undefined && g.located !== true) g = g.parent;
    const filled = g?.filled;
    if (filled?.median === undefined || filled.runs < DENSITY_SAMPLE) return undefined;
    // A window that resumed over THIN_EDGE_RATIO times what that density says it held shows the
    // pieces closed so far were the cluster's thin edges: as much again as it resumed (its cursor
    // halfway, the median guess), or no window of the cluster would be split again.
    const { from, to } = w.window;
    if (w.cursor === undefined || from === undefined || to === undefined) return filled.median;
    const ms = to - from + 1;
    return w.resumed > THIN_EDGE_RATIO * filled.median * ms ? (2 * w.resumed) / ms : filled.median;
  }

  /**
   * Pieces of `w` each expected to hold {@link PIECE_PAGES} full pages, past 500 runs: by the
   * drain's density, else by that of the located cluster `w` lies in ({@link clusterDensity}).
   */
  private payingPieces(w: PlannedWindow, now: number): number {
    const rho = this.density() ?? this.clusterDensity(w);
    if (rho === undefined || this.runs <= SMALL_DRAIN_RUNS) return Infinity;
    return Math.floor(this.expected(w, rho, now) / (PIECE_PAGES * MAX_RUNS_PER_REQUEST));
  }

  /** Entries `w` is expected to hold still: the density times its width, less what it resumed. */
  private expected(w: PlannedWindow, rho: number, now: number): number {
    const range = effectiveRange(w.window, now, this.settings.horizonMs);
    if (range === undefined) return 0;
    const [lo, hi] = range;
    // A window followed by its cursor holds at least one more entry.
    const more = w.cursor !== undefined ? 1 : 0;
    if (w.window.from !== undefined) return Math.max(more, rho * (hi - lo + 1) - w.resumed);
    // Where failures start is not known: OPEN_BELOW_REACH times as far back as the window ends
    // before now, or, when it resumed more than that holds, as much again as it resumed.
    const reach = (OPEN_BELOW_REACH - 1) * Math.max(now - hi, 1);
    return Math.max(rho * Math.min(hi - lo + 1, reach), w.resumed);
  }

  /**
   * The window budget now: the settings', with the smaller daily limit of them and `at`, and the
   * gate's rate and the measured round trip (the windows they need in flight are credited).
   */
  private budget(at: PlanContext): WindowBudget {
    const limits = [this.settings.dailyLimit, at.dailyLimit].filter((x): x is number => x !== undefined);
    const { ratePerSecond } = at;
    const roundTripMs = at.shortestRoundTripMs ?? at.roundTripMs;
    const net = {
      ...(ratePerSecond !== undefined && roundTripMs !== undefined ? { ratePerSecond, roundTripMs } : {}),
    };
    return limits.length === 0
      ? { ...this.settings, ...net }
      : { ...this.settings, ...net, dailyLimit: Math.min(...limits) };
  }

  /**
   * Splits `w` into `pieces(w)` pieces, all sent; once the failures are clustered, into a probe
   * (the first {@link PROBE_SHARE} of `w`, sent) and the rest (held aside until the probe answers),
   * until {@link DENSE_AFTER} probes in a row came back with runs.
   */
  private split(w: PlannedWindow, at: PlanContext): PlannedWindow[] | undefined {
    const narrow = this.narrows(w);
    const k = this.pieces(w, at, narrow);
    if (k < 2) return undefined;
    const clustered = !narrow && clusteredIn(w.group);
    // Spread failures of a known density are no cluster to probe in a drain that needs many
    // windows: a probe and its held rest would take a round trip each, one window at a time.
    const spread = this.wideSpread(at);
    const probe = clustered && w.fullProbes < DENSE_AFTER && !spread;
    // A window followed for several pages has resumed its oldest failures: about half of it, if
    // as much is left as it has resumed (the median guess when nothing else is known), more when
    // the density says so; so has the oldest piece of such a window, once it was followed too.
    const below = w.drainedBelow === true && w.pages >= 1;
    // Where the entries left are clustered, what a cursor resumed says nothing of where they lie:
    // the window is halved at its middle, one empty piece a halving.
    const drained = narrow
      ? 0
      : probe
        ? 2 * PROBE_SHARE - 1
        : (w.pages >= 2 || below) && !this.clusteredBelow(w)
          ? this.drainedShare(w, at.now)
          : 0;
    // Where failures start is not known (no `fromDate`): pieces narrow at the recent end.
    const ladder =
      !probe && w.window.from === undefined
        ? splitOpenBelow(w.window, k, at.now, this.settings.horizonMs)
        : undefined;
    const rho = narrow ? undefined : this.tileDensity(w, at);
    const windows =
      rho !== undefined
        ? this.tile(w, k, at, rho)
        : (ladder ?? splitWindowInto(w.window, probe ? 2 : k, at.now, this.settings.horizonMs, drained));
    if (windows === undefined) {
      w.atomic = true;
      return undefined;
    }
    const group: SplitGroup = {
      empty: false,
      parent: w.group,
      followed: w.pages >= 2,
      // The ladder's empty pieces say where failures are not, not that they are clustered.
      pieces: windows.length,
      ladder: ladder !== undefined,
      narrowing: narrow,
    };
    const into = windows.map((x) => ({
      ...this.planned(x, false),
      piece: true,
      fullProbes: w.fullProbes,
      group,
    }));
    // The oldest piece starts where `w`'s cursor pages resumed the oldest entries.
    into[0].drainedBelow = w.pages >= 2 || w.drainedBelow === true;
    // What `w` resumed came from its oldest entries: the oldest piece's count is not whole.
    into[0].resumed = w.resumed;
    into[0].whole = w.whole && w.resumed === 0;
    this.open.splice(this.open.indexOf(w), 1, ...into);
    if (probe && into.length === 2) {
      into[1].held = true;
      into[0].rest = into[1];
      this.queue.push(into[0]);
    } else {
      this.queue.push(...into);
      // A dense cluster: what was held aside next to it likely holds some of it.
      if (clustered) this.release();
    }
    this.splits += into.length - 1;
    if (this.runs > SMALL_DRAIN_RUNS) this.openedPast += into.length - 1;
    return into;
  }

  /**
   * The first answer of a probe: empty, its held rest holds the entries and is sent first;
   * with runs, the rest stays held, merged with the held windows next to it, unless the probe
   * is finished (`closed`): then no narrowing continues next to it, and the merged rest is sent.
   */
  private probed(p: PlannedWindow, runs: number, closed: boolean): void {
    const rest = p.rest as PlannedWindow;
    p.rest = undefined;
    if (!rest.held) return;
    if (runs === 0) {
      rest.held = false;
      this.queue.unshift(rest);
      return;
    }
    p.fullProbes += 1;
    const merged = this.mergeHeld(rest);
    if (closed) {
      merged.held = false;
      this.queue.push(merged);
    }
  }

  /** Merges the held window `q` with its held neighbours (no probe waits on them); the result. */
  private mergeHeld(q: PlannedWindow): PlannedWindow {
    const i = this.open.indexOf(q);
    const free = (o: PlannedWindow | undefined): boolean =>
      o !== undefined && o.held && !this.open.some((p) => p.rest === o);
    const lo = free(this.open[i - 1]) ? i - 1 : i;
    const hi = free(this.open[i + 1]) ? i + 1 : i;
    if (lo === hi) return q;
    const window: DrainWindow = {};
    const from = this.open[lo].window.from;
    const to = this.open[hi].window.to;
    if (from !== undefined) window.from = from;
    if (to !== undefined) window.to = to;
    // Sent later, it is narrowed with probes from its start (where the cluster borders it).
    const group: SplitGroup = {
      empty: true,
      full: true,
      parent: q.group,
      followed: false,
      pieces: MAX_PIECES,
      ladder: false,
    };
    const merged: PlannedWindow = { ...this.planned(window, false), piece: true, held: true, group };
    this.open.splice(lo, hi - lo + 1, merged);
    return merged;
  }

  /** Sends every window held aside. */
  private release(): void {
    for (const o of this.open) {
      if (!o.held || this.open.some((p) => p.rest === o)) continue;
      o.held = false;
      this.queue.push(o);
    }
  }

  private planned(w: OpenWindow, restored: boolean): PlannedWindow {
    const window: DrainWindow = {};
    if (w.from !== undefined) window.from = w.from;
    if (w.to !== undefined) window.to = w.to;
    if (w.runIdPrefix !== undefined) window.runIdPrefix = w.runIdPrefix;
    return {
      window,
      cursor: w.cursor,
      chain: new CursorChain(w.cursor, this.settings.maxEmptyPages),
      restored: restored && w.cursor !== undefined,
      pages: 0,
      resumed: 0,
      whole: w.cursor === undefined,
      atomic: false,
      piece: false,
      held: false,
      fullProbes: 0,
    };
  }
}
