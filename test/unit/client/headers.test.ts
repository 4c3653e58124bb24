import { strict as assert } from "node:assert";
import { flowControlHeaderValue, overrideHeaders, SvcError } from "../../../client";

function invalidArg(fn: () => unknown, field: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof SvcError);
    assert.equal(e.code, "SVC_INVALID_ARGUMENT");
    assert.match(e.message, field);
    return true;
  });
}

describe("client/headers: flowControlHeaderValue", () => {
  const cases: Array<[Parameters<typeof flowControlHeaderValue>[0], string | undefined]> = [
    [{ parallelism: 5, rate: 10, period: 1 }, "parallelism=5, rate=10, period=1s"],
    [{ parallelism: 5 }, "parallelism=5"],
    [{ rate: 10 }, "rate=10"],
    [{ rate: 10, period: 60 }, "rate=10, period=60s"],
    [{ rate: 10, period: "1m" }, "rate=10, period=1m"],
    [{ period: 1, rate: 3, parallelism: 2 }, "parallelism=2, rate=3, period=1s"],
    [{}, undefined],
    [{ key: "tenant-a" }, undefined],
  ];
  for (const [input, expected] of cases) {
    it(`formats ${JSON.stringify(input)} as ${JSON.stringify(expected)}`, () => {
      assert.equal(flowControlHeaderValue(input), expected);
    });
  }

  it("requires parallelism or rate when period is set, naming the fields", () => {
    invalidArg(
      () => flowControlHeaderValue({ period: 1 }),
      /`flowControl\.parallelism` or `flowControl\.rate`/,
    );
    invalidArg(() => flowControlHeaderValue({ key: "k", period: "1m" }), /flowControl\.parallelism/);
  });

  it("refuses non-positive or fractional numbers, naming the field", () => {
    invalidArg(
      () => flowControlHeaderValue({ parallelism: 0 }),
      /`flowControl\.parallelism` must be a positive integer/,
    );
    invalidArg(() => flowControlHeaderValue({ rate: 1.5 }), /`flowControl\.rate`/);
    invalidArg(() => flowControlHeaderValue({ rate: -1 }), /`flowControl\.rate`/);
    invalidArg(() => flowControlHeaderValue({ rate: 1, period: 0 }), /`flowControl\.period`/);
    invalidArg(() => flowControlHeaderValue({ rate: 1, period: "1m, rate=99" }), /`flowControl\.period`/);
    invalidArg(() => flowControlHeaderValue({ rate: 1, period: "" }), /`flowControl\.period`/);
    // The settled grammar (docs/reference.md, "Wire grammar"): the emulator and the service refuse these.
    invalidArg(() => flowControlHeaderValue({ parallelism: 1, period: "1000ms" }), /`flowControl\.period`/);
    invalidArg(() => flowControlHeaderValue({ rate: 5, period: "01s" }), /without leading zeros/);
    invalidArg(
      () => flowControlHeaderValue({ parallelism: "5" as unknown as number }),
      /`flowControl\.parallelism`/,
    );
  });
});

describe("client/headers: overrideHeaders", () => {
  it("sends nothing when no override is set", () => {
    assert.deepEqual(overrideHeaders(), {});
    assert.deepEqual(overrideHeaders({}), {});
  });

  it("sends exactly the headers of the overrides that are set", () => {
    assert.deepEqual(overrideHeaders({ retries: 0 }), { "Svc-Retries": "0" });
    assert.deepEqual(overrideHeaders({ flowControl: { key: "k1" } }), { "Svc-Flow-Control-Key": "k1" });
    assert.deepEqual(overrideHeaders({ flowControl: { parallelism: 5 } }), {
      "Svc-Flow-Control-Value": "parallelism=5",
    });
    assert.deepEqual(
      overrideHeaders({ flowControl: { key: "k1", parallelism: 5, rate: 10, period: 1 }, retries: 3 }),
      {
        "Svc-Flow-Control-Key": "k1",
        "Svc-Flow-Control-Value": "parallelism=5, rate=10, period=1s",
        "Svc-Retries": "3",
      },
    );
  });

  it("refuses an empty flowControl override", () => {
    invalidArg(() => overrideHeaders({ flowControl: {} }), /`flowControl` is empty/);
  });

  it("refuses invalid retries and keys, naming the field", () => {
    invalidArg(() => overrideHeaders({ retries: -1 }), /`retries` must be a non-negative integer/);
    invalidArg(() => overrideHeaders({ retries: 2.5 }), /`retries`/);
    invalidArg(() => overrideHeaders({ flowControl: { key: "" } }), /`flowControl\.key`/);
    invalidArg(() => overrideHeaders({ flowControl: { key: "a\r\nX-Injected: 1" } }), /`flowControl\.key`/);
    invalidArg(() => overrideHeaders({ flowControl: { key: "orders recovery" } }), /`flowControl\.key`/);
  });
});
