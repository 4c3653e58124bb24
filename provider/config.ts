/**
 * The provider's configuration: the `svc:` stack config (or an explicit provider's inputs) as
 * `CheckConfig`, `DiffConfig` and `Configure` receive it, turned into the stack-config reader the
 * settings are looked up in (`core/connection.ts`), with its "did you mean" check of the keys.
 *
 * @packageDocumentation
 */
import { configKeyHint, unknownConfigKeys, type StackConfigReader } from "../core/connection";
import { unknownInputsProblem } from "../core/inputNames";
import type { CheckResult, Failure, Props } from "./resource";
import { PACKAGE_NAME, configVariables } from "./schema";

/** Inputs of a provider the engine adds itself, which are no config variable. */
const ENGINE_KEYS = new Set(["version", "pluginDownloadURL"]);

/** The name of a default provider (the one the `svc:` stack config configures): `default`, `default_0_2_0`. */
const DEFAULT_PROVIDER = /^default(_.*)?$/;

/** The name of an explicit provider (a `pulumi:providers:svc` resource) from its URN; none for a default one. */
function explicitProvider(urn: string): string | undefined {
  const name = urn.slice(urn.lastIndexOf("::") + 2);
  return urn === "" || DEFAULT_PROVIDER.test(name) ? undefined : name;
}

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

/**
 * A stack-config reader over provider inputs (secrets already unwrapped); for an explicit
 * provider it names the provider, so messages name its inputs, not stack config keys.
 *
 * @param urn - the provider's URN (`Configure` carries it; empty or a default provider's: the stack config)
 */
export function configReader(values: Record<string, unknown>, urn = ""): StackConfigReader {
  const entries = configEntries(values);
  const provider = explicitProvider(urn);
  return {
    get: (key) => entries.get(key),
    keys: () => [...entries.keys()],
    ...(provider === undefined ? {} : { provider }),
  };
}

/**
 * The failures of keys that are no setting: for the default provider one per stack config key
 * ("The stack config has `svc:tokn`, …: did you mean `svc:token`?"); for an explicit one, one
 * naming each of its inputs that is no setting, as every resource's unknown inputs are named
 * ("Provider `b`: `tokn` (did you mean `token`?) is not an input of Provider; its inputs are …").
 * Only the new inputs are checked.
 */
function unknownKeyFailures(provider: string | undefined, values: Record<string, unknown>): Failure[] {
  const keys = [...configEntries(values).keys()];
  if (provider === undefined)
    return unknownConfigKeys(keys).map((u) => ({ property: "", reason: configKeyHint(u) }));
  const names = keys.map((key) => key.slice(PACKAGE_NAME.length + 1));
  const unknown = unknownInputsProblem("Provider", names, Object.keys(configVariables()));
  return unknown === undefined ? [] : [{ property: "", reason: `Provider \`${provider}\`: ${unknown}` }];
}

/**
 * `CheckConfig`: the provider inputs as given, the config variables the schema marks secret
 * (`password`, `token`) wrapped as secrets whether or not they arrived so (the engine strips the
 * wrapping before this call and stores what it answers), and the failures of keys that are no
 * setting, with the nearest setting. A failure of the provider as a whole (no property): the
 * engine would print the value of a named property beside the message, and the message names
 * the key already.
 *
 * @param urn - the provider's URN (its name says whether it is the default provider)
 * @param news - the provider inputs
 */
export function checkConfig(urn: string, news: Props): CheckResult {
  const secret = Object.entries(configVariables()).filter(([, p]) => p.secret);
  const failures = unknownKeyFailures(explicitProvider(urn), news.values);
  return {
    inputs: { values: news.values, secrets: new Set([...news.secrets, ...secret.map(([n]) => n)]) },
    failures,
  };
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
