/**
 * What the emulator answers to a `dlqIds` batch with IDs not in the DLQ (the service's behaviour is
 * not documented): `"refuse"` (default) answers 404 and resumes nothing; `"resume-known"` resumes
 * the known IDs and answers 200 with fewer runs, 404 when it knows none; the option, the run-time
 * setting and the CLI flag.
 */
import { strict as assert } from "node:assert";
import { startEmulator, type RunningEmulator } from "../../../emulator";
import { parseCliArgs } from "../../../emulator/cli-args";

const TOKEN = "tok-emu-unknown-ids-8d2f";

describe("emulator: dlqIds not in the DLQ", () => {
  let emu: RunningEmulator;
  afterEach(async () => {
    await emu?.close();
  });

  async function resume(ids: string[]): Promise<{ status: number; body: Record<string, unknown> }> {
    const query = ids.map((id) => `dlqIds=${encodeURIComponent(id)}`).join("&");
    const res = await fetch(`${emu.url}/v2/workflows/dlq/resume?${query}`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }
  const live = () => emu.state.dlq.page(0, 1_000).map((e) => e.dlqId);

  it('"refuse" (the default): 404 "Some DLQ messages were not found", nothing resumed', async () => {
    emu = await startEmulator({ token: TOKEN, dlq: 3 });
    const [a, b] = live();
    const r = await resume([a, "dlq_unknown", b]);
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, { error: "Some DLQ messages were not found" });
    assert.equal(emu.state.dlq.size, 3);
    assert.equal(emu.state.ledger.totals().resumedTotal, 0);
  });

  it('"resume-known": the known IDs are resumed, 200 with fewer runs; 404 when none is known; the log names those left out', async () => {
    emu = await startEmulator({ token: TOKEN, dlq: 3, unknownDlqIds: "resume-known" });
    const [a, b, c] = live();
    const r = await resume([a, "dlq_unknown", b]);
    assert.equal(r.status, 200);
    assert.equal((r.body.workflowRuns as unknown[]).length, 2);
    assert.deepEqual(live(), [c]);
    const logged = emu.state.log.since(0, 10).filter((e) => e.path === "/v2/workflows/dlq/resume");
    assert.match(String(logged[0].error), /not in the DLQ: "dlq_unknown"/);
    assert.equal((await resume(["dlq_unknown", a])).status, 404, "a resumed ID is unknown from then on");
    emu.state.unknownDlqIds = "refuse";
    assert.equal((await resume([c, "dlq_unknown"])).status, 404, "settable at run time");
    assert.deepEqual(live(), [c]);
  });

  it("refuses another mode, naming it; the CLI takes --unknown-dlq-ids", async () => {
    await assert.rejects(
      startEmulator({ unknownDlqIds: "skip" as never }),
      /unknownDlqIds must be one of refuse, resume-known, got "skip"/,
    );
    assert.deepEqual(parseCliArgs(["--unknown-dlq-ids", "resume-known"]).options, {
      unknownDlqIds: "resume-known",
    });
    assert.throws(
      () => parseCliArgs(["--unknown-dlq-ids=all"]),
      /--unknown-dlq-ids must be one of refuse, resume-known/,
    );
  });
});
