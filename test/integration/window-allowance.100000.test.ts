/**
 * The request allowance of a windowed drain against the real emulator over loopback:
 * at most ceil(N/50) + 4 requests up to 500 entries and 1.10 × ceil(N/50) + 24 + min(⌈rate × round
 * trip⌉, ceil(N/50)) above (100 a second on payg, 500 on the paid plan), for every
 * failure-time distribution, with no `fromDate` over the default 90-day horizon (the drain does
 * not know N, nor where failures lie). Every entry is resumed once (the emulator's ledger).
 * Counts, not timings. At 100,000 entries; the smaller sizes in window-allowance.test.ts and .20000.test.ts.
 */
import { ALLOWANCE_DISTRIBUTIONS, allowanceBench } from "../helpers/allowance";

describe("integration: the request allowance of a windowed drain ↔ emulator over loopback (100,000 entries)", function () {
  this.timeout(900_000);
  const bench = allowanceBench();

  for (const plan of ["payg", "paid"] as const) {
    for (const n of [100_000]) {
      it(`holds at ${n.toLocaleString("en-US")} entries on the ${plan} plan for every distribution, each entry once`, async () => {
        for (const name of ALLOWANCE_DISTRIBUTIONS) {
          bench.emulator().reset();
          bench.emulator().setPlan(plan);
          bench.seed(name, n, n + name.length);
          bench.assertWithinAllowance(await bench.drain(), n, `${plan}, ${name}`);
        }
      });
    }
  }
});
