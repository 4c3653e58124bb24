/**
 * `pulumi-svc/providers/dlqRecovery`: the dynamic provider that a `DlqRecovery` of a stack written
 * by 0.2 names in its state (its `__provider` loads this module), so that such a stack still
 * refreshes, destroys, continues a cut-off drain and upgrades to the svc provider with no replace
 * (docs/upgrading.md). It goes in 1.0, which reads no 0.2 state.
 *
 * @packageDocumentation
 */
import "../client/requireNode"; // first: one clear error on a Node.js older than 22.19
import { DlqRecoveryProvider } from "../provider/dlqRecovery/controller";

/** The instance a 0.2 state's `__provider` loads; its drains run in the process's drain thread. */
export const provider = new DlqRecoveryProvider({ drainIn: "drain thread" });
