/**
 * A TypeScript program reaching two accounts through explicit svc providers (`Provider`), and an
 * existing account read with `Account.get`, with the real CLI and two emulators over loopback:
 * each Account reads its own provider's record, `get` reads the record by ID without managing
 * it, and the passwords are in the state only as ciphertext.
 */
import * as assert from "node:assert/strict";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { PulumiProject } from "../helpers/pulumi";
import { assertNoSecrets, secretForms } from "../helpers/secrets";

const A = { token: "tok-e2e-prov-a-3c81f0d2", username: "a@example.com", password: "pw-e2e-prov-a-7e29b4c1" };
const B = { token: "tok-e2e-prov-b-96d0a7e3", username: "b@example.com", password: "pw-e2e-prov-b-18f5c2d9" };

const PROGRAM = `
import * as pulumi from "@pulumi/pulumi";
import { Account, Provider } from "pulumi-svc";
const c = new pulumi.Config("acct");
const a = new Provider("a", { accountApiUrl: c.require("aUrl"), username: c.require("aUser"), password: c.requireSecret("aPassword") });
const b = new Provider("b", { accountApiUrl: c.require("bUrl"), username: c.require("bUser"), password: c.requireSecret("bPassword") });
const first = new Account("first", {}, { provider: a });
const second = new Account("second", {}, { provider: b });
const got = Account.get("got", c.require("bId"), { provider: b });
export const firstPlan = first.type;
export const secondPlan = second.type;
export const gotPlan = got.type;
export const gotId = got.accountId;
`;

describe("e2e: two accounts through explicit svc providers, and Account.get", function () {
  this.timeout(600_000);
  let a: RunningEmulator;
  let b: RunningEmulator;
  let p: PulumiProject;

  before(async () => {
    a = await startEmulator({ plan: "free", ...A });
    b = await startEmulator({ plan: "payg", ...B });
    p = await PulumiProject.create({ name: "providers", program: PROGRAM });
    await p.setConfig("acct:aUrl", a.url);
    await p.setConfig("acct:aUser", A.username);
    await p.setConfig("acct:aPassword", A.password, true);
    await p.setConfig("acct:bUrl", b.url);
    await p.setConfig("acct:bUser", B.username);
    await p.setConfig("acct:bPassword", B.password, true);
    await p.setConfig("acct:bId", b.state.account.record.id);
  });
  after(async () => {
    try {
      if (p) {
        const state = (await p.exportState()).text;
        assertNoSecrets({ "CLI output": p.transcript, state }, [...secretForms(A), ...secretForms(B)]);
      }
    } finally {
      await p?.cleanup();
      await a?.close();
      await b?.close();
    }
  });

  it("each Account reads its own provider's record; get reads one by ID; the passwords are ciphertext", async () => {
    await p.up();
    assert.deepEqual(await p.outputs(), {
      firstPlan: "free",
      secondPlan: "paid", // the payg plan's record type
      gotPlan: "paid",
      gotId: b.state.account.record.id,
    });
    const { deployment } = await p.exportState();
    const providers = deployment.resources.filter((r) => r.type === "pulumi:providers:svc");
    assert.deepEqual(providers.map((r) => r.urn.slice(r.urn.lastIndexOf("::") + 2)).sort(), ["a", "b"]);
    for (const r of providers) {
      assert.equal(typeof (r.inputs?.password as { ciphertext?: unknown })?.ciphertext, "string");
    }
    // `get` reads without managing: a second up changes nothing.
    await p.up(["--expect-no-changes"]);
  });
});
