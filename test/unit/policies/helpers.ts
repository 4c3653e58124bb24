/**
 * Fixtures of the policy unit tests: a happy-path stack (every value within the free plan's
 * limits) that each test changes in one place, a fake live source that counts its calls, and a
 * runner that calls `validateStack` the way the policy framework does (props behind
 * `unknownCheckingProxy`, unknown values as `UnknownValueError`).
 */
import { unknownCheckingProxy, type PolicyResource, type StackValidationPolicy } from "@pulumi/policy";
import type { AccountRecord } from "../../../client";
import { PLAN_PRESETS } from "../../../emulator/plans";
import { createPolicies, type SvcLimitsPack } from "../../../policies/pack";
import type { LiveAccountResult, LiveAccountSource } from "../../../policies/liveAccount";
import type { AccountConnectionInputs } from "../../../core/accountClient";
import {
  ACCOUNT_PROVIDER_TYPE,
  ACCOUNT_DYNAMIC_TYPE,
  DLQ_RECOVERY_PROVIDER_TYPE,
  DLQ_RECOVERY_DYNAMIC_TYPE,
  WORKFLOW_TYPE,
  type ResourceKind,
} from "../../../core/typeTokens";
import { isUnknownValueError } from "../../../policies/resources";

/** A fixed "now" (2026-11-21T12:00:00Z). */
export const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
/** One hour and one day in milliseconds. */
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
/** The engine's sentinel for a string value unknown during preview (declared once, in core/). */
export { UNKNOWN } from "../../../core/unknownValue";
/** The engine's sentinel for a number value unknown during preview. */
export const UNKNOWN_NUMBER = "3eeb2bf0-c639-47a8-9e75-3b44932eb421";

/** The live record of the happy path: the free plan (max_parallelism 2, max_retries 999, ...). */
export function freeRecord(overrides: Partial<AccountRecord> = {}): AccountRecord {
  return {
    ...PLAN_PRESETS.free,
    customer_id: "ops@example.com",
    id: "00000000-0000-4000-8000-000000000001",
    password: "pw-not-for-messages",
    token: "tok-not-for-messages",
    active: true,
    state: "active",
    last_plan_upgrade_time: 0,
    created_by: "ops@example.com",
    creation_time: 0,
    ...overrides,
  } as AccountRecord;
}

/** Props of resources by name; each test changes one value of {@link happyStack}. */
export interface StackFixture {
  workflows: Record<string, Record<string, unknown>>;
  recoveries: Record<string, Record<string, unknown>>;
  accounts: Record<string, Record<string, unknown>>;
}

/**
 * The happy path: two Workflows and one pending DlqRecovery, all within the free plan
 * (parallelism 2 + 1 = 3 of 10 globally, retries 3 and 2, delay 10 minutes, a window of the
 * last hour), and no Account resource. Props are shaped as a stack policy sees them (a
 * Workflow's registered outputs, a DlqRecovery's inputs).
 */
export function happyStack(): StackFixture {
  return {
    workflows: {
      orders: {
        url: "https://example.com/api/orders",
        retries: 3,
        delaySeconds: 600,
        flowControl: { key: "orders", parallelism: 2, rate: 10, period: "1m" },
        headers: {
          "Svc-Retries": "3",
          "Svc-Delay": "600s",
          "Svc-Flow-Control-Key": "orders",
          "Svc-Flow-Control-Value": "parallelism=2, rate=10, period=1m",
        },
      },
      billing: {
        url: "https://example.com/api/billing",
        flowControl: { key: "billing", parallelism: 1 },
        headers: { "Svc-Flow-Control-Key": "billing", "Svc-Flow-Control-Value": "parallelism=1" },
      },
    },
    recoveries: {
      replay: {
        workflowUrl: "https://example.com/api/orders",
        fromDate: NOW - HOUR_MS,
        toDate: NOW,
        flowControl: { key: "orders", parallelism: 1 },
        retries: 2,
        token: "tok-not-for-messages",
      },
    },
    accounts: {},
  };
}

/** The Account outputs of a free-plan account, as a stack policy sees them after `pulumi up`. */
export function accountOutputs(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    accountApiUrl: "http://127.0.0.1:1",
    username: "ops@example.com",
    maxParallelism: 2,
    maxRetries: 999,
    maxDelay: 604_800,
    maxGlobalParallelism: 10,
    maxDlqRetentionTimeMilis: 3 * DAY_MS,
    ...overrides,
  };
}

function resource(type: string, name: string, props: Record<string, unknown>): PolicyResource {
  const r = {
    type,
    name,
    urn: `urn:pulumi:dev::test::${type}::${name}`,
    props: unknownCheckingProxy(props) as Record<string, unknown>,
    opts: {},
    dependencies: [],
    propertyDependencies: {},
  } as unknown as PolicyResource;
  r.isType = () => false;
  r.asType = () => undefined;
  return r;
}

/** The type token of each kind a fixture's resources get. */
export type TypeSet = Readonly<Record<ResourceKind, string>>;

/** The 0.2 tokens: dynamic `Account` and `DlqRecovery` (stacks not yet upgraded); the default. */
export const DYNAMIC_TYPES: TypeSet = {
  Account: ACCOUNT_DYNAMIC_TYPE,
  DlqRecovery: DLQ_RECOVERY_DYNAMIC_TYPE,
  Workflow: WORKFLOW_TYPE,
};

