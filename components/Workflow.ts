/**
 * {@link Workflow}: one workflow's trigger configuration (URL, retries, delay, flow control) as a
 * component resource whose outputs other stacks can read, and which the policy pack checks
 * against the account's limits.
 *
 * @packageDocumentation
 */
import * as pulumi from "@pulumi/pulumi";
import { isSet, type FlowControlOverride } from "../client";
import { parseDuration } from "../core/duration";
import { WORKFLOW_TYPE } from "../core/typeTokens";
import {
  WORKFLOW_ARGUMENTS,
  accountMessages,
  delayMessages,
  flowControlMessages,
  retriesMessages,
  workflowArgProblems,
  workflowFlowControl,
  workflowHeaders,
  workflowUrlProblem,
  type ArgumentReader,
  type WorkflowArgumentName,
  type WorkflowFlowControl,
  type WorkflowOutputName,
} from "../core/resources/workflow";
import { isAccountResource, recordedAccount, type AccountArg } from "./accountInput";

export { DELAY_HEADER, WORKFLOW_ARGUMENTS, type WorkflowFlowControl } from "../core/resources/workflow";

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

/** `WORKFLOW_ARGUMENTS` and `WorkflowArgs` name the same arguments: the compiler checks both ways. */
const SAME_ARGUMENTS: [
  Exclude<keyof WorkflowArgs, WorkflowArgumentName>,
  Exclude<WorkflowArgumentName, keyof WorkflowArgs>,
] extends [never, never]
  ? true
  : never = true;
void SAME_ARGUMENTS;

/** Values as the component reads them: Outputs and promises are not known while it is built. */
const COMPONENT_READER: ArgumentReader = {
  isPending: (v) =>
    pulumi.Output.isInstance(v) ||
    (v !== null && typeof v === "object" && typeof (v as { then?: unknown }).then === "function"),
  resourceKind: (v) =>
    isAccountResource(v) ? "Account" : pulumi.Resource.isInstance(v) ? "other" : undefined,
};

/** The outputs of the class (its `pulumi.Output` properties but `urn`). */
type ClassOutputName = Exclude<
  { [K in keyof Workflow]: Workflow[K] extends pulumi.Output<unknown> ? K : never }[keyof Workflow],
  "urn"
>;

/** `WORKFLOW_OUTPUT_SOURCES` and the class name the same outputs: the compiler checks both ways. */
const SAME_OUTPUTS: [
  Exclude<ClassOutputName, WorkflowOutputName>,
  Exclude<WorkflowOutputName, ClassOutputName>,
] extends [never, never]
  ? true
  : never = true;
void SAME_OUTPUTS;

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
    const problems = workflowArgProblems(args, COMPONENT_READER);
    if (problems.length > 0) throw new pulumi.RunError(`Workflow \`${name}\`: ${problems.join(" ")}`);
    const inputs: Record<string, unknown> = {};
    for (const k of WORKFLOW_ARGUMENTS) if (args[k] !== undefined) inputs[k] = args[k];
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
      checked((x) => flowControlMessages(x, false, COMPONENT_READER.isPending), v);
      return workflowFlowControl(v as FlowControlOverride & { key: string });
    });
    this.headers = pulumi
      .all([this.retries, this.delaySeconds, this.flowControl])
      .apply(([retries, delaySeconds, flowControl]) =>
        workflowHeaders({ retries, delaySeconds, flowControl }),
      );

    this.account = pulumi
      .output(recordedAccount(args.account) as pulumi.Input<string | undefined>)
      .apply((v) => checked((x) => accountMessages(x, COMPONENT_READER), v));

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
