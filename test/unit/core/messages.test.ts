import { strict as assert } from "node:assert";
import { SvcError } from "../../../client";
import { ServiceError, describeOrigins, explainServiceError, show } from "../../../core/messages";
import { UNKNOWN, containsUnknown } from "../../../core/tokens";

describe("core/messages", () => {
  it("show quotes strings, prints JSON and cuts at 80 characters", () => {
    assert.equal(show("a"), '"a"');
    assert.equal(show(undefined), "undefined");
    assert.equal(show({ a: [1] }), '{"a":[1]}');
    const long = show("x".repeat(200));
    assert.equal(long.length, 80);
    assert.ok(long.endsWith("..."));
  });

  it("containsUnknown finds the sentinel at any depth", () => {
    assert.equal(containsUnknown({ a: [1, { b: UNKNOWN }] }), true);
    assert.equal(containsUnknown({ a: [1, { b: "known" }] }), false);
  });

  it("describeOrigins lists each credential's source", () => {
    assert.equal(
      describeOrigins({ token: { value: "secret-value-x", origin: "stack config `svc:token`" } }),
      "`token` from the stack config `svc:token`",
    );
  });

  it("explainServiceError keeps the code and adds advice per kind", () => {
    const cases: [SvcError, RegExp][] = [
      [
        new SvcError("SVC_UNAUTHORIZED", "x", { status: 403 }),
        /rejected the credentials \(HTTP 403\)\. They came from: ORIGINS\./,
      ],
      [new SvcError("SVC_UNREACHABLE", "refused"), /cannot reach the service at URL \(refused\)/],
      [new SvcError("SVC_TIMEOUT", "slow"), /did not answer in time \(slow\)/],
      [new SvcError("SVC_MALFORMED_RESPONSE", "bad json"), /sent a malformed answer: bad json/],
      [new SvcError("SVC_NOT_FOUND", "gone"), /^What: gone \[SVC_NOT_FOUND\]$/],
    ];
    for (const [err, re] of cases) {
      const out = explainServiceError(err, "What", "URL", "ORIGINS");
      assert.match(out.message, re);
      assert.equal((out as Error & { code?: string }).code, err.code);
    }
    assert.equal(explainServiceError(new Error("plain"), "What", "URL", "").message, "What: plain");
  });

  it("explainServiceError returns a typed ServiceError that keeps the cause and the parts", () => {
    const cause = new SvcError("SVC_TIMEOUT", "slow");
    const out = explainServiceError(cause, "What", "URL", "");
    assert.ok(out instanceof ServiceError);
    assert.equal(out.name, "ServiceError");
    assert.equal(out.cause, cause);
    assert.equal(out.what, "What");
    assert.equal(out.message, `What: ${out.detail}`);
  });

  it("show prints numbers as written, escapes control characters, and can add the type", () => {
    assert.equal(show(Number.NaN), "NaN");
    assert.equal(show(-1.5), "-1.5");
    assert.equal(show("a\tb"), '"a\\tb"');
    assert.equal(show("abc", { withType: true }), '"abc" (string)');
    assert.equal(show(undefined, { withType: true }), "nothing (field missing)");
    assert.equal(show("hunter22", { withType: true, secret: true }), "(redacted) (string)");
  });
});
