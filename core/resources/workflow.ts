/**
 * `Workflow`, declared once for the TypeScript component (`components/Workflow.ts`) and the svc
 * provider's `svc:index:Workflow` (`provider/workflow/`): its arguments, the rule of each, its
 * outputs and the headers an application sends. No import of the Pulumi SDK, so that the
 * provider's schema and config check load without it.
 *
 * @packageDocumentation
 */
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
} from "../../client";
import { formatValue } from "../../client/messageText";
import { accountProblem } from "../accountRef";
import { parseDuration } from "../duration";
import { unknownInputsProblem } from "../inputNames";

/** The arguments of a `Workflow`, in order (the keys of `WorkflowArgs`). */
export const WORKFLOW_ARGUMENTS = ["url", "retries", "delay", "flowControl", "account"] as const;

/** An argument of a `Workflow`. */
export type WorkflowArgumentName = (typeof WORKFLOW_ARGUMENTS)[number];

/**
 * Each output of a Workflow with the arguments it is computed from: it is a secret when one of
 * them is, unknown when one of them is, and depends on their resources. `components/Workflow.ts`
 * checks the keys against the class's outputs.
 */
export const WORKFLOW_OUTPUT_SOURCES = {
  url: ["url"],
  retries: ["retries"],
  delaySeconds: ["delay"],
  flowControl: ["flowControl"],
  headers: ["retries", "delay", "flowControl"],
  account: ["account"],
} as const satisfies Record<string, readonly WorkflowArgumentName[]>;

/** An output of a Workflow. */
export type WorkflowOutputName = keyof typeof WORKFLOW_OUTPUT_SOURCES;

/** Header carrying the delay of a triggered workflow run, e.g. `"600s"`. */
export const DELAY_HEADER = "Svc-Delay";

/** The resolved flow control of a {@link Workflow}, as its `flowControl` output (only the fields that are set). */
export type WorkflowFlowControl = FlowControlOverride & { key: string };

/**
 * How the arguments' values are read where they are checked: the component (Outputs and promises
 * are pending, `Account` resources are told by type token) and the svc provider's `Construct`
 * (the engine's unknown value is pending; `account` is always a string there).
 */
export interface ArgumentReader {
  /** True for a value not known yet: checked when it is. */
  isPending(v: unknown): boolean;
  /** `Account` for an Account resource, `other` for another resource, undefined for a value. */
  resourceKind(v: unknown): "Account" | "other" | undefined;
}

/**
 * The rule of a workflow's `url`, different on purpose from the rule of a URL a credential is
 * sent to (`parseCredentialUrl` in `client/transport.ts`): a workflow URL carries no credential,
 * may be plain `http://` to any host and is shown as given.
 */
export function workflowUrlProblem(v: unknown): string | undefined {
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
export function retriesMessages(v: unknown): string[] {
  return retriesProblems(v).map((p) => p.message);
}

/** `account`: an `Account` resource or an account ID (the rule in `core/accountRef.ts`). */
export function accountMessages(v: unknown, read: ArgumentReader): string[] {
  const kind = read.resourceKind(v);
  if (kind === "Account") return [];
  if (kind === "other") {
    return [
      "`account` must be an `Account` resource or an account ID (a non-empty string); got another resource.",
    ];
  }
  const p = accountProblem(v);
  return p === undefined ? [] : [p];
}

/** `delay`: this component's own field (`Svc-Delay`), in the duration grammar of `duration.ts`. */
export function delayMessages(v: unknown): string[] {
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
export function flowControlMessages(
  fc: unknown,
  partial: boolean,
  isPending: (v: unknown) => boolean,
): string[] {
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
 * @param read - how values are read: which are not known yet (checked later), which are resources
 * @returns every problem, each a sentence naming the argument in backticks and the value; empty
 * when the known arguments are valid
 */
export function workflowArgProblems(args: unknown, read: ArgumentReader): string[] {
  const isPending = (v: unknown) => read.isPending(v);
  if (args === undefined || args === null || typeof args !== "object" || Array.isArray(args)) {
    return [`the arguments must be an object with at least \`url\`; got ${formatValue(args)}.`];
  }
  const a = args as Record<string, unknown>;
  const problems: string[] = [];
  // One problem naming every argument it does not take (the engine's own `__` keys pass).
  const unknown = unknownInputsProblem("Workflow", Object.keys(a), WORKFLOW_ARGUMENTS);
  if (unknown !== undefined) problems.push(unknown);
  if (!isPending(a.url)) {
    const p = workflowUrlProblem(a.url);
    if (p) problems.push(p);
  }
  if (!isPending(a.retries)) problems.push(...retriesMessages(a.retries));
  if (!isPending(a.delay)) problems.push(...delayMessages(a.delay));
  if (!isPending(a.account)) problems.push(...accountMessages(a.account, read));
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
