// Mocha's spec reporter plus one closing line in the plain form CI reads:
// "tests: N passed, N failed" (and ", N skipped" when any test is pending).
"use strict";
const Mocha = require("mocha");

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const s = runner.stats || {};
      const skipped = s.pending ? `, ${s.pending} skipped` : "";
      process.stdout.write(`\ntests: ${s.passes || 0} passed, ${s.failures || 0} failed${skipped}\n`);
    });
  }
}
module.exports = SummaryReporter;
