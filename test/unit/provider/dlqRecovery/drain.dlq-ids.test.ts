/** A DlqRecovery selected by `dlqIds`: its batches, pacing, unknown IDs and a failed batch. */
import { strict as assert } from "node:assert";
import {
  PASSWORD,
  TOKEN,
  USERNAME,
  assertResumedExactlyOnce,
  dlqProvider,
  liveDlqIds,
  requests,
  resumeRequests,
  useEmulator,
  partialRejection,
} from "../helpers";

const RESUME_PATH = "/v2/workflows/dlq/resume";

/** Query `dlqIds` of a logged request as an array. */
function loggedIds(q: Readonly<Record<string, string | readonly string[]>>): string[] {
  const v = q.dlqIds;
  return v === undefined ? [] : typeof v === "string" ? [v] : [...v];
}

describe("provider/dlqRecovery: dlqIds", () => {
  const emu = useEmulator();

  it("120 IDs: 3 requests of at most 50 IDs, together exactly the 120", async () => {
    emu().seed(150);
    const ids = liveDlqIds(emu()).slice(0, 120);
    const { provider } = dlqProvider();
    const { outs } = await provider.create({ dlqIds: ids, baseUrl: emu().url, token: TOKEN });
    const reqs = resumeRequests(emu());
    assert.equal(reqs.length, 3);
    const sent = reqs.map((r) => loggedIds(r.query));
    assert.ok(
      sent.every((s) => s.length >= 1 && s.length <= 50),
      JSON.stringify(sent.map((s) => s.length)),
    );
    assert.deepEqual(sent.flat().sort(), [...ids].sort());
    assert.equal(outs.requestCount, 3);
    assert.equal(outs.resumedCount, 120);
    assertResumedExactlyOnce(emu(), ids);
    assert.equal(emu().state.dlq.size, 30, "entries not listed stay in the DLQ");
    assert.ok(
      requests(emu()).every((r) => r.path === RESUME_PATH),
      "no account read without account settings",
    );
  });

  it("respects maxRequestsPerSecond (no request lands in a busy rate-limit window)", async () => {
    // The emulator lets one request through per 50 ms window; the provider is told to start at
    // most 5 requests a second (one per 200 ms), so no request may be rate limited.
    emu().seed(120);
    emu().setFaults({ seed: 1, rateLimit: { burst: 1, windowMs: 50 } });
    const { provider } = dlqProvider();
    const { outs } = await provider.create({
      dlqIds: liveDlqIds(emu()),
      baseUrl: emu().url,
      token: TOKEN,
      concurrency: 4,
      maxRequestsPerSecond: 5,
    });
    assert.equal(outs.resumedCount, 120);
    assert.equal(emu().state.faults.stats().fired.rateLimit ?? 0, 0, "a request was rate limited");
    assert.deepEqual(
      resumeRequests(emu()).map((r) => r.status),
      [200, 200, 200],
    );
  });

  it("without maxRequestsPerSecond, reads the account's max_requests_per_second when account settings exist", async () => {
    emu().seed(60);
    const { provider } = dlqProvider({
      env: { SVC_ACCOUNT_API_URL: emu().url, SVC_USERNAME: USERNAME },
      config: { "svc:password": PASSWORD },
    });
    const { outs } = await provider.create({ dlqIds: liveDlqIds(emu()), baseUrl: emu().url, token: TOKEN });
    assert.equal(outs.resumedCount, 60);
    const paths = requests(emu()).map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(paths, [`GET /v2/svc/user`, `POST ${RESUME_PATH}`, `POST ${RESUME_PATH}`]);
  });

  it("with maxRequestsPerSecond set, does not read the account", async () => {
    emu().seed(10);
    const { provider } = dlqProvider({
      env: { SVC_ACCOUNT_API_URL: emu().url, SVC_USERNAME: USERNAME, SVC_PASSWORD: PASSWORD },
    });
    await provider.create({
      dlqIds: liveDlqIds(emu()),
      baseUrl: emu().url,
      token: TOKEN,
      maxRequestsPerSecond: 50,
    });
    assert.ok(requests(emu()).every((r) => r.path === RESUME_PATH));
  });

  it("an unknown DLQ ID alone: nothing resumed, the up succeeds naming it in one warning and the outputs", async () => {
    emu().seed(5);
    const { provider, logs } = dlqProvider();
    const { outs } = await provider.create({
      dlqIds: ["dlq_missing"],
      baseUrl: emu().url,
      token: TOKEN,
      recoveryName: "ids",
    });
    assert.equal(outs.complete, true);
    assert.equal(outs.resumedCount, 0);
    assert.deepEqual(outs.notFoundDlqIds, ["dlq_missing"]);
    assert.equal(outs.notFoundCount, 1);
    assert.equal(outs.remainingDlqIds, undefined);
    const warnings = logs.filter((l) => l.startsWith("warning:"));
    assert.equal(warnings.length, 1, JSON.stringify(logs));
    assert.match(warnings[0], /1 ID of the 1 `dlqIds` was not in the DLQ .*"dlq_missing"/);
    assert.equal(emu().state.ledger.totals().resumedTotal, 0);
  });

  it("a failed batch: the partial state lists the remaining IDs, and update resumes exactly those", async () => {
    emu().seed(120);
    const ids = liveDlqIds(emu());
    emu().setFaults({ seed: 1, failRequestNumbers: [2], failStatus: 400 });
    const { provider } = dlqProvider();
    const inputs = { dlqIds: ids, baseUrl: emu().url, token: TOKEN, concurrency: 1 };
    const e = await partialRejection(provider.create(inputs));
    assert.equal(e.properties.resumedCount, 50);
    assert.equal(e.properties.requestCount, 1);
    assert.deepEqual(e.properties.remainingDlqIds, ids.slice(50));
    assert.equal(e.properties.complete, false);
    emu().setFaults({});
    const { outs } = await provider.update(e.id, e.properties, inputs);
    assert.equal(outs.complete, true);
    assert.equal(outs.resumedCount, 120);
    assert.equal(outs.requestCount, 3);
    assert.equal(outs.remainingDlqIds, undefined);
    assertResumedExactlyOnce(emu(), ids);
  });
});
