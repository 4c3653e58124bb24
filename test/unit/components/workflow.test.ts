/**
 * The `Workflow` component under Pulumi's mocks: what it registers (the inputs resource
 * policies see), its outputs and headers, and its validation. Also the duration helpers.
 */
import * as assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import { Account } from "../../../components/Account";
import { Workflow, type WorkflowArgs } from "../../../components/Workflow";
import { WORKFLOW_TYPE } from "../../../core/typeTokens";
import { formatDuration, parseDuration } from "../../../core/duration";

const registered: pulumi.runtime.MockResourceArgs[] = [];

function useMocks(preview: boolean): void {
  registered.length = 0;
  pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        registered.push(args);
        // In preview, a dependency's outputs stay unknown: it returns no state.
        return { id: `${args.name}-id`, state: preview ? {} : args.inputs };
      },
      call: (args) => args.inputs,
    },
    "project",
    "stack",
    preview,
  );
}

/** A resource whose `limit` output is unknown in preview (the mocks return no state then). */
class Dep extends pulumi.CustomResource {
  declare public readonly limit: pulumi.Output<number>;
  constructor(name: string) {
    super("test:index:Dep", name, { limit: undefined });
  }
}

/** The value of an Output (rejects when the Output failed). */
function valueOf<T>(o: pulumi.Output<T>): Promise<T> {
  return (o as unknown as { promise(): Promise<T> }).promise();
}

/** Whether an Output is known (false for values unknown during preview). */
function isKnown(o: pulumi.Output<unknown>): Promise<boolean> {
  return (o as unknown as { isKnown: Promise<boolean> }).isKnown;
}

const FULL: WorkflowArgs = {
  url: "https://example.com/api/orders",
  retries: 3,
  delay: "10m",
  flowControl: { key: "orders", parallelism: 5, rate: 10, period: 1 },
};

describe("Workflow", () => {
  beforeEach(() => useMocks(false));

  it("registers svc:index:Workflow with its arguments as inputs (what resource policies see)", async () => {
    const wf = new Workflow("orders", FULL);
    await valueOf(wf.headers);
    const reg = registered.find((r) => r.name === "orders");
    assert.equal(reg?.type, WORKFLOW_TYPE);
    assert.deepEqual(reg?.inputs, {
      url: "https://example.com/api/orders",
      retries: 3,
      delay: "10m",
      flowControl: { key: "orders", parallelism: 5, rate: 10, period: 1 },
    });
  });

  it("exposes the settings and exactly the headers an application sends", async () => {
    const wf = new Workflow("orders", FULL);
    assert.equal(await valueOf(wf.url), "https://example.com/api/orders");
    assert.equal(await valueOf(wf.retries), 3);
    assert.equal(await valueOf(wf.delaySeconds), 600);
    assert.deepEqual(await valueOf(wf.flowControl), { key: "orders", parallelism: 5, rate: 10, period: 1 });
    assert.deepEqual(await valueOf(wf.headers), {
      "Svc-Retries": "3",
      "Svc-Delay": "600s",
      "Svc-Flow-Control-Key": "orders",
      "Svc-Flow-Control-Value": "parallelism=5, rate=10, period=1s",
    });
  });

  it("sends only the headers of the settings that are set", async () => {
    const bare = new Workflow("bare", { url: "http://127.0.0.1:3000/wf" });
    assert.deepEqual(await valueOf(bare.headers), {});
    assert.equal(await valueOf(bare.retries), undefined);
    assert.equal(await valueOf(bare.delaySeconds), undefined);
    assert.equal(await valueOf(bare.flowControl), undefined);

    const rateOnly = new Workflow("rate", {
      url: "http://127.0.0.1:3000/wf",
      retries: 0,
      delay: 0,
      flowControl: { key: "k", rate: 10, period: "1m" },
    });
    assert.deepEqual(await valueOf(rateOnly.headers), {
      "Svc-Retries": "0",
      "Svc-Delay": "0s",
      "Svc-Flow-Control-Key": "k",
      "Svc-Flow-Control-Value": "rate=10, period=1m",
    });
  });

  it("resolves Output arguments", async () => {
    const wf = new Workflow("late", {
      url: pulumi.output("https://example.com/late"),
      retries: pulumi.output(7),
      delay: pulumi.output("2h"),
      flowControl: pulumi.output({ key: "late", parallelism: 2 }),
    });
    assert.deepEqual(await valueOf(wf.headers), {
      "Svc-Retries": "7",
      "Svc-Delay": "7200s",
      "Svc-Flow-Control-Key": "late",
      "Svc-Flow-Control-Value": "parallelism=2",
    });
  });

  it("names a single invalid argument and its value", () => {
    assert.throws(
      () => new Workflow("orders", { ...FULL, retries: -1 }),
      (e: Error) => e.message === "Workflow `orders`: `retries` must be a non-negative integer; got -1.",
    );
  });

  it("reports every invalid argument in one error", () => {
    assert.throws(
      () =>
        new Workflow("orders", {
          url: "ftp://example.com",
          retries: 1.5,
          delay: "soon",
          flowControl: { key: "", parallelism: 0, period: "0s" },
        }),
      (e: Error) =>
        e.message ===
        "Workflow `orders`: " +
          '`url` must be an http(s) URL such as "https://example.com/api/workflow"; got "ftp://example.com". ' +
          "`retries` must be a non-negative integer; got 1.5. " +
          '`delay` must be a non-negative whole number of seconds or a duration such as "10m" (units s, m, h, d); got "soon". ' +
          '`flowControl.key` must be a string of 1 to 256 visible ASCII characters (no spaces, control or non-ASCII characters); got "". ' +
          "`flowControl.parallelism` must be a positive integer; got 0. " +
          '`flowControl.period` must be a positive whole number of seconds or a duration such as "1m" (units s, m, h, d); got "0s".',
    );
    assert.equal(registered.length, 0, "nothing is registered");
  });

  it("requires url, and parallelism or rate in flowControl", () => {
    assert.throws(
      () => new Workflow("x", { flowControl: { key: "k" } } as unknown as WorkflowArgs),
      (e: Error) =>
        e.message ===
        "Workflow `x`: `url` is required. `flowControl` must set `parallelism` or `rate` (or both); it sets neither.",
    );
  });

  it("refuses arguments it does not know (a typo is not silently ignored)", () => {
    assert.throws(
      () =>
        new Workflow("x", {
          url: "https://example.com",
          retry: 3,
          flowControl: { key: "k", paralellism: 3, rate: 1 },
        } as unknown as WorkflowArgs),
      (e: Error) =>
        e.message ===
        "Workflow `x`: `retry` (did you mean `retries`?) is not an input of Workflow; its inputs are `url`, " +
          "`retries`, `delay`, `flowControl` and `account`. " +
          "`flowControl.paralellism` is not an argument of Workflow; expected key, parallelism, rate, period.",
    );
  });

  it("validates an Output argument when it resolves", async () => {
    const wf = new Workflow("late", { url: "https://example.com", retries: pulumi.output(-2) });
    await assert.rejects(valueOf(wf.retries), (e: Error) => {
      assert.equal(e.message, "Workflow `late`: `retries` must be a non-negative integer; got -2.");
      return true;
    });
    const fc = new Workflow("late-fc", {
      url: "https://example.com",
      flowControl: pulumi.output({ key: "k", parallelism: 0 }),
    });
    await assert.rejects(
      valueOf(fc.flowControl),
      /Workflow `late-fc`: `flowControl.parallelism` must be a positive integer; got 0\./,
    );
  });

  it("keeps an unknown argument from making the other outputs unknown (preview)", async () => {
    useMocks(true);
    const limit = new Dep("dep").limit;
    const wf = new Workflow("orders", { url: "https://example.com", retries: limit, delay: "1m" });
    assert.equal(await isKnown(wf.retries), false);
    assert.equal(await isKnown(wf.headers), false);
    assert.equal(await isKnown(wf.url), true);
    assert.equal(await valueOf(wf.delaySeconds), 60);
  });
});

