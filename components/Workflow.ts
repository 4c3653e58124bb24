/**
 * {@link Workflow}: one workflow's trigger configuration (URL, retries, delay, flow control) as a
 * component resource whose outputs other stacks can read, and which the policy pack checks
 * against the account's limits.
 *
 * @packageDocumentation
 */
import * as pulumi from "@pulumi/pulumi";
import {
  FLOW_CONTROL_KEY_HEADER,
  FLOW_CONTROL_VALUE_HEADER,
  RETRIES_HEADER,
  flowControlHeaderValue,
  flowControlProblems,
  isSet,
  retriesProblems,
  unknownFlowControlFields,
  type FlowControlOverride,
} from "../client";
import { accountProblem } from "../core/accountRef";
import { parseDuration } from "../core/duration";
import { unknownInputsProblem } from "../core/inputNames";
import { formatValue } from "../client/messageText";
import { WORKFLOW_TYPE } from "../core/typeTokens";
import { isAccountResource, recordedAccount, type AccountArg } from "./accountInput";
import { WORKFLOW_ARGUMENTS, type WorkflowArgumentName } from "./workflowArguments";

/** Header carrying the delay of a triggered workflow run, e.g. `"600s"`. */
export const DELAY_HEADER = "Svc-Delay";

/**
 * Flow control of a {@link Workflow}: runs with the same key share the parallelism and rate.
 * The fields and their grammar are those of the override headers (`FlowControlOverride`); a
 * Workflow requires the `key`, and `parallelism` or `rate`.
 */
export type WorkflowFlowControlArgs = {
  [K in keyof FlowControlOverride]?: pulumi.Input<NonNullable<FlowControlOverride[K]>>;
} & { key: pulumi.Input<string> };

/** The arguments of {@link Workflow}. */
export interface WorkflowArgs {
  /** The workflow's endpoint: an `http://` or `https://` URL. */
  url: pulumi.Input<string>;
  /** Retries of a failed step: an integer 0 to 2,147,483,647, sent as `Svc-Retries`. At most `max_retries`. */
  retries?: pulumi.Input<number>;
  /**
   * Delay before a triggered run starts: whole seconds, or a duration such as `"10m"` (units
   * `s`, `m`, `h`, `d`). Sent as `Svc-Delay` in seconds (`"600s"`). At most `max_delay`.
   */
  delay?: pulumi.Input<number | string>;
  /** Flow control: a key, and `parallelism` or `rate` (or both). */
  flowControl?: pulumi.Input<WorkflowFlowControlArgs>;
  /**
   * The account this workflow belongs to: an `Account` resource, or an account ID (the record's
   * `id`, e.g. a platform stack's `accountId` read through a StackReference). The policy pack
   * checks the workflow against that account's limits. Default: the stack's `svc:` account.
   */
  account?: AccountArg;
}

/** The resolved flow control of a {@link Workflow}, as its `flowControl` output (only the fields that are set). */
export type WorkflowFlowControl = FlowControlOverride & { key: string };

export { WORKFLOW_ARGUMENTS };

/** `WORKFLOW_ARGUMENTS` and `WorkflowArgs` name the same arguments: the compiler checks both ways. */
const SAME_ARGUMENTS: [
  Exclude<keyof WorkflowArgs, WorkflowArgumentName>,
  Exclude<WorkflowArgumentName, keyof WorkflowArgs>,
] extends [never, never]
  ? true
  : never = true;
void SAME_ARGUMENTS;
const ARGUMENTS = WORKFLOW_ARGUMENTS;

/** True for a value not known yet: an Output or a promise (the component), an unknown (the provider). */
export type IsPending = (v: unknown) => boolean;

/** True for a value that is not known while the constructor runs (an Output or a promise). */
function isLate(v: unknown): boolean {
  return (
    pulumi.Output.isInstance(v) ||
    (v !== null && typeof v === "object" && typeof (v as { then?: unknown }).then === "function")
  );
}

