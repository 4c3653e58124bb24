/**
 * The provider's stored window state (`storedState.ts`) mapped to and from the client's
 * `WindowDrainState`: a stored value of a stack written by 0.2 reads as the same windows and
 * counters, a client state written back is the same JSON, and what is not the stored format is
 * refused with the field and the value.
 */
import { strict as assert } from "node:assert";
import type { WindowDrainState } from "../../../../drain";
import {
  STORED_WINDOW_STATE_VERSION,
  fromStoredWindowState,
  toStoredWindowState,
} from "../../../../provider/dlqRecovery/storedState";
import { stored } from "../../../helpers/state-fixtures";

describe("provider/dlqRecovery/storedState: the stored window state", () => {
  it("the fixture's stored value (written by 0.2) reads as the client's state and writes back unchanged", () => {
    const value = stored("cut-off").outputs.windowState as Record<string, unknown>;
    const fields = ["shortfall", "runs", "version", "windows"];
    assert.deepEqual(Object.keys(value).sort(), fields.sort(), "the stored fields");
    const state = fromStoredWindowState(value, {});
    assert.equal(state.version, 1);
    assert.equal(state.runs, value.runs);
    assert.equal(state.shortfall, value.shortfall);
    assert.ok(state.windows.length >= 2);
    assert.deepEqual(state.windows, value.windows, "the windows, their bounds and cursors");
    assert.deepEqual(toStoredWindowState(state), value, "written back: the same stored JSON");
  });

  it("a client state is stored as version 1 with plain JSON windows, and reads back the same", () => {
    const state: WindowDrainState = {
      version: 1,
      windows: [{ to: 99 }, { from: 100, to: 200, cursor: "c1" }, { from: 201, cursor: "c2" }],
      runs: 120,
      shortfall: 30,
    };
    const s = toStoredWindowState(state);
    assert.equal(s.version, STORED_WINDOW_STATE_VERSION);
    assert.deepEqual(JSON.parse(JSON.stringify(s)), {
      version: 1,
      windows: [{ to: 99 }, { from: 100, to: 200, cursor: "c1" }, { from: 201, cursor: "c2" }],
      runs: 120,
      shortfall: 30,
    });
    assert.deepEqual(fromStoredWindowState(JSON.parse(JSON.stringify(s)), {}), state);
  });

  it("a stored value that is not the format is refused, naming the field and the value", () => {
    const ok = { version: 1, windows: [], runs: 0, shortfall: 0 };
    const refused = (v: unknown, re: RegExp) =>
      assert.throws(
        () => fromStoredWindowState(v, {}),
        (e: Error & { code?: string }) => e.code === "SVC_INVALID_ARGUMENT" && re.test(e.message),
      );
    refused(null, /`windowState` must be an object/);
    refused([], /`windowState` must be an object/);
    refused({ ...ok, version: 2 }, /`windowState\.version` must be 1; got 2/);
    refused({ ...ok, runs: -1 }, /`windowState\.runs`.*-1/);
    refused({ ...ok, windows: [{ from: 5, to: 3 }] }, /windowState\.windows\[0\]/);
    refused(
      { ...ok, windows: [{ cursor: "" }] },
      /`windowState\.windows\[0\]\.cursor` must be a non-empty string/,
    );
  });
});
