import assert from "node:assert/strict";
import { secretsEqual } from "../../../emulator/auth";
import { basic, expectError, PASSWORD, resumeRaw, TOKEN, useEmulator, USERNAME } from "./helpers";

describe("emulator auth", () => {
  const emu = useEmulator({ dlq: 3 });

  describe("resume: bearer token", () => {
    const cases: [string, Record<string, string>, RegExp][] = [
      ["missing", {}, /missing Authorization header/],
      ["malformed (no credentials)", { authorization: "Bearer" }, /malformed Authorization header/],
      ["wrong scheme", { authorization: `Basic ${Buffer.from("a:b").toString("base64")}` }, /needs Bearer/],
      ["wrong token", { authorization: "Bearer not-the-token" }, /invalid bearer token/],
      ["token with extra prefix", { authorization: `Bearer x${TOKEN}` }, /invalid bearer token/],
    ];
    for (const [name, headers, pattern] of cases) {
      it(`${name} → 401 JSON, nothing resumed`, async () => {
        const res = await fetch(`${emu().url}/v2/workflows/dlq/resume`, { method: "POST", headers });
        const message = await expectError(res, 401, pattern);
        assert.ok(!message.includes(TOKEN));
        assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer/);
        assert.equal(emu().state.dlq.size, 3);
        assert.equal(emu().state.ledger.totals().resumedTotal, 0);
      });
    }

    it("right token → 200; scheme is case-insensitive", async () => {
      const res = await resumeRaw(emu(), {}, { authorization: `bearer ${TOKEN}` });
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { workflowRuns: unknown[] }).workflowRuns.length, 3);
    });
  });

  describe("account: HTTP Basic", () => {
    const get = (authorization?: string): Promise<Response> =>
      fetch(`${emu().url}/v2/svc/user`, { headers: authorization === undefined ? {} : { authorization } });

    it("missing → 401", async () => {
      await expectError(await get(), 401, /missing Authorization header/);
    });
    it("not base64 → 401 malformed", async () => {
      await expectError(await get("Basic @@@@"), 401, /not base64/);
    });
    it("no colon → 401 malformed", async () => {
      await expectError(
        await get(`Basic ${Buffer.from("nocolon").toString("base64")}`),
        401,
        /username:password/,
      );
    });
    it("bearer instead of basic → 401", async () => {
      await expectError(await get(`Bearer ${TOKEN}`), 401, /needs Basic/);
    });
    it("wrong password → 401 without echoing credentials", async () => {
      const res = await get(basic(USERNAME, "wrong"));
      const message = await expectError(res, 401, /invalid username or password/);
      assert.ok(!message.includes(PASSWORD) && !message.includes("wrong") && !message.includes(USERNAME));
    });
    it("wrong username → 401", async () => {
      await expectError(await get(basic("other@example.com", PASSWORD)), 401, /invalid username or password/);
    });
    it("right credentials → 200", async () => {
      const res = await get(basic());
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "application/json");
    });
    it("password may contain a colon", async () => {
      emu().state.account.patch({ password: "pa:ss" });
      assert.equal((await get(basic(USERNAME, "pa:ss"))).status, 200);
    });
  });

  describe("constant-time comparison", () => {
    it("secretsEqual compares SHA-256 digests with crypto.timingSafeEqual", () => {
      const crypto = require("node:crypto") as typeof import("node:crypto");
      const original = crypto.timingSafeEqual;
      const lengths: number[][] = [];
      crypto.timingSafeEqual = ((a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
        lengths.push([a.byteLength, b.byteLength]);
        return original(a, b);
      }) as typeof original;
      try {
        assert.equal(secretsEqual("short", "a-much-longer-secret"), false);
        assert.equal(secretsEqual("same", "same"), true);
      } finally {
        crypto.timingSafeEqual = original;
      }
      assert.deepEqual(lengths, [
        [32, 32],
        [32, 32],
      ]);
    });

    it("the bearer check goes through timingSafeEqual", async () => {
      const crypto = require("node:crypto") as typeof import("node:crypto");
      const original = crypto.timingSafeEqual;
      let calls = 0;
      crypto.timingSafeEqual = ((a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
        calls++;
        return original(a, b);
      }) as typeof original;
      try {
        await (await resumeRaw(emu(), {}, { authorization: "Bearer x" })).text();
      } finally {
        crypto.timingSafeEqual = original;
      }
      assert.equal(calls, 1);
    });
  });
});
