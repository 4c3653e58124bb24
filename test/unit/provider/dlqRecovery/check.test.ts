// size: mostly one table (ROWS) of refused inputs and the message each must give; the table is the point and reads best whole
import { strict as assert } from "node:assert";
import { FILTER_FIELDS } from "../../../../client";
import { UNKNOWN } from "../../../../core/unknownValue";
import {
  overridesOf,
  selectionOf,
  specHash,
  validateInputs,
  type DlqRecoveryInputs,
} from "../../../../provider/dlqRecovery/inputs";
import { T0, TOKEN, dlqProvider, happyDlq } from "../helpers";

type Kind = "filters" | "ids" | "all";

interface Row {
  name: string;
  kind: Kind;
  patch: Partial<Record<keyof DlqRecoveryInputs, unknown>>;
  property: string;
  /** Substrings the reason must contain: the field and the value (as shown). */
  mentions: string[];
  /** Substrings the reason must not contain (secrets). */
  never?: string[];
}

const FILTER_VALUES: Record<(typeof FILTER_FIELDS)[number], unknown> = {
  fromDate: T0,
  toDate: T0 + 1000,
  workflowUrl: "http://127.0.0.1/workflows/orders",
  workflowRunId: "wfr_abc",
  workflowCreatedAt: T0 - 5000,
};

