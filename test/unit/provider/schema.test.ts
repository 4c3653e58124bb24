/**
 * The provider's schema follows the declarations: every `Account` output of the account record
 * (`client/accountRecord.ts`) with its type and secret flag, the config variables from the
 * settings (`core/connection.ts`), the SDKs' names.
 */
import * as assert from "node:assert/strict";
import { ACCOUNT_FIELD_LIST } from "../../../client/accountRecord";
import { DLQ_RECOVERY_RESULT_NAMES } from "../../../core/resources/dlqRecovery";
import { INPUT_ROLES } from "../../../provider/dlqRecovery/inputs";
import { SETTINGS } from "../../../core/connection";
import { packageSchema } from "../../../provider/schema";

interface Prop {
  type: string;
  secret?: boolean;
}
interface Schema {
  name: string;
  version: string;
  config: { variables: Record<string, Prop> };
  resources: Record<
    string,
    { properties: Record<string, Prop>; inputProperties: Record<string, Prop>; required: string[] }
  >;
  language: { python: { packageName: string }; go: { importBasePath: string } };
}

const schema = packageSchema("1.2.3") as unknown as Schema;
const account = schema.resources["svc:index:Account"];

describe("provider schema: generated from the declarations", () => {
  it("every Account output of the record, with its type and secret flag, required", () => {
    assert.ok(ACCOUNT_FIELD_LIST.length > 20);
    for (const f of ACCOUNT_FIELD_LIST) {
      const p = account.properties[f.output];
      assert.ok(p, `output ${f.output} is in the schema`);
      assert.equal(p.type, typeof f.kind === "string" ? f.kind : "string", `type of ${f.output}`);
      assert.equal(p.secret === true, f.secret === true, `secret flag of ${f.output}`);
      assert.ok(account.required.includes(f.output), `${f.output} is required`);
    }
    assert.equal(account.properties.maxParallelism.type, "integer");
    assert.equal(account.properties.token.secret, true);
    assert.equal(account.properties.password.secret, true);
    assert.equal(account.properties.active.type, "boolean");
  });

  it("the inputs: the account API's settings (password secret) and allowInsecureHttp", () => {
    assert.deepEqual(Object.keys(account.inputProperties).sort(), [
      "accountApiUrl",
      "allowInsecureHttp",
      "password",
      "username",
    ]);
    assert.equal(account.inputProperties.password.secret, true);
    assert.equal(account.inputProperties.username.secret, undefined);
  });

  it("one config variable per setting, named as its `svc:` key, password and token secret", () => {
    const want = Object.values(SETTINGS).map((s) => s.config.replace(/^svc:/, ""));
    assert.deepEqual(Object.keys(schema.config.variables).sort(), want.sort());
    assert.equal(schema.config.variables.password.secret, true);
    assert.equal(schema.config.variables.token.secret, true);
    assert.equal(schema.config.variables.accountApiUrl.secret, undefined);
  });

  it("names the package, its version, the Python package and the Go module", () => {
    assert.equal(schema.name, "svc");
    assert.equal(schema.version, "1.2.3");
    assert.equal(schema.language.python.packageName, "pulumi_svc");
    assert.equal(schema.language.go.importBasePath, "github.com/pulumi-svc/pulumi-svc/sdk/go/svc");
  });

  it("DlqRecovery: every input of DlqRecoveryArgs (token secret), every result an output", () => {
    const r = schema.resources["svc:index:DlqRecovery"];
    // The inputs the TypeScript component adds for its provider are not a program's.
    const args = Object.keys(INPUT_ROLES).filter((k) => k !== "accountLimits" && k !== "recoveryName");
    assert.deepEqual(Object.keys(r.inputProperties).sort(), args.sort());
    assert.equal(r.inputProperties.token.secret, true);
    for (const name of DLQ_RECOVERY_RESULT_NAMES) {
      assert.ok(r.properties[name], `output ${name}`);
      assert.ok(r.required.includes(name), `${name} is required`);
    }
    assert.equal(r.properties.token, undefined, "the token is never an output");
    assert.equal(r.properties.resumedCount.type, "integer");
    assert.equal(r.properties.complete.type, "boolean");
  });

  it("names a pluginDownloadURL only when given one (the release's --plugin-download-url)", () => {
    assert.equal("pluginDownloadURL" in schema, false);
    const url = "https://downloads.example.com/svc/v${VERSION}";
    assert.equal(packageSchema("1.2.3", url).pluginDownloadURL, url);
  });
});
