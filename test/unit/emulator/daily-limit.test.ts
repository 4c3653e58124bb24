/**
 * The account's daily limit on the resume API (off unless enabled) and the simulated other
 * client of the per-second limit. Clocks are injected; no test depends on timing.
 */
import assert from "node:assert/strict";
import { parseCliArgs } from "../../../emulator/cli-args";
import { DailyLimiter } from "../../../emulator/daily-limit";
import { AccountRateLimiter } from "../../../emulator/rate-limit";
import { admin, expectError, resumeRaw, useEmulator } from "./helpers";

/** 2025-06-01T12:00:00.250Z. */
const START = Date.UTC(2025, 5, 1, 12, 0, 0, 250);
/** The next UTC midnight, unix seconds. */
const MIDNIGHT = Date.UTC(2025, 5, 2) / 1000;

describe("emulator daily limit", () => {
  describe("DailyLimiter (per account and UTC day, injected clock)", () => {
    it("allows `limit` requests a day, refuses the rest until midnight, then starts over", () => {
      const limiter = new DailyLimiter(2);
      const d = [0, 1, 2].map((i) => limiter.take("acct", START + i));
      assert.deepEqual(
        d.map((x) => [x?.allowed, x?.remaining, x?.reset]),
        [
          [true, 1, MIDNIGHT],
          [true, 0, MIDNIGHT],
          [false, 0, MIDNIGHT],
        ],
      );
      assert.deepEqual(d[2]?.headers, {
        "ratelimit-limit": "2",
        "ratelimit-remaining": "0",
        "ratelimit-reset": String(MIDNIGHT),
        "retry-after": String(Math.ceil(MIDNIGHT - (START + 2) / 1000)),
      });
      assert.equal(limiter.take("other", START)?.allowed, true, "counted per account");
      assert.equal(limiter.take("acct", MIDNIGHT * 1000)?.allowed, true, "a new UTC day");
      assert.deepEqual(limiter.view(), { limit: 2, counted: 4, refused: 1, newDays: 0 });
    });

    it("is off by default and can start a new day at once", () => {
      assert.equal(new DailyLimiter().take("acct", START), undefined);
      const limiter = new DailyLimiter(1);
      limiter.take("acct", START);
      assert.equal(limiter.take("acct", START)?.allowed, false);
      limiter.newDay();
      assert.equal(limiter.take("acct", START)?.allowed, true);
      assert.throws(() => limiter.setLimit(0), /limit must be a positive integer .* got 0/);
      limiter.setLimit(null);
      assert.equal(limiter.take("acct", START), undefined);
    });
  });

  describe("over HTTP", () => {
    const emu = useEmulator({ dailyLimit: 2, rateLimit: false });

    it("sends RateLimit-* on every resume answer and 429 past the limit; admin starts a new day", async () => {
      emu().seed(200);
      const a = await resumeRaw(emu());
      assert.equal(a.status, 200);
      assert.equal(a.headers.get("ratelimit-limit"), "2");
      assert.equal(a.headers.get("ratelimit-remaining"), "1");
      assert.match(a.headers.get("ratelimit-reset") ?? "", /^\d+$/);
      await resumeRaw(emu());
      const refused = await resumeRaw(emu());
      assert.equal(refused.headers.get("ratelimit-remaining"), "0");
      assert.ok(Number(refused.headers.get("retry-after")) >= 1);
      await expectError(refused, 429, /daily limit exceeded: this account allows 2 requests per day/);
      assert.equal(emu().state.dlq.size, 100, "a refused request resumes nothing");
      const newDay = await admin(emu(), "POST", "/admin/daily-limit/new-day");
      assert.deepEqual(newDay.body, { limit: 2, counted: 2, refused: 1, newDays: 1 });
      assert.equal((await resumeRaw(emu())).status, 200);
    });

    it("the admin API sets or turns off the limit, naming a bad value", async () => {
      assert.deepEqual((await admin(emu(), "PUT", "/admin/daily-limit", { limit: null })).body.limit, null);
      assert.equal((await resumeRaw(emu())).headers.get("ratelimit-limit"), null);
      const bad = await admin(emu(), "PUT", "/admin/daily-limit", { limit: "many" });
      assert.equal(bad.status, 400);
      assert.match(String(bad.body.error), /limit must be a positive integer.*"many"/);
      assert.equal((await admin(emu(), "PUT", "/admin/daily-limit", { limti: 3 })).status, 400);
      assert.equal((await admin(emu(), "PUT", "/admin/daily-limit", { limit: 5 })).body.limit, 5);
    });
  });

  it("the CLI takes --daily-limit and --other-client-load", () => {
    assert.deepEqual(parseCliArgs(["--daily-limit", "1000", "--other-client-load=40"]).options, {
      dailyLimit: 1000,
      otherClientLoad: 40,
    });
    assert.throws(() => parseCliArgs(["--daily-limit", "0"]), /--daily-limit must be an integer from 1/);
  });
});

describe("emulator: another client of the per-second limit", () => {
  it("uses its load spread over every window", () => {
    const limiter = new AccountRateLimiter(true, 40);
    const second = Math.floor(START / 1000) * 1000;
    // Half-way through the window the other client has used 20 of 100.
    const mid = limiter.take("acct", 100, second + 500);
    assert.equal(mid?.remaining, 100 - 20 - 1);
    // Late in the window 61 of ours plus 39 of theirs fit; the 62nd of ours does not.
    for (let i = 0; i < 59; i++) limiter.take("acct", 100, second + 990);
    assert.equal(limiter.take("acct", 100, second + 990)?.allowed, true);
    assert.equal(limiter.take("acct", 100, second + 990)?.allowed, false);
    assert.throws(() => limiter.setOtherClientLoad(-1), /otherClientLoad must be a non-negative integer/);
  });

  describe("over HTTP", () => {
    const emu = useEmulator({ otherClientLoad: 30 });

    it("the admin API shows and sets the load", async () => {
      assert.equal((await admin(emu(), "GET", "/admin/rate-limit")).body.otherClientLoad, 30);
      const set = await admin(emu(), "PUT", "/admin/other-client", { requestsPerSecond: 40 });
      assert.equal(set.body.otherClientLoad, 40);
      const bad = await admin(emu(), "PUT", "/admin/other-client", { requestsPerSecond: 1.5 });
      assert.equal(bad.status, 400);
      assert.match(String(bad.body.error), /otherClientLoad must be a non-negative integer.*1\.5/);
    });
  });
});
