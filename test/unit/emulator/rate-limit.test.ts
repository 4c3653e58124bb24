/**
 * The account's rate limit on the resume API: fixed one-second windows aligned to unix seconds,
 * per account, `max_requests_per_second` from the account record. The clock is injected; no test
 * depends on timing.
 */
import assert from "node:assert/strict";
import type { RunningEmulator } from "../../../emulator";
import { startEmulator } from "../../../emulator";
import { parseCliArgs } from "../../../emulator/cli-args";
import { AccountRateLimiter } from "../../../emulator/rate-limit";
import { admin, basic, expectError, resumeRaw, useEmulator } from "./helpers";

/** 2025-06-01T12:00:00.250Z: a quarter of a second into a unix second. */
const START = Date.UTC(2025, 5, 1, 12, 0, 0, 250);
/** The unix second of START. */
const START_SECOND = Math.floor(START / 1000);

/**
 * The three Burst-RateLimit-* headers of a response (null when absent).
 *
 * @param res - the response.
 */
function burst(res: Response): { limit: string | null; remaining: string | null; reset: string | null } {
  return {
    limit: res.headers.get("burst-ratelimit-limit"),
    remaining: res.headers.get("burst-ratelimit-remaining"),
    reset: res.headers.get("burst-ratelimit-reset"),
  };
}