const ROWS: Row[] = [
  // Selection.
  {
    name: "empty dlqIds",
    kind: "ids",
    patch: { dlqIds: [] },
    property: "dlqIds",
    mentions: ["`dlqIds` is empty", "`all: true`"],
  },
  {
    name: "dlqIds not an array",
    kind: "ids",
    patch: { dlqIds: "dlq_a" },
    property: "dlqIds",
    mentions: ["`dlqIds` must be a list", '"dlq_a"'],
  },
  {
    name: "dlqIds as an object",
    kind: "ids",
    patch: { dlqIds: { id: "dlq_a" } },
    property: "dlqIds",
    mentions: ["`dlqIds`", '{"id":"dlq_a"}'],
  },
  {
    name: "dlqIds with an empty string",
    kind: "ids",
    patch: { dlqIds: ["dlq_a", ""] },
    property: "dlqIds[1]",
    mentions: ["`dlqIds[1]`", '""'],
  },
  {
    name: "dlqIds with a blank string",
    kind: "ids",
    patch: { dlqIds: ["  "] },
    property: "dlqIds[0]",
    mentions: ["`dlqIds[0]`", '"  "'],
  },
  {
    name: "dlqIds with a non-string",
    kind: "ids",
    patch: { dlqIds: ["dlq_a", 7] },
    property: "dlqIds[1]",
    mentions: ["`dlqIds[1]`", "7"],
  },
  {
    name: "duplicate dlqIds",
    kind: "ids",
    patch: { dlqIds: ["dlq_a", "dlq_b", "dlq_a"] },
    property: "dlqIds[2]",
    mentions: ["`dlqIds[2]`", '"dlq_a"', "repeats"],
  },
  ...FILTER_FIELDS.map((k): Row => ({
    name: `dlqIds together with ${k}`,
    kind: "ids",
    patch: { [k]: FILTER_VALUES[k] },
    property: "dlqIds",
    mentions: ["`dlqIds` cannot be combined", `\`${k}\``],
  })),
  {
    name: "all: true with dlqIds",
    kind: "ids",
    patch: { all: true },
    property: "all",
    mentions: ["`all: true`", "`dlqIds`"],
  },
  {
    name: "all: true with a filter",
    kind: "all",
    patch: { workflowRunId: "wfr_x" },
    property: "all",
    mentions: ["`all: true`", "`workflowRunId`"],
  },
  {
    name: "an empty selection without all",
    kind: "all",
    patch: { all: undefined },
    property: "all",
    mentions: ["DlqRecovery `incident-42` selects nothing", "`all: true`"],
  },
  {
    name: "an empty selection with all: false",
    kind: "all",
    patch: { all: false },
    property: "all",
    mentions: ["selects nothing"],
  },
  {
    name: "all not a boolean",
    kind: "filters",
    patch: { all: "true" },
    property: "all",
    mentions: ["`all`", '"true"'],
  },
  {
    name: "fromDate negative",
    kind: "filters",
    patch: { fromDate: -1 },
    property: "fromDate",
    mentions: ["`fromDate`", "milliseconds", "-1"],
  },
  {
    name: "fromDate not an integer",
    kind: "filters",
    patch: { fromDate: T0 + 0.5 },
    property: "fromDate",
    mentions: ["`fromDate`", String(T0 + 0.5)],
  },
  {
    name: "fromDate a string",
    kind: "filters",
    patch: { fromDate: "2025-06-15" },
    property: "fromDate",
    mentions: ["`fromDate` must be unix milliseconds", '"2025-06-15" (read as UTC) is 1749945600000.'],
  },
  {
    name: "fromDate an ISO 8601 date (a YAML program's)",
    kind: "filters",
    patch: { fromDate: "2026-11-20T08:00:00Z" },
    property: "fromDate",
    mentions: ['`fromDate` must be unix milliseconds, a number: "2026-11-20T08:00:00Z" is 1795161600000.'],
  },
  {
    name: "toDate a date with an offset",
    kind: "filters",
    patch: { toDate: "2026-11-20T09:00:00+01:00" },
    property: "toDate",
    mentions: ['`toDate` must be unix milliseconds, a number: "2026-11-20T09:00:00+01:00" is 1795161600000.'],
  },
  {
    name: "workflowCreatedAt milliseconds in quotes",
    kind: "filters",
    patch: { workflowCreatedAt: "1795161600000" },
    property: "workflowCreatedAt",
    mentions: ['"1795161600000" is a string (write 1795161600000 without quotes)'],
  },
  {
    name: "toDate a string that is no date",
    kind: "filters",
    patch: { toDate: "next tuesday" },
    property: "toDate",
    mentions: [
      "`toDate` must be unix milliseconds",
      "1763625600000 is 2025-11-20T08:00:00.000Z",
      '"next tuesday"',
    ],
  },
  {
    name: "fromDate in seconds",
    kind: "filters",
    patch: { fromDate: 1_700_000_000 },
    property: "fromDate",
    mentions: ["`fromDate`", "1700000000", "looks like seconds", "1700000000000"],
  },
  {
    name: "toDate in seconds",
    kind: "filters",
    patch: { fromDate: undefined, toDate: 1_700_000_000 },
    property: "toDate",
    mentions: ["`toDate`", "looks like seconds"],
  },
  {
    name: "workflowCreatedAt in seconds",
    kind: "filters",
    patch: { workflowCreatedAt: 1_700_000_000 },
    property: "workflowCreatedAt",
    mentions: ["`workflowCreatedAt`", "looks like seconds"],
  },
  {
    name: "toDate before fromDate",
    kind: "filters",
    patch: { toDate: T0 - 1 },
    property: "toDate",
    mentions: ["`toDate`", String(T0 - 1), "`fromDate`", String(T0)],
  },
  {
    name: "workflowUrl empty",
    kind: "filters",
    patch: { workflowUrl: "" },
    property: "workflowUrl",
    mentions: ["`workflowUrl`", '""'],
  },
  {
    name: "workflowUrl not a string",
    kind: "filters",
    patch: { workflowUrl: 5 },
    property: "workflowUrl",
    mentions: ["`workflowUrl`", "5"],
  },
  {
    name: "workflowRunId not a string",
    kind: "filters",
    patch: { workflowRunId: 42 },
    property: "workflowRunId",
    mentions: ["`workflowRunId`", "42"],
  },
  // Overrides.
  {
    name: "flowControl not an object",
    kind: "filters",
    patch: { flowControl: "parallelism=5" },
    property: "flowControl",
    mentions: ["`flowControl` must be an object", '"parallelism=5"'],
  },
  {
    name: "flowControl an array",
    kind: "filters",
    patch: { flowControl: [5] },
    property: "flowControl",
    mentions: ["`flowControl` must be an object", "[5]"],
  },
  {
    name: "flowControl with an unknown key",
    kind: "filters",
    patch: { flowControl: { parallelism: 5, burst: 3 } },
    property: "flowControl.burst",
    mentions: ["`flowControl.burst` is not an argument of DlqRecovery"],
  },
  {
    name: "flowControl empty",
    kind: "filters",
    patch: { flowControl: {} },
    property: "flowControl",
    mentions: ["`flowControl` is empty"],
  },
  {
    name: "flowControl.key empty",
    kind: "filters",
    patch: { flowControl: { key: "" } },
    property: "flowControl.key",
    mentions: ["`flowControl.key`", '""'],
  },
  {
    name: "parallelism 0",
    kind: "filters",
    patch: { flowControl: { parallelism: 0 } },
    property: "flowControl.parallelism",
    mentions: ["`flowControl.parallelism`", "got 0"],
  },
  {
    name: "parallelism 1.5",
    kind: "filters",
    patch: { flowControl: { parallelism: 1.5 } },
    property: "flowControl.parallelism",
    mentions: ["`flowControl.parallelism`", "1.5"],
  },
  {
    name: 'parallelism "5"',
    kind: "filters",
    patch: { flowControl: { parallelism: "5" } },
    property: "flowControl.parallelism",
    mentions: ["`flowControl.parallelism`", '"5"'],
  },
  {
    name: "rate -1",
    kind: "filters",
    patch: { flowControl: { rate: -1 } },
    property: "flowControl.rate",
    mentions: ["`flowControl.rate`", "-1"],
  },
  {
    name: 'period "5x"',
    kind: "filters",
    patch: { flowControl: { rate: 10, period: "5x" } },
    property: "flowControl.period",
    mentions: ["`flowControl.period`", '"5x"'],
  },
  {
    name: "period 0",
    kind: "filters",
    patch: { flowControl: { rate: 10, period: 0 } },
    property: "flowControl.period",
    mentions: ["`flowControl.period`", "got 0"],
  },
  {
    name: "period without parallelism or rate",
    kind: "filters",
    patch: { flowControl: { key: "k", period: "1s" } },
    property: "flowControl.period",
    mentions: ["`flowControl.period` needs", "`flowControl.parallelism`", "`flowControl.rate`"],
  },
  {
    name: "retries -1",
    kind: "filters",
    patch: { retries: -1 },
    property: "retries",
    mentions: ["`retries`", "-1"],
  },
  {
    name: "retries 2.5",
    kind: "filters",
    patch: { retries: 2.5 },
    property: "retries",
    mentions: ["`retries`", "2.5"],
  },
  {
    name: 'retries "3"',
    kind: "filters",
    patch: { retries: "3" },
    property: "retries",
    mentions: ["`retries`", '"3"'],
  },
  // Re-running, connection and tuning.
  {
    name: "triggers not an array",
    kind: "filters",
    patch: { triggers: "v2" },
    property: "triggers",
    mentions: ["`triggers` must be a list", '"v2"'],
  },
  {
    name: "baseUrl not a URL",
    kind: "filters",
    patch: { baseUrl: "http://u:pw-URL-SECRET-2@127.0.0.1:port" },
    property: "baseUrl",
    mentions: ["`baseUrl` must be a URL", "not shown"],
    never: ["pw-URL-SECRET-2"],
  },
  {
    name: "baseUrl with a non-http scheme",
    kind: "filters",
    patch: { baseUrl: "ws://127.0.0.1:4000" },
    property: "baseUrl",
    mentions: ["`baseUrl` must use http or https", '"ws:"'],
  },
  {
    name: "baseUrl with a query",
    kind: "filters",
    patch: { baseUrl: "http://127.0.0.1:4000/?token=pw-URL-SECRET-3" },
    property: "baseUrl",
    mentions: ["`baseUrl`", "query"],
    never: ["pw-URL-SECRET-3"],
  },
  {
    name: "baseUrl with credentials",
    kind: "filters",
    patch: { baseUrl: "http://u:pw-URL-SECRET-1@127.0.0.1:4000" },
    property: "baseUrl",
    mentions: ["`baseUrl` must not carry credentials"],
    never: ["pw-URL-SECRET-1"],
  },
  {
    name: "token empty",
    kind: "filters",
    patch: { token: "" },
    property: "token",
    mentions: ["`token`", "empty string"],
  },
  {
    name: "token blank",
    kind: "filters",
    patch: { token: "        " },
    property: "token",
    mentions: ["`token`", "a string"],
  },
  {
    name: "token not a string",
    kind: "filters",
    patch: { token: 918273645546372 },
    property: "token",
    mentions: ["`token`", "a number"],
    never: ["918273645546372"],
  },
  {
    name: "allowInsecureHttp not a boolean",
    kind: "filters",
    patch: { allowInsecureHttp: "false" },
    property: "allowInsecureHttp",
    mentions: ["`allowInsecureHttp`", '"false"'],
  },
  {
    name: "concurrency 0",
    kind: "filters",
    patch: { concurrency: 0 },
    property: "concurrency",
    mentions: ["`concurrency`", "from 1 to 256", "leave it unset", "got 0"],
  },
  {
    name: "concurrency 257",
    kind: "filters",
    patch: { concurrency: 257 },
    property: "concurrency",
    mentions: ["`concurrency`", "from 1 to 256", "257"],
  },
  {
    name: "maxRequestsPerSecond 0",
    kind: "filters",
    patch: { maxRequestsPerSecond: 0 },
    property: "maxRequestsPerSecond",
    mentions: ["`maxRequestsPerSecond`", "got 0"],
  },
  {
    name: "maxRecordedRuns 10001",
    kind: "filters",
    patch: { maxRecordedRuns: 10_001 },
    property: "maxRecordedRuns",
    mentions: ["`maxRecordedRuns`", "from 0 to 10000", "10001"],
  },
  {
    name: "maxRecordedRuns -1",
    kind: "filters",
    patch: { maxRecordedRuns: -1 },
    property: "maxRecordedRuns",
    mentions: ["`maxRecordedRuns`", "-1"],
  },
  {
    name: "runLogFile a number",
    kind: "filters",
    patch: { runLogFile: 5 },
    property: "runLogFile",
    mentions: ["`runLogFile`", "got 5"],
  },
];

