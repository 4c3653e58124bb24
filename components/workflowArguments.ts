/**
 * The arguments of a `Workflow`, in order: the svc provider's `svc:index:Workflow` takes the same
 * inputs. A module of its own, with no import of the Pulumi SDK, so that the provider's schema
 * and config check load without it (`Workflow.ts` checks that the list and `WorkflowArgs` name
 * the same arguments).
 *
 * @packageDocumentation
 */

/** The arguments of a `Workflow`, in order (the keys of `WorkflowArgs`). */
export const WORKFLOW_ARGUMENTS = ["url", "retries", "delay", "flowControl", "account"] as const;

/** An argument of a `Workflow`. */
export type WorkflowArgumentName = (typeof WORKFLOW_ARGUMENTS)[number];
