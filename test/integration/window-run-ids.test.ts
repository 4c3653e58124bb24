/**
 * A clustered drain of the run IDs the service really holds, against the real emulator over
 * loopback: a one-second outage of 5,000 entries named `sdk` (the official SDK's
 * nanoids), `app` (an application's own numbered IDs) and `mixed` (half each) by the emulator
 * (`runIds`), added through its admin API. Each drain resumes every entry once (the emulator's
 * ledger) within the allowance, with no window by run ID; a drain cut off mid-way continues from
 * its saved state and resumes every entry once. Counts, not timings.
 */
import * as assert from "node:assert/strict";
import {
  DrainClient,
  DrainError,
  RateGateRegistry,
  requestAllowance,
  type RateGate,
  type UnpacedWindowDrainOptions,
  type WindowDrainProgress,
} from "../../drain";
import { startEmulator, type RunningEmulator, type RunIdShape } from "../../emulator";
import { DISTRIBUTIONS } from "../../bench/lib/windowSim";

const CREDS = {
  token: "tok-run-ids-7f2a9c",
  username: "ops@example.com",
  password: "pw-run-ids-4d81e6",
};

/** Entries of the outage, as in the benchmark's clustered rows at 5,000 (`bench/windowScenarios.ts`). */
const N = 5_000;

/** What an SDK and an application run ID look like (`emulator/run-ids.ts`). */
const SDK_ID = /^wfr_[A-Za-z0-9_-]{21}$/;
const APP_ID = /^wfr_[a-z]+-[0-9]{7}$/;

/** Where each shape's drain is cut off: after this share of the entries was resumed. */
const CUT_AT: Record<string, number> = { sdk: 0.25, app: 0.5, mixed: 0.75 };

describe("integration: a clustered drain of the service's run IDs ↔ emulator over loopback", function () {
  this.timeout(120_000);

  for (const shape of ["sdk", "app", "mixed"] as const satisfies readonly RunIdShape[]) {
    describe(`${shape} run IDs`, () => {
      let emulator: RunningEmulator;

      before(async () => {
        emulator = await startEmulator({ plan: "payg", runIds: shape, ...CREDS });
      });
      beforeEach(async () => {
        emulator.reset();
        // A round trip of 20 to 28 ms, so answers come back out of order as over a network; the
        // payg account's 100 requests a second enforced by the emulator.
        emulator.setFaults({ seed: 42, latencyMs: 20, latencyJitterMs: 8, endpoints: ["resume"] });
        await seedOutage(emulator, shape);
      });
      after(async () => emulator?.close());

      it(`resumes a one-second outage of ${N.toLocaleString("en-US")} entries once each, within the allowance`, async () => {
        const res = await drain(emulator, gateOf(emulator));
        assertLedgerExact(emulator);
        assert.equal(res.resumedCount, N);
        const allowance = requestAllowance(N, res.budgetNet ?? {});
        assert.ok(res.requestCount <= allowance, `${res.requestCount} requests > the allowance ${allowance}`);
        const limited = emulator.state.rateLimit.stats().limited;
        assert.equal(res.requestCount + limited, emulator.state.log.total, "every request answered or 429");
        // Alone on the account the gate keeps within the limit; a stalled event loop may bunch a few.
        assert.ok(limited <= 0.05 * res.requestCount, `${limited} requests were answered 429`);
        assert.ok(res.splits > 0 && res.maxInFlight > 1, "the cluster was split and drained in parallel");
        assert.deepEqual(windowsByRunId(emulator), [], "no window selects by run ID");
      });

      it(`continues a drain cut off after ${CUT_AT[shape] * 100} % of the entries, each entry once`, async () => {
        const gate = gateOf(emulator);
        const abort = new AbortController();
        const err = await drain(emulator, gate, {
          signal: abort.signal,
          onPage: (e) => {
            if (!abort.signal.aborted && e.resumedCount >= CUT_AT[shape] * N) abort.abort(); // SIGINT
          },
        }).then(
          () => assert.fail("the drain should have been cut off"),
          (e: unknown) => e,
        );
        assert.ok(err instanceof DrainError && err.code === "SVC_ABORTED", String(err));
        const saved = JSON.parse(
          JSON.stringify(err.partial.windowState),
        ) as WindowDrainProgress["windowState"];
        assert.ok(saved.windows.length >= 1, "the saved state holds the windows left");
        assert.ok(JSON.stringify(saved).length < 4096, "bounded state");
        assert.ok(emulator.state.dlq.size > 0 && emulator.state.dlq.size < N, "cut off mid-way");
        assert.equal(emulator.state.ledger.totals().distinctEntriesResumed, err.partial.resumedCount);

        const rest = await drain(emulator, gate, { state: saved });
        assertLedgerExact(emulator);
        assert.equal(err.partial.resumedCount + rest.resumedCount, N);
        const requests = err.partial.requestCount + rest.requestCount;
        const allowance = requestAllowance(N, rest.budgetNet ?? {});
        assert.ok(requests <= allowance, `${requests} requests > ${allowance}`);
        assert.deepEqual(windowsByRunId(emulator), [], "no window selects by run ID");
      });
    });
  }
});

