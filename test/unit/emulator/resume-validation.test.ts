import assert from "node:assert/strict";
import http from "node:http";
import type { Query } from "./helpers";
import { expectError, resumeRaw, useEmulator } from "./helpers";

describe("emulator resume validation (400 naming the field and value)", () => {
  const emu = useEmulator({ dlq: 5 });
  /** Expect a 400 matching the pattern, with nothing committed. */
  const expect400 = async (res: Response, pattern: RegExp): Promise<void> => {
    await expectError(res, 400, pattern);
    assert.equal(emu().state.ledger.totals().resumedTotal, 0);
    assert.equal(emu().state.dlq.size, 5);
  };

  const queryCases: [string, Query, RegExp][] = [
    ["non-integer fromDate", { fromDate: "1.5" }, /fromDate must be a non-negative integer, got "1\.5"/],
    ["negative toDate", { toDate: "-1" }, /toDate must be a non-negative integer, got "-1"/],
    ["text workflowCreatedAt", { workflowCreatedAt: "yesterday" }, /workflowCreatedAt .* got "yesterday"/],
    ["empty dlqIds value", { dlqIds: ["a", ""] }, /dlqIds\[1\] is empty/],
    ["count 0", { count: 0 }, /count must be between 1 and 50, got 0/],
    ["count 51", { count: 51 }, /count must be between 1 and 50, got 51/],
    ["count not a number", { count: "ten" }, /count must be a non-negative integer, got "ten"/],
    ["repeated fromDate", { fromDate: [1, 2] }, /fromDate must be given once, got 2 values/],
    ["empty workflowUrl", { workflowUrl: "" }, /workflowUrl must not be empty/],
    ["unknown field", { dlqId: "x" }, /unknown query parameter "dlqId"/],
    ["fromDate after toDate", { fromDate: 5, toDate: 4 }, /fromDate 5 is after toDate 4/],
    [
      "garbage cursor",
      { cursor: "not a cursor!" },
      /cursor "not a cursor!" is not a cursor issued by this service/,
    ],
    [
      "well-formed but forged cursor",
      { cursor: Buffer.from("[1,0,0]").toString("base64url") },
      /not a cursor/,
    ],
  ];
  for (const [name, query, pattern] of queryCases) {
    it(`query: ${name}`, async () => {
      await expect400(await resumeRaw(emu(), query), pattern);
    });
  }

  const bodyCases: [string, unknown, RegExp][] = [
    ["empty dlqIds array", { dlqIds: [] }, /dlqIds is an empty array/],
    ["non-string dlqId", { dlqIds: ["a", 7] }, /dlqIds\[1\] must be a string, got 7/],
    ["fractional fromDate", { fromDate: 1.5 }, /fromDate must be a non-negative integer, got 1\.5/],
    ["array body", [1, 2], /request body must be a JSON object/],
    ["unknown body field", { limit: 3 }, /unknown body field "limit"/],
  ];
  for (const [name, body, pattern] of bodyCases) {
    it(`body: ${name}`, async () => {
      await expect400(await resumeRaw(emu(), {}, {}, body), pattern);
    });
  }

  it("body: invalid JSON", async () => {
    const res = await fetch(`${emu().url}/v2/workflows/dlq/resume`, {
      method: "POST",
      headers: { authorization: "Bearer emulator-token", "content-type": "application/json" },
      body: "{nope",
    });
    await expectError(res, 400, /request body is not valid JSON/);
  });

  it("a field in both query and body", async () => {
    await expectError(
      await resumeRaw(emu(), { fromDate: 1 }, {}, { fromDate: 2 }),
      400,
      /fromDate is given both/,
    );
  });

  const headerCases: [string, Record<string, string>, RegExp][] = [
    [
      "Svc-Retries negative",
      { "Svc-Retries": "-1" },
      /Svc-Retries must be a non-negative integer .* got "-1"/,
    ],
    ["Svc-Retries text", { "Svc-Retries": "three" }, /Svc-Retries .* got "three"/],
    ["Svc-Retries fraction", { "Svc-Retries": "1.5" }, /Svc-Retries/],
    [
      "Svc-Flow-Control-Key with a space",
      { "Svc-Flow-Control-Key": "a b" },
      /Svc-Flow-Control-Key .* got "a b"/,
    ],
    ["value: period only", { "Svc-Flow-Control-Value": "period=1s" }, /at least one of parallelism or rate/],
    [
      "value: wrong order",
      { "Svc-Flow-Control-Value": "rate=10, parallelism=5" },
      /"parallelism" is repeated or out of order/,
    ],
    [
      "value: no space after comma",
      { "Svc-Flow-Control-Value": "parallelism=5,rate=10" },
      /parallelism must be a positive integer, got "5,rate=10"/,
    ],
    [
      "value: zero parallelism",
      { "Svc-Flow-Control-Value": "parallelism=0" },
      /parallelism must be a positive integer, got "0"/,
    ],
    ["value: unknown part", { "Svc-Flow-Control-Value": "parallelism=5, burst=3" }, /unknown part "burst"/],
    [
      "value: bad period",
      { "Svc-Flow-Control-Value": "rate=10, period=1" },
      /period must look like .* got "1"/,
    ],
    [
      "value: duplicate part",
      { "Svc-Flow-Control-Value": "rate=1, rate=2" },
      /"rate" is repeated or out of order/,
    ],
    ["value: empty", { "Svc-Flow-Control-Value": "" }, /Svc-Flow-Control-Value "" is invalid/],
  ];
  for (const [name, headers, pattern] of headerCases) {
    it(`header: ${name}`, async () => {
      await expect400(await resumeRaw(emu(), {}, headers), pattern);
    });
  }

  it("header: Svc-Retries sent twice", async () => {
    const url = new URL(`${emu().url}/v2/workflows/dlq/resume`);
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        url,
        { method: "POST", headers: { authorization: "Bearer emulator-token", "svc-retries": ["1", "2"] } },
        (res) => {
          let text = "";
          res.on("data", (chunk: Buffer) => (text += chunk.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on("error", reject);
      req.end();
    });
    assert.equal(status, 400);
    assert.match(
      (JSON.parse(body) as { error: string }).error,
      /Svc-Retries must be sent once, got 2 values/,
    );
  });

  it("wrong method → 405 with Allow", async () => {
    const res = await fetch(`${emu().url}/v2/workflows/dlq/resume`, {
      headers: { authorization: "Bearer emulator-token" },
    });
    await expectError(res, 405, /GET is not allowed on \/v2\/workflows\/dlq\/resume; use POST/);
    assert.equal(res.headers.get("allow"), "POST");
  });

  it("unknown path → 404 JSON", async () => {
    await expectError(await fetch(`${emu().url}/v2/nothing`), 404, /no such endpoint: GET \/v2\/nothing/);
    await expectError(await fetch(`${emu().url}/elsewhere`), 404, /no such endpoint/);
  });
});
