/**
 * The svc limits policy pack, as a list of policies built around one shared
 * {@link LimitsContext}. The entry point (`index.ts`) serves it; tests build it with a fake live
 * source and clock.
 *
 * @packageDocumentation
 */
import type { StackValidationPolicy } from "@pulumi/policy";
import { accountLimitsSource } from "./accountLimitsSource";
import { accountLimitsStrictest } from "./accountLimitsStrictest";
import { LimitsContext, type LimitsContextOptions } from "./context";
import { dlqRecoveryOverlap } from "./dlqRecoveryOverlap";
import { dlqRecoveryRetentionWindow } from "./dlqRecoveryRetentionWindow";
import { workflowMaxDelay } from "./workflowMaxDelay";
import { workflowMaxGlobalParallelism } from "./workflowMaxGlobalParallelism";
import { workflowMaxParallelism } from "./workflowMaxParallelism";
import { workflowMaxRetries } from "./workflowMaxRetries";

/** The name of the policy pack. */
export const PACK_NAME = "svc-limits";

/** A built pack: its policies and the context they share. */
export interface SvcLimitsPack {
  /** The policies, `account-limits-source` last (it reports what the others noted). */
  readonly policies: StackValidationPolicy[];
  /** The shared context. */
  readonly context: LimitsContext;
}

/**
 * Builds the policies of the pack.
 *
 * @param options - the live source and clock (defaults: stack config/env and `Date.now`)
 */
export function createPolicies(options: LimitsContextOptions = {}): SvcLimitsPack {
  const context = new LimitsContext(options);
  return {
    context,
    policies: [
      workflowMaxParallelism(context),
      workflowMaxRetries(context),
      workflowMaxDelay(context),
      workflowMaxGlobalParallelism(context),
      dlqRecoveryRetentionWindow(context),
      dlqRecoveryOverlap(),
      accountLimitsStrictest(context),
      accountLimitsSource(context),
    ],
  };
}
