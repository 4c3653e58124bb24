/**
 * The pack config that lets a check run which no source had a limit for: the checking policy's
 * static option (every account) for a resource without an account ID to key it by, else its
 * `accounts` option keyed by the ID. `account-limits-source` prints the whole of it, so the
 * user copies one `--policy-pack-config` instead of working it out from an example.
 *
 * @packageDocumentation
 */
import type { LimitSpec } from "./limits";

/** Which pack config would give one check its limit. */
export type ConfigFix =
  /** The policy's static option, e.g. `{"workflow-max-parallelism": {"maxParallelism": <limit>}}`. */
  | { readonly kind: "static" }
  /** The policy's `accounts` option for the resource's account ID. */
  | { readonly kind: "accounts"; readonly id: string };

/** The config fixes one limit's unchecked checks need. */
export interface LimitFixes {
  readonly spec: LimitSpec;
  readonly fixes: readonly ConfigFix[];
}

/**
 * The `--policy-pack-config` JSON that gives every listed check its limit, with `<field>` where
 * the account's limit goes: `{"workflow-max-parallelism": {"accounts": {"<id>":
 * <max_parallelism>}}, ...}`. A policy whose checks include one that only the static option can
 * fix gets the static option (it holds for every account, those with an ID included). Limits
 * without fixes are left out; `undefined` when none has one.
 *
 * @param groups - each unchecked limit with its fixes, in the order to print them
 */
export function configFixJson(groups: readonly LimitFixes[]): string | undefined {
  const byPolicy = new Map<string, { spec: LimitSpec; statics: boolean; ids: Set<string> }>();
  for (const g of groups) {
    if (g.fixes.length === 0) continue;
    const entry = byPolicy.get(g.spec.policy) ?? { spec: g.spec, statics: false, ids: new Set<string>() };
    for (const f of g.fixes) {
      if (f.kind === "static") entry.statics = true;
      else entry.ids.add(f.id);
    }
    byPolicy.set(g.spec.policy, entry);
  }
  if (byPolicy.size === 0) return undefined;
  const policies = [...byPolicy.values()].map(({ spec, statics, ids }) => {
    const limit = `<${spec.field}>`;
    const option = statics
      ? `${JSON.stringify(spec.configKey)}: ${limit}`
      : `"accounts": {${[...ids].map((id) => `${JSON.stringify(id)}: ${limit}`).join(", ")}}`;
    return `${JSON.stringify(spec.policy)}: {${option}}`;
  });
  return `{${policies.join(", ")}}`;
}

/** The key of a fix, to keep each once. */
export function fixKey(fix: ConfigFix): string {
  return fix.kind === "static" ? "static" : `accounts\n${fix.id}`;
}
