import assert from "node:assert/strict";
import { startEmulator } from "../../../emulator";
import { parseCliArgs } from "../../../emulator/cli-args";
import { mulberry32 } from "../../../emulator/prng";
import {
  APP_SEQUENCE_DIGITS,
  APP_WORKFLOWS,
  RUN_ID_SHAPES,
  RunIdMaker,
  SDK_ALPHABET,
  type RunIdShape,
} from "../../../emulator/run-ids";
import { entries } from "../../../bench/windowScenarios";

const NOW = Date.UTC(2025, 2, 10, 8, 0, 0);
const SDK = /^wfr_[a-zA-Z0-9_-]{21}$/;
const APP = new RegExp(`^wfr_(${APP_WORKFLOWS.join("|")})-(\\d{${APP_SEQUENCE_DIGITS},})$`);

/** `n` trigger times, not in order. */
function times(n: number): number[] {
  const r = mulberry32(3);
  return Array.from({ length: n }, () => NOW - Math.floor(r() * 86_400_000));
}

function make(shape: RunIdShape, t: number[], seed = 1): string[] {
  return new RunIdMaker(shape, mulberry32(seed)).name(t);
}

describe("run IDs (emulator/run-ids.ts)", () => {
  it("sdk: wfr_ and 21 characters, each of the 64 about equally often in every position", () => {
    const ids = make("sdk", times(6_400));
    for (const id of ids) assert.match(id, SDK);
    assert.equal(new Set(ids).size, ids.length);
    for (const pos of [4, 14, 24]) {
      const counts = new Map<string, number>();
      for (const id of ids) counts.set(id[pos], (counts.get(id[pos]) ?? 0) + 1);
      assert.equal(counts.size, SDK_ALPHABET.length, `position ${pos}: every character`);
      for (const c of counts.values()) assert.ok(c > 50 && c < 160, `position ${pos}: ${c} of 6,400`);
    }
  });

  it("app: a workflow name and a zero-padded number that rises with the trigger time, per name", () => {
    const t = times(2_000);
    const ids = make("app", t);
    assert.equal(new Set(ids).size, ids.length);
    const byName = new Map<string, { at: number; seq: number }[]>();
    ids.forEach((id, i) => {
      const m = APP.exec(id);
      assert.ok(m, id);
      const list = byName.get(m[1]) ?? [];
      list.push({ at: t[i], seq: Number(m[2]) });
      byName.set(m[1], list);
    });
    assert.equal(byName.size, APP_WORKFLOWS.length, "every name drawn");
    for (const list of byName.values()) {
      list.sort((a, b) => a.seq - b.seq);
      for (let k = 1; k < list.length; k++) {
        assert.equal(list[k].seq, list[k - 1].seq + 1, "consecutive numbers");
        assert.ok(list[k].at >= list[k - 1].at, "rising with the trigger time");
      }
    }
  });

  it("app: runs triggered together share a long prefix; numbers go on across calls", () => {
    const maker = new RunIdMaker("app", mulberry32(5));
    const burst = maker.name(Array.from({ length: 500 }, (_, i) => NOW + (i % 7)));
    const orders = burst.filter((id) => id.startsWith("wfr_orders-")).sort();
    const shared = (a: string, b: string) => {
      let k = 0;
      while (k < a.length && a[k] === b[k]) k++;
      return k;
    };
    assert.ok(
      shared(orders[0], orders.at(-1)!) >= "wfr_orders-000".length,
      `${orders[0]} … ${orders.at(-1)}`,
    );
    const later = maker.name([NOW + 1_000]);
    const [, name, seq] = APP.exec(later[0])!;
    const before = burst.filter((id) => id.startsWith(`wfr_${name}-`)).map((id) => Number(APP.exec(id)![2]));
    assert.equal(Number(seq), Math.max(...before) + 1);
  });

  it("mixed: about half SDK IDs and half application IDs", () => {
    const ids = make("mixed", times(2_000));
    const sdk = ids.filter((id) => SDK.test(id) && !APP.test(id)).length;
    const app = ids.filter((id) => APP.test(id)).length;
    assert.equal(sdk + app, ids.length);
    assert.ok(sdk > 900 && sdk < 1_100, `${sdk} SDK IDs of 2,000`);
  });

  it("numeric: wfr_ and ten digits, numbered in trigger-time order; hex: wfr_ and 16 hex digits", () => {
    const t = times(5_000);
    const numeric = make("numeric", t);
    for (const id of numeric) assert.match(id, /^wfr_\d{10}$/);
    assert.equal(new Set(numeric).size, numeric.length);
    const order = numeric.map((id, i) => ({ id, at: t[i] })).sort((a, b) => a.id.localeCompare(b.id));
    for (let k = 1; k < order.length; k++) assert.ok(order[k].at >= order[k - 1].at);
    for (const id of make("hex", times(100))) assert.match(id, /^wfr_[0-9a-f]{16}$/);
  });

  it("is deterministic: the same generator and trigger times give the same IDs", () => {
    for (const shape of RUN_ID_SHAPES) {
      assert.deepEqual(make(shape, times(300), 9), make(shape, times(300), 9), shape);
      assert.notDeepEqual(make(shape, times(300), 9), make(shape, times(300), 10), shape);
    }
  });

  it("the emulator seeds and adds entries with its --run-ids shape; other fields do not depend on it", async () => {
    assert.deepEqual(parseCliArgs(["--run-ids", "app"]).options, { runIds: "app" });
    assert.throws(
      () => parseCliArgs(["--run-ids=uuid"]),
      /--run-ids must be one of sdk, app, mixed, numeric, hex, got "uuid"/,
    );
    await assert.rejects(startEmulator({ runIds: "uuid" as never }), /runIds must be one of/);
    const pages: Record<string, unknown>[][] = [];
    for (const runIds of ["app", "hex"] as const) {
      const emu = await startEmulator({ dlq: 300, runIds, now: () => NOW });
      try {
        const page = emu.state.dlq.page(0, 300);
        for (const e of page) assert.match(e.workflowRunId, runIds === "app" ? APP : /^wfr_[0-9a-f]{16}$/);
        emu.seed(10, 2, "numeric");
        assert.match(emu.state.dlq.page(300, 1)[0].workflowRunId, /^wfr_\d{10}$/);
        const [added] = emu.addEntries([{ failedAt: NOW - 1 }]);
        assert.match(added.workflowRunId, runIds === "app" ? APP : /^wfr_[0-9a-f]{16}$/);
        assert.equal(emu.addEntries([{ workflowRunId: "wfr_mine" }])[0].workflowRunId, "wfr_mine");
        pages.push(page.map(({ workflowRunId: _id, ...rest }) => rest));
      } finally {
        await emu.close();
      }
    }
    assert.deepEqual(pages[0], pages[1]);
  });

  it("the admin API seeds with a shape, and refuses one that is not", async () => {
    const emu = await startEmulator({ now: () => NOW });
    try {
      const post = (body: unknown) =>
        fetch(`${emu.adminUrl}/seed`, { method: "POST", body: JSON.stringify(body) }).then(async (r) => ({
          status: r.status,
          body: (await r.json()) as Record<string, unknown>,
        }));
      assert.equal((await post({ count: 5, seed: 1, runIds: "numeric" })).status, 200);
      for (const e of emu.state.dlq.page(0, 5)) assert.match(e.workflowRunId, /^wfr_\d{10}$/);
      assert.equal((await post({ count: 5 })).status, 200);
      for (const e of emu.state.dlq.page(5, 5)) assert.match(e.workflowRunId, SDK);
      const bad = await post({ count: 5, runIds: "guid" });
      assert.equal(bad.status, 400);
      assert.match(String(bad.body.error), /runIds must be one of sdk, app, mixed, numeric, hex, got "guid"/);
    } finally {
      await emu.close();
    }
  });

  it("the benchmarks' scenarios give the same failure times whatever the shape", () => {
    const hex = entries("outage", 500, NOW, "hex");
    const app = entries("outage", 500, NOW, "app");
    assert.deepEqual(
      hex.map((e) => e.failedAt),
      app.map((e) => e.failedAt),
    );
    for (const e of app) assert.match(e.workflowRunId, APP);
  });
});
