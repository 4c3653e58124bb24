/**
 * Names a resource does not take: the one rule of "did you mean" (the nearest known name, case
 * ignored, by edit distance) and the one message for inputs a resource does not know, for the
 * TypeScript classes' constructors and the svc provider's `Check`, `CheckConfig` and `Construct`
 * alike. The stack config's `svc:` keys use the same distance (`unknownConfigKeys` in
 * `connection.ts`). No import of the Pulumi SDK: the provider's config check loads it.
 *
 * @packageDocumentation
 */

/** Levenshtein distance of two short strings. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length];
}

/** The edit distance of two names, case ignored (`workflowURL` and `workflowUrl`: 0). */
function nameDistance(a: string, b: string): number {
  return editDistance(a.toLowerCase(), b.toLowerCase());
}

/**
 * The candidate nearest to `name` (case ignored, edit distance; the first of equals), however far.
 *
 * @param name - the name given
 * @param candidates - the names known, at least one
 */
export function nearestName(name: string, candidates: readonly string[]): string {
  return [...candidates].sort((a, b) => nameDistance(name, a) - nameDistance(name, b))[0];
}

/**
 * The known name to suggest for `name`: the nearest, when it is reasonably close (at most one
 * edit in three of the longer name's characters, at least one: `tokn` → `token`, `retry` →
 * `retries`, `userName` → `username`); none otherwise (`foo` among `url`, `retries`, ...).
 *
 * @param name - the name given
 * @param known - the names the resource takes
 */
export function suggestedName(name: string, known: readonly string[]): string | undefined {
  if (known.length === 0) return undefined;
  const nearest = nearestName(name, known);
  const allowed = Math.max(1, Math.ceil(Math.max(name.length, nearest.length) / 3));
  return nameDistance(name, nearest) <= allowed ? nearest : undefined;
}

/** True for a key the Pulumi engine or SDKs add themselves (`__defaults`, `__provider`, `__internal`, ...). */
export function isEngineKey(key: string): boolean {
  return key.startsWith("__");
}

/**
 * The names given that a resource does not take, in the order given: neither one of its
 * inputs, nor one of the names its class or the engine adds (`accepted`, and every key
 * starting with `__`).
 *
 * @param given - the names of the inputs as given
 * @param known - the resource's inputs
 * @param accepted - the names its class, its SDKs or its provider add themselves (outputs, copied
 * limits, the resource's name)
 */
export function unknownInputNames(
  given: Iterable<string>,
  known: readonly string[],
  accepted: readonly string[] = [],
): string[] {
  return [...given].filter((k) => !isEngineKey(k) && !known.includes(k) && !accepted.includes(k));
}

/** "`` `a` `` (did you mean `` `b` ``?)", or "`` `a` ``" when no name is close. */
function withSuggestion(name: string, known: readonly string[]): string {
  const s = suggestedName(name, known);
  return s === undefined ? `\`${name}\`` : `\`${name}\` (did you mean \`${s}\`?)`;
}

/** "`a`", "`a` and `b`", "`a`, `b` and `c`". */
function listed(items: readonly string[]): string {
  return items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/**
 * The one message of inputs a resource does not take: each name, with the known input it is
 * nearest to when that one is close, and the resource's inputs. E.g. "`workflowURL` (did you
 * mean `workflowUrl`?) is not an input of DlqRecovery; its inputs are `dlqIds`, …, `runLogFile`."
 * Values are not shown: a misspelled `pasword` holds a credential.
 *
 * @param resource - the resource's kind, e.g. "DlqRecovery"
 * @param unknown - the names it does not take (at least one)
 * @param known - its inputs, in their declared order
 */
export function unknownInputsMessage(
  resource: string,
  unknown: readonly string[],
  known: readonly string[],
): string {
  const names = listed(unknown.map((n) => withSuggestion(n, known)));
  const verb = unknown.length === 1 ? "is not an input" : "are not inputs";
  return `${names} ${verb} of ${resource}; its inputs are ${listed(known.map((k) => `\`${k}\``))}.`;
}

/**
 * The message for the names of `given` that a resource does not take, or undefined when it takes
 * them all ({@link unknownInputNames}, {@link unknownInputsMessage}).
 *
 * @param resource - the resource's kind, e.g. "DlqRecovery"
 * @param given - the names of the inputs as given
 * @param known - its inputs, in their declared order
 * @param accepted - the names its class, its SDKs or its provider add themselves
 */
export function unknownInputsProblem(
  resource: string,
  given: Iterable<string>,
  known: readonly string[],
  accepted: readonly string[] = [],
): string | undefined {
  const unknown = unknownInputNames(given, known, accepted);
  return unknown.length === 0 ? undefined : unknownInputsMessage(resource, unknown, known);
}
