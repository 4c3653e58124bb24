/**
 * `account-limits-source` (mandatory by default): the gate of the pack. It fails the preview,
 * once, when a limit policy could not check a resource because no source had its account's
 * limit (settings missing, credentials rejected, the account API unreachable or timing out, a
 * malformed record, an unknown account ID, a DlqRecovery whose values are unknown in preview).
 * The message names the resources and policies left unchecked, the cause (an HTTP status or a
 * network error, never a credential) and the two ways out: fix the source, or opt out
 * explicitly by setting this policy to `advisory` in the pack's config.
 *
 * It must run after the limit policies (it is the last policy of the pack): it reports what
 * they noted in the shared {@link LimitsContext}. It also says, once and in one sentence, which
 * Workflow checks wait for `pulumi up` because their account's limits are unknown in this
 * preview (an advisory "can't run ... during preview" note).
 *
 * It is also a resource policy of each `Account`: the engine skips every stack policy when a
 * resource fails during the preview, and an Account whose record cannot be read fails there (its
 * provider reads the record at preview). Without this the policy section would show the pack as
 * passing beside that failure; so an Account whose live record the pack cannot read with its
 * settings is reported as it is registered, with the cause and the opt-out.
 *
 * @packageDocumentation
 */
import type {
  PolicyConfigSchema,
  PolicyResource,
  ResourceValidationPolicy,
  StackValidationPolicy,
} from "@pulumi/policy";
import { sentences } from "../client/messageText";
import { configFixJson } from "./configFix";
import type { LimitsContext, RunNotes, UncheckedChecks } from "./context";
import { isOfKind, throwUnknown } from "./resources";

/** The name of the policy. */
export const ACCOUNT_LIMITS_SOURCE = "account-limits-source";

/** The config schema of `account-limits-source`: no options besides `enforcementLevel`. */
export const accountLimitsSourceConfigSchema: PolicyConfigSchema = { properties: {} };

/**
 * The one summary message of a run, or `undefined` when every check could run: each cause (in
 * sentences) with the limits and resources it left unchecked, where limits come from with the
 * exact pack config that lets these checks run, and the two ways out.
 */
export function summarize(notes: RunNotes): string | undefined {
  if (notes.unchecked.size === 0) return undefined;
  const groups = [...notes.unchecked.values()];
  const byCause = new Map<string, string[]>();
  for (const g of groups) {
    const lines = byCause.get(g.cause) ?? [];
    lines.push(`      ${g.spec.field} (${g.spec.policy}): ${[...g.resources].sort().join(", ")}`);
    byCause.set(g.cause, lines);
  }
  return [
    "These checks could not run, because no source has the account limit they need (each cause, then the checks it left unchecked):",
    ...[...byCause.entries()].flatMap(([cause, lines]) => [`  - ${capitalized(sentences(cause))}`, ...lines]),
    "Limits come from, in this order:",
    `  1. ${packConfigSource(groups)}`,
    "  2. the live account record: a bound Account's own settings, else the stack config `svc:accountApiUrl`, " +
      "`svc:username`, `svc:password` or the `SVC_*` environment variables;",
    "  3. an Account resource's outputs (the strictest of them for a resource without `account`).",
    OPT_OUT,
  ].join("\n");
}

/**
 * The first source, with the exact `--policy-pack-config` these checks need when a limit in the
 * pack config would let them run (not, for instance, when only a value is unknown).
 */
function packConfigSource(groups: readonly UncheckedChecks[]): string {
  const fixes = groups.map((g) => ({ spec: g.spec, fixes: [...g.fixes.values()] }));
  const json = configFixJson(fixes);
  if (json === undefined) {
    const example = groups[0].spec;
    return (
      `the policy pack config, e.g. {"${example.policy}": {"${example.configKey}": <limit>}}, or per account ID ` +
      `{"${example.policy}": {"accounts": {"<id>": <limit>}}}, in --policy-pack-config;`
    );
  }
  const staticSpec = fixes.find((g) => g.fixes.some((f) => f.kind === "static"))?.spec;
  const perAccount =
    staticSpec === undefined
      ? ""
      : ` (a static option such as "${staticSpec.configKey}" holds for every account; for a limit per ` +
        "account, set the resource's `account` to its account ID, e.g. a StackReference's `accountId` output, " +
        'and key the limit by that ID under "accounts")';
  return (
    `the policy pack config: --policy-pack-config with ${json} lets these checks run, each <...> being the ` +
    `account's limit${perAccount};`
  );
}

/** The way out named by every report of the policy. */
const OPT_OUT =
  `Fix the source, or opt out explicitly: set "${ACCOUNT_LIMITS_SOURCE}" to "advisory" in the policy pack ` +
  `config (--policy-pack-config with {"${ACCOUNT_LIMITS_SOURCE}": "advisory"}) to let these checks pass unchecked ` +
  "with a warning.";

/**
 * The one sentence on the Workflow checks that wait for `pulumi up` (their account's limits are
 * unknown in this preview), or `undefined` when there are none.
 */
export function describeDeferred(notes: RunNotes): string | undefined {
  const groups = [...notes.deferred.values()];
  if (groups.length === 0) return undefined;
  const count = groups.reduce((n, g) => n + g.resources.size, 0);
  const who = groups
    .map((g) => `${[...g.resources].sort().join(", ")} (${[...g.fields].join(", ")})`)
    .join(", ");
  return (
    `${who} ${count > 1 ? "are" : "is"} checked against the account's limits on \`pulumi up\` with ` +
    `\`--policy-pack\`, not in this preview: ${groups.map((g) => g.cause).join("; ")}.`
  );
}

/**
 * The report of an Account whose live record cannot be read, as it is registered.
 *
 * @param cause - why, from {@link LimitsContext.accountReadFailure}
 */
export function describeAccountFailure(cause: string): string {
  return [
    sentences(
      capitalized(cause),
      "The svc limits of the resources on this account cannot be read from it, so their checks cannot run " +
        "(limits in the policy pack config still apply)",
    ),
    OPT_OUT,
  ].join("\n");
}

/** The text with its first letter in upper case: a cause starts a list item. */
function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * Builds the `account-limits-source` policy: a stack policy (the summary) that is also a resource
 * policy of each `Account` (`@pulumi/policy` serves a policy with both functions in both calls).
 */
export function accountLimitsSource(
  ctx: LimitsContext,
): StackValidationPolicy & Pick<ResourceValidationPolicy, "validateResource"> {
  return {
    name: ACCOUNT_LIMITS_SOURCE,
    description:
      "Fails closed: a preview fails when an svc limit check could not run because no source had the account's limit.",
    enforcementLevel: "mandatory",
    configSchema: accountLimitsSourceConfigSchema,
    validateResource: async (args, reportViolation) => {
      const account: PolicyResource = { ...args, dependencies: [], propertyDependencies: {} };
      if (!isOfKind(account, "Account")) return;
      const cause = await ctx.accountReadFailure(account);
      if (cause !== undefined) reportViolation(describeAccountFailure(cause));
    },
    validateStack: (_args, reportViolation) => {
      const notes = ctx.takeNotes();
      const message = summarize(notes);
      if (message !== undefined) reportViolation(message);
      const deferred = describeDeferred(notes);
      if (deferred !== undefined) throwUnknown(deferred);
    },
  };
}
