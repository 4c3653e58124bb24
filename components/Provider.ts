import * as pulumi from "@pulumi/pulumi";
import { SETTINGS, type SettingName } from "../core/connection";
import { unknownInputsProblem } from "../core/inputNames";

/**
 * The arguments of {@link Provider}: the connection settings, each named as its input (the
 * `svc:` stack config key without `svc:`). Unset, a setting falls back to the environment
 * variable (`SVC_*`); the stack's `svc:` config is the default provider's, not an explicit one's.
 */
export type ProviderArgs = { [K in SettingName as (typeof SETTINGS)[K]["input"]]?: pulumi.Input<string> };

/**
 * An explicit svc provider: one account's settings, for a program that reaches several accounts
 * (`{ provider }` on each `Account` and `DlqRecovery` of that account). `password` and `token`
 * are stored as secrets. A changed input updates the provider and replaces nothing.
 *
 * @example
 * ```ts
 * const prod = new Provider("prod", { accountApiUrl, username, password, baseUrl, token });
 * const account = new Account("prod", {}, { provider: prod });
 * ```
 */
export class Provider extends pulumi.ProviderResource {
  /**
   * @param name - the provider's name
   * @param args - the connection settings (each falls back to its environment variable)
   * @param opts - resource options
   * @throws RunError naming each argument the provider does not take, before anything is
   * registered: "Provider `p`: `userName` (did you mean `username`?) is not an input of Provider; …"
   */
  constructor(name: string, args: ProviderArgs = {}, opts: pulumi.ResourceOptions = {}) {
    // A misspelled argument (`userName` in a program that is not type-checked) would be dropped.
    const inputs = Object.values(SETTINGS).map((s) => s.input);
    const unknown = unknownInputsProblem("Provider", Object.keys(args ?? {}), inputs);
    if (unknown !== undefined) throw new pulumi.RunError(`Provider \`${name}\`: ${unknown}`);
    const props: Record<string, unknown> = {};
    for (const s of Object.values(SETTINGS)) {
      const v = (args as Record<string, pulumi.Input<string> | undefined>)[s.input];
      props[s.input] = v !== undefined && s.secret ? pulumi.secret(v) : v;
    }
    super("svc", name, props, opts);
  }
}
