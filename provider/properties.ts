/**
 * Property (un)marshalling between the provider protocol's `google.protobuf.Struct` values and
 * plain objects: the one place where secrets are unwrapped (on the way in) and wrapped again
 * (on the way out). A secret arrives as `{ [SECRET_SIG_KEY]: SECRET_SIG_VALUE, value }` (the
 * engine sends them so because `Configure` answers `acceptSecrets`).
 *
 * @packageDocumentation
 */
import { Struct } from "google-protobuf/google/protobuf/struct_pb";

/** The signature key of a wrapped value (the engine's `sig.Key`). */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
/** The signature of a secret (the engine's `sig.Secret`). */
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

/** Properties as plain values, and the names of the top-level properties that held a secret. */
export interface Unmarshalled {
  /** The values, every secret unwrapped. */
  readonly values: Record<string, unknown>;
  /** The top-level properties that were, or contained, a secret. */
  readonly secrets: ReadonlySet<string>;
}

/** True for a wrapped secret. */
export function isWrappedSecret(v: unknown): v is { value: unknown } {
  return v !== null && typeof v === "object" && (v as Record<string, unknown>)[SIG_KEY] === SECRET_SIG;
}

/** `v` with every wrapped secret in it replaced by its value; `found` is set when there was one. */
function unwrap(v: unknown, found: { secret: boolean }): unknown {
  if (isWrappedSecret(v)) {
    found.secret = true;
    return unwrap(v.value, found);
  }
  if (Array.isArray(v)) return v.map((x) => unwrap(x, found));
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unwrap(x, found)]));
  }
  return v;
}

/** A secret-wrapped value. */
export function wrapSecret(value: unknown): Record<string, unknown> {
  return { [SIG_KEY]: SECRET_SIG, value };
}

/** Plain values from a request's properties (none when the request has no properties). */
export function unmarshal(struct: Struct | undefined): Unmarshalled {
  const raw = (struct?.toJavaScript() ?? {}) as Record<string, unknown>;
  const values: Record<string, unknown> = {};
  const secrets = new Set<string>();
  for (const [k, v] of Object.entries(raw)) {
    const found = { secret: false };
    values[k] = unwrap(v, found);
    if (found.secret) secrets.add(k);
  }
  return { values, secrets };
}

/**
 * A response's properties: `values`, with each property named in `secrets` wrapped as a secret
 * (`undefined` values are left out).
 */
export function marshal(values: Record<string, unknown>, secrets: Iterable<string>): Struct {
  const wrap = new Set(secrets);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined) continue;
    out[k] = wrap.has(k) ? wrapSecret(v) : v;
  }
  return Struct.fromJavaScript(out as Parameters<typeof Struct.fromJavaScript>[0]);
}