describe("provider/dlqRecovery: validateInputs", () => {
  for (const kind of ["filters", "ids", "all"] as const) {
    it(`accepts the happy path (${kind})`, () => {
      assert.deepEqual(validateInputs(happyDlq(kind)).list, []);
    });
  }

  it("accepts every documented option together", () => {
    const f = validateInputs(
      happyDlq("filters", {
        toDate: T0 + 60_000,
        workflowRunId: "wfr_",
        workflowCreatedAt: T0 - 1000,
        flowControl: { key: "recovery", parallelism: 5, rate: 10, period: "1m" },
        retries: 0,
        triggers: ["2026-01-01", 3, { a: 1 }],
        allowInsecureHttp: false,
        concurrency: 32,
        maxRequestsPerSecond: 1,
        maxRecordedRuns: 0,
        runLogFile: "",
      }),
    );
    assert.deepEqual(f.list, []);
  });

  it("accepts fromDate 0 and a numeric period", () => {
    assert.deepEqual(validateInputs(happyDlq("filters", { fromDate: 0 })).list, []);
    assert.deepEqual(validateInputs(happyDlq("filters", { flowControl: { rate: 2, period: 30 } })).list, []);
  });

  for (const row of ROWS) {
    it(`refuses ${row.name}`, () => {
      const inputs = happyDlq(row.kind, row.patch);
      const list = validateInputs(inputs).list;
      assert.equal(list.length, 1, `expected exactly one failure, got ${JSON.stringify(list)}`);
      const [f] = list;
      assert.equal(f.property, row.property, JSON.stringify(f));
      for (const m of row.mentions)
        assert.ok(f.reason.includes(m), `reason ${JSON.stringify(f.reason)} lacks ${m}`);
      for (const n of [...(row.never ?? []), TOKEN]) assert.ok(!f.reason.includes(n), `reason leaks ${n}`);
    });
  }

  it("reports every failure together (two bad fields, two failures)", () => {
    const list = validateInputs(happyDlq("filters", { concurrency: 0, retries: -1 })).list;
    assert.deepEqual(list.map((f) => f.property).sort(), ["concurrency", "retries"]);
  });

  it("reports many failures together, each with its own property", () => {
    const list = validateInputs({
      dlqIds: ["a", "a"],
      fromDate: 5,
      flowControl: { parallelism: 0, extra: 1 } as never,
      retries: -2,
      baseUrl: "ftp://x",
      token: "",
      concurrency: 999,
      runLogFile: 1 as never,
    }).list;
    const props = list.map((f) => f.property);
    for (const p of [
      "dlqIds[1]",
      "fromDate",
      "dlqIds",
      "flowControl.extra",
      "flowControl.parallelism",
      "retries",
      "baseUrl",
      "token",
      "concurrency",
      "runLogFile",
    ]) {
      assert.ok(props.includes(p), `missing failure for ${p}: ${JSON.stringify(props)}`);
    }
  });

  it("names the resource in the empty-selection failure only when it has a name", () => {
    const [f] = validateInputs({ baseUrl: "http://127.0.0.1:1", token: TOKEN }).list;
    assert.match(f.reason, /^DlqRecovery selects nothing/);
  });

  it("passes unknown (preview) values everywhere", () => {
    const cases: DlqRecoveryInputs[] = [
      { dlqIds: UNKNOWN as never, baseUrl: UNKNOWN, token: UNKNOWN },
      { dlqIds: [UNKNOWN, UNKNOWN, "dlq_a"], baseUrl: UNKNOWN, token: UNKNOWN },
      { all: UNKNOWN as never },
      {
        fromDate: UNKNOWN as never,
        toDate: UNKNOWN as never,
        workflowUrl: UNKNOWN,
        workflowRunId: UNKNOWN,
        workflowCreatedAt: UNKNOWN as never,
      },
      {
        all: true,
        flowControl: UNKNOWN as never,
        retries: UNKNOWN as never,
        triggers: UNKNOWN as never,
        allowInsecureHttp: UNKNOWN as never,
        concurrency: UNKNOWN as never,
        maxRequestsPerSecond: UNKNOWN as never,
        maxRecordedRuns: UNKNOWN as never,
        runLogFile: UNKNOWN as never,
      },
      {
        all: true,
        flowControl: { key: UNKNOWN, parallelism: UNKNOWN as never, rate: UNKNOWN as never, period: UNKNOWN },
      },
      { all: true, triggers: [UNKNOWN] },
    ];
    for (const c of cases) assert.deepEqual(validateInputs(c).list, [], JSON.stringify(c));
  });
});