/**
 * The rule of a workflow's `url`, different on purpose from the rule of a URL a credential is
 * sent to (`parseCredentialUrl` in `client/transport.ts`): a workflow URL carries no credential,
 * may be plain `http://` to any host and is shown as given.
 */
function workflowUrlProblem(v: unknown): string | undefined {
  if (!isSet(v)) return "`url` is required.";
  let ok = false;
  if (typeof v === "string") {
    try {
      const u = new URL(v);
      ok = u.protocol === "http:" || u.protocol === "https:";
    } catch {
      ok = false;
    }
  }
  return ok
    ? undefined
    : `\`url\` must be an http(s) URL such as "https://example.com/api/workflow"; got ${formatValue(v)}.`;
}

/** `retries`: the grammar of `Svc-Retries`. */
function retriesMessages(v: unknown): string[] {
  return retriesProblems(v).map((p) => p.message);
}

/** `account`: an `Account` resource or an account ID (the rule in `core/accountRef.ts`). */
function accountMessages(v: unknown): string[] {
  if (isAccountResource(v)) return [];
  if (pulumi.Resource.isInstance(v)) {
    return [
      "`account` must be an `Account` resource or an account ID (a non-empty string); got another resource.",
    ];
  }
  const p = accountProblem(v);
  return p === undefined ? [] : [p];
}

/** `delay`: this component's own field (`Svc-Delay`), in the duration grammar of `duration.ts`. */
function delayMessages(v: unknown): string[] {
  if (!isSet(v) || parseDuration(v) !== undefined) return [];
  return [
    '`delay` must be a non-negative whole number of seconds or a duration such as "10m" ' +
      `(units s, m, h, d); got ${formatValue(v)}.`,
  ];
}

/**
 * The problems of a flow-control argument whose fields are known (late fields are skipped): the
 * grammar of the flow-control headers, then this component's own rules (a known set of fields,
 * a `key`, and `parallelism` or `rate`).
 *
 * @param fc - the `flowControl` argument
 * @param partial - true when some fields are not known yet: the "parallelism or rate" rule is
 * then only checked when they resolve
 * @param isPending - which values are not known yet (skipped)
 */
function flowControlMessages(fc: unknown, partial: boolean, isPending: IsPending = isLate): string[] {
  if (!isSet(fc)) return [];
  const grammar = flowControlProblems(fc, { isPending });
  if (typeof fc !== "object" || Array.isArray(fc)) return grammar.map((p) => p.message);
  const o = fc as Record<string, unknown>;
  const unset = (k: string): boolean => !isPending(o[k]) && !isSet(o[k]);
  const problems = unknownFlowControlFields(fc, "Workflow").map((p) => p.message);
  if (unset("key")) problems.push("`flowControl.key` is required.");
  // "Sets nothing" and "period without a limit" are covered by the stricter rule below.
  problems.push(...grammar.filter((p) => p.code === "invalid").map((p) => p.message));
  if (!partial && unset("parallelism") && unset("rate")) {
    problems.push("`flowControl` must set `parallelism` or `rate` (or both); it sets neither.");
  }
  return problems;
}

/**
 * Validates the arguments of a {@link Workflow} that are known when it is constructed. Values
 * that are Outputs or promises are checked once they resolve.
 *
 * @param args - the arguments as given
 * @param isPending - which values are not known yet, checked later: Outputs and promises by
 * default (the component); the engine's unknown value in the svc provider's `Construct`
 * @returns every problem, each a sentence naming the argument in backticks and the value; empty
 * when the known arguments are valid
 */
