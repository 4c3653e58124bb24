// size: tables of values for every wire field, each run against all four parties; split, the agreement between the parties would no longer be read in one place
/**
 * The wire contract, end to end (docs/reference.md, "Wire grammar"): the same
 * flow-control, retries and selection values go to
 *
 * - `DlqRecoveryController.check` (what `pulumi preview` refuses),
 * - `Workflow` (its validation, `workflowArgProblems`; flow control and retries only: it has no
 *   selection),
 * - the client's builders (`overrideHeaders`, `resumeQuery`: what `pulumi up` would send),
 * - the emulator's own parsers (`parseOverrides`, `parseFlowControlValue`, `parseResumeRequest`:
 *   what the service refuses), fed the text the value stands for on the wire,
 *
 * and all of them must accept or refuse each value alike. The few deliberate differences are
 * listed in the table with their reason (a resource's stricter rule, or a value that puts nothing
 * on the wire). Every accepted value is then sent through the client to a running emulator, and
 * must arrive unchanged.
 */
import { strict as assert } from "node:assert";
import type { IncomingMessage } from "node:http";
import { SvcClient, SvcError, overrideHeaders, resumeQuery } from "../../client";
import type { DlqSelection, FlowControlOverride } from "../../client";
import { DrainClient } from "../../drain";
import { workflowArgProblems } from "../../core/resources/workflow";
import { MIN_PLAUSIBLE_MS } from "../../provider/dlqRecovery/inputs";
import { startEmulator, type LoggedRequest, type RunningEmulator } from "../../emulator";
import { HttpError } from "../../emulator/http";
import { parseFlowControlValue, parseOverrides } from "../../emulator/overrides";
import { parseResumeRequest } from "../../emulator/resume-request";
import { TOKEN, dlqProvider } from "./provider/helpers";

type Verdict = "accept" | "refuse";
type Party = "DlqRecovery.check" | "Workflow" | "client" | "emulator";

/** A party that deliberately answers otherwise than the wire grammar, and why. */
type Exceptions = Partial<Record<Party, { verdict: Verdict | "nothing on the wire"; why: string }>>;

interface Row<T> {
  /** The value. */
  value: T;
  /** The wire grammar's answer. */
  verdict: Verdict;
  /** Deliberate differences. */
  except?: Exceptions;
}

const BASE_URL = "http://127.0.0.1:1";
const T0 = 1_750_000_000_000;

// ------------------------------------------------------------------ the values

/** Flow control: each row changes one field of an otherwise valid override. */
const FLOW_CONTROL: Row<Record<string, unknown>>[] = [
  // key
  ...["orders", "orders-recovery_2", "!~", "a".repeat(256)].map((key): Row<Record<string, unknown>> => ({
    value: { key, parallelism: 1 },
    verdict: "accept",
  })),
  ...[
    "orders recovery",
    "",
    " orders",
    "orders ",
    "ordérs",
    "tab\tkey",
    "a\r\nX-Injected: 1",
    "a".repeat(257),
  ].map((key): Row<Record<string, unknown>> => ({ value: { key, parallelism: 1 }, verdict: "refuse" })),
  // parallelism and rate
  ...[1, 5, 2_147_483_647].map((parallelism): Row<Record<string, unknown>> => ({
    value: { key: "k", parallelism },
    verdict: "accept",
  })),
  ...[0, -1, 1.5, Number.NaN, 2_147_483_648, 1e21].map((parallelism): Row<Record<string, unknown>> => ({
    value: { key: "k", parallelism },
    verdict: "refuse",
  })),
  { value: { key: "k", rate: 10 }, verdict: "accept" },
  { value: { key: "k", rate: 2_147_483_647 }, verdict: "accept" },
  ...[0, -3, 2.5, 2_147_483_648].map((rate): Row<Record<string, unknown>> => ({
    value: { key: "k", rate },
    verdict: "refuse",
  })),
  // period
  ...[1, 60, 999_999_999, "1s", "10s", "1m", "2h", "1d", "999999999s"].map(
    (period): Row<Record<string, unknown>> => ({ value: { key: "k", rate: 5, period }, verdict: "accept" }),
  ),
  ...[
    0,
    -1,
    1.5,
    1_000_000_000,
    "01s",
    "0s",
    "10ms",
    "1S",
    " 1s",
    "1s ",
    "",
    "1.5s",
    "1",
    "1000000000s",
    "1m, rate=99",
  ].map((period): Row<Record<string, unknown>> => ({
    value: { key: "k", rate: 5, period },
    verdict: "refuse",
  })),
  // combinations
  { value: { key: "k", parallelism: 2, rate: 10, period: "1m" }, verdict: "accept" },
  { value: { key: "k", period: "1s" }, verdict: "refuse" },
  {
    value: { key: "orders" },
    verdict: "accept",
    except: { Workflow: { verdict: "refuse", why: "a Workflow needs `parallelism` or `rate`" } },
  },
  {
    value: { parallelism: 5 },
    verdict: "accept",
    except: { Workflow: { verdict: "refuse", why: "a Workflow needs a `key`" } },
  },
  {
    value: {},
    verdict: "refuse",
    except: {
      emulator: { verdict: "nothing on the wire", why: "an override that sets nothing sends no header" },
    },
  },
];

