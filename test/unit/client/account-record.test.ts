/**
 * The account record's one table (`client/accountRecord.ts`) against the emulator's own copy of
 * the record (kept apart on purpose): the emulator's record of every plan has every field of the
 * table (and a few the spec does not list, as the service may), and the client's validation keeps
 * exactly the table's fields, unchanged.
 */
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import {
  ACCOUNT_FIELD_LIST,
  ACCOUNT_RECORD_FIELDS,
  SECRET_ACCOUNT_OUTPUTS,
  validateAccountRecord,
} from "../../../client";
import { PLAN_PRESETS, startEmulator } from "../../../emulator";

describe("client/accountRecord: the record's one table", () => {
  it("names each wire field and each output once; the secrets are password and token", () => {
    const wires = ACCOUNT_FIELD_LIST.map((f) => f.wire);
    assert.equal(new Set(wires).size, wires.length, "a wire name twice");
    assert.equal(ACCOUNT_FIELD_LIST.length, Object.keys(ACCOUNT_RECORD_FIELDS).length);
    assert.deepEqual(SECRET_ACCOUNT_OUTPUTS, ["password", "token"]);
    assert.deepEqual(
      ACCOUNT_FIELD_LIST.filter((f) => f.secret).map((f) => f.wire),
      ["password", "token"],
    );
  });

  for (const plan of Object.keys(PLAN_PRESETS) as (keyof typeof PLAN_PRESETS)[]) {
    it(`the emulator's ${plan} record has every field of the table; validation keeps exactly those`, async () => {
      const emu = await startEmulator({ plan });
      try {
        const record = emu.state.account.record as unknown as Record<string, unknown>;
        const wires = ACCOUNT_FIELD_LIST.map((f) => f.wire);
        for (const w of wires) assert.ok(w in record, `the emulator's record has no ${w}`);
        const kept = validateAccountRecord(record) as unknown as Record<string, unknown>;
        assert.deepEqual(Object.keys(kept).sort(), [...wires].sort());
        for (const w of wires) assert.deepEqual(kept[w], record[w], w);
      } finally {
        await emu.close();
      }
    });
  }

  it("no other product file lists the record's fields (a few named by a rule or a message are fine)", () => {
    const root = path.resolve(__dirname, "../../..");
    // Names a reader would search for: wire names and camelCase outputs (not `token`, `state`...).
    const names = ACCOUNT_FIELD_LIST.flatMap((f) => [f.wire, f.output]).filter((n) => /_|[A-Z]/.test(n));
    const files = (dir: string): string[] =>
      fs
        .readdirSync(path.join(root, dir), { withFileTypes: true })
        .flatMap((e) =>
          e.isDirectory()
            ? files(path.join(dir, e.name))
            : e.name.endsWith(".ts")
              ? [path.join(dir, e.name)]
              : [],
        );
    for (const file of ["client", "core", "components", "policies"].flatMap(files)) {
      if (file === path.join("client", "accountRecord.ts")) continue;
      const text = fs.readFileSync(path.join(root, file), "utf8");
      const named = names.filter((n) => new RegExp(`\\b${n}\\b`).test(text));
      assert.ok(
        named.length <= 8,
        `${file} names ${named.length} of the record's fields: derive it from the table`,
      );
    }
  });
});