describe("Workflow: `account`", () => {
  beforeEach(() => useMocks(false));

  it("records an Account resource as its URN, in the inputs and the `account` output", async () => {
    const account = new Account("payg");
    const wf = new Workflow("orders", { url: "https://example.com/api/orders", account });
    assert.equal(await valueOf(wf.account), await valueOf(account.urn));
    await valueOf(wf.headers);
    const inputs = registered.find((r) => r.type === WORKFLOW_TYPE)?.inputs ?? {};
    assert.equal(inputs.account, await valueOf(account.urn));
  });

  it("records an account ID as given", async () => {
    const wf = new Workflow("orders", { url: "https://example.com/api/orders", account: "acct-1" });
    assert.equal(await valueOf(wf.account), "acct-1");
  });

  it("registers no `account` input when it is not set (a Workflow of 0.1.0 stays the same)", async () => {
    const wf = new Workflow("orders", FULL);
    assert.equal(await valueOf(wf.account), undefined);
    await valueOf(wf.headers);
    const inputs = registered.find((r) => r.type === WORKFLOW_TYPE)?.inputs ?? {};
    assert.equal("account" in inputs, false);
  });

  const bad: [string, unknown, string][] = [
    [
      "a number",
      42,
      "`account` must be an `Account` resource or an account ID (a non-empty string); got 42.",
    ],
    ["an empty string", "", '; got "".'],
    ["another resource", undefined, "got another resource."],
  ];
  for (const [what, value, reason] of bad) {
    it(`refuses ${what}, naming \`account\``, () => {
      const account = value === undefined ? new Dep("dep") : value;
      assert.throws(
        () =>
          new Workflow("orders", {
            url: "https://example.com/api/orders",
            account,
          } as unknown as WorkflowArgs),
        (e: Error) =>
          e.message.startsWith("Workflow `orders`: `account` must be") && e.message.includes(reason),
      );
    });
  }
});

describe("durations", () => {
  it("parses whole seconds and strings with one unit", () => {
    assert.equal(parseDuration(0), 0);
    assert.equal(parseDuration(600), 600);
    assert.equal(parseDuration("45s"), 45);
    assert.equal(parseDuration("10m"), 600);
    assert.equal(parseDuration("2h"), 7_200);
    assert.equal(parseDuration("7d"), 604_800);
  });

  it("refuses anything else", () => {
    for (const v of [-1, 1.5, Number.NaN, "10", "10 m", "1h30m", "10w", "-1s", "", null, undefined, {}]) {
      assert.equal(parseDuration(v), undefined, String(v));
    }
  });

  it("formats seconds in the largest exact unit", () => {
    assert.equal(formatDuration(600), "10m");
    assert.equal(formatDuration(1_209_600), "14d");
    assert.equal(formatDuration(7_200), "2h");
    assert.equal(formatDuration(90), "90s");
    assert.equal(formatDuration(0), "0s");
  });
});
