// Mocha's spec reporter plus, at the end, the ten files whose tests took longest (the sum of
// their tests' durations, hooks not counted: what to look at when the suite gets slow) and one
// closing line in the plain form CI reads: "tests: N passed, N failed" (and ", N skipped" when
// any test is pending). Works in serial and in parallel (--parallel) runs.
"use strict";
const path = require("node:path");
const Mocha = require("mocha");

const { EVENT_RUN_END, EVENT_TEST_PASS, EVENT_TEST_FAIL } = Mocha.Runner.constants;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const byFile = new Map();
    const add = (test) => {
      const file = test.file ? path.relative(process.cwd(), test.file) : "(unknown file)";
      byFile.set(file, (byFile.get(file) || 0) + (test.duration || 0));
    };
    runner.on(EVENT_TEST_PASS, add);
    runner.on(EVENT_TEST_FAIL, add);
    runner.once(EVENT_RUN_END, () => {
      const slowest = [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 10);
      process.stdout.write("\nslowest files (sum of their tests):\n");
      for (const [file, ms] of slowest)
        process.stdout.write(`  ${(ms / 1000).toFixed(1).padStart(7)} s  ${file}\n`);
      const s = runner.stats || {};
      const skipped = s.pending ? `, ${s.pending} skipped` : "";
      process.stdout.write(`\ntests: ${s.passes || 0} passed, ${s.failures || 0} failed${skipped}\n`);
    });
  }
}
module.exports = SummaryReporter;
