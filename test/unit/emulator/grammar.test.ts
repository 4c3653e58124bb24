/**
 * The emulator's own parser of the settled wire grammar (docs/reference.md "Wire grammar" and
 * "Selection fields"), table-driven: every refusal is a 400 naming the field and the value.
 */
import assert from "node:assert/strict";
import { HttpError } from "../../../emulator/http";
import type { HeaderSource } from "../../../emulator/overrides";
import { parseFlowControlValue, parseOverrides } from "../../../emulator/overrides";
import { MAX_RUNS_PER_REQUEST, parseResumeRequest } from "../../../emulator/resume-request";
import { expectError, resumeRaw, useEmulator } from "./helpers";

/**
 * A header source holding the given headers, each sent once.
 *
 * @param headers - lower-case header name to value.
 */
function headers(headers: Record<string, string>): HeaderSource {
  const distinct: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers)) distinct[name] = [value];
  return { headersDistinct: distinct };
}

/**
 * Assert that `run` throws a 400 whose message names the field and shows the value.
 *
 * @param run - the parse.
 * @param field - text the message must contain (the field or header name).
 * @param value - the offending value, shown JSON-quoted in the message.
 */
function assert400(run: () => unknown, field: string, value: string): void {
  assert.throws(run, (e: unknown) => {
    assert.ok(e instanceof HttpError, String(e));
    assert.equal(e.status, 400);
    assert.ok(e.message.includes(field), `${e.message} names ${field}`);
    // Values longer than 200 characters are shown cut, with an ellipsis.
    const shown = JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value);
    assert.ok(e.message.includes(shown), `${e.message} shows ${shown}`);
    return true;
  });
}

const LONGEST_KEY = "k".repeat(256);

