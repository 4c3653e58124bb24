import assert from "node:assert/strict";
import { PLAN_PRESETS } from "../../../emulator";
import { ACCOUNT_CREATED_MS, AccountStore, stableAccountId } from "../../../emulator/account";
import { admin, basic, expectError, PASSWORD, TOKEN, useEmulator, USERNAME } from "./helpers";

/** Spec 2.3 fields and their JSON types. */
const SPEC_FIELDS: Record<string, "string" | "number" | "boolean"> = {
  customer_id: "string",
  id: "string",
  password: "string",
  token: "string",
  active: "boolean",
  state: "string",
  last_plan_upgrade_time: "number",
  max_message_size: "number",
  max_requests_per_day: "number",
  max_requests_per_day_hard: "number",
  max_endpoints_per_topic: "number",
  max_requests_per_second: "number",
  max_dlq_size: "number",
  max_retries: "number",
  max_topics: "number",
  max_schedules: "number",
  max_events_size: "number",
  max_dlq_retention_time_milis: "number",
  max_delay: "number",
  max_parallelism: "number",
  max_global_parallelism: "number",
  max_queues: "number",
  prod_pack_enabled: "boolean",
  timeout: "number",
  type: "string",
  reserved_type: "string",
  reserved_price: "number",
  created_by: "string",
  creation_time: "number",
};

/** A controllable clock, a day after the account's creation. */
let clock = ACCOUNT_CREATED_MS + 86_400_000;

