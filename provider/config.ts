/**
 * The provider's configuration: the `svc:` stack config (or an explicit provider's inputs) as
 * `CheckConfig`, `DiffConfig` and `Configure` receive it, turned into the stack-config reader the
 * settings are looked up in (`core/connection.ts`), with its "did you mean" check of the keys.
 *
 * @packageDocumentation
 */
import { configKeyHint, unknownConfigKeys, type StackConfigReader } from "../core/connection";
import { PACKAGE_NAME } from "./schema";

/** Inputs of a provider the engine adds itself, which are no config variable. */
const ENGINE_KEYS = new Set(["version", "pluginDownloadURL"]);

/** A config value as stack config holds it: a string (other JSON values as their JSON text). */
function asConfigString(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** The config variables of provider inputs, keyed as stack config (`svc:token`), engine keys left out. */
export function configEntries(values: Record<string, unknown>): Map<string, string> {
  const entries = new Map<string, string>();
  for (const [k, v] of Object.entries(values)) {
    const s = asConfigString(v);
    if (!ENGINE_KEYS.has(k) && s !== undefined) entries.set(`${PACKAGE_NAME}:${k}`, s);
  }
  return entries;
}

/** A stack-config reader over provider inputs (secrets already unwrapped). */
export function configReader(values: Record<string, unknown>): StackConfigReader {
  const entries = configEntries(values);
  return { get: (key) => entries.get(key), keys: () => [...entries.keys()] };
}

/** A `CheckConfig` failure: the property and the reason. */
export interface ConfigFailure {
  readonly property: string;
  readonly reason: string;
}

/**
 * The failures of provider inputs: each key that is no setting, with the nearest setting
 * ("The stack config has `svc:tokn`, which is no setting of pulumi-svc: did you mean `svc:token`?").
 * A failure of the provider as a whole (no property): the engine would print the value of a
 * named property beside the message, and the message names the key already.
 */
export function checkConfig(values: Record<string, unknown>): ConfigFailure[] {
  return unknownConfigKeys([...configEntries(values).keys()]).map((u) => ({
    property: "",
    reason: configKeyHint(u),
  }));
}

/**
 * The config variables whose value differs between the old and the new provider inputs. A change
 * never asks for replacement: a replaced provider would replace its resources.
 */
export function changedConfig(olds: Record<string, unknown>, news: Record<string, unknown>): string[] {
  const before = configEntries(olds);
  const after = configEntries(news);
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((k) => before.get(k) !== after.get(k)).map((k) => k.slice(PACKAGE_NAME.length + 1));
}