describe("emulator account rate limit", () => {
  describe("AccountRateLimiter (fixed one-second windows, injected clock)", () => {
    it("allows `limit` requests per unix second, then refuses until the next second", () => {
      const limiter = new AccountRateLimiter();
      const t = START;
      const decisions = [0, 100, 500, 700].map((dt) => limiter.take("acct", 3, t + dt));
      assert.deepEqual(
        decisions.map((d) => [d?.allowed, d?.remaining, d?.reset]),
        [
          [true, 2, START_SECOND + 1],
          [true, 1, START_SECOND + 1],
          [true, 0, START_SECOND + 1],
          [false, 0, START_SECOND + 1],
        ],
      );
      assert.equal(decisions[3]?.retryAfterSeconds, 1);
      assert.deepEqual(decisions[3]?.headers, {
        "burst-ratelimit-limit": "3",
        "burst-ratelimit-remaining": "0",
        "burst-ratelimit-reset": String(START_SECOND + 1),
        "retry-after": "1",
      });
      assert.equal(decisions[0]?.headers["retry-after"], undefined);
      // The last millisecond of the second is still refused; the next second starts afresh.
      assert.equal(limiter.take("acct", 3, START_SECOND * 1000 + 999)?.allowed, false);
      const next = limiter.take("acct", 3, (START_SECOND + 1) * 1000);
      assert.deepEqual([next?.allowed, next?.remaining, next?.reset], [true, 2, START_SECOND + 2]);
    });

    it("windows are aligned to unix seconds, not to the first request (x.999 and x+1.000 differ)", () => {
      const limiter = new AccountRateLimiter();
      const edge = START_SECOND * 1000 + 999;
      assert.equal(limiter.take("acct", 1, edge)?.allowed, true);
      assert.equal(limiter.take("acct", 1, edge + 1)?.allowed, true);
      assert.equal(limiter.take("acct", 1, edge + 2)?.allowed, false);
    });

    it("counts per account", () => {
      const limiter = new AccountRateLimiter();
      assert.equal(limiter.take("a", 1, START)?.allowed, true);
      assert.equal(limiter.take("a", 1, START)?.allowed, false);
      assert.equal(limiter.take("b", 1, START)?.allowed, true);
      assert.equal(limiter.take("b", 1, START)?.remaining, 0);
    });

    it("a request that reaches it after its window has passed counts in the current window", () => {
      const limiter = new AccountRateLimiter();
      limiter.take("acct", 2, START + 1000);
      const late = limiter.take("acct", 2, START);
      assert.deepEqual([late?.allowed, late?.remaining, late?.reset], [true, 0, START_SECOND + 2]);
      const refused = limiter.take("acct", 2, START);
      assert.equal(refused?.retryAfterSeconds, 2);
    });

    it("limit 0 refuses everything; an unknown limit counts nothing and sends no headers", () => {
      const limiter = new AccountRateLimiter();
      assert.equal(limiter.take("acct", 0, START)?.allowed, false);
      assert.equal(limiter.take("acct", undefined, START), undefined);
      assert.equal(limiter.take("acct", 1.5, START), undefined);
      assert.deepEqual(limiter.stats(), { counted: 1, limited: 1 });
    });

    it("off: nothing counted and no decision; the switch refuses a non-boolean naming it", () => {
      const limiter = new AccountRateLimiter(false);
      assert.equal(limiter.enabled, false);
      assert.equal(limiter.take("acct", 1, START), undefined);
      limiter.setEnabled(true);
      assert.equal(limiter.take("acct", 1, START)?.allowed, true);
      assert.throws(() => limiter.setEnabled("no"), /enabled must be a boolean, got "no"/);
      assert.deepEqual(limiter.stats(), { counted: 1, limited: 0 });
      limiter.clear();
      assert.deepEqual(limiter.stats(), { counted: 0, limited: 0 });
      assert.equal(limiter.take("acct", 1, START)?.allowed, true);
    });
  });

  describe("on the resume API", () => {
    let clock = START;
    beforeEach(() => {
      clock = START;
    });
    const emu = useEmulator({ dlq: 20, now: () => clock });
    /** Set the account's limit through the admin API. */
    const setLimit = async (limit: number): Promise<void> => {
      const patched = await admin(emu(), "PATCH", "/admin/account", { max_requests_per_second: limit });
      assert.equal(patched.status, 200);
    };

    it("is on by default at the free plan's 100 per second; the headers are on the 200", async () => {
      const res = await resumeRaw(emu(), { count: 1 });
      assert.equal(res.status, 200);
      assert.deepEqual(burst(res), { limit: "100", remaining: "99", reset: String(START_SECOND + 1) });
      assert.equal(res.headers.get("retry-after"), null);
    });

    it("refuses the request over the limit with 429, Retry-After and {error}, resuming nothing", async () => {
      await setLimit(2);
      assert.equal((await resumeRaw(emu(), { count: 1 })).status, 200);
      assert.equal((await resumeRaw(emu(), { count: 1 })).status, 200);
      const refused = await resumeRaw(emu(), { count: 5 });
      const message = await expectError(refused, 429, /rate limit exceeded: this account allows 2 requests/);
      assert.match(message, new RegExp(`resets at unix second ${START_SECOND + 1}`));
      assert.equal(refused.headers.get("retry-after"), "1");
      assert.deepEqual(burst(refused), { limit: "2", remaining: "0", reset: String(START_SECOND + 1) });
      // Nothing resumed: two runs from the two allowed requests, none from the refused one.
      assert.equal(emu().state.ledger.totals().resumedTotal, 2);
      assert.equal(emu().state.dlq.size, 18);
      const logged = emu().state.log.since(0);
      assert.deepEqual(
        logged.map((r) => [r.status, r.resumed, r.rateLimited ?? false]),
        [
          [200, 1, false],
          [200, 1, false],
          [429, 0, true],
        ],
      );
      assert.match(logged[2].error ?? "", /rate limit exceeded/);
      assert.equal(logged[2].fault, undefined);
      const view = await admin(emu(), "GET", "/admin/rate-limit");
      assert.deepEqual(view.body, {
        enabled: true,
        maxRequestsPerSecond: 2,
        otherClientLoad: 0,
        stats: { counted: 3, limited: 1 },
      });
    });

    it("a refused dlqIds request resumes none of its IDs", async () => {
      await setLimit(0);
      const ids = emu()
        .state.dlq.page(0, 3)
        .map((e) => e.dlqId);
      await expectError(await resumeRaw(emu(), { dlqIds: ids }), 429, /rate limit exceeded/);
      for (const id of ids) assert.equal(emu().state.ledger.runsFor(id).length, 0);
      assert.equal(emu().state.dlq.size, 20);
    });

    it("the next unix second opens a new window", async () => {
      await setLimit(1);
      assert.equal((await resumeRaw(emu(), { count: 1 })).status, 200);
      assert.equal((await resumeRaw(emu(), { count: 1 })).status, 429);
      clock = (START_SECOND + 1) * 1000;
      const res = await resumeRaw(emu(), { count: 1 });
      assert.equal(res.status, 200);
      assert.deepEqual(burst(res), { limit: "1", remaining: "0", reset: String(START_SECOND + 2) });
    });

    it("every authenticated answer carries the headers: 400, 404 and an injected 5xx", async () => {
      const bad = await resumeRaw(emu(), { count: 0 });
      await expectError(bad, 400, /count must be between 1 and 50/);
      assert.deepEqual(burst(bad), { limit: "100", remaining: "99", reset: String(START_SECOND + 1) });
      const missing = await resumeRaw(emu(), { dlqIds: "no-such-id" });
      await expectError(missing, 404, /Some DLQ messages were not found/);
      assert.equal(burst(missing).remaining, "98");
      emu().setFaults({ error5xxRate: 1, error5xxStatuses: [503] });
      const injected = await resumeRaw(emu());
      assert.equal(injected.status, 503);
      assert.equal(burst(injected).remaining, "97");
    });

    it("a 401 is not counted and carries no rate-limit headers (it names no account)", async () => {
      await setLimit(1);
      for (let i = 0; i < 3; i++) {
        const res = await resumeRaw(emu(), {}, { authorization: "Bearer wrong-token" });
        await expectError(res, 401, /invalid bearer token/);
        assert.deepEqual(burst(res), { limit: null, remaining: null, reset: null });
      }
      const ok = await resumeRaw(emu(), { count: 1 });
      assert.equal(ok.status, 200);
      assert.equal(burst(ok).remaining, "0");
    });

    it("counts per account: a rotated token keeps the count, another account id starts its own", async () => {
      await setLimit(1);
      assert.equal((await resumeRaw(emu(), { count: 1 })).status, 200);
      await admin(emu(), "PATCH", "/admin/account", { token: "rotated-token" });
      const sameAccount = await resumeRaw(emu(), { count: 1 }, { authorization: "Bearer rotated-token" });
      assert.equal(sameAccount.status, 429);
      await admin(emu(), "PATCH", "/admin/account", { id: "another-account" });
      const otherAccount = await resumeRaw(emu(), { count: 1 }, { authorization: "Bearer rotated-token" });
      assert.equal(otherAccount.status, 200);
    });

    it("a plan change changes the limit at once (setPlan, PUT /admin/plan)", async () => {
      await setLimit(1);
      assert.equal((await resumeRaw(emu(), { count: 1 })).status, 200);
      assert.equal((await resumeRaw(emu(), { count: 1 })).status, 429);
      emu().setPlan("fixed");
      const fixed = await resumeRaw(emu(), { count: 1 });
      assert.equal(fixed.status, 200);
      assert.deepEqual(burst(fixed), { limit: "500", remaining: "497", reset: String(START_SECOND + 1) });
      assert.equal((await admin(emu(), "PUT", "/admin/plan", { plan: "free" })).status, 200);
      assert.equal(burst(await resumeRaw(emu(), { count: 1 })).limit, "100");
      assert.equal((await admin(emu(), "PUT", "/admin/plan", { plan: "paid" })).status, 200);
      assert.equal(burst(await resumeRaw(emu(), { count: 1 })).limit, "500");
    });

    it("a deleted max_requests_per_second means no known limit: not enforced, no headers", async () => {
      await admin(emu(), "PATCH", "/admin/account", { max_requests_per_second: null });
      const res = await resumeRaw(emu(), { count: 1 });
      assert.equal(res.status, 200);
      assert.deepEqual(burst(res), { limit: null, remaining: null, reset: null });
    });

    it("does not apply to the account API", async () => {
      await setLimit(0);
      const res = await fetch(`${emu().url}/v2/svc/user`, { headers: { authorization: basic() } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("burst-ratelimit-limit"), null);
    });

    it("stays separate from the rateLimit fault: an injected 429 is logged as the fault", async () => {
      emu().setFaults({ rateLimit: { every: 1, retryAfterSeconds: 7 } });
      const res = await resumeRaw(emu(), { count: 1 });
      await expectError(res, 429, /rate limit exceeded; retry later/);
      assert.equal(res.headers.get("retry-after"), "7");
      const logged = emu().state.log.since(0)[0];
      assert.equal(logged.fault, "rateLimit");
      assert.equal(logged.rateLimited, undefined);
      // The request still counted against the account's own limit.
      assert.deepEqual(emu().state.rateLimit.stats(), { counted: 1, limited: 0 });
    });

    it("off switch at run time: setRateLimit and PUT /admin/rate-limit", async () => {
      await setLimit(1);
      emu().setRateLimit(false);
      for (let i = 0; i < 3; i++) {
        const res = await resumeRaw(emu(), { count: 1 });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("burst-ratelimit-limit"), null);
      }
      const on = await admin(emu(), "PUT", "/admin/rate-limit", { enabled: true });
      assert.deepEqual(on.body, {
        enabled: true,
        maxRequestsPerSecond: 1,
        otherClientLoad: 0,
        stats: { counted: 0, limited: 0 },
      });
      assert.equal((await resumeRaw(emu(), { count: 1 })).status, 200);
      assert.equal((await resumeRaw(emu(), { count: 1 })).status, 429);
      const off = await admin(emu(), "PUT", "/admin/rate-limit", { enabled: false });
      assert.equal(off.body.enabled, false);
      assert.equal((await resumeRaw(emu(), { count: 1 })).status, 200);
      for (const [body, pattern] of [
        [{ enabled: "no" }, /enabled must be a boolean, got "no"/],
        [{ enabled: true, limit: 5 }, /unknown rate-limit field "limit"/],
        [[true], /rate-limit body must be \{"enabled": true\|false\}/],
      ] as const) {
        const res = await fetch(`${emu().url}/admin/rate-limit`, {
          method: "PUT",
          body: JSON.stringify(body),
        });
        await expectError(res, 400, pattern);
      }
    });

    it("POST /admin/reset forgets the windows", async () => {
      await setLimit(1);
      assert.equal((await resumeRaw(emu(), { count: 1 })).status, 200);
      assert.equal((await admin(emu(), "POST", "/admin/reset")).status, 200);
      emu().seed(1);
      assert.equal((await resumeRaw(emu(), { count: 1 })).status, 200);
    });
  });

  describe("startEmulator({ rateLimit: false }) and --no-rate-limit", () => {
    let emulator: RunningEmulator | undefined;
    afterEach(async () => {
      await emulator?.close();
      emulator = undefined;
    });

    it("the option turns the limit off: no headers and no 429 past the limit", async () => {
      emulator = await startEmulator({ dlq: 5, rateLimit: false, now: () => START });
      emulator.state.account.patch({ max_requests_per_second: 1 });
      for (let i = 0; i < 3; i++) {
        const res = await resumeRaw(emulator, { count: 1 });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("burst-ratelimit-remaining"), null);
      }
      assert.equal(emulator.state.ledger.totals().resumedTotal, 3);
    });

    it("a non-boolean option is refused naming it", async () => {
      await assert.rejects(
        startEmulator({ rateLimit: "off" as unknown as boolean }),
        /rateLimit must be a boolean, got "off"/,
      );
    });

    it("--no-rate-limit sets rateLimit: false; it takes no value and is given once", () => {
      assert.deepEqual(parseCliArgs(["--no-rate-limit", "--port", "0"]), {
        help: false,
        options: { port: 0, rateLimit: false },
      });
      assert.deepEqual(parseCliArgs([]).options, {});
      assert.throws(() => parseCliArgs(["--no-rate-limit=1"]), /--no-rate-limit takes no value/);
      assert.throws(
        () => parseCliArgs(["--no-rate-limit", "--no-rate-limit"]),
        /--no-rate-limit is given more than once/,
      );
    });
  });
});
