import assert from "node:assert/strict";
import { HttpError } from "../../../emulator/http";
import { parseFlowControlValue } from "../../../emulator/overrides";
import { resumeOk, useEmulator } from "./helpers";

describe("emulator override headers", () => {
  const emu = useEmulator();
  beforeEach(() => {
    emu().addEntries([
      { dlqId: "fc", flowControlKey: "orig-key", parallelism: 2, rate: 4, period: "1m", maxRetries: 3 },
      { dlqId: "plain", maxRetries: 5 },
    ]);
  });

  it("without headers the originals are kept and no override is recorded", async () => {
    await resumeOk(emu());
    const fc = emu().state.ledger.runsFor("fc")[0];
    assert.deepEqual(fc.overrides, {});
    assert.deepEqual(fc.settings, {
      flowControlKey: "orig-key",
      parallelism: 2,
      rate: 4,
      period: "1m",
      retries: 3,
    });
    const plain = emu().state.ledger.runsFor("plain")[0];
    assert.deepEqual(plain.settings, {
      flowControlKey: null,
      parallelism: null,
      rate: null,
      period: null,
      retries: 5,
    });
    const logged = emu().state.log.since(0)[0];
    assert.deepEqual(logged.overrideHeaders, {});
  });

  it("all three headers override the settings and are recorded", async () => {
    await resumeOk(
      emu(),
      {},
      {
        "Svc-Flow-Control-Key": "new-key",
        "Svc-Flow-Control-Value": "parallelism=5, rate=10, period=1s",
        "Svc-Retries": "0",
      },
    );
    for (const id of ["fc", "plain"]) {
      const run = emu().state.ledger.runsFor(id)[0];
      assert.deepEqual(run.settings, {
        flowControlKey: "new-key",
        parallelism: 5,
        rate: 10,
        period: "1s",
        retries: 0,
      });
      assert.deepEqual(run.overrides, {
        flowControlKey: "new-key",
        flowControlValue: {
          raw: "parallelism=5, rate=10, period=1s",
          parallelism: 5,
          rate: 10,
          period: "1s",
        },
        retries: 0,
      });
    }
    assert.deepEqual(emu().state.log.since(0)[0].overrideHeaders, {
      "svc-flow-control-key": "new-key",
      "svc-flow-control-value": "parallelism=5, rate=10, period=1s",
      "svc-retries": "0",
    });
  });

  it("only the sent headers are recorded; a value override replaces the whole value", async () => {
    await resumeOk(emu(), { dlqIds: "fc" }, { "Svc-Flow-Control-Value": "parallelism=7" });
    const run = emu().state.ledger.runsFor("fc")[0];
    assert.deepEqual(Object.keys(run.overrides), ["flowControlValue"]);
    assert.deepEqual(run.settings, {
      flowControlKey: "orig-key",
      parallelism: 7,
      rate: null,
      period: null,
      retries: 3,
    });
  });

  it("Svc-Retries alone", async () => {
    await resumeOk(emu(), { dlqIds: "plain" }, { "Svc-Retries": "12" });
    const run = emu().state.ledger.runsFor("plain")[0];
    assert.deepEqual(run.overrides, { retries: 12 });
    assert.equal(run.settings.retries, 12);
  });

  describe("parseFlowControlValue", () => {
    const ok: [string, object][] = [
      ["parallelism=5", { parallelism: 5 }],
      ["rate=10", { rate: 10 }],
      ["rate=10, period=1m", { rate: 10, period: "1m" }],
      ["parallelism=1, period=10s", { parallelism: 1, period: "10s" }],
      ["parallelism=5, rate=10, period=1s", { parallelism: 5, rate: 10, period: "1s" }],
    ];
    for (const [raw, parsed] of ok) {
      it(`accepts ${JSON.stringify(raw)}`, () => {
        assert.deepEqual(parseFlowControlValue(raw), { raw, ...parsed });
      });
    }
    for (const raw of [
      "",
      "parallelism=5 ",
      " parallelism=5",
      "parallelism=05",
      "rate=1, rate=1",
      "period=1s, rate=1",
    ]) {
      it(`rejects ${JSON.stringify(raw)} with 400`, () => {
        assert.throws(
          () => parseFlowControlValue(raw),
          (e: unknown) =>
            e instanceof HttpError && e.status === 400 && e.message.includes(JSON.stringify(raw)),
        );
      });
    }
  });
});
