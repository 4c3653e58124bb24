/**
 * Entry point of the svc limits policy pack (`pulumi preview --policy-pack policies`).
 * `policies/package.json` points `main` at the built file (`dist/policies/index.js`), so the
 * pack also runs from the npm package. See `docs/policies.md`.
 *
 * @packageDocumentation
 */
import "../client/requireNode"; // first: one clear error on a Node.js older than 22.19
import "./compileCache"; // then: the modules below load from the compile cache
import { PolicyPack } from "@pulumi/policy";
import { PACK_NAME, createPolicies } from "./pack";

const pack = createPolicies();

new PolicyPack(PACK_NAME, {
  description:
    "Configured svc workflows must stay within their own account's limits: max_parallelism, max_retries, " +
    "max_delay, max_global_parallelism and the DLQ retention; checks that cannot run fail the preview; " +
    "overlapping DlqRecovery selections are reported.",
  policies: pack.policies,
});

// Once the pack serves the engine, read the stack's account record (when `svc:` settings are
// configured) while the program runs, instead of at the end of the preview. The policies share
// this one read; nothing is sent without settings.
setImmediate(() => pack.context.prefetch());
