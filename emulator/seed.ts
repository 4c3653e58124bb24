/**
 * Deterministic seeding of failed runs: N entries over several workflow URLs, failure times
 * spread over the 3 days before `now`, in failure-time order.
 *
 * Output depends only on (count, seed, now, the store's next sequence number): a fresh or reset
 * emulator with a fixed clock reproduces the same entries. Objects that do not vary per entry
 * (headers, bodies, step lists) are shared, so 1,000,000 entries fit in memory and are created in
 * a few seconds.
 */
import type { DlqStore } from "./dlq";
import type { DlqEntry, WorkflowStep } from "./dlq-entry";
import type { Prng } from "./prng";
import { mixSeed, mulberry32, randomHex32, randomInt } from "./prng";
import { DEFAULT_RUN_ID_SHAPE, RunIdMaker, type RunIdShape } from "./run-ids";

/** Time span the failures are spread over, ms. */
export const SEED_SPAN_MS = 3 * 86_400_000;

/** A workflow the seeder generates failures for. */
interface SeedWorkflow {
  readonly url: string;
  readonly steps: readonly string[];
  readonly flowControl?: {
    readonly key: string;
    readonly parallelism?: number;
    readonly rate?: number;
    readonly period?: string;
  };
  /** Whether a parallel step is still in progress when the run fails. */
  readonly parallelTail: boolean;
}

/** The workflows, in the order they are cycled through. */
export const SEED_WORKFLOWS: readonly SeedWorkflow[] = [
  {
    url: "http://127.0.0.1/workflows/orders",
    steps: ["validate-order", "reserve-stock", "charge-card", "ship-order"],
    flowControl: { key: "orders", parallelism: 2 },
    parallelTail: false,
  },
  {
    url: "http://127.0.0.1/workflows/payments",
    steps: ["load-invoice", "charge", "send-receipt"],
    flowControl: { key: "payments", parallelism: 5, rate: 10, period: "1s" },
    parallelTail: true,
  },
  {
    url: "http://127.0.0.1/workflows/emails",
    steps: ["render-template", "send-email"],
    parallelTail: false,
  },
  {
    url: "http://127.0.0.1/workflows/reports",
    steps: ["query-data", "aggregate", "render-pdf", "upload", "notify"],
    flowControl: { key: "reports", rate: 1, period: "1m" },
    parallelTail: true,
  },
  {
    url: "http://127.0.0.1/workflows/webhooks",
    steps: ["verify-signature", "dispatch"],
    parallelTail: false,
  },
];

/** Statuses of the failed deliveries, with a shared response body each. */
const FAILURES: readonly { readonly status: number; readonly body: string }[] = [
  { status: 500, body: '{"error":"internal error"}' },
  { status: 502, body: "bad gateway" },
  { status: 503, body: '{"error":"service unavailable"}' },
  { status: 504, body: "gateway timeout" },
  { status: 429, body: '{"error":"too many requests"}' },
];

/** Shared request header of seeded failed steps. */
const SEED_HEADER: Readonly<Record<string, readonly string[]>> = Object.freeze({
  "Content-Type": Object.freeze(["application/json"]),
});

/**
 * Step lists per workflow and failed-step index, built once and shared by all entries.
 *
 * @param workflow - the workflow.
 */
function stepTemplates(workflow: SeedWorkflow): readonly (readonly WorkflowStep[])[] {
  return workflow.steps.map((_, failedIndex) => {
    const steps: WorkflowStep[] = workflow.steps.slice(0, failedIndex).map((name, i) => ({
      name,
      state: "STEP_SUCCESS",
      result: { step: name, ok: true, n: i },
    }));
    steps.push({ name: workflow.steps[failedIndex], state: "STEP_FAILED" });
    if (workflow.parallelTail && failedIndex + 1 < workflow.steps.length) {
      steps.push({ name: workflow.steps[failedIndex + 1], state: "STEP_PROGRESS" });
    }
    return Object.freeze(steps.map((s) => Object.freeze(s)));
  });
}

/** Templates per workflow, computed on first use. */
let templates: readonly (readonly (readonly WorkflowStep[])[])[] | undefined;

/**
 * A DLQ ID not live in the store (redrawn on the rare collision, so seeding never fails).
 *
 * @param prng - the generator.
 * @param store - the DLQ.
 */
function uniqueDlqId(prng: Prng, store: DlqStore): string {
  for (;;) {
    const id = `dlq_${randomHex32(prng)}${randomHex32(prng)}`;
    if (!store.has(id)) return id;
  }
}

/**
 * Append `count` seeded failed runs to the store.
 *
 * @param store - the DLQ.
 * @param count - how many entries, >= 0.
 * @param seed - PRNG seed.
 * @param now - anchor time, unix ms; failures lie in [now - 3 days, now).
 * @param runIds - the shape of the entries' run IDs (`run-ids.ts`; default `sdk`). Every other
 *   field is the same whatever the shape (the hex ID is drawn either way, then replaced).
 * @returns the number of entries added.
 */
export function seedEntries(
  store: DlqStore,
  count: number,
  seed: number,
  now: number,
  runIds: RunIdShape = DEFAULT_RUN_ID_SHAPE,
): number {
  templates ??= SEED_WORKFLOWS.map(stepTemplates);
  const prng = mulberry32(mixSeed(seed, store.nextSequence));
  // Run IDs of other shapes come from a stream of their own, named in trigger-time order.
  const maker =
    runIds === "hex"
      ? undefined
      : new RunIdMaker(runIds, mulberry32(mixSeed(seed ^ 0x5eed, store.nextSequence)));
  const made: DlqEntry[] = [];
  const start = now - SEED_SPAN_MS;
  for (let i = 0; i < count; i++) {
    const w = randomInt(prng, 0, SEED_WORKFLOWS.length - 1);
    const workflow = SEED_WORKFLOWS[w];
    const failure = FAILURES[randomInt(prng, 0, FAILURES.length - 1)];
    const failedAt = start + Math.floor(((i + prng()) * SEED_SPAN_MS) / count);
    const flow = workflow.flowControl;
    const entry: DlqEntry = {
      seq: 0,
      dlqId: uniqueDlqId(prng, store),
      // 64 random bits: a collision among a million run IDs has a probability below 1e-7.
      workflowRunId: `wfr_${randomHex32(prng)}${randomHex32(prng)}`,
      workflowUrl: workflow.url,
      workflowCreatedAt: failedAt - randomInt(prng, 1_000, 3_600_000),
      createdAt: failedAt + randomInt(prng, 0, 5_000),
      failedAt,
      url: workflow.url,
      method: "POST",
      header: SEED_HEADER,
      body: "",
      maxRetries: 3,
      responseStatus: failure.status,
      responseBody: failure.body,
      flowControlKey: flow?.key,
      parallelism: flow?.parallelism,
      rate: flow?.rate,
      period: flow?.period,
      runState: "RUN_FAILED",
      steps: templates[w][randomInt(prng, 0, workflow.steps.length - 1)],
    };
    store.insert(entry);
    if (maker !== undefined) made.push(entry);
  }
  if (maker !== undefined) {
    // Named once all are drawn (`app` numbers rise with the trigger time); nothing has read them yet.
    const ids = maker.name(made.map((e) => e.workflowCreatedAt));
    made.forEach((e, i) => ((e as { workflowRunId: string }).workflowRunId = ids[i]));
  }
  return count;
}
