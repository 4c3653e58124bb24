import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  SECTION9_DROP,
  SIM_HEADER,
  compareSims,
  formatComparison,
  simRows,
} from "../../../bench/lib/simCompare";
import type { Table } from "../../../bench/lib/result";
import { USAGE } from "../../../bench/lib/simOptions";
import { roundsSummary } from "../../../bench/lib/simAccount";
import { netTarget } from "../../../bench/lib/rateRows";

const ROOT = path.resolve(__dirname, "../../..");

/** Runs a bench script of this clone as `npm run` would, without waiting for a whole run. */
function bench(script: string, ...args: string[]): { status: number | null; out: string; err: string } {
  const r = spawnSync(
    process.execPath,
    ["-r", "ts-node/register/transpile-only", path.join(ROOT, "bench", script), ...args],
    {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 60_000,
    },
  );
  return { status: r.status, out: r.stdout, err: r.stderr };
}

interface RowSpec {
  what?: string;
  net?: string;
  n?: string;
  seconds?: number;
  share: number;
  target?: string;
  most?: number;
  allowance?: number;
  limited?: number;
  once?: string;
}

/** A row as bench/windowsSim.ts writes it. */
function row(r: RowSpec): string[] {
  return [
    r.what ?? "evenly over the last 3 days",
    "payg",
    r.net ?? "100/s, 50 ms",
    "sdk",
    r.n ?? "5,000",
    String(r.seconds ?? 1.26),
    `${r.share.toFixed(3)} (q25 ${r.share.toFixed(3)}; 0.70–0.80)`,
    r.target ?? "0.75",
    "",
    `110 (≤ ${r.most ?? 112})`,
    "100",
    String(r.allowance ?? 140),
    "2 / 18",
    String(r.limited ?? 0),
    r.once ?? "yes",
  ];
}

function table(...rows: RowSpec[]): Table {
  return { title: "Simulated drains", header: [...SIM_HEADER], rows: rows.map(row) };
}