/**
 * Adds the outage's entries through `POST /admin/entries`, failure times only: the emulator names
 * them in its `runIds` shape. Checks that the IDs have that shape.
 */
async function seedOutage(emulator: RunningEmulator, shape: RunIdShape): Promise<void> {
  const entries = DISTRIBUTIONS.outage2h(N, 42, Date.now()).map((failedAt) => ({ failedAt }));
  const added = await fetch(`${emulator.url}/admin/entries`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(entries),
  });
  assert.equal(added.status, 201, await added.clone().text());
  assert.equal(((await added.json()) as { added: number }).added, N);
  const listed = await fetch(`${emulator.url}/admin/entries?limit=${N}`);
  const ids = ((await listed.json()) as { entries: { workflowRunId: string }[] }).entries.map(
    (e) => e.workflowRunId,
  );
  assert.equal(ids.length, N);
  const sdk = ids.filter((id) => SDK_ID.test(id)).length;
  const app = ids.filter((id) => APP_ID.test(id)).length;
  assert.equal(sdk + app, N, `${shape}: every ID is an SDK or an application ID`);
  if (shape === "sdk") assert.equal(sdk, N);
  if (shape === "app") assert.equal(app, N);
  if (shape === "mixed") assert.ok(sdk > 0.4 * N && app > 0.4 * N, `mixed: ${sdk} SDK and ${app} app IDs`);
}

/** A fresh gate for the account, learning its rate from `Burst-RateLimit-*` (no account settings). */
function gateOf(emulator: RunningEmulator): RateGate {
  return new RateGateRegistry().forAccount(emulator.url, CREDS.token);
}

/** Drains `{}` (no dates: the 90-day default horizon) with the default concurrency. */
async function drain(
  emulator: RunningEmulator,
  gate: RateGate,
  more: Pick<UnpacedWindowDrainOptions, "signal" | "onPage" | "state"> = {},
): Promise<WindowDrainProgress> {
  const c = new DrainClient({
    baseUrl: emulator.url,
    token: CREDS.token,
    retry: { maxRetries: 10, baseDelayMs: 5, maxDelayMs: 1_100, maxTotalDelayMs: 60_000 },
    requestTimeoutMs: 5_000,
  });
  try {
    return await c.drainWindows({}, undefined, { keepRuns: false, gate, ...more });
  } finally {
    await c.close();
  }
}

function assertLedgerExact(emulator: RunningEmulator): void {
  const t = emulator.state.ledger.totals();
  assert.equal(t.distinctEntriesResumed, N, "every entry resumed");
  assert.equal(t.duplicates, 0, "no entry resumed twice");
  assert.equal(emulator.state.dlq.size, 0, "the DLQ is empty");
}

/** The logged resume requests that selected by run ID (`workflowRunId`). */
function windowsByRunId(emulator: RunningEmulator): unknown[] {
  return emulator.state.log
    .since(0, Number.MAX_SAFE_INTEGER)
    .map((r) => (r.query as Record<string, unknown>).workflowRunId)
    .filter((x) => x !== undefined);
}
