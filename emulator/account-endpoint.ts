/**
 * `GET /v2/svc/user` after authentication: the account record (spec 2.3 plus extra fields).
 */
import type { V2Context, V2Result } from "./endpoint";

/**
 * Handle an authenticated account request.
 *
 * @param ctx - the request context.
 */
export function handleAccount(ctx: V2Context): V2Result {
  return { kind: "json", status: 200, body: ctx.state.account.record };
}