describe("the simulator comparison (bench/simCompare.ts)", () => {
  it("finds two equal runs identical, with no check failed", () => {
    const t = table({ share: 0.795 }, { share: 0.5, net: "500/s, 150 ms", target: "0.50" });
    const c = compareSims(t, table({ share: 0.795 }, { share: 0.5, net: "500/s, 150 ms", target: "0.50" }));
    assert.equal(c.identical, true);
    assert.deepEqual(c.failures, []);
    assert.match(formatComparison(c), /identical: every cell of every row\nverdict: no check failed/);
  });

  it(`fails a section 9 row down by over ${SECTION9_DROP}, not a row of another rate down as much`, () => {
    const before = table({ share: 0.8 }, { share: 0.8, net: "500/s, 150 ms", target: "" });
    const c = compareSims(before, table({ share: 0.77 }, { share: 0.77, net: "500/s, 150 ms", target: "" }));
    assert.equal(c.failures.length, 1);
    assert.match(
      c.failures[0],
      /100\/s, 50 ms · sdk · 5,000: 0\.800 → 0\.770, a section 9 row down by over 0\.02/,
    );
    assert.equal(c.identical, false);
    assert.equal(c.pairs.length, 2);
  });

  it("fails a row that met its target and is below it now, and sums what the targets lack", () => {
    const before = table({ share: 0.76 }, { share: 0.4, net: "100/s, 300 ms", target: "0.50" });
    const after = table({ share: 0.745 }, { share: 0.45, net: "100/s, 300 ms", target: "0.50" });
    const c = compareSims(before, after);
    assert.deepEqual(c.failures, [
      "evenly over the last 3 days · payg · 100/s, 50 ms · sdk · 5,000: 0.745, now below its target 0.75",
    ]);
    assert.ok(Math.abs(c.shortfall.before - 0.1) < 1e-9 && Math.abs(c.shortfall.after - 0.055) < 1e-9);
    assert.deepEqual(c.below, { before: 1, after: 2 });
  });

  it("fails a row over its allowance, with a 429 or with an entry not resumed once", () => {
    const before = table({ share: 0.8 }, { share: 0.8, n: "20,000" }, { share: 0.8, n: "100,000" });
    const after = table(
      { share: 0.8, most: 141 },
      { share: 0.8, n: "20,000", limited: 2 },
      { share: 0.8, n: "100,000", once: "**no**" },
    );
    const failures = compareSims(before, after).failures;
    assert.equal(failures.length, 3);
    assert.match(failures[0], /5,000: 141 requests, over its allowance of 140/);
    assert.match(failures[1], /20,000: 2 requests refused with 429/);
    assert.match(failures[2], /100,000: not every entry resumed exactly once/);
  });

  it("fails a row slower than 1.05 × the sequential loop of its rate, round trip and N", () => {
    const seq = { what: "sequential drain, `concurrency: 1`", share: 0.065, seconds: 10, target: "" };
    const before = table(seq, { share: 0.07, seconds: 9 });
    const c = compareSims(before, table(seq, { share: 0.06, seconds: 10.6 }));
    assert.deepEqual(c.failures.filter((f) => /sequential/.test(f)).length, 1);
    assert.match(c.failures.join("\n"), /10\.6 s, slower than 1\.05 × the sequential loop's 10 s/);
  });

  it("lists rows of one run only, and refuses a table that is not the simulator's, naming the column", () => {
    const c = compareSims(table({ share: 0.8 }), table({ share: 0.8, n: "20,000" }));
    assert.equal(c.pairs.length, 0);
    assert.equal(c.unpaired.length, 2);
    assert.match(
      formatComparison(c),
      /failure: .*5,000: in one run only.*\nfailure: .*20,000: in one run only/,
    );
    const other: Table = { title: "Memory", header: ["N", "RSS"], rows: [] };
    assert.throws(
      () => compareSims(other, other),
      /not a simulator table: no column "distribution" in "Memory"/,
    );
  });

  it("exits 1 on a failed check and 2 on a file that is not a simulator run, naming it", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-simcmp-"));
    try {
      const write = (name: string, t: Table) => {
        const file = path.join(dir, name);
        fs.writeFileSync(
          file,
          JSON.stringify({ name: "windowsSim", title: "9s", rows: [], tables: [t], notes: [] }),
        );
        return file;
      };
      const failed = bench(
        "simCompare.ts",
        write("a.json", table({ share: 0.8 })),
        write("b.json", table({ share: 0.77 })),
      );
      assert.equal(failed.status, 1, failed.err);
      assert.match(failed.out, /a section 9 row down by over 0\.02\nverdict: 1 failed/);
      const other = path.join(dir, "other.json");
      fs.writeFileSync(other, JSON.stringify({ name: "memory", tables: [] }));
      const refused = bench("simCompare.ts", other, other);
      assert.equal(refused.status, 2);
      assert.match(refused.err, /other\.json: not written by bench\/windowsSim\.ts --out/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads a real run's rows (sequential loop, drains, dlqIds) and fails a drop, a 429 and a row of one run", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-simrun-"));
    try {
      const out = path.join(dir, "run.json");
      const run = bench(
        "windowsSim.ts",
        "--rows",
        "rates",
        "--sizes",
        "5000,10000",
        "--trials",
        "1",
        "--no-ceiling",
        "--out",
        out,
      );
      assert.equal(run.status, 0, run.err);
      const t = (JSON.parse(fs.readFileSync(out, "utf8")) as { tables: Table[] }).tables[0];
      const rows = simRows(t);
      assert.equal(rows.length, 10);
      const seq = rows.find((r) => r.sequential && r.net === "100/s, 150 ms");
      assert.ok(seq !== undefined && seq.share === 0.065 && seq.requests === 100 && seq.allowance === 100);
      const ids = rows.filter((r) => r.key.startsWith("`dlqIds`"));
      assert.equal(ids.length, 4);
      assert.ok(ids.every((r) => r.share > 0.5 && r.requests === 200 && r.target !== undefined && r.exact));
      assert.equal(compareSims(t, t).identical, true);
      // A dlqIds row 0.06 lower, the last hour at 300 ms refused once, a drain row gone.
      const worse = structuredClone(t);
      worse.rows[6][6] = `${(ids[0].share - 0.06).toFixed(3)} (0.90–0.90)`;
      worse.rows[5][13] = "1";
      worse.rows.splice(1, 1);
      const c = compareSims(t, worse);
      assert.equal(c.failures.length, 3, c.failures.join("\n"));
      assert.match(c.failures.join("\n"), /100\/s, 300 ms · sdk · 5,000: 1 requests refused with 429/);
      assert.match(
        c.failures.join("\n"),
        /`dlqIds` · none · 100\/s, 50 ms · - · 10,000: 0\.\d+ → 0\.\d+, a row down by over 0\.05/,
      );
      assert.match(
        c.failures.join("\n"),
        /evenly over the last 3 days · no account settings · 100\/s, 150 ms · sdk · 5,000: in one run only/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("windowsSim refuses an option it does not list, and --help prints them all", function () {
    // Seven runs of the bench, each compiling its imports: 2 to 4 s apiece on 2 busy cores.
    this.timeout(120_000);
    const refused = (args: string[], why: RegExp) => {
      const r = bench("windowsSim.ts", ...args);
      assert.equal(r.status, 2, args.join(" "));
      assert.match(r.err, why);
    };
    refused(["--trial", "9"], /"--trial" is not an option; --help lists the options/);
    refused(["--sizes", "--help"], /--sizes needs a value/);
    refused(["--trials", "3", "--trials", "4"], /--trials is given twice/);
    refused(["--rows", "rate"], /--rows takes "rates", not "rate"/);
    refused(
      ["--scenarios", "uniform,evenly"],
      /--scenarios takes uniform,hour,window,outage,bursts,urls, not "evenly"/,
    );
    refused(["--horizons", "payg,paid"], /--horizons takes unknown,payg,free, not "paid"/);
    const help = bench("windowsSim.ts", "--help");
    assert.equal(help.status, 0);
    assert.equal(help.out, USAGE);
    for (const o of ["sizes", "rows", "first-trial", "trace", "out", "rtt"])
      assert.match(USAGE, new RegExp(`^  --${o} `, "m"));
  });
});

describe("the simulator trace's summary (bench/lib/simAccount.ts, --trace)", () => {
  it("counts each trial's answers by round trip, full, empty and partial, an idle one too", () => {
    const at = (ms: number, runs: number) => ({ at: 1_000 + ms, runs });
    const text = roundsSummary(
      [at(52, 50), at(103, 0), at(108, 50), at(109, 17), at(260, 3)],
      1_000,
      50,
      "the drain",
    );
    assert.equal(
      text,
      [
        "answers of the drain by round trip:",
        "answers at 0.00–0.05 s: 0 (0 full, 0 empty, 0 partial)",
        "answers at 0.05–0.10 s: 1 (1 full, 0 empty, 0 partial)",
        "answers at 0.10–0.15 s: 3 (1 full, 1 empty, 1 partial)",
        "answers at 0.15–0.20 s: 0 (0 full, 0 empty, 0 partial)",
        "answers at 0.20–0.25 s: 0 (0 full, 0 empty, 0 partial)",
        "answers at 0.25–0.30 s: 1 (0 full, 0 empty, 1 partial)",
        "",
      ].join("\n"),
    );
  });
});

describe("the benches' row targets (bench/lib/rateRows.ts)", () => {
  it("judges a row by section 9's targets at 100/s and 50 ms, by the rate rows' elsewhere, the free plan's by none", () => {
    const at = (rate: number, rttMs: number) => ({ rate, rttMs });
    assert.equal(netTarget(at(100, 50), "uniform", 20_000, "unknown"), 0.85);
    assert.equal(netTarget(at(500, 150), "uniform", 20_000, "unknown"), 0.5);
    assert.equal(
      netTarget(at(500, 50), "uniform", 20_000, "unknown"),
      0.65,
      "another rate, section 9's round trip",
    );
    assert.equal(
      netTarget(at(100, 150), "uniform", 5_000, "unknown"),
      0.65,
      "section 9's rate, another round trip",
    );
    assert.equal(netTarget(at(500, 150), "hour", 20_000, "payg"), 0.5);
    assert.equal(netTarget(at(100, 300), "outage", 100_000, "unknown"), 0.75);
    assert.equal(netTarget(at(100, 300), "outage", 5_000, "unknown"), 0, "no target for that row");
    assert.equal(netTarget(at(500, 150), "uniform", 20_000, "free"), 0);
    assert.equal(netTarget(at(100, 50), "uniform", 20_000, "free"), 0);
  });
});
