import assert from "node:assert/strict";
import { startEmulator } from "../../../emulator";

describe("startEmulator", () => {
  it("listens on 127.0.0.1 on a free port and serves both APIs at one URL", async () => {
    const emu = await startEmulator();
    try {
      assert.match(emu.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(emu.url, `http://127.0.0.1:${emu.port}`);
      assert.equal(emu.adminUrl, `${emu.url}/admin`);
      assert.equal(emu.state.account.plan, "free");
      assert.equal(emu.state.dlq.size, 0);
    } finally {
      await emu.close();
    }
  });

  it("applies dlq, seed, plan, credentials and faults options; close is idempotent", async () => {
    const emu = await startEmulator({
      dlq: 7,
      seed: 3,
      plan: "fixed",
      token: "t",
      username: "team_1",
      password: "p",
      faults: { error5xxRate: 0 },
    });
    assert.equal(emu.state.dlq.size, 7);
    assert.equal(emu.state.account.record.reserved_type, "svc_enterprise_1m");
    assert.equal(emu.state.account.record.customer_id, "team_1");
    assert.deepEqual(emu.state.faults.config, { error5xxRate: 0 });
    await Promise.all([emu.close(), emu.close()]);
    await emu.close();
  });

  it("rejects bad options naming the option and value", async () => {
    await assert.rejects(
      startEmulator({ host: "0.0.0.0" }),
      /host must be a loopback address .* got "0\.0\.0\.0"/,
    );
    await assert.rejects(
      startEmulator({ port: 70000 }),
      /port must be an integer from 0 to 65535, got 70000/,
    );
    await assert.rejects(startEmulator({ dlq: -1 }), /dlq must be an integer/);
    await assert.rejects(
      startEmulator({ plan: "gold" as never }),
      /plan must be one of free, payg, fixed, paid, got "gold"/,
    );
    await assert.rejects(startEmulator({ token: "" }), /token must be a non-empty string/);
    await assert.rejects(
      startEmulator({ faults: { error5xxRate: 9 } }),
      /error5xxRate must be a number from 0 to 1/,
    );
  });

  it("a taken port is reported", async () => {
    const first = await startEmulator();
    try {
      await assert.rejects(startEmulator({ port: first.port }), /EADDRINUSE/);
    } finally {
      await first.close();
    }
  });
});
