/**
 * The lines of one call reach the engine in the order they were written, one after the other
 * (`RowLog`): concurrent `Log` calls could arrive out of order, and a drain's "done" line would
 * show before its progress.
 */
import * as assert from "node:assert/strict";
import type { Engine } from "../../../provider/engine";
import { RowLog } from "../../../provider/resource";

describe("provider RowLog: a call's lines on the resource's row", () => {
  it("sends each line after the engine answered the one before, and flushes them all", async () => {
    const events: string[] = [];
    let answering = 0;
    const engine: Engine = {
      log: async (urn, severity, message) => {
        answering += 1;
        assert.equal(answering, 1, "one line at a time");
        events.push(`${severity} ${message} on ${urn}`);
        // The first line is the slowest to answer: sent at once, it would arrive last.
        await new Promise((r) => setTimeout(r, message === "first" ? 30 : 0));
        answering -= 1;
        return true;
      },
      alive: async () => true,
    };
    const log = new RowLog(engine, "urn:x");
    log.info("first");
    log.info("second");
    log.warning("third");
    await log.flushed();
    assert.deepEqual(events, ["info first on urn:x", "info second on urn:x", "warning third on urn:x"]);
  });
});