describe("emulator account record", () => {
  const getRecord = async (url: string, auth = basic()): Promise<Record<string, unknown>> => {
    const res = await fetch(`${url}/v2/svc/user`, { headers: { authorization: auth } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json");
    return (await res.json()) as Record<string, unknown>;
  };

  for (const plan of ["free", "payg", "fixed", "paid"] as const) {
    describe(`plan ${plan}`, () => {
      const emu = useEmulator({ plan, now: () => clock });

      it("has every spec 2.3 field with the right type, plus extra fields", async () => {
        const record = await getRecord(emu().url);
        for (const [field, type] of Object.entries(SPEC_FIELDS)) {
          assert.equal(typeof record[field], type, `field ${field}`);
        }
        assert.equal(record.customer_id, USERNAME);
        assert.equal(record.token, TOKEN);
        assert.equal(record.password, PASSWORD);
        assert.match(
          record.id as string,
          /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
        );
        assert.equal(record.id, stableAccountId(USERNAME));
        assert.equal(record.state, "active");
        assert.equal(record.active, true);
        assert.equal(record.creation_time, ACCOUNT_CREATED_MS / 1000);
        assert.equal(record.last_plan_upgrade_time, ACCOUNT_CREATED_MS / 1000);
        const extra = Object.keys(record).filter((k) => !(k in SPEC_FIELDS));
        assert.ok(extra.length >= 1, "at least one field the spec does not list");
        assert.equal(record.region, "local-1");
        for (const [field, value] of Object.entries(PLAN_PRESETS[plan]))
          assert.equal(record[field], value, field);
      });
    });
  }

  describe("published values", () => {
    it("free matches the published free example", () => {
      assert.deepEqual(PLAN_PRESETS.free, {
        max_message_size: 1048576,
        max_requests_per_day: 1000,
        max_requests_per_day_hard: 1000,
        max_endpoints_per_topic: 100,
        max_requests_per_second: 100,
        max_dlq_size: 1000000,
        max_retries: 999,
        max_topics: 1,
        max_schedules: 10,
        max_events_size: 10000,
        max_dlq_retention_time_milis: 259200000,
        max_delay: 604800,
        max_parallelism: 2,
        max_global_parallelism: 10,
        max_queues: 10,
        prod_pack_enabled: false,
        timeout: 900,
        type: "free",
        reserved_type: "",
        reserved_price: 0,
      });
    });
    it("payg matches the plan table", () => {
      const p = PLAN_PRESETS.payg;
      assert.deepEqual(
        [p.max_delay, p.timeout, p.max_dlq_retention_time_milis, p.max_parallelism, p.max_global_parallelism],
        [31536000, 7200, 604800000, 10, 100],
      );
      assert.equal(p.type, "paid");
      assert.equal(p.reserved_type, "paid");
    });
    it("fixed matches the published paid fixed-price example", () => {
      const p = PLAN_PRESETS.fixed;
      assert.equal(p.max_message_size, 52428800);
      assert.equal(p.max_dlq_size, 2147483647);
      assert.equal(p.max_retries, 20);
      assert.equal(p.max_dlq_retention_time_milis, 2592000000);
      assert.equal(p.max_delay, 2147483647);
      assert.equal(p.max_global_parallelism, 200);
      assert.equal(p.timeout, 21600);
      assert.equal(p.type, "paid");
      assert.equal(p.reserved_price, 180);
    });
  });

  describe("changes", () => {
    const emu = useEmulator({ plan: "free", now: () => clock });

    it("PUT /admin/plan switches the preset and updates last_plan_upgrade_time", async () => {
      clock += 3_600_000;
      const { status, body } = await admin(emu(), "PUT", "/admin/plan", { plan: "payg" });
      assert.equal(status, 200);
      assert.equal(body.type, "paid");
      const record = await getRecord(emu().url);
      assert.equal(record.max_parallelism, 10);
      assert.equal(record.reserved_type, "paid");
      assert.equal(record.last_plan_upgrade_time, Math.floor(clock / 1000));
      assert.equal(record.creation_time, ACCOUNT_CREATED_MS / 1000);
    });

    it("serves the same record times after a restart, so a second up sees no change of plan", () => {
      const init = { token: TOKEN, username: USERNAME, password: PASSWORD, plan: "free" as const };
      const first = new AccountStore({ ...init, now: clock }).record;
      const later = new AccountStore({ ...init, now: clock + 7 * 86_400_000 }).record;
      assert.deepEqual(later, first);
      // A clock set before that time (a test's) still gets a creation time in its past.
      const early = new AccountStore({ ...init, now: ACCOUNT_CREATED_MS - 1_000 }).record;
      assert.equal(early.creation_time, (ACCOUNT_CREATED_MS - 1_000) / 1000);
    });

    it("setPlan on the running emulator does the same", async () => {
      emu().setPlan("fixed");
      assert.equal((await getRecord(emu().url)).reserved_price, 180);
    });

    it("PUT /admin/plan rejects an unknown plan naming the value", async () => {
      const res = await fetch(`${emu().url}/admin/plan`, {
        method: "PUT",
        body: JSON.stringify({ plan: "gold" }),
      });
      await expectError(res, 400, /plan must be one of free, payg, fixed, paid, got "gold"/);
    });

    it("PATCH /admin/account changes fields, adds unknown ones, deletes with null", async () => {
      const { status } = await admin(emu(), "PATCH", "/admin/account", {
        max_parallelism: 7,
        state: "passive",
        budget: 42,
        region: null,
      });
      assert.equal(status, 200);
      const record = await getRecord(emu().url);
      assert.equal(record.max_parallelism, 7);
      assert.equal(record.state, "passive");
      assert.equal(record.budget, 42);
      assert.ok(!("region" in record));
    });

    it("PATCH /admin/account validates known fields, all-or-nothing", async () => {
      for (const [patch, pattern] of [
        [{ max_parallelism: -1 }, /max_parallelism must be a non-negative integer, got -1/],
        [{ state: "gone" }, /state must be one of "active", "passive", got "gone"/],
        [{ active: "yes" }, /active must be a boolean, got "yes"/],
        [{ token: null }, /token cannot be deleted/],
        [{ max_queues: 5, type: "gold" }, /type must be one of/],
      ] as const) {
        const res = await fetch(`${emu().url}/admin/account`, {
          method: "PATCH",
          body: JSON.stringify(patch),
        });
        await expectError(res, 400, pattern);
      }
      assert.equal((await getRecord(emu().url)).max_queues, 10);
    });

    it("patching token and password rotates the credentials", async () => {
      await admin(emu(), "PATCH", "/admin/account", { token: "new-token", password: "new-password" });
      const old = await fetch(`${emu().url}/v2/svc/user`, { headers: { authorization: basic() } });
      assert.equal(old.status, 401);
      await getRecord(emu().url, basic(USERNAME, "new-password"));
      const res = await fetch(`${emu().url}/v2/workflows/dlq/resume`, {
        method: "POST",
        headers: { authorization: "Bearer new-token" },
      });
      assert.equal(res.status, 200);
    });
  });
});
