/**
 * The provider's property (un)marshalling: secrets arrive wrapped, are unwrapped once, and leave
 * wrapped again, through a real `google.protobuf.Struct` (serialized and parsed as on the wire).
 */
import * as assert from "node:assert/strict";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { SECRET_SIG, SIG_KEY, marshal, unmarshal, wrapSecret } from "../../../provider/properties";
import { UNKNOWN } from "../../../core/unknownValue";

/** A struct through its binary form, as the engine and the provider exchange it. */
function overTheWire(s: Struct): Struct {
  return Struct.deserializeBinary(s.serializeBinary());
}

describe("provider properties: (un)marshalling with secrets", () => {
  it("unwraps secrets (nested ones too) and names the top-level properties that held one", () => {
    const struct = Struct.fromJavaScript({
      username: "platform@example.com",
      password: { [SIG_KEY]: SECRET_SIG, value: "pw-unit-1" },
      headers: { plain: "a", auth: { [SIG_KEY]: SECRET_SIG, value: "tok-unit-1" } },
      allowInsecureHttp: false,
      count: 3,
    });
    const got = unmarshal(overTheWire(struct));
    assert.deepEqual(got.values, {
      username: "platform@example.com",
      password: "pw-unit-1",
      headers: { plain: "a", auth: "tok-unit-1" },
      allowInsecureHttp: false,
      count: 3,
    });
    assert.deepEqual([...got.secrets].sort(), ["headers", "password"]);
  });

  it("round-trips: what was secret leaves secret, the rest plain, undefined left out", () => {
    const values = { token: "tok-unit-2", maxParallelism: 2, type: "free", gone: undefined };
    const back = overTheWire(marshal(values, ["token"])).toJavaScript();
    assert.deepEqual(back, { token: wrapSecret("tok-unit-2"), maxParallelism: 2, type: "free" });
    const again = unmarshal(overTheWire(marshal(values, ["token"])));
    assert.deepEqual(again.values, { token: "tok-unit-2", maxParallelism: 2, type: "free" });
    assert.deepEqual([...again.secrets], ["token"]);
  });

  it("a request with no properties (an import's read) is empty, not an error", () => {
    assert.deepEqual(unmarshal(undefined), { values: {}, secrets: new Set() });
  });

  it("an unknown value during preview passes through as the engine's sentinel", () => {
    assert.deepEqual(unmarshal(marshal({ maxDelay: UNKNOWN }, [])).values, { maxDelay: UNKNOWN });
  });
});
