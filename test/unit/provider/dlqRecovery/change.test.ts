/**
 * What `diff` says the next up does after the last drain (`change.ts`): the IDs a new
 * `dlqIds` list skips, and the line for a drain cut off, stopped at `maxRuns`, or changed, with
 * inputs not known yet at preview too.
 */
import { strict as assert } from "node:assert";
import { UNKNOWN } from "../../../../core/unknownValue";
import {
  changedLine,
  heldAtMaxRuns,
  resumedBefore,
  unfinishedLine,
} from "../../../../provider/dlqRecovery/change";
import type { DlqRecoveryInputs, DlqRecoveryOutputs } from "../../../../provider/dlqRecovery/inputs";

const ids = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `dlq_${from + i}`);

/** The state of a drain of `dlqIds` (or filters), cut off or not. */
function state(patch: Partial<DlqRecoveryOutputs>): DlqRecoveryOutputs {
  return {
    recoveryName: "r",
    resumedCount: 0,
    complete: true,
    specHash: "old",
    ...patch,
  } as DlqRecoveryOutputs;
}

describe("provider/dlqRecovery/change", () => {
  it("resumedBefore: the old list minus the IDs it had not resumed; none for filters or an unknown remainder", () => {
    assert.deepEqual(resumedBefore(state({ dlqIds: ids(4) })), ids(4), "a finished drain: every ID");
    const cut = state({ dlqIds: ids(4), complete: false, remainingDlqIds: ids(2, 2) });
    assert.deepEqual(resumedBefore(cut), ids(2));
    assert.deepEqual(
      resumedBefore(state({ dlqIds: ids(4), complete: false })),
      [],
      "cut off, remainder not saved",
    );
    assert.deepEqual(resumedBefore(state({ workflowUrl: "http://127.0.0.1/w" })), []);
  });

  it("a cut-off dlqIds drain whose list changed: a new drain, the IDs left behind and the IDs skipped", () => {
    const olds = state({
      dlqIds: ids(150),
      complete: false,
      resumedCount: 100,
      remainingDlqIds: ids(50, 100),
    });
    const news: DlqRecoveryInputs = { recoveryName: "r", dlqIds: [...ids(140), ...ids(50, 150)] };
    const line = unfinishedLine(olds, news, true);
    assert.match(line, /^DlqRecovery `r`: the last drain was cut off after 100 runs, and the selection/);
    assert.match(line, /starts a new drain and does not continue the old one/);
    assert.match(line, /It leaves 10 IDs of the old `dlqIds` unresumed/);
    assert.match(
      line,
      /It skips the 100 IDs of the new `dlqIds` this resource already resumed .* the other 90\./,
    );
  });

  it("at preview, with the new list not known yet: no counts of the new list, nothing thrown", () => {
    const olds = state({ dlqIds: ids(10), complete: false, resumedCount: 5, remainingDlqIds: ids(5, 5) });
    const line = unfinishedLine(olds, { recoveryName: "r", dlqIds: UNKNOWN as never }, true);
    assert.match(
      line,
      /5 IDs of the old `dlqIds` not resumed yet stay in the DLQ unless the new selection matches them/,
    );
    assert.doesNotMatch(line, /skips/);
    assert.doesNotMatch(changedLine(state({ dlqIds: ids(3) }), { dlqIds: [UNKNOWN] as never }), /skips/);
  });

  it("filters: the rest of the old selection stays, unless the selection is the same", () => {
    const olds = state({ workflowUrl: "http://127.0.0.1/a", complete: false, resumedCount: 50 });
    assert.match(
      unfinishedLine(olds, { workflowUrl: "http://127.0.0.1/b" }, true),
      /The rest of the old selection stays in the DLQ/,
    );
    assert.match(
      unfinishedLine(olds, { workflowUrl: "http://127.0.0.1/a", retries: 2 }, true),
      /The selection is the same, so the new drain resumes what is left of it/,
    );
  });

  it("maxRuns: held while the cap stays, continued once raised or removed; a cut-off drain is not held", () => {
    const olds = state({ all: true, complete: false, resumedCount: 150, stoppedAtMaxRuns: true });
    assert.equal(heldAtMaxRuns(olds, { all: true, maxRuns: 120 }), true);
    assert.match(
      unfinishedLine(olds, { all: true, maxRuns: 120 }, false),
      /stopped at `maxRuns` \(120\) after 150 runs; .* sends nothing/,
    );
    assert.equal(heldAtMaxRuns(olds, { all: true, maxRuns: 500 }), false);
    assert.match(
      unfinishedLine(olds, { all: true, maxRuns: 500 }, false),
      /stopped at `maxRuns` after 150 runs; the next up continues it where it stopped, up to `maxRuns` \(500 runs in all\), each entry once/,
    );
    assert.equal(heldAtMaxRuns(olds, { all: true }), false);
    const cut = state({ all: true, complete: false, resumedCount: 150, lastError: "401" });
    assert.equal(heldAtMaxRuns(cut, { all: true, maxRuns: 120 }), false, "an error, not the cap, stopped it");
    assert.match(
      unfinishedLine(cut, { all: true }, false),
      /was cut off after 150 runs; the next up continues it/,
    );
  });

  it("a finished dlqIds drain whose list changed: resumes again, skipping what it resumed", () => {
    const line = changedLine(state({ dlqIds: ids(2000) }), { dlqIds: ids(2001) });
    assert.match(line, /changed; the next up resumes again\. It skips the 2000 IDs .* sends the other 1\./);
  });
});
