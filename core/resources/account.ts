/**
 * The arguments of an `Account`, in order: the account API's connection settings (the one list of
 * settings, `core/connection.ts`) and `allowInsecureHttp`, as the svc provider's
 * `svc:index:Account` takes them (`accountInputs` in `provider/schema.ts`, built from the same
 * list). A module of its own, with no import of the Pulumi SDK, so that the provider's check
 * loads without it (`Account.ts` checks that the list and `AccountArgs` name the same arguments).
 *
 * @packageDocumentation
 */
import { ACCOUNT_SETTINGS, SETTINGS } from "../connection";

/** An argument of an `Account`. */
export type AccountArgumentName =
  (typeof SETTINGS)[(typeof ACCOUNT_SETTINGS)[number]]["input"] | "allowInsecureHttp";

/** The arguments of an `Account`, in order (the keys of `AccountArgs`). */
export const ACCOUNT_ARGUMENTS: readonly AccountArgumentName[] = [
  ...ACCOUNT_SETTINGS.map((n) => SETTINGS[n].input),
  "allowInsecureHttp",
];
