import assert from "node:assert/strict";
import type { RunningEmulator } from "../../../emulator";
import { startEmulator } from "../../../emulator";
import { DlqStore } from "../../../emulator/dlq";
import { entryFromInput } from "../../../emulator/dlq-entry";
import { resumeOk } from "./helpers";

/**
 * A store with entries e0..e(n-1), failedAt = 1000 + i.
 *
 * @param n - number of entries.
 */
function storeWith(n: number): DlqStore {
  const store = new DlqStore();
  for (let i = 0; i < n; i++)
    store.insert(entryFromInput({ dlqId: `e${i}`, failedAt: 1000 + i }, "entry", 0));
  return store;
}

describe("emulator DLQ store", () => {
  it("assigns increasing sequence numbers and rejects a live duplicate ID", () => {
    const store = storeWith(3);
    assert.deepEqual(
      store.page(0, 10).map((e) => e.seq),
      [1, 2, 3],
    );
    assert.throws(
      () => store.insert(entryFromInput({ dlqId: "e1" }, "entry", 0)),
      /dlqId "e1" is already in the DLQ/,
    );
  });

  it("select returns at most limit entries and says whether more match", () => {
    const store = storeWith(10);
    const a = store.select({}, 0, 4);
    assert.deepEqual(
      a.entries.map((e) => e.dlqId),
      ["e0", "e1", "e2", "e3"],
    );
    assert.equal(a.more, true);
    const b = store.select({}, a.entries[3].seq, 6);
    assert.equal(b.entries.length, 6);
    assert.equal(b.more, false);
    assert.equal(b.scanned, 6);
  });

  it("remove leaves the order intact and is found by ID in O(1)", () => {
    const store = storeWith(5);
    assert.equal(store.remove("e2"), true);
    assert.equal(store.remove("e2"), false);
    assert.equal(store.has("e2"), false);
    assert.deepEqual(
      store.select({}, 0, 10).entries.map((e) => e.dlqId),
      ["e0", "e1", "e3", "e4"],
    );
  });

  it("removing the head keeps later scans from walking tombstones", () => {
    const store = storeWith(5000);
    for (let i = 0; i < 4000; i++) store.remove(`e${i}`);
    const selection = store.select({}, 0, 50);
    assert.equal(selection.entries[0].dlqId, "e4000");
    assert.equal(selection.scanned, 51);
  });

  it("compacts once tombstones outnumber live entries, keeping order and cursors valid", () => {
    const store = storeWith(3000);
    for (let i = 1; i < 3000; i += 2) store.remove(`e${i}`);
    store.remove("e0");
    store.maybeCompact();
    assert.equal(store.stats().compactions, 1);
    assert.equal(store.stats().tombstones, 0);
    const after = store.select({}, 1000, 3);
    assert.deepEqual(
      after.entries.map((e) => e.dlqId),
      ["e1000", "e1002", "e1004"],
    );
    assert.equal(after.scanned, 4);
  });

  it("a failure-time window scans only what it holds while entries arrive in time order", () => {
    const store = storeWith(100_000);
    const times = (sel: { entries: { failedAt: number }[] }) => sel.entries.map((e) => e.failedAt);
    const window = Array.from({ length: 50 }, (_, i) => 91_000 + i);
    const sel = store.select({ fromDate: 91_000, toDate: 91_049 }, 0, 50);
    assert.deepEqual(times(sel), window);
    assert.equal(sel.more, false);
    assert.equal(sel.scanned, 50);
    // An entry out of failure-time order: every select scans again, with the same answer.
    store.insert(entryFromInput({ dlqId: "late", failedAt: 500 }, "entry", 0));
    const again = store.select({ fromDate: 91_000, toDate: 91_049 }, 0, 50);
    assert.deepEqual(times(again), window);
    assert.equal(again.more, false);
    assert.ok(again.scanned > 90_000, `scanned ${again.scanned}`);
  });

  it("clear starts a new epoch with sequence numbers from 1", () => {
    const store = storeWith(3);
    store.clear();
    assert.equal(store.size, 0);
    assert.equal(store.epoch, 1);
    assert.equal(store.nextSequence, 1);
  });

  describe("cost of one resume request does not grow with DLQ size", function () {
    this.timeout(120_000);
    let small: RunningEmulator;
    let large: RunningEmulator;
    before(async () => {
      small = await startEmulator({ seed: 5 });
      large = await startEmulator({ seed: 5 });
      small.seed(1_000, 5);
      large.seed(1_000_000, 5);
      assert.equal(large.state.dlq.size, 1_000_000);
    });
    after(async () => {
      await small?.close();
      await large?.close();
    });

    /**
     * Slots scanned by one resume request on each emulator.
     *
     * @param query - request fields, or a function of the emulator giving them.
     */
    const scannedBy = async (
      query: (emu: RunningEmulator) => Record<string, string>,
    ): Promise<[number, number]> => {
      const counts: number[] = [];
      for (const emu of [small, large]) {
        const before = emu.state.dlq.totalScanned;
        await resumeOk(emu, query(emu));
        counts.push(emu.state.dlq.totalScanned - before);
      }
      return [counts[0], counts[1]];
    };

    it("unfiltered request without a cursor", async () => {
      const [s, l] = await scannedBy(() => ({}));
      assert.equal(s, 51);
      assert.equal(l, 51);
    });

    it("unfiltered request with a cursor", async () => {
      const cursors = new Map<RunningEmulator, string>();
      for (const emu of [small, large]) cursors.set(emu, (await resumeOk(emu, { count: 10 })).cursor);
      const [s, l] = await scannedBy((emu) => ({ cursor: cursors.get(emu) as string }));
      assert.equal(s, 51);
      assert.equal(l, 51);
    });

    it("filtered request (one workflow URL of five) scans only until the page is full", async () => {
      const [s, l] = await scannedBy(() => ({ workflowUrl: "http://127.0.0.1/workflows/emails" }));
      assert.ok(s < 600 && l < 600, `scanned ${s} (1,000 entries) and ${l} (1,000,000 entries)`);
      assert.ok(Math.abs(s - l) < 300, `scanned ${s} vs ${l}`);
    });

    it("a failure-time window scans what it holds, wherever it lies", async () => {
      const [s, l] = await scannedBy((emu) => {
        const last = emu.state.dlq.page(emu.state.dlq.size - 1, 1)[0];
        return { fromDate: String(last.failedAt), toDate: String(last.failedAt) };
      });
      assert.ok(s <= 2 && l <= 2, `scanned ${s} (1,000 entries) and ${l} (1,000,000 entries)`);
    });

    it("dlqIds request scans nothing", async () => {
      const [s, l] = await scannedBy((emu) => ({ dlqIds: emu.state.dlq.page(0, 1)[0].dlqId }));
      assert.deepEqual([s, l], [0, 0]);
    });
  });
});
