import assert from "node:assert/strict";
import { RequestLog } from "../../../emulator/request-log";
import { admin, basic, PASSWORD, resumeRaw, TOKEN, useEmulator } from "./helpers";

describe("emulator request log", () => {
  const emu = useEmulator({ dlq: 5 });

  it("never contains the token, the password or the Basic credentials", async () => {
    const encoded = Buffer.from(`emulator@example.com:${PASSWORD}`).toString("base64");
    await resumeRaw(emu(), { count: 1 });
    await resumeRaw(emu(), {}, { authorization: "Bearer wrong" });
    await resumeRaw(emu(), { workflowUrl: `x${TOKEN}y` });
    await resumeRaw(emu(), {}, { "Svc-Flow-Control-Key": PASSWORD });
    await fetch(`${emu().url}/v2/svc/user`, { headers: { authorization: basic() } });
    await fetch(`${emu().url}/v2/svc/user`, { headers: { authorization: basic("x", "y") } });
    const { body } = await admin(emu(), "GET", "/admin/requests");
    const text = JSON.stringify(body);
    assert.equal((body.requests as unknown[]).length, 6);
    for (const secret of [TOKEN, PASSWORD, encoded, "Bearer wrong"]) {
      assert.ok(!text.includes(secret), `log contains ${secret}`);
    }
    for (const request of body.requests as Record<string, unknown>[]) {
      assert.ok(!JSON.stringify(request.overrideHeaders).toLowerCase().includes("authorization"));
      assert.ok(!Object.keys(request).some((k) => k.toLowerCase().includes("auth")));
    }
    assert.match(text, /\[redacted\]/);
  });

  it("error bodies never echo credentials", async () => {
    const res = await resumeRaw(emu(), { workflowRunId: TOKEN, fromDate: `${TOKEN}` });
    const text = await res.text();
    assert.equal(res.status, 400);
    assert.ok(!text.includes(TOKEN), text);
  });

  it("is bounded, keeps indexes stable and serves ?since", () => {
    const log = new RequestLog(100);
    for (let i = 0; i < 250; i++) {
      log.add({
        time: i,
        method: "POST",
        path: "/p",
        query: {},
        overrideHeaders: {},
        status: 200,
        resumed: 0,
      });
    }
    assert.equal(log.total, 250);
    const kept = log.since(0);
    assert.ok(kept.length <= 100 && kept.length >= 90, String(kept.length));
    assert.equal(kept[kept.length - 1].index, 249);
    assert.equal(log.oldestIndex, kept[0].index);
    assert.deepEqual(
      log.since(247).map((r) => r.index),
      [247, 248, 249],
    );
    assert.deepEqual(log.since(250), []);
  });
});
