/**
 * The one rule of names a resource does not take (`core/inputNames.ts`): the nearest known name
 * (case ignored, edit distance) suggested only when it is close, the engine's `__` keys and the
 * names a class adds passed, and the one message naming each unknown name and the inputs.
 */
import * as assert from "node:assert/strict";
import {
  editDistance,
  nearestName,
  suggestedName,
  unknownInputNames,
  unknownInputsMessage,
  unknownInputsProblem,
} from "../../../core/inputNames";

const DLQ = ["dlqIds", "fromDate", "toDate", "workflowUrl", "retries", "all", "token"];

describe("core/inputNames", () => {
  it("edit distance: insertions, deletions, substitutions; case counts", () => {
    assert.equal(editDistance("tokn", "token"), 1);
    assert.equal(editDistance("passwd", "password"), 2);
    assert.equal(editDistance("", "abc"), 3);
    assert.equal(editDistance("URL", "Url"), 2);
  });

  it("suggests the nearest name, case ignored, only when it is close", () => {
    assert.equal(suggestedName("workflowURL", DLQ), "workflowUrl");
    assert.equal(suggestedName("WorkflowUrl", DLQ), "workflowUrl");
    assert.equal(suggestedName("fromdate", DLQ), "fromDate");
    assert.equal(suggestedName("retry", DLQ), "retries");
    assert.equal(suggestedName("tokn", DLQ), "token");
    assert.equal(suggestedName("userName", ["accountApiUrl", "username", "password"]), "username");
    // Far from every input: no guess.
    assert.equal(suggestedName("colour", DLQ), undefined);
    assert.equal(suggestedName("url", DLQ), undefined);
    assert.equal(suggestedName("x", []), undefined);
    // However far, the nearest (the stack config's hint always names one).
    assert.equal(nearestName("colour", ["svc:token", "svc:baseUrl"]), "svc:token");
  });

  it("the engine's `__` keys and the names a class adds are no unknown input", () => {
    assert.deepEqual(
      unknownInputNames(
        ["workflowUrl", "__provider", "__defaults", "accountLimits", "workflowURL", "resumedCount", "x"],
        DLQ,
        ["accountLimits", "resumedCount"],
      ),
      ["workflowURL", "x"],
    );
    assert.equal(unknownInputsProblem("DlqRecovery", ["all", "__defaults"], DLQ), undefined);
  });

  it("one message: each unknown name with its suggestion, and the inputs", () => {
    assert.equal(
      unknownInputsMessage("DlqRecovery", ["workflowURL"], DLQ),
      "`workflowURL` (did you mean `workflowUrl`?) is not an input of DlqRecovery; its inputs are `dlqIds`, " +
        "`fromDate`, `toDate`, `workflowUrl`, `retries`, `all` and `token`.",
    );
    assert.equal(
      unknownInputsProblem("DlqRecovery", ["workflowURL", "fromDate", "colour", "retry"], DLQ),
      "`workflowURL` (did you mean `workflowUrl`?), `colour` and `retry` (did you mean `retries`?) are not " +
        "inputs of DlqRecovery; its inputs are `dlqIds`, `fromDate`, `toDate`, `workflowUrl`, `retries`, " +
        "`all` and `token`.",
    );
  });
});
