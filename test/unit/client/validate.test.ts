import { strict as assert } from "node:assert";
import { SvcError, validateAccountRecord, validateResumePage } from "../../../client";
import { accountRecord, PASSWORD, TOKEN } from "./helpers";

function malformed(fn: () => unknown): SvcError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof SvcError);
    assert.equal(e.code, "SVC_MALFORMED_RESPONSE");
    return e;
  }
  throw new Error("expected a throw");
}

describe("client/validate: validateAccountRecord", () => {
  it("accepts a valid record", () => {
    assert.deepEqual(validateAccountRecord(accountRecord()), accountRecord());
  });

  it("tolerates unknown extra fields and drops them", () => {
    const body = { ...accountRecord(), region: "eu-1", read_only_token: "ro", budget: 5 };
    const out = validateAccountRecord(body) as unknown as Record<string, unknown>;
    assert.equal(out.region, undefined);
    assert.equal(out.read_only_token, undefined);
    assert.equal(out.max_retries, 999);
  });

  it("names the field, the expected type and what came", () => {
    const e = malformed(() => validateAccountRecord({ ...accountRecord(), max_retries: "abc" }));
    assert.equal(
      e.message,
      'Malformed account record from GET /v2/svc/user: field `max_retries` must be an integer; got "abc" (string).',
    );
  });

  it("checks integers, booleans, enums and missing fields", () => {
    assert.match(
      malformed(() => validateAccountRecord({ ...accountRecord(), timeout: 1.5 })).message,
      /`timeout` must be an integer; got 1\.5 \(number\)/,
    );
    assert.match(
      malformed(() => validateAccountRecord({ ...accountRecord(), active: "true" })).message,
      /`active` must be a boolean; got "true" \(string\)/,
    );
    assert.match(
      malformed(() => validateAccountRecord({ ...accountRecord(), state: "frozen" })).message,
      /`state` must be one of "active", "passive"; got "frozen"/,
    );
    assert.match(
      malformed(() => validateAccountRecord({ ...accountRecord(), type: "gold" })).message,
      /`type` must be one of "free", "paid"/,
    );
    assert.match(
      malformed(() => validateAccountRecord({ ...accountRecord(), reserved_price: "180" })).message,
      /`reserved_price` must be a number/,
    );
    const rec: Record<string, unknown> = { ...accountRecord() };
    delete rec.max_queues;
    assert.match(
      malformed(() => validateAccountRecord(rec)).message,
      /`max_queues` must be an integer; got nothing \(field missing\)/,
    );
    assert.match(malformed(() => validateAccountRecord([])).message, /expected a JSON object; got array/);
    assert.match(malformed(() => validateAccountRecord(null)).message, /got null/);
  });

  it("reports further problems after the first", () => {
    const e = malformed(() =>
      validateAccountRecord({ ...accountRecord(), max_topics: null, max_queues: "x" }),
    );
    assert.match(e.message, /`max_topics`.*and 1 more:.*`max_queues`/);
  });

  it("never echoes password or token values", () => {
    const e1 = malformed(() =>
      validateAccountRecord({ ...accountRecord(), password: 12345678, token: ["secret-ish"] }),
    );
    assert.match(e1.message, /`password` must be a string; got \(redacted\) \(number\)/);
    assert.match(e1.message, /`token` must be a string; got \(redacted\) \(array\)/);
    assert.ok(!e1.message.includes("12345678") && !e1.message.includes("secret-ish"));
    const e2 = malformed(() => validateAccountRecord({ ...accountRecord(), max_delay: "x" }));
    assert.ok(!e2.message.includes(PASSWORD) && !e2.message.includes(TOKEN));
  });
});

describe("client/validate: validateResumePage", () => {
  it("accepts runs and a cursor", () => {
    assert.deepEqual(
      validateResumePage({
        cursor: "c1",
        workflowRuns: [{ workflowRunId: "wfr_1", workflowCreatedAt: 1748527971000 }],
      }),
      {
        cursor: "c1",
        workflowRuns: [{ workflowRunId: "wfr_1", workflowCreatedAt: 1748527971000 }],
      },
    );
  });

  it("keeps a run's two fields only, whatever else the service sends with it", () => {
    const page = validateResumePage({
      workflowRuns: [{ workflowRunId: "wfr_1", workflowCreatedAt: 1, region: "eu", extra: { a: 1 } }],
    });
    assert.deepEqual(page.workflowRuns, [{ workflowRunId: "wfr_1", workflowCreatedAt: 1 }]);
  });

  it('reads "" and an absent cursor as done', () => {
    assert.equal(validateResumePage({ cursor: "", workflowRuns: [] }).cursor, undefined);
    assert.equal(validateResumePage({ workflowRuns: [] }).cursor, undefined);
    assert.equal(validateResumePage({ cursor: null, workflowRuns: null }).cursor, undefined);
  });

  it("drops extra fields of runs and pages", () => {
    const page = validateResumePage({
      cursor: "",
      extra: 1,
      workflowRuns: [{ workflowRunId: "a", workflowCreatedAt: 1, x: 2 }],
    });
    assert.deepEqual(page, {
      cursor: undefined,
      workflowRuns: [{ workflowRunId: "a", workflowCreatedAt: 1 }],
    });
  });

  it("names the offending field", () => {
    assert.match(
      malformed(() => validateResumePage({ cursor: 5, workflowRuns: [] })).message,
      /field `cursor` must be a string; got 5 \(number\)/,
    );
    assert.match(
      malformed(() => validateResumePage({ workflowRuns: {} })).message,
      /field `workflowRuns` must be an array/,
    );
    assert.match(
      malformed(() =>
        validateResumePage({
          workflowRuns: [
            { workflowRunId: "a", workflowCreatedAt: 1 },
            { workflowRunId: "b", workflowCreatedAt: "2" },
          ],
        }),
      ).message,
      /^Malformed resume response from POST \/v2\/workflows\/dlq\/resume: field `workflowRuns\[1\]\.workflowCreatedAt` must be an integer; got "2" \(string\)\.$/,
    );
    assert.match(
      malformed(() => validateResumePage({ workflowRuns: [{ workflowCreatedAt: 1 }] })).message,
      /`workflowRuns\[0\]\.workflowRunId` must be a non-empty string/,
    );
    assert.match(malformed(() => validateResumePage("ok")).message, /expected a JSON object; got string/);
  });
});

describe("client/validate: the record's own secrets", () => {
  it("are scrubbed even when they show up in another malformed field", () => {
    const rec = { ...accountRecord(), token: "queue_tok_0123456789", max_topics: "queue_tok_0123456789" };
    const e = malformed(() => validateAccountRecord(rec));
    assert.ok(!e.message.includes("queue_tok_0123456789"), e.message);
    assert.match(e.message, /`max_topics` must be an integer; got "\(redacted\)" \(string\)/);
  });
});