describe("provider/dlqRecovery: check", () => {
  it("returns the inputs untouched and no failures on the happy path", async () => {
    const { provider } = dlqProvider();
    const news = happyDlq("filters");
    const r = await provider.check({}, news);
    assert.equal(r.failures, undefined);
    assert.deepEqual(r.inputs, news);
  });

  it("returns every validation failure together", async () => {
    const { provider } = dlqProvider();
    const r = await provider.check({}, happyDlq("filters", { concurrency: 257, maxRequestsPerSecond: 0 }));
    assert.deepEqual(r.failures?.map((f) => f.property).sort(), ["concurrency", "maxRequestsPerSecond"]);
  });

  it("fails when no source has the baseUrl or token, naming all three sources of each", async () => {
    const { provider } = dlqProvider();
    const r = await provider.check({}, happyDlq("filters", { baseUrl: undefined, token: undefined }));
    assert.equal(r.failures?.length, 1);
    const f = r.failures?.[0];
    // On the resource, not on the unset input (the engine would print "property baseUrl value {<nil>}").
    assert.equal(f?.property, "");
    for (const s of [
      "DlqRecovery `incident-42`",
      "input `baseUrl`",
      "stack config `svc:baseUrl`",
      "environment variable `SVC_BASE_URL`",
      "input `token`",
      "stack config `svc:token`",
      "environment variable `SVC_TOKEN`",
    ]) {
      assert.ok(f?.reason.includes(s), `${f?.reason} lacks ${s}`);
    }
  });

  it("names only the token when the baseUrl is configured", async () => {
    const { provider } = dlqProvider({ config: { "svc:baseUrl": "http://127.0.0.1:1" } });
    const r = await provider.check({}, happyDlq("filters", { baseUrl: undefined, token: undefined }));
    const reason = r.failures?.[0].reason ?? "";
    assert.match(reason, /no `token` configured/);
    assert.ok(!reason.includes("SVC_BASE_URL"), reason);
  });

  it("says a token that is set but empty is empty, where, and how to give it a value", async () => {
    const { provider } = dlqProvider({ config: { "svc:baseUrl": "http://127.0.0.1:1", "svc:token": "" } });
    const r = await provider.check({}, happyDlq("filters", { baseUrl: undefined, token: undefined }));
    assert.deepEqual(r.failures, [
      {
        property: "",
        reason:
          "DlqRecovery `incident-42`: `token` is set but empty in the stack config `svc:token`. Give it a value " +
          "(`pulumi config set --secret svc:token <value>`), or set the input `token` or the environment variable " +
          "`SVC_TOKEN`.",
      },
    ]);
  });

  it("says an empty `SVC_BASE_URL` is empty, on the resource, not as `baseUrl` {<nil>}", async () => {
    const { provider } = dlqProvider({ env: { SVC_BASE_URL: "" }, config: { "svc:token": TOKEN } });
    const r = await provider.check({}, happyDlq("filters", { baseUrl: undefined, token: undefined }));
    assert.equal(r.failures?.length, 1);
    assert.equal(r.failures?.[0].property, "");
    assert.equal(
      r.failures?.[0].reason,
      "DlqRecovery `incident-42`: `baseUrl` is set but empty in the environment variable `SVC_BASE_URL`. Give it a " +
        "value, or set the input `baseUrl` or the stack config `svc:baseUrl`.",
    );
  });

  it("a baseUrl from the stack config the transport rule refuses: on the resource; from the input: on `baseUrl`", async () => {
    const fromConfig = dlqProvider({ config: { "svc:baseUrl": "ftp://127.0.0.1:1", "svc:token": TOKEN } });
    const news = happyDlq("filters", { baseUrl: undefined, token: undefined });
    const r = await fromConfig.provider.check({}, news);
    assert.equal(r.failures?.length, 1);
    assert.equal(r.failures?.[0].property, "");
    assert.match(r.failures?.[0].reason ?? "", /baseUrl/);
    const fromInput = dlqProvider({ config: { "svc:token": TOKEN } });
    const s = await fromInput.provider.check({}, { ...news, baseUrl: "http://example.com" });
    assert.equal(s.failures?.[0].property, "baseUrl");
  });

  it("an empty baseUrl or token input: says which, and that unset it takes the stack config or the environment", async () => {
    const { provider } = dlqProvider();
    const r = await provider.check({}, happyDlq("filters", { baseUrl: "", token: "" }));
    assert.deepEqual(r.failures, [
      {
        property: "baseUrl",
        reason:
          '`baseUrl` must be a URL such as "http://127.0.0.1:8080"; got "". Or leave `baseUrl` unset to take the ' +
          "stack config `svc:baseUrl` or the environment variable `SVC_BASE_URL`.",
      },
      {
        property: "token",
        reason:
          "`token` must be a non-empty string; got an empty string. Or leave `token` unset to take the stack config " +
          "`svc:token` or the environment variable `SVC_TOKEN`.",
      },
    ]);
  });

  it("accepts baseUrl and token from stack config or from the environment", async () => {
    const news = happyDlq("filters", { baseUrl: undefined, token: undefined });
    const viaConfig = dlqProvider({ config: { "svc:baseUrl": "http://127.0.0.1:1", "svc:token": TOKEN } });
    assert.equal((await viaConfig.provider.check({}, news)).failures, undefined);
    const viaEnv = dlqProvider({ env: { SVC_BASE_URL: "http://127.0.0.1:1", SVC_TOKEN: TOKEN } });
    assert.equal((await viaEnv.provider.check({}, news)).failures, undefined);
  });

  it("passes unknown values through untouched", async () => {
    const { provider } = dlqProvider();
    const news = { dlqIds: UNKNOWN, baseUrl: UNKNOWN, token: UNKNOWN, flowControl: UNKNOWN } as never;
    const r = await provider.check({}, news);
    assert.equal(r.failures, undefined);
    assert.deepEqual(r.inputs, news);
  });

  it("never echoes the token in any failure", async () => {
    const { provider } = dlqProvider();
    const r = await provider.check(
      {},
      happyDlq("filters", { concurrency: 0, fromDate: 12, flowControl: {} }),
    );
    assert.ok(!JSON.stringify(r.failures).includes(TOKEN));
  });
});