export function workflowArgProblems(args: unknown, isPending: IsPending = isLate): string[] {
  if (args === undefined || args === null || typeof args !== "object" || Array.isArray(args)) {
    return [`the arguments must be an object with at least \`url\`; got ${formatValue(args)}.`];
  }
  const a = args as Record<string, unknown>;
  const problems: string[] = [];
  // One problem naming every argument it does not take (the engine's own `__` keys pass).
  const unknown = unknownInputsProblem("Workflow", Object.keys(a), ARGUMENTS);
  if (unknown !== undefined) problems.push(unknown);
  if (!isPending(a.url)) {
    const p = workflowUrlProblem(a.url);
    if (p) problems.push(p);
  }
  if (!isPending(a.retries)) problems.push(...retriesMessages(a.retries));
  if (!isPending(a.delay)) problems.push(...delayMessages(a.delay));
  if (!isPending(a.account)) problems.push(...accountMessages(a.account));
  if (!isPending(a.flowControl)) {
    const fc = a.flowControl;
    const partial = fc !== null && typeof fc === "object" && Object.values(fc).some(isPending);
    problems.push(...flowControlMessages(fc, partial, isPending));
  }
  return problems;
}

/**
 * The `flowControl` output of a valid flow-control argument: the fields that are set, `key` first.
 *
 * @param v - a validated `flowControl` (its fields known, or the provider's unknown value)
 */
export function workflowFlowControl(v: FlowControlOverride & { key: string }): WorkflowFlowControl {
  const fc: WorkflowFlowControl = { key: v.key };
  if (v.parallelism !== undefined && v.parallelism !== null) fc.parallelism = v.parallelism;
  if (v.rate !== undefined && v.rate !== null) fc.rate = v.rate;
  if (v.period !== undefined && v.period !== null) fc.period = v.period;
  return fc;
}

/**
 * The headers an application sends when it triggers the workflow: `Svc-Retries`, `Svc-Delay`
 * (in seconds, e.g. `"600s"`), `Svc-Flow-Control-Key` and `Svc-Flow-Control-Value` (e.g.
 * `"parallelism=5, rate=10, period=1s"`) — only those whose setting is set.
 *
 * @param settings - validated settings
 */
export function workflowHeaders(settings: {
  retries?: number;
  delaySeconds?: number;
  flowControl?: WorkflowFlowControl;
}): Record<string, string> {
  const headers: Record<string, string> = {};
  if (settings.retries !== undefined) headers[RETRIES_HEADER] = String(settings.retries);
  if (settings.delaySeconds !== undefined) headers[DELAY_HEADER] = `${settings.delaySeconds}s`;
  const fc = settings.flowControl;
  if (fc !== undefined) {
    headers[FLOW_CONTROL_KEY_HEADER] = fc.key;
    const value = flowControlHeaderValue(fc);
    if (value !== undefined) headers[FLOW_CONTROL_VALUE_HEADER] = value;
  }
  return headers;
}

/**
 * One workflow's trigger configuration: where it runs (`url`), how often a failed step is
 * retried (`retries`), how long a triggered run waits (`delay`) and its flow control.
 *
 * The constructor validates the arguments that are known and reports every problem in one
 * error; arguments that are Outputs are validated when they resolve. The outputs carry the
 * settings and the exact `headers` an application sends when it triggers the workflow, so
 * another stack can read them through a `StackReference`. The policy pack
 * (`policies/`) checks `retries`, `delaySeconds` and `flowControl.parallelism` against the
 * account's `max_retries`, `max_delay` and `max_parallelism`.
 *
 * Nothing is created at the service: triggering is the application's job.
 *
 * @example
 * ```ts
 * const orders = new Workflow("orders", {
 *   url: "https://example.com/api/orders",
 *   retries: 3,
 *   delay: "10m",
 *   flowControl: { key: "orders", parallelism: 2, rate: 10, period: "1m" },
 * });
 * export const ordersHeaders = orders.headers;
 * // { "Svc-Retries": "3", "Svc-Delay": "600s", "Svc-Flow-Control-Key": "orders",
 * //   "Svc-Flow-Control-Value": "parallelism=2, rate=10, period=1m" }
 * ```
 */
export class Workflow extends pulumi.ComponentResource {
  /** The type token, for policies. */
  public static readonly __pulumiType = WORKFLOW_TYPE;

