/**
 * An Account input it does not take (a misspelled `userName`, which the class would otherwise
 * drop, and the account API be read as the stack's `svc:username`) is refused: by the class's
 * constructor before anything is registered, and by the provider's `check` (YAML, Python and Go
 * programs) as one failure of the resource. Its name, its outputs and the engine's keys pass.
 */
import { strict as assert } from "node:assert";
import * as pulumi from "@pulumi/pulumi";
import { Account, type AccountArgs } from "../../../components/Account";
import { ACCOUNT_ARGUMENTS } from "../../../core/resources/account";
import { ACCOUNT_OUTPUT_NAMES } from "../../../core/accountFields";
import { PASSWORD, USERNAME, accountProvider } from "../provider/helpers";
import { recordRegistrations } from "./mocks";

const INPUTS = "its inputs are `accountApiUrl`, `username`, `password` and `allowInsecureHttp`.";
const registered: pulumi.runtime.MockResourceArgs[] = [];

describe("Account: an input it does not take is refused before anything is read", () => {
  before(() => recordRegistrations(registered));
  beforeEach(() => (registered.length = 0));

  it("its arguments are the account API's settings and `allowInsecureHttp`", () => {
    assert.deepEqual(ACCOUNT_ARGUMENTS, ["accountApiUrl", "username", "password", "allowInsecureHttp"]);
  });

  it("the class: `userName` throws a RunError naming it and `username`, and registers nothing", () => {
    assert.throws(
      () => new Account("account", { userName: USERNAME, pasword: PASSWORD } as unknown as AccountArgs),
      (e: unknown) =>
        e instanceof pulumi.RunError &&
        e.message ===
          "Account `account`: `userName` (did you mean `username`?) and `pasword` (did you mean `password`?) " +
            `are not inputs of Account; ${INPUTS}` &&
        !e.message.includes(PASSWORD),
    );
    assert.deepEqual(registered, []);
  });

  it("the class: what it registers (its outputs set to none, `password` secret) passes the provider's check", async () => {
    const a = new Account("account", { username: USERNAME, password: PASSWORD });
    await (a.urn as unknown as { promise(): Promise<string> }).promise();
    const [{ inputs }] = registered;
    const res = await accountProvider().check({}, { ...inputs, accountName: "account", __defaults: [] });
    assert.deepEqual(
      (res.failures ?? []).filter((f) => /not an input/.test(f.reason)),
      [],
    );
  });

  it("the provider's check: one failure of the resource; the outputs, the name and `__` keys pass", async () => {
    const p = accountProvider();
    const news = { accountApiUrl: "http://127.0.0.1:4000", userName: USERNAME, password: PASSWORD };
    const res = await p.check({}, { ...news, accountName: "account" } as never);
    assert.deepEqual(res.failures, [
      {
        property: "",
        reason: `Account \`account\`: \`userName\` (did you mean \`username\`?) is not an input of Account; ${INPUTS}`,
      },
    ]);
    const outputs = Object.fromEntries(ACCOUNT_OUTPUT_NAMES.map((o) => [o, undefined]));
    // As the class registers them: every output set to none, then the inputs given.
    const ok = await p.check({}, {
      ...outputs,
      accountApiUrl: "http://127.0.0.1:4000",
      username: USERNAME,
      password: PASSWORD,
      __provider: "serialized",
    } as never);
    assert.equal(ok.failures, undefined);
  });
});
