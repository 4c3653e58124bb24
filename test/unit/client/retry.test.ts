import { strict as assert } from "node:assert";
import { DEFAULT_RETRY_POLICY, parseRateLimitReset, parseRetryAfter, SvcError } from "../../../client";
import { backoffDelay, planRetry, resolveRetryPolicy, serverWaitHint } from "../../../client/retry";
import { T0 } from "./helpers";

describe("client/retry", () => {
  it("has the documented defaults", () => {
    assert.deepEqual(
      { ...DEFAULT_RETRY_POLICY },
      { maxRetries: 5, baseDelayMs: 200, maxDelayMs: 10_000, maxTotalDelayMs: 60_000 },
    );
    assert.deepEqual(resolveRetryPolicy({ maxRetries: 2 }), { ...DEFAULT_RETRY_POLICY, maxRetries: 2 });
  });

  it("refuses invalid policies", () => {
    assert.throws(
      () => resolveRetryPolicy({ maxRetries: -1 }),
      (e: unknown) => e instanceof SvcError && e.code === "SVC_INVALID_ARGUMENT",
    );
    assert.throws(() => resolveRetryPolicy({ maxRetries: 1.5 }), SvcError);
    assert.throws(() => resolveRetryPolicy({ maxDelayMs: Infinity }), SvcError);
  });

  it("uses full jitter under an exponential ceiling capped by maxDelayMs", () => {
    const p = DEFAULT_RETRY_POLICY;
    assert.equal(
      backoffDelay(1, p, () => 0.5),
      100,
    );
    assert.equal(
      backoffDelay(2, p, () => 0.5),
      200,
    );
    assert.equal(
      backoffDelay(3, p, () => 0.999),
      799,
    );
    assert.equal(
      backoffDelay(1, p, () => 0),
      0,
    );
    assert.equal(
      backoffDelay(20, p, () => 0.999),
      9990,
    );
    assert.ok(backoffDelay(60, p, () => 1) <= p.maxDelayMs);
  });

  it("parses Retry-After seconds and HTTP dates", () => {
    assert.equal(parseRetryAfter("3", T0), 3000);
    assert.equal(parseRetryAfter(" 0 ", T0), 0);
    assert.equal(parseRetryAfter(new Date(T0 + 5000).toUTCString(), T0), 5000);
    assert.equal(parseRetryAfter(new Date(T0 - 5000).toUTCString(), T0), 0);
    assert.equal(parseRetryAfter("soon", T0), undefined);
    assert.equal(parseRetryAfter("-1", T0), undefined);
    assert.equal(parseRetryAfter(undefined, T0), undefined);
  });

  it("parses Burst-RateLimit-Reset as unix seconds", () => {
    assert.equal(parseRateLimitReset(String(T0 / 1000 + 7), T0), 7000);
    assert.equal(parseRateLimitReset(String(T0 / 1000 - 7), T0), 0);
    assert.equal(parseRateLimitReset("abc", T0), undefined);
    assert.equal(
      serverWaitHint({ "retry-after": "2", "burst-ratelimit-reset": String(T0 / 1000 + 4) }, T0),
      4000,
    );
    assert.equal(serverWaitHint({}, T0), undefined);
  });

  it("caps every wait and the total, and stops when the budget is spent", () => {
    const p = { ...DEFAULT_RETRY_POLICY, maxTotalDelayMs: 25_000 };
    assert.deepEqual(
      planRetry(1, 0, p, () => 0.5, 3_600_000),
      { retry: true, delayMs: 10_000 },
    );
    assert.deepEqual(planRetry(3, 20_000, p, () => 0.5, 3_600_000).retry, false);
    assert.deepEqual(
      planRetry(3, 24_900, p, () => 0.99),
      { retry: true, delayMs: 100 },
    );
    assert.equal(planRetry(3, 25_000, p, () => 0.5).retry, false);
    assert.equal(planRetry(6, 0, p, () => 0.5).retry, false);
    assert.deepEqual(
      planRetry(5, 0, p, () => 0.5),
      { retry: true, delayMs: 1600 },
    );
  });
});
