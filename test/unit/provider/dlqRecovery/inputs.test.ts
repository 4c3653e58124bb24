import { strict as assert } from "node:assert";
import { SELECTION_FIELDS } from "../../../../client";
import { DLQ_RECOVERY_RESULT_NAMES } from "../../../../core/resources/dlqRecovery";
import {
  INPUT_ROLES,
  RESULT_FIELDS,
  type DlqRecoveryInputs,
  type InputRole,
  SPEC_FIELDS,
  TUNING_FIELDS,
  specHash,
} from "../../../../provider/dlqRecovery/inputs";

const sorted = (l: readonly string[]): string[] => [...l].sort();

describe("DlqRecovery inputs and outputs: one declaration (existing stacks keep their diff and hash)", () => {
  it("the inputs that decide what is resumed are those of 0.2.0 (the spec hash of a saved state is unchanged)", () => {
    assert.deepEqual(
      sorted(SPEC_FIELDS),
      sorted([...SELECTION_FIELDS, "all", "flowControl", "retries", "triggers"]),
    );
    // The hash 0.2.0 computed for these inputs; `baseUrl` is not part of it.
    const inputs = {
      workflowUrl: "http://127.0.0.1/w",
      fromDate: 1,
      flowControl: { key: "k", parallelism: 2 },
      retries: 3,
      triggers: [1],
    };
    assert.equal(specHash({ ...inputs, baseUrl: "x" }), "1d1ea1520b96dbf1");
  });

  it("the inputs compared by diff without resuming are those of 0.2.0, and `maxRuns` (added in 0.3.0)", () => {
    assert.deepEqual(
      sorted(TUNING_FIELDS),
      sorted([
        "baseUrl",
        "account",
        "allowInsecureHttp",
        "concurrency",
        "maxRequestsPerSecond",
        "maxRecordedRuns",
        "runLogFile",
        "recoveryName",
        // `maxRuns` (0.3.0): a changed cap sends nothing after a finished drain; a drain stopped at
        // it continues once it is raised (the spec hash, and so every saved state, is unchanged).
        "maxRuns",
      ]),
    );
  });

  it("token and accountLimits are neither part of the spec nor compared", () => {
    for (const k of ["token", "accountLimits"] as const) {
      assert.ok(!SPEC_FIELDS.includes(k), k);
      assert.ok(!TUNING_FIELDS.includes(k), k);
    }
    assert.equal(INPUT_ROLES.token, "credential");
  });

  it("a table of roles that leaves out an input does not compile (what `satisfies` on INPUT_ROLES relies on)", () => {
    const { retries: _retries, ...withoutRetries } = INPUT_ROLES;
    // @ts-expect-error `retries` has no role: `npm run check` fails if this compiles.
    const roles: Record<keyof DlqRecoveryInputs, InputRole> = withoutRetries;
    assert.equal((roles as Record<string, InputRole>).retries, undefined);
  });

  it("every selection field of the wire contract is a selection input", () => {
    for (const k of SELECTION_FIELDS) assert.equal(INPUT_ROLES[k], "selection", k);
  });

  it("the outputs a drain computes are those of 0.2.0 and those added in 0.3.0, the public ones first", () => {
    assert.deepEqual(RESULT_FIELDS.slice(0, DLQ_RECOVERY_RESULT_NAMES.length), DLQ_RECOVERY_RESULT_NAMES);
    assert.deepEqual(sorted(RESULT_FIELDS), [
      "ambiguousRequests",
      "complete",
      "cursor",
      "finishedAt",
      "lastError",
      // Added in 0.3.0: IDs not in the DLQ, and a drain stopped at `maxRuns`.
      "notFoundCount",
      "notFoundDlqIds",
      "overrideHeaders",
      "remainingDlqIds",
      "requestCount",
      "resumedCount",
      "resumedRuns",
      "resumedRunsTruncated",
      // Added in 0.3.0: the start mark of the drain in its run log (runs no state recorded).
      "runLogMark",
      "specHash",
      "startedAt",
      "stoppedAtMaxRuns",
      "unconfirmedDlqIds",
      "windowState",
    ]);
  });
});