const RETRIES: Row<number>[] = [
  ...[0, 3, 2_147_483_647].map((value): Row<number> => ({ value, verdict: "accept" })),
  ...[-1, 1.5, Number.NaN, 2_147_483_648, 1e21].map((value): Row<number> => ({ value, verdict: "refuse" })),
];

const ids = (n: number): string[] => Array.from({ length: n }, (_, i) => `dlq_${i}`);
const SECONDS: Exceptions = {
  "DlqRecovery.check": {
    verdict: "refuse",
    why: `DlqRecovery refuses a timestamp in (0, ${MIN_PLAUSIBLE_MS}) ms as seconds given by mistake`,
  },
};

const SELECTION: Row<DlqSelection>[] = [
  // dlqIds
  { value: { dlqIds: ["dlq_a"] }, verdict: "accept" },
  { value: { dlqIds: ["dlq_a", "dlq_b"] }, verdict: "accept" },
  { value: { dlqIds: ["dlq_ü", "a b"] }, verdict: "accept" },
  { value: { dlqIds: ids(50) }, verdict: "accept" },
  {
    value: { dlqIds: ids(51) },
    verdict: "refuse",
    except: {
      "DlqRecovery.check": { verdict: "accept", why: "DlqRecovery sends a longer list in batches of 50" },
    },
  },
  {
    value: { dlqIds: [] },
    verdict: "refuse",
    except: {
      emulator: { verdict: "nothing on the wire", why: "an empty list sends no `dlqIds` parameter" },
    },
  },
  ...[[""], [" dlq_a"], ["dlq_a "], ["dlq\u0001a"], ["dlq_a\u007f"], ["dlq_a", "dlq_a"]].map(
    (dlqIds): Row<DlqSelection> => ({ value: { dlqIds }, verdict: "refuse" }),
  ),
  // timestamps
  ...[0, T0, Number.MAX_SAFE_INTEGER].map((fromDate): Row<DlqSelection> => ({
    value: { fromDate },
    verdict: "accept",
  })),
  { value: { fromDate: 1 }, verdict: "accept", except: SECONDS },
  { value: { toDate: 1_700_000_000 }, verdict: "accept", except: SECONDS },
  ...[-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1, 1e21].map((fromDate): Row<DlqSelection> => ({
    value: { fromDate },
    verdict: "refuse",
  })),
  { value: { workflowCreatedAt: T0 }, verdict: "accept" },
  { value: { workflowCreatedAt: -5 }, verdict: "refuse" },
  { value: { fromDate: T0, toDate: T0 }, verdict: "accept" },
  { value: { fromDate: T0 + 1, toDate: T0 }, verdict: "refuse" },
  // text
  ...["https://example.com/api/orders", "https://example.com/api/ordérs", "a b"].map(
    (workflowUrl): Row<DlqSelection> => ({ value: { workflowUrl }, verdict: "accept" }),
  ),
  ...["", " https://example.com", "https://example.com ", "https://example.com/\n", "\t"].map(
    (workflowUrl): Row<DlqSelection> => ({ value: { workflowUrl }, verdict: "refuse" }),
  ),
  { value: { workflowRunId: "wfr_" }, verdict: "accept" },
  { value: { workflowRunId: "wfr_\u007f" }, verdict: "refuse" },
  { value: { workflowRunId: " wfr_" }, verdict: "refuse" },
];

// ------------------------------------------------------------------ the wire text of a value

