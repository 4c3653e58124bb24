/**
 * `pulumi-svc/providers/account`: the dynamic provider that an `Account` of a stack written by 0.2
 * names in its state (its `__provider` loads this module), so that such a stack still refreshes,
 * destroys and upgrades to the svc provider with no replace (docs/upgrading.md). It goes in 1.0,
 * which reads no 0.2 state.
 *
 * @packageDocumentation
 */
import "../client/requireNode"; // first: one clear error on a Node.js older than 22.19
import { AccountProvider } from "../provider/account/controller";

/** The instance a 0.2 state's `__provider` loads. */
export const provider = new AccountProvider();
