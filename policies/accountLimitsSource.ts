/**
 * `account-limits-source` (advisory by default): says once per preview or update when the
 * limit policies could not check something because no source had the limit, or when the live
 * account record could not be read. Set it to `mandatory` to fail closed: a preview then fails
 * instead of passing with unchecked workflows.
 *
 * It must run after the limit policies (it is the last policy of the pack): it reports what
 * they noted in the shared {@link LimitsContext}.
 *
 * @packageDocumentation
 */
import type { PolicyConfigSchema, StackValidationPolicy } from "@pulumi/policy";
import { ACCOUNT_SETTINGS, SETTINGS } from "../core/connection";
import type { LimitsContext, RunNotes } from "./context";
import type { LiveAccountResult } from "./liveAccount";

/** The name of the policy. */
export const ACCOUNT_LIMITS_SOURCE = "account-limits-source";

/** `account-limits-source` has no options besides `enforcementLevel`. */
export type AccountLimitsSourceArgs = Record<string, never>;

/** The config schema of `account-limits-source`: no options besides `enforcementLevel`. */
export const accountLimitsSourceConfigSchema: PolicyConfigSchema = { properties: {} };

/** How the live source fared, to follow "the live account record": "is not configured: set ...". */
function liveStatus(live: LiveAccountResult | undefined): string {
  switch (live?.status) {
    case undefined:
    case "not-configured":
      return (
        "is not configured: set the stack config " +
        ACCOUNT_SETTINGS.map((s) => `\`${SETTINGS[s].config}\``).join(", ") +
        " (the password as a secret), or the environment variables " +
        ACCOUNT_SETTINGS.map((s) => `\`${SETTINGS[s].env}\``).join(", ")
      );
    case "incomplete":
      return `is not fully configured: ${live.message}`;
    case "failed":
      return `could not be read: ${live.message}`;
    case "ok":
      return "was read, but has no usable value for them";
  }
}

/** Drops a final full stop, so a message can be embedded in a sentence. */
function clause(message: string): string {
  return message.replace(/\.\s*$/, "");
}

/**
 * The one summary message of a run, or `undefined` when there is nothing to say: the limits no
 * source had (with the resources left unchecked and how to provide each source), and a live
 * source that was configured but could not be used.
 */
export function summarize(notes: RunNotes): string | undefined {
  if (notes.missing.size > 0) {
    const missing = [...notes.missing.values()];
    const example = missing[0].spec;
    const accounts =
      notes.pendingAccounts.size > 0
        ? `${[...notes.pendingAccounts].sort().join(", ")} has no known values yet ` +
          "(an Account's outputs are unknown until its first `pulumi up`)"
        : "there is none";
    return [
      "No account limit is available for these checks, so they did not run:",
      ...missing.map((m) => `  - ${m.spec.field} (${m.spec.policy}): ${[...m.resources].sort().join(", ")}`),
      "Limits come from, in this order:",
      `  1. the policy pack config, e.g. {"${example.policy}": {"${example.configKey}": <limit>}} ` +
        "in --policy-pack-config;",
      `  2. the live account record, which ${clause(liveStatus(notes.live))};`,
      `  3. an Account resource in this stack: ${accounts}.`,
    ].join("\n");
  }
  if (notes.live?.status === "failed" || notes.live?.status === "incomplete") {
    return (
      `The live account record ${clause(liveStatus(notes.live))}. ` +
      "The limits came from the policy pack config or an Account resource instead."
    );
  }
  return undefined;
}

/** Builds the `account-limits-source` policy. */
export function accountLimitsSource(ctx: LimitsContext): StackValidationPolicy {
  return {
    name: ACCOUNT_LIMITS_SOURCE,
    description:
      "Reports once when the svc limit policies had no source for a limit, or the live account record could not be read.",
    enforcementLevel: "advisory",
    configSchema: accountLimitsSourceConfigSchema,
    validateStack: (_args, reportViolation) => {
      const message = summarize(ctx.takeNotes());
      if (message !== undefined) reportViolation(message);
    },
  };
}
