/**
 * Gives the pack the stack's config, so `new pulumi.Config("svc")` works inside policies.
 *
 * Why this exists: the Pulumi CLI (v3.259) starts a Node.js policy pack through the language
 * host and hands it the stack's config (secrets decrypted), the secret keys and the preview flag
 * only in the analyzer's `ConfigureStack` call — not in the `PULUMI_CONFIG` environment the
 * language host never sets for policy packs. `@pulumi/policy` 1.21 answers that call but keeps
 * only the stack tags, so without this hook `new pulumi.Config()` is empty in a pack and
 * `pulumi.runtime.isDryRun()` is false even in a preview (both checked with the real CLI).
 *
 * The hook wraps the one accessor `@pulumi/policy` calls on the request (`getTagsMap`): it
 * first copies the config into the Pulumi runtime (`pulumi.runtime.setAllConfig`) and records
 * the preview flag, then lets `@pulumi/policy` carry on as before. When a later `@pulumi/policy`
 * reads the config itself, the hook changes nothing.
 *
 * @packageDocumentation
 */
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";

/** What the engine told the pack about the stack. */
export interface StackInfo {
  /** True once `ConfigureStack` was received. */
  received: boolean;
  /** True in a preview, false in an update; `undefined` before `ConfigureStack`. */
  dryRun: boolean | undefined;
  /** The names of the config keys, e.g. `svc:password` (never the values). */
  configKeys: string[];
}

/** The part of `AnalyzerStackConfigureRequest` the hook reads. */
interface StackConfigureRequest {
  getConfigMap(): { entries(): Iterable<[string, string]> };
  getConfigSecretKeysList(): string[];
  getDryRun(): boolean;
  getTagsMap(...args: unknown[]): unknown;
}

const info: StackInfo = { received: false, dryRun: undefined, configKeys: [] };
const HOOKED = Symbol.for("pulumi-svc.policies.stackConfigHook");

/** What the engine told the pack about the stack (a live view). */
export function stackInfo(): Readonly<StackInfo> {
  return info;
}

/**
 * Copies the stack config, secret keys and preview flag of a `ConfigureStack` request into the
 * Pulumi runtime of this process.
 *
 * @param request - the engine's `AnalyzerStackConfigureRequest`
 */
export function applyStackConfigure(request: StackConfigureRequest): void {
  const config: Record<string, string> = {};
  for (const [k, v] of request.getConfigMap().entries()) config[k] = v;
  pulumi.runtime.setAllConfig(config, request.getConfigSecretKeysList());
  info.received = true;
  info.dryRun = request.getDryRun();
  info.configKeys = Object.keys(config);
}

/**
 * Installs the hook (once per process; later calls do nothing). Called by the pack's entry point
 * before the `PolicyPack` starts serving.
 *
 * @returns true when the hook is installed, false when `@pulumi/policy`'s protocol module was not
 * found (the pack then reads only the `SVC_*` environment)
 */
export function installStackConfigHook(): boolean {
  let proto: { AnalyzerStackConfigureRequest?: { prototype: StackConfigureRequest } };
  try {
    // The very module instance @pulumi/policy uses, wherever the packages are installed.
    const policyDir = path.dirname(require.resolve("@pulumi/policy"));
    proto = require(require.resolve("@pulumi/pulumi/proto/analyzer_pb", { paths: [policyDir] }));
  } catch {
    return false;
  }
  const prototype = proto.AnalyzerStackConfigureRequest?.prototype as
    (StackConfigureRequest & { [HOOKED]?: boolean }) | undefined;
  if (prototype === undefined || typeof prototype.getTagsMap !== "function") return false;
  if (prototype[HOOKED]) return true;
  const original = prototype.getTagsMap;
  prototype.getTagsMap = function (this: StackConfigureRequest, ...args: unknown[]) {
    try {
      applyStackConfigure(this);
    } catch {
      // A request without config: @pulumi/policy carries on; the pack falls back to SVC_* variables.
    }
    return original.apply(this, args);
  };
  prototype[HOOKED] = true;
  return true;
}