/** The headers a flow-control value stands for (what any client would put on the wire). */
function flowControlWire(fc: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  if (fc.key !== undefined) headers["svc-flow-control-key"] = String(fc.key);
  const parts: string[] = [];
  if (fc.parallelism !== undefined) parts.push(`parallelism=${fc.parallelism}`);
  if (fc.rate !== undefined) parts.push(`rate=${fc.rate}`);
  if (fc.period !== undefined) {
    parts.push(`period=${typeof fc.period === "number" ? `${fc.period}s` : fc.period}`);
  }
  if (parts.length > 0) headers["svc-flow-control-value"] = parts.join(", ");
  return headers;
}

/** The query a selection stands for. */
function selectionWire(selection: DlqSelection): URLSearchParams {
  const q = new URLSearchParams();
  for (const [field, value] of Object.entries(selection)) {
    for (const v of Array.isArray(value) ? value : [value]) q.append(field, String(v));
  }
  return q;
}

/** A request as the emulator's header parsers read it. */
function fakeRequest(headers: Record<string, string>): IncomingMessage {
  const distinct = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]]));
  return { headers, headersDistinct: distinct } as unknown as IncomingMessage;
}

// ------------------------------------------------------------------ the parties

/** Accept when `f` returns; refuse when it throws an error of the expected kind. */
function verdictOf(f: () => unknown, isRefusal: (e: unknown) => boolean): Verdict {
  try {
    f();
    return "accept";
  } catch (e) {
    if (isRefusal(e)) return "refuse";
    throw e;
  }
}

const clientRefusal = (e: unknown): boolean => e instanceof SvcError && e.code === "SVC_INVALID_ARGUMENT";
const emulatorRefusal = (e: unknown): boolean => e instanceof HttpError && e.status === 400;

async function dlqCheck(inputs: Record<string, unknown>): Promise<Verdict> {
  const { provider } = dlqProvider();
  const r = await provider.check({}, { baseUrl: BASE_URL, token: TOKEN, ...inputs });
  return r.failures === undefined ? "accept" : "refuse";
}

/** Every value known, none a resource: the arguments as a program gives them. */
const KNOWN_VALUES = { isPending: () => false, resourceKind: () => undefined };

function workflow(args: Record<string, unknown>): Verdict {
  return workflowArgProblems({ url: "https://example.com/api/orders", ...args }, KNOWN_VALUES).length === 0
    ? "accept"
    : "refuse";
}

function emulatorOverrides(headers: Record<string, string>): Verdict | "nothing on the wire" {
  if (Object.keys(headers).length === 0) return "nothing on the wire";
  return verdictOf(() => {
    parseOverrides(fakeRequest(headers));
    const value = headers["svc-flow-control-value"];
    if (value !== undefined) parseFlowControlValue(value);
  }, emulatorRefusal);
}

function emulatorSelection(selection: DlqSelection): Verdict | "nothing on the wire" {
  const query = selectionWire(selection);
  if (query.size === 0) return "nothing on the wire";
  return verdictOf(() => parseResumeRequest(query, undefined), emulatorRefusal);
}

/** Asserts that every party answered as the row expects, naming the ones that did not. */
function assertAlike(
  row: Row<unknown>,
  answers: Partial<Record<Party, Verdict | "nothing on the wire">>,
): void {
  const wrong = Object.entries(answers)
    .map(([party, got]) => {
      const expected = row.except?.[party as Party]?.verdict ?? row.verdict;
      return got === expected ? undefined : `${party} answered ${got}, expected ${expected}`;
    })
    .filter((w): w is string => w !== undefined);
  assert.deepEqual(wrong, [], `value ${display(row.value)}: ${wrong.join("; ")}`);
}

