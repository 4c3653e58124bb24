/**
 * An explicit provider's input it does not take (a misspelled `userName`, which the class would
 * otherwise drop) is refused by the class's constructor before anything is registered, with the
 * message `CheckConfig` gives a YAML, Python or Go program's provider (test/unit/provider/config.test.ts).
 */
import { strict as assert } from "node:assert";
import * as pulumi from "@pulumi/pulumi";
import { Provider, type ProviderArgs } from "../../../components/Provider";
import { checkConfig } from "../../../provider/config";

describe("Provider: an input it does not take is refused before anything is registered", () => {
  it("`userName` throws a RunError naming it and `username`: the message of CheckConfig", () => {
    const args = { accountApiUrl: "http://127.0.0.1:4000", userName: "ops@example.com" };
    const { failures } = checkConfig("urn:pulumi:dev::p::pulumi:providers:svc::prod", {
      values: args,
      secrets: new Set(),
    });
    assert.equal(failures.length, 1);
    assert.throws(
      () => new Provider("prod", args as unknown as ProviderArgs),
      (e: unknown) =>
        e instanceof pulumi.RunError &&
        e.message === failures[0].reason &&
        e.message.startsWith(
          "Provider `prod`: `userName` (did you mean `username`?) is not an input of Provider",
        ),
    );
  });
});
