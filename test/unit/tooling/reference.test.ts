/**
 * docs/reference.md against the declarations it describes: every setting with its input, stack
 * config key and environment variable (`core/connection.ts`), every `Account` output of the
 * record's one table (`client/accountRecord.ts`), every `DlqRecovery` input a program sets and
 * every result it outputs (`core/resources/dlqRecovery.ts`, `INPUT_ROLES`), every `Workflow`
 * argument. A name added to a declaration and not to the reference fails here.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { ACCOUNT_FIELD_LIST } from "../../../client/accountRecord";
import { DLQ_RECOVERY_RESULT_NAMES } from "../../../core/resources/dlqRecovery";
import { INPUT_ROLES } from "../../../provider/dlqRecovery/inputs";
import { WORKFLOW_ARGUMENTS } from "../../../core/resources/workflow";
import { SETTINGS } from "../../../core/connection";

const REFERENCE = fs.readFileSync(path.resolve(__dirname, "../../../docs/reference.md"), "utf8");

/** The text of the section with this `## ` heading, up to the next one. */
function section(heading: string): string {
  const start = REFERENCE.indexOf(`\n## ${heading}`);
  assert.ok(start >= 0, `docs/reference.md has the section "${heading}"`);
  const end = REFERENCE.indexOf("\n## ", start + 1);
  return REFERENCE.slice(start, end < 0 ? undefined : end);
}

/** The names of a list that a text does not name in backticks. */
function unnamed(text: string, names: readonly string[]): string[] {
  return names.filter((n) => !text.includes(`\`${n}\``));
}

describe("docs/reference.md: every declared name", () => {
  it("every setting: its input, stack config key and environment variable", () => {
    const table = section("Config keys and environment variables");
    const names = Object.values(SETTINGS).flatMap((s) => [s.input, s.config, s.env]);
    assert.ok(names.length >= 15);
    assert.deepEqual(unnamed(table, names), []);
  });

  it("every Account output of the record", () => {
    const outputs = ACCOUNT_FIELD_LIST.map((f) => f.output);
    assert.ok(outputs.length >= 29);
    assert.deepEqual(unnamed(section("`Account` (`svc:index:Account`)"), outputs), []);
  });

  it("every DlqRecovery input a program sets, and every output", () => {
    const text = section("`DlqRecovery` (`svc:index:DlqRecovery`)");
    const inputs = Object.keys(INPUT_ROLES).filter((k) => k !== "accountLimits" && k !== "recoveryName");
    assert.ok(inputs.length >= 18);
    assert.deepEqual(unnamed(text, inputs), []);
    assert.deepEqual(unnamed(text, DLQ_RECOVERY_RESULT_NAMES), []);
  });

  it("every Workflow argument", () => {
    assert.deepEqual(unnamed(section("`Workflow` (`svc:index:Workflow`)"), WORKFLOW_ARGUMENTS), []);
  });
});
