/**
 * `dlq-recovery-overlap` (advisory by default; set it to `mandatory` to refuse): two
 * `DlqRecovery` resources of one stack, on the same account, whose selections are not provably
 * disjoint. In one `up` they drain in parallel, and which of them resumes an entry (with which
 * overrides) depends on timing.
 *
 * Provably disjoint: different `workflowUrl`s, `dlqIds` without a common ID, or failure-time
 * windows (`fromDate`..`toDate`) that do not meet. A DlqRecovery that has run to completion
 * (`complete` is true) drains nothing on the next `up` and is not compared.
 *
 * @packageDocumentation
 */
import type { PolicyConfigSchema, PolicyResource, StackValidationPolicy } from "@pulumi/policy";
import { describeAccountRef } from "../core/accountRef";
import { formatValue } from "../client/messageText";
import { accountIdOf, accountResources, bindingKey, bindingOf, type Binding } from "./accounts";
import { isCompletedRecovery, label, ofKind, read, type Read } from "./resources";

/** The name of the policy. */
export const DLQ_RECOVERY_OVERLAP = "dlq-recovery-overlap";

/** The config schema of `dlq-recovery-overlap`: no options besides `enforcementLevel`. */
export const dlqRecoveryOverlapConfigSchema: PolicyConfigSchema = { properties: {} };

/** A DlqRecovery's selection as the stack shows it. */
interface Selection {
  readonly resource: PolicyResource;
  readonly all: Read;
  readonly dlqIds: Read;
  readonly workflowUrl: Read;
  readonly fromDate: Read;
  readonly toDate: Read;
}

function selectionOf(resource: PolicyResource): Selection {
  const at = (k: string) => read(resource.props, [k]);
  return {
    resource,
    all: at("all"),
    dlqIds: at("dlqIds"),
    workflowUrl: at("workflowUrl"),
    fromDate: at("fromDate"),
    toDate: at("toDate"),
  };
}

const known = (r: Read): r is { kind: "known"; value: unknown } => r.kind === "known";

/** The DLQ IDs both select, or `undefined` when either list is not known. */
function sharedIds(a: Selection, b: Selection): string[] | undefined {
  if (!known(a.dlqIds) || !known(b.dlqIds)) return undefined;
  if (!Array.isArray(a.dlqIds.value) || !Array.isArray(b.dlqIds.value)) return undefined;
  const theirs = new Set(b.dlqIds.value as unknown[]);
  return (a.dlqIds.value as unknown[])
    .filter((id) => theirs.has(id))
    .map(String)
    .sort();
}

/** A bound of a window: the known value, the open end when absent, `undefined` when unknown. */
function bound(r: Read, open: number): number | undefined {
  if (r.kind === "absent") return open;
  return known(r) && typeof r.value === "number" ? r.value : undefined;
}

/** True when the two selections provably select no common entry. */
export function provablyDisjoint(a: Selection, b: Selection): boolean {
  const ids = sharedIds(a, b);
  if (ids !== undefined) return ids.length === 0;
  if (a.all.kind === "known" && a.all.value === true) return false;
  if (b.all.kind === "known" && b.all.value === true) return false;
  if (known(a.workflowUrl) && known(b.workflowUrl) && a.workflowUrl.value !== b.workflowUrl.value)
    return true;
  const [aFrom, aTo] = [bound(a.fromDate, -Infinity), bound(a.toDate, Infinity)];
  const [bFrom, bTo] = [bound(b.fromDate, -Infinity), bound(b.toDate, Infinity)];
  if ([aFrom, aTo, bFrom, bTo].some((v) => v === undefined)) return false;
  return (aTo as number) < (bFrom as number) || (bTo as number) < (aFrom as number);
}

/** "`all: true`", "`dlqIds` [\"a\", \"b\"]", "`workflowUrl` \"…\", `fromDate` 1700000000000". */
function describeSelection(s: Selection): string {
  if (known(s.all) && s.all.value === true) return "`all: true`";
  const parts: string[] = [];
  for (const k of ["dlqIds", "workflowUrl", "fromDate", "toDate"] as const) {
    const r = s[k];
    if (r.kind === "known") parts.push(`\`${k}\` ${formatValue(r.value)}`);
    else if (r.kind === "unknown") parts.push(`\`${k}\` (unknown in this preview)`);
  }
  return parts.length > 0 ? parts.join(", ") : "a selection the stack does not show";
}

/** Why two selections may meet, in words. */
function why(a: Selection, b: Selection): string {
  const ids = sharedIds(a, b);
  if (ids !== undefined) return `both resume the DLQ IDs ${ids.map((id) => formatValue(id)).join(", ")}`;
  const all = [a, b].find((s) => known(s.all) && s.all.value === true);
  if (all !== undefined) return `${label(all.resource)} selects every entry, the other's included`;
  return "neither different `workflowUrl`s, disjoint `dlqIds` nor failure-time windows that do not meet keep them apart";
}

/** The account key of a recovery: an Account with a known `accountId` counts as that account ID. */
function accountKey(binding: Binding, resources: readonly PolicyResource[]): string {
  if (binding.kind === "known" && binding.ref.kind === "resource") {
    const urn = binding.ref.urn;
    const account = accountResources(resources).find((r) => r.urn === urn);
    const id = account === undefined ? undefined : accountIdOf(account);
    if (id !== undefined) return `id:${id}`;
  }
  return bindingKey(binding);
}

/** Builds the `dlq-recovery-overlap` policy. */
export function dlqRecoveryOverlap(): StackValidationPolicy {
  return {
    name: DLQ_RECOVERY_OVERLAP,
    description:
      "Two DlqRecovery resources on the same account should not select the same DLQ entries: they race in one up.",
    enforcementLevel: "advisory",
    configSchema: dlqRecoveryOverlapConfigSchema,
    validateStack: (args, reportViolation) => {
      const pending = ofKind(args.resources, "DlqRecovery")
        .filter((r) => !isCompletedRecovery(r.props))
        .sort((a, b) => a.name.localeCompare(b.name)) // the engine's order varies; messages do not
        .map((r) => ({ selection: selectionOf(r), binding: bindingOf(r) }));
      for (let i = 0; i < pending.length; i++) {
        for (let j = i + 1; j < pending.length; j++) {
          const [a, b] = [pending[i], pending[j]];
          if (a.binding.kind === "unknown" || b.binding.kind === "unknown") continue;
          if (accountKey(a.binding, args.resources) !== accountKey(b.binding, args.resources)) continue;
          if (provablyDisjoint(a.selection, b.selection)) continue;
          // Name the Account resource when one of them is bound to it, else the shared reference.
          const named =
            [a.binding, b.binding].find((x) => x.kind === "known" && x.ref.kind === "resource") ?? a.binding;
          const account = named.kind === "known" ? describeAccountRef(named.ref) : "one account";
          reportViolation(
            `${label(a.selection.resource)} (${describeSelection(a.selection)}) and ${label(b.selection.resource)} ` +
              `(${describeSelection(b.selection)}), both on ${account}, may select the same DLQ entries: ` +
              `${why(a.selection, b.selection)}. In one \`up\` they drain in parallel, and which one resumes an ` +
              "entry, with its overrides, depends on timing. Make the selections disjoint (different `workflowUrl`s, " +
              "disjoint `dlqIds` or failure-time windows that do not meet), or merge them into one DlqRecovery.",
            b.selection.resource.urn,
          );
        }
      }
    },
  };
}
