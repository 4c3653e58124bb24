/**
 * Inputs a resource does not take, through the svc provider's protocol (what YAML, Python and Go
 * programs reach): `Check` of a DlqRecovery (`workflowURL`) and of an Account (`userName`),
 * `CheckConfig` of an explicit provider, each answers one failure of the resource naming each
 * unknown input, the input it is nearest to and the inputs of the schema. The stored inputs of
 * a 0.2 stack (the olds: `__provider`, `recoveryName`) are never refused.
 */
import * as assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as rpc from "@pulumi/pulumi/proto/provider_pb";
import { ACCOUNT_ARGUMENTS } from "../../../core/resources/account";
import { DLQ_RECOVERY_INPUT_NAMES } from "../../../core/resources/dlqRecovery";
import { WORKFLOW_ARGUMENTS } from "../../../core/resources/workflow";
import { SETTINGS } from "../../../core/connection";
import { packageSchema } from "../../../provider/schema";
import { serve } from "../../../provider/server";

/** A unary call as a promise. */
function call<Req, Res>(
  fn: (req: Req, cb: (err: grpc.ServiceError | null, res: Res) => void) => unknown,
  req: Req,
): Promise<Res> {
  return new Promise((resolve, reject) => fn(req, (err, res) => (err ? reject(err) : resolve(res))));
}

const URL = "http://127.0.0.1/workflows/orders";

describe("provider server: inputs a resource does not take", () => {
  let server: grpc.Server;
  let client: ResourceProviderClient;

  before(async () => {
    const started = await serve("9.8.7", undefined, () => undefined);
    server = started.server;
    client = new ResourceProviderClient(`127.0.0.1:${started.port}`, grpc.credentials.createInsecure());
  });
  after(() => {
    client?.close();
    server?.forceShutdown();
  });

  /** The failures `Check` (or `CheckConfig`) answers. */
  async function failures(
    method: "check" | "checkConfig",
    urn: string,
    news: Record<string, unknown>,
    olds: Record<string, unknown> = {},
  ): Promise<[string, string][]> {
    const req = new rpc.CheckRequest()
      .setUrn(urn)
      .setOlds(Struct.fromJavaScript(olds as never))
      .setNews(Struct.fromJavaScript(news as never));
    const res = await call<rpc.CheckRequest, rpc.CheckResponse>(client[method].bind(client), req);
    return res.getFailuresList().map((f) => [f.getProperty(), f.getReason()]);
  }

  it("every message lists the inputs of the schema the CLI receives", () => {
    const schema = packageSchema("9.8.7") as {
      resources: Record<string, { inputProperties: Record<string, unknown> }>;
      provider: { inputProperties: Record<string, unknown> };
    };
    const inputs = (type: string) => Object.keys(schema.resources[type].inputProperties).sort();
    assert.deepEqual(inputs("svc:index:DlqRecovery"), [...DLQ_RECOVERY_INPUT_NAMES].sort());
    assert.deepEqual(inputs("svc:index:Account"), [...ACCOUNT_ARGUMENTS].sort());
    assert.deepEqual(inputs("svc:index:Workflow"), [...WORKFLOW_ARGUMENTS].sort());
    assert.deepEqual(
      Object.keys(schema.provider.inputProperties).sort(),
      Object.values(SETTINGS)
        .map((s) => s.input)
        .sort(),
    );
  });

  it("Check of a DlqRecovery with `workflowURL`: one failure of the resource, at preview, before any setting", async () => {
    const got = await failures("check", "urn:pulumi:dev::p::svc:index:DlqRecovery::incident-42", {
      workflowURL: URL,
      fromDate: 1_750_000_000_000,
      toDate: 1_750_000_100_000,
    });
    assert.equal(got.length, 1, JSON.stringify(got));
    assert.equal(got[0][0], "");
    assert.match(
      got[0][1],
      /^DlqRecovery `incident-42`: `workflowURL` \(did you mean `workflowUrl`\?\) is not an input of DlqRecovery; its inputs are `dlqIds`, .* and `runLogFile`\.$/,
    );
  });

  it("Check of a DlqRecovery moved from 0.2: its stored inputs pass, the new ones are checked", async () => {
    const urn = "urn:pulumi:dev::p::svc:index:DlqRecovery::by-filter";
    const olds = {
      __provider: "exports.handler = …",
      recoveryName: "by-filter",
      workflowUrl: URL,
      fromDate: 1,
    };
    const news = { workflowUrl: URL, fromDate: 1_750_000_000_000, baseUrl: "http://127.0.0.1:1", token: "t" };
    assert.deepEqual(await failures("check", urn, news, olds), []);
  });

  it("Check of an Account with `userName`: one failure naming it and `username`", async () => {
    const got = await failures("check", "urn:pulumi:dev::p::svc:index:Account::account", {
      accountApiUrl: "http://127.0.0.1:1",
      userName: "ops@example.com",
      password: "pw-unit-unknown-inputs",
    });
    assert.deepEqual(got, [
      [
        "",
        "Account `account`: `userName` (did you mean `username`?) is not an input of Account; its inputs are " +
          "`accountApiUrl`, `username`, `password` and `allowInsecureHttp`.",
      ],
    ]);
  });

  it("CheckConfig of an explicit provider with `userName`: the same shape", async () => {
    const got = await failures("checkConfig", "urn:pulumi:dev::p::pulumi:providers:svc::second", {
      userName: "ops@example.com",
      version: "9.8.7",
    });
    assert.deepEqual(got, [
      [
        "",
        "Provider `second`: `userName` (did you mean `username`?) is not an input of Provider; its inputs are " +
          "`accountApiUrl`, `username`, `password`, `baseUrl` and `token`.",
      ],
    ]);
  });
});
