/**
 * DlqRecovery at the account's rate limit, end to end: the real Pulumi CLI against the emulator
 * with `max_requests_per_second` enforced (its default). Three DlqRecovery resources of one `up`
 * share one provider process and so one rate gate; a drain cut off with windows in flight is
 * continued by the next `up`. The emulator's ledger (each entry resumed once) and request log
 * (statuses, `rateLimited`) are the witnesses.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { PulumiProject, resourceOfType } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";

const CREDS = {
  token: "tok-e2e-rate-4c81f0d2b7",
  username: "rate-ops@example.com",
  password: "pw-e2e-rate-9a3e51c7",
};
const TYPE = "svc:index:DlqRecovery";
const RESUME = "/v2/workflows/dlq/resume";
const ACCOUNT = "/v2/svc/user";

/** One DlqRecovery per element of the JSON list in stack config `args`. */
const PROGRAM = `
import * as pulumi from "@pulumi/pulumi";
import { DlqRecovery } from "pulumi-svc";
const list: Record<string, unknown>[] = JSON.parse(new pulumi.Config().require("args"));
const recoveries = list.map((args, i) => new DlqRecovery(\`recovery-\${i}\`, args));
export const resumedCount = recoveries.map((r) => r.resumedCount);
export const requestCount = recoveries.map((r) => r.requestCount);
export const complete = recoveries.map((r) => r.complete);
`;

/** Three of the workflows the emulator seeds, one DlqRecovery each. */
const WORKFLOWS = [
  "http://127.0.0.1/workflows/orders",
  "http://127.0.0.1/workflows/payments",
  "http://127.0.0.1/workflows/emails",
];

