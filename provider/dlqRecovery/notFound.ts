/**
 * `dlqIds` that are not in the DLQ, as a `DlqRecovery` reports them: the outputs
 * (`notFoundDlqIds`, the first {@link NOT_FOUND_IDS_KEPT}, and `notFoundCount`), the one warning of
 * a drain that resumed every other ID, and the message of a drain that stopped narrowing because
 * too many IDs were missing.
 *
 * @packageDocumentation
 */
import "../../client/requireNode"; // first: one clear error on a Node.js older than 22.19
import { MAX_NOT_FOUND_NARROWED, type DrainProgress, type ShortBatch } from "../../drain";
import { formatValue } from "../../client/messageText";
import { NOT_FOUND_IDS_KEPT, recoveryLabel, type DlqRecoveryInputs, type DlqRecoveryOutputs } from "./inputs";
import { count } from "./progress";

/** IDs named in a message at most. */
const IDS_NAMED = 5;

/** The not-found outputs of a drain: its continuation's findings added to those stored before. */
export function notFoundOutputs(
  previous: DlqRecoveryOutputs | undefined,
  p: DrainProgress,
): { notFoundDlqIds: string[]; notFoundCount: number } {
  const found = p.notFoundDlqIds ?? [];
  const ids = [...(previous?.notFoundDlqIds ?? []), ...found];
  const inShort = (p.shortBatches ?? []).reduce((n, b) => n + missingOf(b), 0);
  return {
    notFoundDlqIds: ids.slice(0, NOT_FOUND_IDS_KEPT),
    notFoundCount: (previous?.notFoundCount ?? 0) + found.length + inShort,
  };
}

/** IDs of a short batch the service did not find. */
function missingOf(b: ShortBatch): number {
  return b.dlqIds.length - b.runs;
}

/** `"a", "b", "c" and 4 more`: the first IDs, quoted, and how many are not shown. */
function named(ids: readonly string[], total: number): string {
  const shown = ids.slice(0, IDS_NAMED).map((id) => formatValue(id));
  return total > shown.length ? `${shown.join(", ")} and ${total - shown.length} more` : shown.join(", ");
}

/** How a short batch is named: its size, first and last ID, and what the answer said. */
function batchName(b: ShortBatch): string {
  const ends =
    b.dlqIds.length === 1
      ? formatValue(b.dlqIds[0])
      : `${formatValue(b.dlqIds[0])} to ${formatValue(b.dlqIds[b.dlqIds.length - 1])}`;
  return (
    `the batch of ${count(b.dlqIds.length, "ID")} from ${ends} was answered with ${count(b.runs, "run")}, ` +
    `so ${count(missingOf(b), "of its IDs was", "of its IDs were")} not found (the answer does not say which)`
  );
}

/**
 * The one warning of a drain that resumed every ID the service found, when some were not found;
 * undefined when none was missing.
 *
 * @param outs - the drain's outputs (counts over the drain and its continuations)
 * @param p - this continuation's progress (its short batches are named)
 */
export function notFoundWarning(
  inputs: DlqRecoveryInputs,
  outs: DlqRecoveryOutputs,
  p: DrainProgress,
): string | undefined {
  if (outs.notFoundCount === 0) return undefined;
  const total = new Set(inputs.dlqIds ?? []).size;
  const parts: string[] = [];
  const listed = outs.notFoundCount - (p.shortBatches ?? []).reduce((n, b) => n + missingOf(b), 0);
  if (outs.notFoundDlqIds.length > 0) parts.push(named(outs.notFoundDlqIds, listed));
  const short = p.shortBatches ?? [];
  for (const b of short.slice(0, IDS_NAMED)) parts.push(batchName(b));
  if (short.length > IDS_NAMED)
    parts.push(`${count(short.length - IDS_NAMED, "more batch", "more batches")} alike`);
  return (
    `${recoveryLabel(inputs)}: ${count(outs.notFoundCount, "ID")} of the ${total} \`dlqIds\` ` +
    `${outs.notFoundCount === 1 ? "was" : "were"} not in the DLQ (a typo, or resumed elsewhere) and not resumed: ` +
    `${parts.join("; ")}. Every other ID was resumed (${outs.resumedCount} runs in all). The outputs ` +
    "`notFoundDlqIds` and `notFoundCount` list them. To resume a corrected ID, fix it in `dlqIds` and run " +
    "`pulumi up`: the IDs this resource already resumed are skipped."
  );
}

/**
 * The message of a `dlqIds` drain that stopped narrowing: more than {@link MAX_NOT_FOUND_NARROWED}
 * IDs were missing, the batches still answered 404 were not resumed, every other ID was.
 *
 * @param outs - the partial outputs saved (`remainingDlqIds` holds the IDs not resumed)
 */
export function tooManyNotFound(inputs: DlqRecoveryInputs, outs: DlqRecoveryOutputs): string {
  const left = outs.remainingDlqIds?.length ?? 0;
  return (
    `${recoveryLabel(inputs)}: more than ${MAX_NOT_FOUND_NARROWED} of the \`dlqIds\` are not in the DLQ (one up ` +
    `looks for ${MAX_NOT_FOUND_NARROWED} at most), so the list is likely wrong. Not found: ${named(outs.notFoundDlqIds, outs.notFoundDlqIds.length)} ` +
    `(all in the resource's state, \`notFoundDlqIds\`). ${count(left, "ID")} in batches the service still answered ` +
    `"not found" ${left === 1 ? "was" : "were"} not resumed; every other ID was: ${outs.resumedCount} runs in ` +
    `${outs.requestCount} requests, recorded in the state. Check \`dlqIds\` (is it the right list, for this ` +
    `account?), fix or remove the IDs not found, and run \`pulumi up\`: it resends only the ${count(left, "ID")} not ` +
    `resumed and skips those already resumed (run it unchanged to look for ${MAX_NOT_FOUND_NARROWED} more).`
  );
}
