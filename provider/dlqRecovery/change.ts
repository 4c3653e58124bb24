/**
 * What the next up of a `DlqRecovery` does after its last drain, in words for `diff` (preview and
 * up print them): a drain cut off and continued, a drain stopped at `maxRuns`, or a new drain
 * after the inputs changed (a new `dlqIds` list skips the IDs this resource already resumed:
 * {@link resumedBefore}).
 *
 * @packageDocumentation
 */
import "../../client/requireNode"; // first: one clear error on a Node.js older than 22.19
import { containsUnknown } from "../../core/unknownValue";
import {
  recoveryLabel,
  selectionOf,
  stable,
  type DlqRecoveryInputs,
  type DlqRecoveryOutputs,
} from "./inputs";
import { count } from "./progress";

/**
 * The IDs of the last drain's `dlqIds` a new `dlqIds` drain skips: that list minus the IDs it had
 * not resumed (`remainingDlqIds`), both in the state. They were resumed (or not found, and so
 * not in the DLQ either): sent again, the service would answer "not found". None when the last
 * drain selected by filters, or was cut off without saying which IDs remain.
 */
export function resumedBefore(olds: DlqRecoveryOutputs): string[] {
  if (!Array.isArray(olds.dlqIds)) return [];
  if (olds.complete === false && !Array.isArray(olds.remainingDlqIds)) return [];
  const remaining = new Set(olds.remainingDlqIds ?? []);
  return olds.dlqIds.filter((id) => !remaining.has(id));
}

/** The new list's IDs: how many a new drain skips and how many it sends; undefined when not known yet. */
function newList(
  olds: DlqRecoveryOutputs,
  news: DlqRecoveryInputs,
): { skipped: number; sent: number } | undefined {
  if (!Array.isArray(news.dlqIds) || containsUnknown(news.dlqIds)) return undefined;
  const before = new Set(resumedBefore(olds));
  const ids = [...new Set(news.dlqIds)];
  const skipped = ids.filter((id) => before.has(id)).length;
  return { skipped, sent: ids.length - skipped };
}

/** " It skips the 1,650 IDs of the new list this resource already resumed and sends the other 351." */
function skipSentence(olds: DlqRecoveryOutputs, news: DlqRecoveryInputs): string {
  const list = newList(olds, news);
  if (list === undefined || list.skipped === 0) return "";
  return (
    ` It skips the ${count(list.skipped, "ID")} of the new \`dlqIds\` this resource already resumed (or found ` +
    `missing) and sends the other ${list.sent}.`
  );
}

/** What is left of a cut-off drain whose inputs changed: the old IDs or the old selection. */
function leftBehind(olds: DlqRecoveryOutputs, news: DlqRecoveryInputs): string {
  if (Array.isArray(olds.dlqIds)) {
    const remaining = olds.remainingDlqIds ?? [];
    if (!Array.isArray(news.dlqIds) || containsUnknown(news.dlqIds)) {
      return ` ${count(remaining.length, "ID")} of the old \`dlqIds\` not resumed yet stay in the DLQ unless the new selection matches them.`;
    }
    const now = new Set(news.dlqIds);
    const left = remaining.filter((id) => !now.has(id)).length;
    return ` It leaves ${count(left, "ID")} of the old \`dlqIds\` unresumed (not resumed yet, and not in the new list).`;
  }
  if (!containsUnknown(news) && stable(selectionOf(olds)) === stable(selectionOf(news))) {
    return " The selection is the same, so the new drain resumes what is left of it.";
  }
  return " The rest of the old selection stays in the DLQ: only entries the new selection matches are resumed.";
}

/** True when the last drain stopped at `maxRuns` and the new inputs keep that cap (or a lower one). */
export function heldAtMaxRuns(olds: DlqRecoveryOutputs, news: DlqRecoveryInputs): boolean {
  const cap = news.maxRuns;
  return (
    olds.complete === false &&
    olds.stoppedAtMaxRuns === true &&
    typeof cap === "number" &&
    olds.resumedCount >= cap
  );
}

/**
 * The line `diff` prints for a last drain that did not finish (`complete` false).
 *
 * @param specChanged - the selection, an override or `triggers` changed (or is not known yet)
 */
export function unfinishedLine(
  olds: DlqRecoveryOutputs,
  news: DlqRecoveryInputs,
  specChanged: boolean,
): string {
  const label = recoveryLabel(news);
  const runs = count(olds.resumedCount, "run");
  const stopped =
    olds.stoppedAtMaxRuns === true ? `stopped at \`maxRuns\` after ${runs}` : `was cut off after ${runs}`;
  if (specChanged) {
    return (
      `${label}: the last drain ${stopped}, and the selection, an override or \`triggers\` changed since: the next ` +
      `up starts a new drain and does not continue the old one.${leftBehind(olds, news)}${skipSentence(olds, news)}`
    );
  }
  if (heldAtMaxRuns(olds, news)) {
    return (
      `${label}: the last drain stopped at \`maxRuns\` (${news.maxRuns}) after ${runs}; the rest stays in the DLQ ` +
      "and the next up sends nothing. Raise or remove `maxRuns` to continue it."
    );
  }
  const cap = typeof news.maxRuns === "number" ? `, up to \`maxRuns\` (${news.maxRuns} runs in all)` : "";
  return `${label}: the last drain ${stopped}; the next up continues it where it stopped${cap}, each entry once.`;
}

/** The line `diff` prints when a finished drain's selection, an override or `triggers` changed. */
export function changedLine(olds: DlqRecoveryOutputs, news: DlqRecoveryInputs): string {
  return (
    `${recoveryLabel(news)}: the selection, an override or \`triggers\` changed; the next up resumes again.` +
    skipSentence(olds, news)
  );
}