/** A value as text, every character outside printable ASCII escaped (so no two titles look alike). */
function display(v: unknown): string {
  const json =
    JSON.stringify(v, (_k, x: unknown) => (typeof x === "number" && !Number.isFinite(x) ? String(x) : x)) ??
    String(v);
  return json.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A short, unique test title for a value. */
function title(v: unknown): string {
  const s = display(v);
  return s.length > 90 ? `${s.slice(0, 87)}...` : s;
}

// ------------------------------------------------------------------ the tests

describe("the wire contract: every party accepts or refuses a value alike", () => {
  for (const row of FLOW_CONTROL) {
    it(`flowControl ${title(row.value)}: ${row.verdict}`, async () => {
      assertAlike(row, {
        "DlqRecovery.check": await dlqCheck({ all: true, flowControl: row.value }),
        Workflow: workflow({ flowControl: row.value }),
        client: verdictOf(
          () => overrideHeaders({ flowControl: row.value as FlowControlOverride }),
          clientRefusal,
        ),
        emulator: emulatorOverrides(flowControlWire(row.value)),
      });
    });
  }

  for (const row of RETRIES) {
    it(`retries ${title(row.value)}: ${row.verdict}`, async () => {
      assertAlike(row, {
        "DlqRecovery.check": await dlqCheck({ all: true, retries: row.value }),
        Workflow: workflow({ retries: row.value }),
        client: verdictOf(() => overrideHeaders({ retries: row.value }), clientRefusal),
        emulator: emulatorOverrides({ "svc-retries": String(row.value) }),
      });
    });
  }

  for (const row of SELECTION) {
    it(`selection ${title(row.value)}: ${row.verdict}`, async () => {
      assertAlike(row, {
        "DlqRecovery.check": await dlqCheck(row.value as Record<string, unknown>),
        client: verdictOf(() => resumeQuery(row.value), clientRefusal),
        emulator: emulatorSelection(row.value),
      });
    });
  }
});

describe("the wire contract: an accepted value reaches the emulator unchanged", () => {
  let emu: RunningEmulator;
  let client: SvcClient;
  before(async () => {
    emu = await startEmulator({ token: TOKEN });
    client = new SvcClient({ baseUrl: emu.url, token: TOKEN, retry: { maxRetries: 0 } });
  });
  after(async () => {
    await client?.close();
    await emu?.close();
  });

  /** Sends one request and returns what the emulator logged for it (it must not be refused). */
  async function send(f: () => Promise<unknown>): Promise<LoggedRequest> {
    const before = emu.state.log.total;
    // A selection of unknown IDs is answered 404 after it was parsed: only a 400 is a refusal.
    await f().catch((e: unknown) => {
      if (!(e instanceof SvcError) || e.code !== "SVC_NOT_FOUND") throw e;
    });
    const logged = emu.state.log.since(before);
    assert.equal(logged.length, 1, "one request");
    assert.notEqual(logged[0].status, 400, logged[0].error);
    return logged[0];
  }

  const NONE: DlqSelection = { workflowRunId: "contract-matches-nothing" };

  for (const row of FLOW_CONTROL.filter((r) => r.verdict === "accept")) {
    it(`flowControl ${title(row.value)}`, async () => {
      const logged = await send(() =>
        client.resumeDlq(NONE, { flowControl: row.value as FlowControlOverride }),
      );
      assert.deepEqual(logged.overrideHeaders, flowControlWire(row.value));
      if (row.value.key !== undefined)
        assert.equal(logged.overrideHeaders["svc-flow-control-key"], row.value.key);
    });
  }

  for (const row of RETRIES.filter((r) => r.verdict === "accept")) {
    it(`retries ${title(row.value)}`, async () => {
      const logged = await send(() => client.resumeDlq(NONE, { retries: row.value }));
      assert.deepEqual(logged.overrideHeaders, { "svc-retries": String(row.value) });
    });
  }

  for (const row of SELECTION.filter((r) => r.verdict === "accept")) {
    it(`selection ${title(row.value)}`, async () => {
      const logged = await send(() => client.resumeDlq(row.value));
      const sent: Record<string, string[]> = {};
      for (const [k, v] of selectionWire(row.value)) (sent[k] ??= []).push(v);
      const received = Object.fromEntries(
        Object.entries(logged.query).map(([k, v]) => [k, typeof v === "string" ? [v] : [...v]]),
      );
      assert.deepEqual(received, sent);
    });
  }

  it("a dlqIds list longer than one request reaches the emulator whole, in batches of 50", async () => {
    const list = ids(120).map((id) => `long-${id}`);
    emu.addEntries(list.map((dlqId) => ({ dlqId })));
    const before = emu.state.log.total;
    const result = await new DrainClient(client).resumeByIds(list);
    assert.equal(result.resumedCount, list.length);
    const logged = emu.state.log.since(before);
    const batches = logged.map((r) => ([] as string[]).concat(r.query.dlqIds ?? []));
    assert.deepEqual(
      batches.map((b) => b.length).sort((a, b) => b - a),
      [50, 50, 20],
    );
    assert.deepEqual(batches.flat().sort(), [...list].sort());
  });
});
