/**
 * The `Account` outputs as a program sees them: their names, types and TSDoc follow from the
 * account record's one table (`client/accountRecord.ts`), read here through the TypeScript
 * compiler the way an editor reads them.
 */
import { strict as assert } from "node:assert";
import * as path from "node:path";
import ts from "typescript";
import {
  ACCOUNT_RECORD_FIELDS,
  OUTPUT_OF_ACCOUNT_FIELD,
  SECRET_ACCOUNT_OUTPUTS,
} from "../../../core/accountFields";

const ROOT = path.resolve(__dirname, "../../..");

/** Every instance property of `Account`: its TSDoc and its type, as the compiler reports them. */
function accountProperties(): Map<string, { doc: string; type: string }> {
  const file = path.join(ROOT, "components", "Account.ts");
  const program = ts.createProgram([file], { strict: true, skipLibCheck: true, noEmit: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  assert.ok(source);
  const cls = source.statements.find((s): s is ts.ClassDeclaration => ts.isClassDeclaration(s));
  assert.ok(cls?.name);
  const instance = checker.getDeclaredTypeOfSymbol(checker.getSymbolAtLocation(cls.name) as ts.Symbol);
  const out = new Map<string, { doc: string; type: string }>();
  for (const p of instance.getProperties()) {
    out.set(p.name, {
      doc: ts.displayPartsToString(p.getDocumentationComment(checker)),
      // `Output<boolean>` is printed `OutputInstance<boolean>` (nothing to lift): the same type.
      type: checker.typeToString(checker.getTypeOfSymbol(p)).replace(/^OutputInstance</, "Output<"),
    });
  }
  return out;
}

describe("components/Account: outputs follow from the record's one table", function () {
  this.timeout(120_000);
  let props: Map<string, { doc: string; type: string }>;
  before(() => {
    props = accountProperties();
  });

  it("the output names are the ones existing stacks store (unchanged)", () => {
    assert.deepEqual(Object.keys(ACCOUNT_RECORD_FIELDS), [
      "customerId",
      "accountId",
      "password",
      "token",
      "active",
      "state",
      "lastPlanUpgradeTime",
      "maxMessageSize",
      "maxRequestsPerDay",
      "maxRequestsPerDayHard",
      "maxEndpointsPerTopic",
      "maxRequestsPerSecond",
      "maxDlqSize",
      "maxRetries",
      "maxTopics",
      "maxSchedules",
      "maxEventsSize",
      "maxDlqRetentionTimeMilis",
      "maxDelay",
      "maxParallelism",
      "maxGlobalParallelism",
      "maxQueues",
      "prodPackEnabled",
      "timeout",
      "type",
      "reservedType",
      "reservedPrice",
      "createdBy",
      "creationTime",
    ]);
    assert.equal(OUTPUT_OF_ACCOUNT_FIELD.id, "accountId");
    assert.equal(OUTPUT_OF_ACCOUNT_FIELD.max_dlq_retention_time_milis, "maxDlqRetentionTimeMilis");
    assert.deepEqual(SECRET_ACCOUNT_OUTPUTS, ["password", "token"]);
  });

  it("every output is a property of Account, typed from its wire type", () => {
    for (const [output, spec] of Object.entries(ACCOUNT_RECORD_FIELDS)) {
      const p = props.get(output);
      assert.ok(p, `Account has no property ${output}`);
      const kind = spec.kind;
      const expected =
        typeof kind === "object"
          ? `Output<${kind.enum.map((e) => JSON.stringify(e)).join(" | ")}>`
          : `Output<${kind === "integer" ? "number" : kind}>`;
      assert.equal(p.type, expected, output);
    }
  });

  it("every output has TSDoc, and the TSDoc of every output with a unit states the unit", () => {
    for (const [output, spec] of Object.entries(ACCOUNT_RECORD_FIELDS)) {
      const doc = props.get(output)?.doc ?? "";
      assert.ok(doc.length > 10, `${output} has no TSDoc`);
      const unit = (spec as { unit?: string }).unit;
      if (unit !== undefined)
        assert.ok(doc.includes(unit), `the TSDoc of ${output} names its unit (${unit}): ${doc}`);
    }
    assert.match(props.get("maxDelay")?.doc ?? "", /in seconds/);
    assert.match(props.get("maxDlqRetentionTimeMilis")?.doc ?? "", /in milliseconds/);
    assert.match(props.get("password")?.doc ?? "", /secret/i);
  });
});