  /** The workflow's endpoint: an `http://` or `https://` URL, as given. */
  public readonly url: pulumi.Output<string>;
  /** Retries of a failed step (a count, 0 to 2,147,483,647, sent as `Svc-Retries`); `undefined` when not set. */
  public readonly retries: pulumi.Output<number | undefined>;
  /**
   * Delay before a triggered run starts, in **seconds** (a duration such as `"10m"` is converted:
   * 600), sent as `Svc-Delay: 600s`; `undefined` when not set.
   */
  public readonly delaySeconds: pulumi.Output<number | undefined>;
  /**
   * The flow control as given (only the fields that are set); `undefined` when not set:
   * `key`; `parallelism`, runs at once (a count); `rate`, runs started per `period`; `period`,
   * whole **seconds** as a number or a duration string (`"1s"`, `"1m"`).
   */
  public readonly flowControl: pulumi.Output<WorkflowFlowControl | undefined>;
  /**
   * The headers an application sends when it triggers the workflow, name to value (only those
   * whose setting is set): `Svc-Retries` (count), `Svc-Delay` (seconds, `"600s"`),
   * `Svc-Flow-Control-Key`, `Svc-Flow-Control-Value` (`"parallelism=2, rate=10, period=1s"`).
   */
  public readonly headers: pulumi.Output<Record<string, string>>;
  /** The account it belongs to: an `Account`'s URN, or the account ID given; `undefined` when not set. */
  public readonly account: pulumi.Output<string | undefined>;

  /**
   * @param name - the resource name
   * @param args - the trigger configuration
   * @param opts - component options
   * @throws RunError naming every invalid argument and its value, e.g.
   * "Workflow `orders`: `retries` must be a non-negative integer; got -1."
   */
  constructor(name: string, args: WorkflowArgs, opts?: pulumi.ComponentResourceOptions) {
    const problems = workflowArgProblems(args);
    if (problems.length > 0) throw new pulumi.RunError(`Workflow \`${name}\`: ${problems.join(" ")}`);
    const inputs: Record<string, unknown> = {};
    for (const k of ARGUMENTS) if (args[k] !== undefined) inputs[k] = args[k];
    if (args.account !== undefined) inputs.account = recordedAccount(args.account);
    super(WORKFLOW_TYPE, name, inputs, opts);

    // Values that were Outputs are validated here, once they resolve.
    const checked = <T>(problemOf: (v: unknown) => string[], v: T): T => {
      const late = problemOf(v);
      if (late.length > 0)
        throw new pulumi.ResourceError(`Workflow \`${name}\`: ${late.join(" ")}`, this, true);
      return v;
    };
    const urlMessages = (v: unknown): string[] => {
      const p = workflowUrlProblem(v);
      return p ? [p] : [];
    };

    this.url = pulumi.output(args.url).apply((v) => checked(urlMessages, v));
    this.retries = pulumi.output(args.retries).apply((v) => checked(retriesMessages, v ?? undefined));
    this.delaySeconds = pulumi
      .output(args.delay)
      .apply((v) => (!isSet(v) ? undefined : parseDuration(checked(delayMessages, v))));
    this.flowControl = pulumi.output(args.flowControl).apply((v) => {
      if (!isSet(v)) return undefined;
      checked((x) => flowControlMessages(x, false), v);
      return workflowFlowControl(v as FlowControlOverride & { key: string });
    });
    this.headers = pulumi
      .all([this.retries, this.delaySeconds, this.flowControl])
      .apply(([retries, delaySeconds, flowControl]) =>
        workflowHeaders({ retries, delaySeconds, flowControl }),
      );

    this.account = pulumi
      .output(recordedAccount(args.account) as pulumi.Input<string | undefined>)
      .apply((v) => checked(accountMessages, v));

    this.registerOutputs({
      url: this.url,
      retries: this.retries,
      delaySeconds: this.delaySeconds,
      flowControl: this.flowControl,
      headers: this.headers,
      // Only when set: a Workflow of an earlier release registers exactly the same outputs.
      ...(args.account !== undefined ? { account: this.account } : {}),
    });
  }
}
