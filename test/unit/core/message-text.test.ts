import { strict as assert } from "node:assert";
import * as clientApi from "../../../client";
import { SvcError } from "../../../client";
import { resolveEndpoint } from "../../../client/transport";
import { Failures, checkUrl } from "../../../core/inputChecks";
import { ServiceError, describeOrigins, explainServiceError, nextStep } from "../../../core/serviceErrors";
import { formatValue, sentences } from "../../../client/messageText";
import { UNKNOWN, containsUnknown } from "../../../core/unknownValue";

describe("messages: client/messageText, core/inputChecks, core/serviceErrors", () => {
  it("formatValue quotes strings, prints JSON and cuts at 80 characters", () => {
    assert.equal(formatValue("a"), '"a"');
    assert.equal(formatValue(undefined), "undefined");
    assert.equal(formatValue({ a: [1] }), '{"a":[1]}');
    const long = formatValue("x".repeat(200));
    assert.equal(long.length, 80);
    assert.ok(long.endsWith("..."));
  });

  it("checkUrl (preview) and resolveEndpoint (the client) refuse a URL with one rule, never echoing what may carry a credential", () => {
    const values = [
      "not a url hunter22",
      "http://u:hunter22@127.0.0.1:port",
      "ftp://u:hunter22@127.0.0.1",
      "http://u:hunter22@127.0.0.1",
      "http://127.0.0.1/?key=hunter22",
      "http://127.0.0.1/#hunter22",
    ];
    for (const v of values) {
      const f = new Failures();
      checkUrl(f, "baseUrl", v);
      const reasons = (f.result() ?? []).map((x) => x.reason);
      assert.equal(reasons.length, 1, v);
      assert.ok(!reasons[0].includes("hunter22"), `${v}: ${reasons[0]}`);
      assert.throws(
        () => resolveEndpoint(v, "baseUrl", true),
        (e: unknown) => e instanceof SvcError && e.message === reasons[0],
        v,
      );
    }
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
      [
        new SvcError(
          "SVC_UNREACHABLE",
          "svc get account (GET /x) failed: could not connect (gave up after 3 attempts)",
          {
            cause: new Error("connect ECONNREFUSED 127.0.0.1:9"),
            attempts: 3,
          },
        ),
        /^What: cannot reach the service at URL \(connect ECONNREFUSED 127\.0\.0\.1:9; 3 attempts\)\. Is it/,
      ],
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

  it("the deprecated `show` and `ShowOptions` of pulumi-svc/client are formatValue and its options", () => {
    const options: clientApi.ShowOptions = { withType: true };
    assert.equal(clientApi.show, clientApi.formatValue);
    assert.equal(clientApi.show("a", options), '"a" (string)');
  });

  it("formatValue prints numbers as written, escapes control characters, and can add the type", () => {
    assert.equal(formatValue(Number.NaN), "NaN");
    assert.equal(formatValue(-1.5), "-1.5");
    assert.equal(formatValue("a\tb"), '"a\\tb"');
    assert.equal(formatValue("abc", { withType: true }), '"abc" (string)');
    assert.equal(formatValue(undefined, { withType: true }), "nothing (field missing)");
    assert.equal(formatValue("hunter22", { withType: true, secret: true }), "(redacted) (string)");
  });
});

describe("core/serviceErrors: nextStep", () => {
  it("says run `pulumi up` again only where that can help", () => {
    for (const code of [
      "SVC_RATE_LIMITED",
      "SVC_SERVER_ERROR",
      "SVC_CONNECTION_LOST",
      "SVC_TIMEOUT",
    ] as const) {
      assert.equal(nextStep(code), "Run `pulumi up` again to continue where it stopped.", code);
    }
  });

  it("after a spent daily limit says to run `pulumi up` after the reset, with its time, never again at once", () => {
    const resetAt = Date.UTC(2025, 5, 16, 0, 0, 0);
    const text = nextStep("SVC_DAILY_LIMIT", resetAt);
    assert.equal(
      text,
      "Run `pulumi up` after the reset at 2025-06-16 00:00:00 UTC to continue where it stopped; before that, the " +
        "service refuses every request it sends.",
    );
    assert.ok(!text.includes("again"), text);
    assert.match(nextStep("SVC_DAILY_LIMIT"), /^Run `pulumi up` after the reset named above /);
  });

  it("after a refusal (401/403, 404, 400, a refused input) says what to fix first", () => {
    const cases = {
      SVC_UNAUTHORIZED: "Fix the credentials named above",
      SVC_NOT_FOUND: "Check the URL and the selection named above",
      SVC_BAD_REQUEST: "Fix the input the service refused (above)",
      SVC_INVALID_ARGUMENT: "Fix the input named above",
    } as const;
    for (const [code, fix] of Object.entries(cases)) {
      const text = nextStep(code as keyof typeof cases);
      assert.ok(text.startsWith(`${fix}; running \`pulumi up\` again before that fails the same way.`), text);
      assert.ok(!text.includes("Run `pulumi up` again"), text);
    }
  });
});

describe("client/messageText: sentences", () => {
  it("starts a new sentence after a question or a full stop, never gluing `?, and`", () => {
    assert.equal(
      sentences("cannot reach it. Is it running, and is the URL right?", "there is no Account resource"),
      "cannot reach it. Is it running, and is the URL right? There is no Account resource.",
    );
    assert.equal(sentences("Check those values.", "next"), "Check those values. Next.");
    assert.equal(sentences("a clause", "", "another"), "a clause. Another.");
    assert.equal(sentences("one"), "one.");
  });
});