describe("e2e: DlqRecovery at the account's rate limit", function () {
  this.timeout(900_000);
  let emulator: RunningEmulator;
  const projects: PulumiProject[] = [];

  async function project(name: string, args: Record<string, unknown>[]): Promise<PulumiProject> {
    const p = await PulumiProject.create({ name, program: PROGRAM });
    projects.push(p);
    await p.setConfig("svc:baseUrl", emulator.url);
    await p.setConfig("svc:token", CREDS.token, true);
    await p.setConfig("svc:accountApiUrl", emulator.url);
    await p.setConfig("svc:username", CREDS.username);
    await p.setConfig("svc:password", CREDS.password, true);
    await p.setConfig("args", JSON.stringify(args));
    return p;
  }

  /** The `/v2` requests since `since` (an index of the request log). */
  function since(from: number, path: string) {
    return emulator.state.log.since(from, 1_000_000).filter((r) => r.path === path);
  }

  /** Entries of the DLQ whose workflow is `url`. */
  function entriesOf(url: string): string[] {
    return emulator.state.dlq
      .page(0, 1_000_000)
      .filter((e) => e.workflowUrl === url)
      .map((e) => e.dlqId);
  }

  before(async () => {
    // payg: max_requests_per_second 100, enforced by default.
    emulator = await startEmulator({ plan: "payg", ...CREDS });
  });
  after(async () => {
    try {
      const places: Record<string, string> = {};
      for (const p of projects) {
        places[`${p.dir} CLI output`] = p.transcript;
        const state = fs.existsSync(p.backendDir) ? p.stateFile() : undefined;
        if (state) places[`${p.dir} state file`] = fs.readFileSync(state, "utf8");
      }
      assertNoSecrets(places, secretForms({ token: CREDS.token, password: CREDS.password }));
    } finally {
      for (const p of projects) await p.cleanup();
      await emulator?.close();
    }
  });

  it("three DlqRecovery resources of one up share the account's limit: each entry once, at most 5 % 429s", async () => {
    emulator.reset();
    emulator.seed(40_000, 31);
    const selected = WORKFLOWS.map(entriesOf);
    const total = selected.reduce((n, ids) => n + ids.length, 0);
    assert.ok(total > 20_000, `${total} entries selected`);
    const p = await project(
      "rate-shared",
      WORKFLOWS.map((workflowUrl) => ({ workflowUrl })),
    );
    const from = emulator.state.log.total;
    await p.up();

    const resumes = since(from, RESUME);
    const limited = resumes.filter((r) => r.rateLimited === true).length;
    const answered = resumes.filter((r) => r.status === 200).length;
    const outputs = await p.outputs();
    const requestCount = outputs.requestCount as number[];
    console.log(
      `      ${total} entries, 3 resources: ${resumes.length} resume requests, ${answered} answered, ` +
        `${limited} rate limited (429), ceil(N/50) per resource ${selected.map((ids) => Math.ceil(ids.length / 50)).join("+")}, ` +
        `requestCount ${requestCount.join("+")}`,
    );
    // Exactly once, and only the selected workflows.
    const totals = emulator.state.ledger.totals();
    assert.equal(totals.duplicates, 0, "no entry resumed twice");
    assert.equal(totals.distinctEntriesResumed, total, "every selected entry resumed");
    for (const ids of selected) {
      for (const id of ids) assert.equal(emulator.state.ledger.runsFor(id).length, 1, `runs for ${id}`);
    }
    assert.deepEqual(
      outputs.resumedCount,
      selected.map((ids) => ids.length),
    );
    assert.deepEqual(outputs.complete, [true, true, true]);
    // Outputs count the requests answered, exactly.
    assert.equal(
      requestCount.reduce((a, b) => a + b, 0),
      answered,
    );
    selected.forEach((ids, i) => {
      const ideal = Math.ceil(ids.length / 50);
      assert.ok(
        requestCount[i] >= ideal && requestCount[i] <= Math.ceil(1.1 * ideal) + 4,
        `resource ${i}: ${requestCount[i]} requests for ${ids.length} entries`,
      );
    });
    // One gate for the three: the limit is kept, 429s are rare.
    assert.ok(limited <= 0.05 * resumes.length, `${limited} of ${resumes.length} requests got 429`);
    // The account is read once per provider process: the three resources share one process.
    assert.equal(since(from, ACCOUNT).length, 1, "one account read for the three resources");
    assert.match(
      p.transcript,
      /runs resumed in \d+ requests? \(\d+ runs\/s, \d+ req\/s of 100\/s allowed\), \d+ windows? in flight/,
    );
  });

  it("a drain cut off with windows in flight is continued by the next up: each entry once, counts exact", async () => {
    emulator.reset();
    emulator.seed(8_000, 32);
    // 50 ms a request, so several windows are in flight; request #40 is refused (401, not retried).
    emulator.setFaults({ latencyMs: 50, failRequestNumbers: [40], failStatus: 401 });
    const p = await project("rate-cut", [{ all: true }]);
    const from = emulator.state.log.total;
    const failed = await p.up([], { allowFailure: true });
    assert.notEqual(failed.code, 0);
    assert.match(failed.stdout + failed.stderr, /was cut off after resuming \d+ runs in \d+ requests/);
    const { deployment } = await p.exportState();
    const saved = resourceOfType(deployment, TYPE).outputs ?? {};
    assert.equal(saved.complete, false);
    const windowState = saved.windowState as { windows: unknown[] } | undefined;
    assert.ok(
      windowState !== undefined && windowState.windows.length >= 2,
      `the saved state holds the windows in flight: ${JSON.stringify(windowState)}`,
    );
    assert.ok(JSON.stringify(windowState).length < 8_000, "the saved window state is a few kB at most");
    const cutResumed = saved.resumedCount as number;
    assert.ok(cutResumed > 0 && cutResumed < 8_000, `${cutResumed} resumed before the cut`);
    assert.equal(emulator.state.ledger.totals().distinctEntriesResumed, cutResumed);

    emulator.setFaults({});
    await p.up();
    const outputs = await p.outputs();
    assert.deepEqual(outputs.complete, [true]);
    assert.deepEqual(outputs.resumedCount, [8_000]);
    const answered = since(from, RESUME).filter((r) => r.status === 200).length;
    assert.deepEqual(
      outputs.requestCount,
      [answered],
      "requestCount counts every answered request of both ups",
    );
    const totals = emulator.state.ledger.totals();
    assert.equal(totals.distinctEntriesResumed, 8_000);
    assert.equal(totals.duplicates, 0);
    assert.equal(emulator.state.dlq.size, 0);
    const { deployment: after } = await p.exportState();
    assert.equal(
      resourceOfType(after, TYPE).outputs?.windowState,
      undefined,
      "no window state once complete",
    );
  });
});
