/**
 * Turns on Node's module compile cache for the policy pack process (`module.enableCompileCache`,
 * Node ≥ 22.1; the cache lives in `NODE_COMPILE_CACHE` or the OS temp folder). A pack starts
 * afresh on every preview and loads `@pulumi/policy`, `@pulumi/pulumi` and the HTTP client before
 * the engine can go on; with the cache, every preview after the first loads them from V8's cached
 * code instead of compiling them again (bench 8, `docs/benchmarks.md`). Imported first by
 * `index.ts`; a Node without the API, or a cache that cannot be written, changes nothing.
 *
 * @packageDocumentation
 */
import * as nodeModule from "node:module";

/** `module.enableCompileCache` where Node has it (its declarations may lack it). */
const enable = (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache;
try {
  enable?.();
} catch {
  // No cache: the pack loads as without it.
}