describe("emulator wire grammar", () => {
  describe("Svc-Flow-Control-Key: 1 to 256 visible ASCII characters", () => {
    for (const key of ["orders", "a", "!~", "orders-recovery_2.v1", LONGEST_KEY]) {
      it(`accepts ${JSON.stringify(key.length > 20 ? `${key.slice(0, 8)}…(${key.length})` : key)}`, () => {
        assert.deepEqual(parseOverrides(headers({ "svc-flow-control-key": key })), { flowControlKey: key });
      });
    }
    for (const key of [
      "",
      "orders recovery",
      " orders",
      "orders ",
      "ordérs",
      "orders\t",
      "or\u0000ders",
      "or\u007fders",
      "ключ",
      `${LONGEST_KEY}k`,
    ]) {
      it(`refuses ${JSON.stringify(key.length > 20 ? `${key.slice(0, 8)}…(${key.length})` : key)}`, () => {
        assert400(
          () => parseOverrides(headers({ "svc-flow-control-key": key })),
          "Svc-Flow-Control-Key",
          key,
        );
      });
    }
  });

  describe("Svc-Flow-Control-Value parallelism and rate: 1 .. 2147483647", () => {
    for (const name of ["parallelism", "rate"]) {
      for (const text of ["1", "5", "2147483647"]) {
        it(`accepts ${name}=${text}`, () => {
          assert.deepEqual(parseFlowControlValue(`${name}=${text}`), {
            raw: `${name}=${text}`,
            [name]: Number(text),
          });
        });
      }
      for (const text of ["0", "-1", "+1", "01", "1.5", "1e3", "NaN", "", " 1", "2147483648", "9999999999"]) {
        it(`refuses ${name}=${JSON.stringify(text)}`, () => {
          assert400(() => parseFlowControlValue(`${name}=${text}`), name, text);
        });
      }
    }
  });

  describe("Svc-Flow-Control-Value period: /^[1-9][0-9]{0,8}[smhd]$/", () => {
    for (const period of ["1s", "10s", "1m", "2h", "1d", "999999999s"]) {
      it(`accepts ${period}`, () => {
        assert.deepEqual(parseFlowControlValue(`rate=5, period=${period}`), {
          raw: `rate=5, period=${period}`,
          rate: 5,
          period,
        });
      });
    }
    for (const period of [
      "01s",
      "0s",
      "10ms",
      "1S",
      " 1s",
      "1s ",
      "",
      "1.5s",
      "1",
      "-1s",
      "1000000000s",
      "1w",
    ]) {
      it(`refuses period=${JSON.stringify(period)}`, () => {
        assert400(() => parseFlowControlValue(`rate=5, period=${period}`), "period", period);
      });
    }
    it("refuses a period without parallelism or rate, and an empty value", () => {
      assert400(() => parseFlowControlValue("period=1s"), "Svc-Flow-Control-Value", "period=1s");
      assert400(() => parseFlowControlValue(""), "Svc-Flow-Control-Value", "");
    });
  });

  describe("Svc-Retries: 0 .. 2147483647", () => {
    for (const text of ["0", "3", "2147483647"]) {
      it(`accepts ${text}`, () => {
        assert.deepEqual(parseOverrides(headers({ "svc-retries": text })), { retries: Number(text) });
      });
    }
    for (const text of ["-1", "+1", "01", "00", "1.5", "", "three", "2147483648", "99999999999"]) {
      it(`refuses ${JSON.stringify(text)}`, () => {
        assert400(() => parseOverrides(headers({ "svc-retries": text })), "Svc-Retries", text);
      });
    }
  });

  describe("selection: dlqIds", () => {
    const ids = (values: string[]): URLSearchParams =>
      new URLSearchParams(values.map((v): [string, string] => ["dlqIds", v]));
    it("accepts 1 to 50 IDs, non-ASCII included", () => {
      assert.deepEqual(parseResumeRequest(ids(["dlq-1", "dlq-é"]), undefined).dlqIds, ["dlq-1", "dlq-é"]);
      const fifty = Array.from({ length: MAX_RUNS_PER_REQUEST }, (_, i) => `d${i}`);
      assert.deepEqual(parseResumeRequest(ids(fifty), undefined).dlqIds, fifty);
    });
    it("refuses a repeated ID, naming both positions and the value", () => {
      assert.throws(
        () => parseResumeRequest(ids(["b", "a", "b"]), undefined),
        (e: HttpError) => e.status === 400 && e.message === 'dlqIds[2] repeats dlqIds[0] ("b")',
      );
    });
    for (const [name, value] of [
      ["empty", ""],
      ["blank", "  "],
      ["leading space", " dlq-1"],
      ["trailing space", "dlq-1 "],
      ["trailing newline", "dlq-1\n"],
      ["a control character", "dlq\u00011"],
      ["DEL", "dlq\u007f1"],
    ] as const) {
      it(`refuses an ID that is ${name}, naming its position and value`, () => {
        assert400(() => parseResumeRequest(ids(["ok", value]), undefined), "dlqIds[1]", value);
      });
    }
    it("refuses an empty array and more than 50 IDs", () => {
      assert.throws(
        () => parseResumeRequest(new URLSearchParams(), { dlqIds: [] }),
        /dlqIds is an empty array/,
      );
      const many = Array.from({ length: MAX_RUNS_PER_REQUEST + 1 }, (_, i) => `d${i}`);
      assert.throws(() => parseResumeRequest(ids(many), undefined), /dlqIds has 51 values; at most 50/);
    });
  });

  describe("selection: workflowUrl and workflowRunId", () => {
    for (const field of ["workflowUrl", "workflowRunId"]) {
      for (const value of ["https://example.com/api/orders", "wfr_1", "https://example.com/ordérs"]) {
        it(`accepts ${field}=${JSON.stringify(value)}`, () => {
          const request = parseResumeRequest(new URLSearchParams({ [field]: value }), undefined);
          assert.equal((request.filter as Record<string, unknown>)[field], value);
        });
      }
      for (const value of ["", " wfr", "wfr ", "\twfr", "wfr\n", "wf\u0000r", "wf\u007fr"]) {
        it(`refuses ${field}=${JSON.stringify(value)}`, () => {
          assert400(
            () => parseResumeRequest(new URLSearchParams({ [field]: value }), undefined),
            field,
            value,
          );
        });
      }
    }
  });

  describe("selection: fromDate, toDate, workflowCreatedAt: 0 .. MAX_SAFE_INTEGER", () => {
    for (const field of ["fromDate", "toDate", "workflowCreatedAt"]) {
      for (const value of ["0", "1748527971000", String(Number.MAX_SAFE_INTEGER)]) {
        it(`accepts ${field}=${value} (query) and as a JSON number`, () => {
          const fromQuery = parseResumeRequest(new URLSearchParams({ [field]: value }), undefined);
          assert.equal((fromQuery.filter as Record<string, unknown>)[field], Number(value));
          const fromBody = parseResumeRequest(new URLSearchParams(), { [field]: Number(value) });
          assert.equal((fromBody.filter as Record<string, unknown>)[field], Number(value));
        });
      }
      for (const value of [
        "",
        "-1",
        "1.5",
        "1e3",
        "abc",
        String(Number.MAX_SAFE_INTEGER + 1),
        "99999999999999999999",
      ]) {
        it(`refuses ${field}=${JSON.stringify(value)}`, () => {
          assert400(
            () => parseResumeRequest(new URLSearchParams({ [field]: value }), undefined),
            field,
            value,
          );
        });
      }
      for (const value of [-1, 1.5, Number.MAX_SAFE_INTEGER + 1]) {
        it(`refuses ${field} ${value} in a JSON body`, () => {
          assert.throws(
            () => parseResumeRequest(new URLSearchParams(), { [field]: value }),
            (e: unknown) =>
              e instanceof HttpError && e.status === 400 && e.message.includes(`${field} must be`),
          );
        });
      }
    }
    it("fromDate <= toDate: equal is accepted, after is refused naming both", () => {
      const equal = parseResumeRequest(new URLSearchParams({ fromDate: "5", toDate: "5" }), undefined);
      assert.deepEqual(equal.filter, { fromDate: 5, toDate: 5 });
      assert.throws(
        () => parseResumeRequest(new URLSearchParams({ fromDate: "6", toDate: "5" }), undefined),
        /fromDate 6 is after toDate 5/,
      );
    });
  });

  describe("over HTTP", () => {
    const emu = useEmulator({ dlq: 3 });
    for (const [name, header, pattern] of [
      [
        "a key with a space",
        { "Svc-Flow-Control-Key": "orders recovery" },
        /Svc-Flow-Control-Key .* got "orders recovery"/,
      ],
      [
        "period 01s",
        { "Svc-Flow-Control-Value": "rate=5, period=01s" },
        /period must look like .* got "01s"/,
      ],
      [
        "period 10ms",
        { "Svc-Flow-Control-Value": "rate=5, period=10ms" },
        /period must look like .* got "10ms"/,
      ],
      [
        "rate 2^31",
        { "Svc-Flow-Control-Value": "rate=2147483648" },
        /rate must be a positive integer, got "2147483648"/,
      ],
      ["retries 2^31", { "Svc-Retries": "2147483648" }, /Svc-Retries .* got "2147483648"/],
    ] as const) {
      it(`a 400 for ${name}, nothing resumed`, async () => {
        await expectError(await resumeRaw(emu(), {}, header), 400, pattern);
        assert.equal(emu().state.dlq.size, 3);
      });
    }
    it("a 400 for a workflowUrl with a trailing space, nothing resumed", async () => {
      await expectError(
        await resumeRaw(emu(), { workflowUrl: "https://example.com/a " }),
        400,
        /workflowUrl must not have leading or trailing whitespace, got "https:\/\/example.com\/a "/,
      );
      assert.equal(emu().state.dlq.size, 3);
    });
  });
});