/** The svc provider's tokens (`svc:index:*`), as a YAML program's resources have them. */
export const PROVIDER_TYPES: TypeSet = {
  Account: ACCOUNT_PROVIDER_TYPE,
  DlqRecovery: DLQ_RECOVERY_PROVIDER_TYPE,
  Workflow: WORKFLOW_TYPE,
};

/** The fixture as the resources a stack policy receives, Accounts first. */
export function toResources(f: StackFixture, types: TypeSet = DYNAMIC_TYPES): PolicyResource[] {
  return [
    ...Object.entries(f.accounts).map(([n, p]) => resource(types.Account, n, p)),
    ...Object.entries(f.workflows).map(([n, p]) => resource(types.Workflow, n, p)),
    ...Object.entries(f.recoveries).map(([n, p]) => resource(types.DlqRecovery, n, p)),
  ];
}

/** The URN the fixture gives a resource. */
export function urnOf(type: string, name: string): string {
  return `urn:pulumi:dev::test::${type}::${name}`;
}

/** A live source that returns `result` and counts its calls (and records the settings it was given). */
export interface FakeLive extends LiveAccountSource {
  calls: number;
  /** The settings of each call, in order (`{}` for the stack's `svc:` account). */
  inputs: AccountConnectionInputs[];
}

/**
 * Builds a {@link FakeLive}.
 *
 * @param result - the outcome, or a function of the settings (one answer per account)
 */
export function fakeLive(
  result: LiveAccountResult | ((inputs: AccountConnectionInputs) => LiveAccountResult),
): FakeLive {
  const f = (async (inputs: AccountConnectionInputs = {}) => {
    f.calls++;
    f.inputs.push(inputs);
    return typeof result === "function" ? result(inputs) : result;
  }) as FakeLive;
  f.calls = 0;
  f.inputs = [];
  return f;
}

/** A live source that reads {@link freeRecord} (with overrides). */
export function liveOk(overrides: Partial<AccountRecord> = {}): FakeLive {
  return fakeLive({ status: "ok", record: freeRecord(overrides), url: "http://127.0.0.1:1" });
}

/** A live source that is not configured. */
export function liveNone(): FakeLive {
  return fakeLive({ status: "not-configured" });
}

/** A live source that could not read the record. */
export function liveFailed(message: string): FakeLive {
  return fakeLive({ status: "failed", message });
}

/** What one policy reported. */
export interface Outcome {
  /** Violations, in order. */
  violations: { message: string; urn?: string }[];
  /** The message of the "can't run during preview" note, when values were unknown. */
  unknown?: string;
}

/** Calls one policy's `validateStack` like the framework does. */
export async function runPolicy(
  policy: StackValidationPolicy,
  resources: PolicyResource[],
  config: Record<string, unknown> = {},
): Promise<Outcome> {
  const outcome: Outcome = { violations: [] };
  try {
    await policy.validateStack(
      {
        resources,
        stackTags: new Map(),
        getConfig: <T extends object>() => config as T,
        notApplicable: (reason?: string): never => {
          throw new Error(`not applicable: ${reason}`);
        },
      },
      (message, urn) => outcome.violations.push(urn === undefined ? { message } : { message, urn }),
    );
  } catch (e) {
    if (!isUnknownValueError(e)) throw e;
    outcome.unknown = (e as Error).message;
  }
  return outcome;
}

/** A pack built around a fake live source and the fixed clock. */
export function pack(live: FakeLive): SvcLimitsPack {
  return createPolicies({ live, now: () => NOW });
}

/** One policy of a pack, by name. */
export function policyNamed(p: SvcLimitsPack, name: string): StackValidationPolicy {
  const found = p.policies.find((x) => x.name === name);
  if (found === undefined) throw new Error(`no policy ${name}`);
  return found;
}

/**
 * Runs every policy of a pack in order, as the engine's one stack analysis does.
 *
 * @param configs - policy config by policy name
 */
export async function runPack(
  p: SvcLimitsPack,
  resources: PolicyResource[],
  configs: Record<string, Record<string, unknown>> = {},
): Promise<Record<string, Outcome>> {
  const out: Record<string, Outcome> = {};
  for (const policy of p.policies)
    out[policy.name] = await runPolicy(policy, resources, configs[policy.name]);
  return out;
}

/**
 * Runs one policy of a fresh pack over the fixture (its resources with the 0.2 tokens unless
 * `types` says otherwise).
 *
 * @returns the outcome, the live source (for its call count) and the notes the run left
 */
export async function check(
  name: string,
  fixture: StackFixture,
  opts: { live?: FakeLive; config?: Record<string, unknown>; types?: TypeSet } = {},
): Promise<Outcome & { live: FakeLive; pack: SvcLimitsPack }> {
  const live = opts.live ?? liveOk();
  const p = pack(live);
  const outcome = await runPolicy(policyNamed(p, name), toResources(fixture, opts.types), opts.config);
  return { ...outcome, live, pack: p };
}

/** The one violation message of an outcome; fails when there is not exactly one. */
export function onlyMessage(o: Outcome): string {
  if (o.violations.length !== 1) {
    throw new Error(`expected one violation, got ${o.violations.length}: ${JSON.stringify(o.violations)}`);
  }
  return o.violations[0].message;
}

/** The checks a run left unchecked, as "field: resources: cause" lines (takes the run's notes). */
export function uncheckedOf(p: SvcLimitsPack): string[] {
  return [...p.context.takeNotes().unchecked.values()].map(
    (u) => `${u.spec.field}: ${[...u.resources].sort().join(", ")}: ${u.cause}`,
  );
}