describe("provider/dlqRecovery: selectionOf, overridesOf, specHash", () => {
  it("selectionOf sends dlqIds alone, or only the set filters", () => {
    assert.deepEqual(selectionOf({ dlqIds: ["a", "b"] }), { dlqIds: ["a", "b"] });
    assert.deepEqual(selectionOf({ all: true }), {});
    assert.deepEqual(
      selectionOf({
        fromDate: T0,
        toDate: T0 + 1,
        workflowUrl: "u",
        workflowRunId: "r",
        workflowCreatedAt: 9,
      }),
      { fromDate: T0, toDate: T0 + 1, workflowUrl: "u", workflowRunId: "r", workflowCreatedAt: 9 },
    );
    assert.deepEqual(selectionOf({ fromDate: 0, retries: 3, token: TOKEN, baseUrl: "x" }), { fromDate: 0 });
  });

  it("overridesOf carries flowControl and retries (0 included) and nothing else", () => {
    assert.deepEqual(overridesOf({ all: true }), {});
    assert.deepEqual(overridesOf({ retries: 0 }), { retries: 0 });
    assert.deepEqual(overridesOf({ flowControl: { key: "k", parallelism: 5 }, retries: 3, token: TOKEN }), {
      flowControl: { key: "k", parallelism: 5 },
      retries: 3,
    });
  });

  it("specHash changes with the selection, overrides and triggers", () => {
    const base = happyDlq("filters");
    const h = specHash(base);
    assert.match(h, /^[0-9a-f]{16}$/);
    for (const patch of [
      { workflowUrl: "http://127.0.0.1/other" },
      { fromDate: T0 + 1 },
      { toDate: T0 + 10 },
      { workflowRunId: "wfr_" },
      { workflowCreatedAt: T0 },
      { flowControl: { parallelism: 5 } },
      { retries: 1 },
      { triggers: [1] },
    ]) {
      assert.notEqual(specHash({ ...base, ...patch }), h, JSON.stringify(patch));
    }
    assert.notEqual(specHash({ dlqIds: ["a"] }), specHash({ dlqIds: ["b"] }));
    assert.notEqual(specHash({ all: true }), specHash({ all: true, triggers: ["again"] }));
  });

  it("specHash ignores connection and tuning inputs, and the key order of objects", () => {
    const base = happyDlq("filters", { flowControl: { key: "k", parallelism: 5, rate: 2 } });
    const h = specHash(base);
    for (const patch of [
      { baseUrl: "http://127.0.0.1:9" },
      { token: "another-token-value" },
      { allowInsecureHttp: true },
      { concurrency: 2 },
      { maxRequestsPerSecond: 3 },
      { maxRecordedRuns: 4 },
      { runLogFile: "x.jsonl" },
      { recoveryName: "renamed" },
      { flowControl: { rate: 2, parallelism: 5, key: "k" } },
    ]) {
      assert.equal(specHash({ ...base, ...patch }), h, JSON.stringify(patch));
    }
  });
});
