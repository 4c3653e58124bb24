/**
 * DlqRecovery at the account's daily limit, end to end: the real Pulumi CLI against the emulator
 * with a daily limit enabled. A drain stopped by the limit fails at once with the message (the
 * limit, that it is spent, when it resets), saving its partial state; `pulumi up` after the
 * emulator starts a new day completes it. The emulator's ledger and request log are the witnesses.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { PulumiProject, resourceOfType } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";

const CREDS = {
  token: "tok-e2e-daily-7d20c4e91a",
  username: "daily-ops@example.com",
  password: "pw-e2e-daily-3b8f62d0",
};
const TYPE = "svc:index:DlqRecovery";
const RESUME = "/v2/workflows/dlq/resume";

const PROGRAM = `
import { DlqRecovery } from "pulumi-svc";
const r = new DlqRecovery("recovery", { all: true });
export const resumedCount = r.resumedCount;
export const requestCount = r.requestCount;
export const complete = r.complete;
`;

describe("e2e: DlqRecovery at the account's daily limit", function () {
  this.timeout(900_000);
  let emulator: RunningEmulator;
  let p: PulumiProject | undefined;

  before(async () => {
    emulator = await startEmulator({ plan: "payg", ...CREDS, dailyLimit: 40 });
  });
  after(async () => {
    try {
      if (p) {
        const places: Record<string, string> = { "CLI output": p.transcript };
        const state = fs.existsSync(p.backendDir) ? p.stateFile() : undefined;
        if (state) places["state file"] = fs.readFileSync(state, "utf8");
        assertNoSecrets(places, secretForms({ token: CREDS.token, password: CREDS.password }));
      }
    } finally {
      await p?.cleanup();
      await emulator?.close();
    }
  });

  it("a drain stopped by the daily limit fails at once with the reset time; up after a new day completes it, each entry once", async () => {
    const n = 8_000;
    emulator.seed(n, 41);
    emulator.setFaults({ latencyMs: 50, endpoints: ["resume"] });
    p = await PulumiProject.create({ name: "daily-limit", program: PROGRAM });
    await p.setConfig("svc:baseUrl", emulator.url);
    await p.setConfig("svc:token", CREDS.token, true);
    await p.setConfig("svc:accountApiUrl", emulator.url);
    await p.setConfig("svc:username", CREDS.username);
    await p.setConfig("svc:password", CREDS.password, true);

    const started = Date.now();
    const failed = await p.up([], { allowFailure: true });
    const seconds = (Date.now() - started) / 1000;
    assert.notEqual(failed.code, 0);
    const out = failed.stdout + failed.stderr;
    assert.match(out, /daily limit of 40 requests is spent/);
    assert.match(out, /resets at \d{4}-\d\d-\d\d 00:00:00 UTC \(in \d+ (h|min|s)/);
    assert.match(out, /`pulumi up` after that continues where the drain stopped and resumes nothing twice/);
    // What to do next: run it after the reset, with its time; `pulumi up` at once only gets refusals.
    assert.match(
      out,
      /Run `pulumi up` after the reset at \d{4}-\d\d-\d\d 00:00:00 UTC to continue where it stopped; before that, the service refuses every request it sends\./,
    );
    assert.doesNotMatch(out, /Run `pulumi up` again/);
    assert.doesNotMatch(out, /gave up after \d+ attempts/);
    const log = emulator.state.log.since(0, 1_000_000).filter((r) => r.path === RESUME);
    const refused = log.filter((r) => r.dailyLimited === true).length;
    console.log(
      `      stopped after ${seconds.toFixed(1)} s (the whole up): ${log.length} resume requests, ` +
        `${refused} refused by the daily limit`,
    );
    // The answers say what is left of the day: no request is sent that the day cannot take.
    assert.equal(refused, 0, `${refused} requests refused by the daily limit`);
    const { deployment } = await p.exportState();
    const saved = resourceOfType(deployment, TYPE).outputs ?? {};
    assert.equal(saved.complete, false);
    assert.equal(saved.requestCount, 40);
    assert.equal(saved.resumedCount, emulator.state.ledger.totals().distinctEntriesResumed);
    assert.match(String(saved.lastError), /SVC_DAILY_LIMIT/);

    emulator.newDay();
    emulator.setDailyLimit(1_000);
    await p.up();
    const outputs = await p.outputs();
    assert.equal(outputs.complete, true);
    assert.equal(outputs.resumedCount, n);
    const totals = emulator.state.ledger.totals();
    assert.equal(totals.distinctEntriesResumed, n);
    assert.equal(totals.duplicates, 0);
    assert.equal(emulator.state.dlq.size, 0);
  });
});
