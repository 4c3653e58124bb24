/**
 * The request allowance of a windowed drain against the real emulator over loopback (issue 27):
 * at most ceil(N/50) + 4 requests up to 500 entries and 1.10 × ceil(N/50) + 24 above, for every
 * failure-time distribution, with no `fromDate` over the default 90-day horizon (the drain does
 * not know N, nor where failures lie). Every entry is resumed once (the emulator's ledger).
 * Counts, not timings. At 20,000 entries; the smaller sizes in window-allowance.test.ts.
 */
import * as assert from "node:assert/strict";
import { requestAllowance } from "../../client";
import { ALLOWANCE_DISTRIBUTIONS, allowanceBench } from "../helpers/allowance";

describe("integration: the request allowance of a windowed drain ↔ emulator over loopback (20,000 entries)", function () {
  this.timeout(300_000);
  const bench = allowanceBench();

  for (const n of [20_000]) {
    it(`holds at ${n.toLocaleString("en-US")} entries for every distribution: at most ${requestAllowance(n)} requests, each entry once`, async () => {
      for (const name of ALLOWANCE_DISTRIBUTIONS) {
        bench.emulator().reset();
        bench.seed(name, n, n + name.length);
        const res = await bench.drain();
        bench.assertLedgerExact(n, name);
        assert.equal(res.resumedCount, n, name);
        assert.equal(
          res.requestCount,
          bench.emulator().state.log.total,
          `${name}: every logged request counted`,
        );
        assert.ok(
          res.requestCount <= requestAllowance(n),
          `${name}: ${res.requestCount} requests > the allowance ${requestAllowance(n)}`,
        );
      }
    });
  }
});
