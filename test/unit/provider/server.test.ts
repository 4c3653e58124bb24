/**
 * The provider's gRPC server, over loopback with the stubs of `@pulumi/pulumi`: the handshake
 * line is the port, `GetSchema` and `GetPluginInfo` answer, `Cancel` is harmless when nothing
 * runs, `CheckConfig` refuses a mistyped key and answers the secret variables wrapped, a type
 * the provider does not serve is refused, and a create that failed part-way answers the
 * protocol's `ErrorResourceInitFailed` with the state to save (secrets wrapped).
 */
import * as assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as rpc from "@pulumi/pulumi/proto/provider_pb";
import type { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import { SECRET_SIG, SIG_KEY } from "../../../provider/properties";
import { ResourceInitError, type ResourceAdapter } from "../../../provider/resource";
import { serve, servedComponents, servedTypes } from "../../../provider/server";

/** A unary call as a promise. */
function call<Req, Res>(
  fn: (req: Req, cb: (err: grpc.ServiceError | null, res: Res) => void) => unknown,
  req: Req,
): Promise<Res> {
  return new Promise((resolve, reject) => fn(req, (err, res) => (err ? reject(err) : resolve(res))));
}

describe("provider server: the provider protocol over loopback", () => {
  let server: grpc.Server;
  let client: ResourceProviderClient;
  const lines: string[] = [];

  before(async () => {
    const started = await serve("9.8.7", undefined, (line) => lines.push(line));
    server = started.server;
    client = new ResourceProviderClient(`127.0.0.1:${started.port}`, grpc.credentials.createInsecure());
    assert.deepEqual(lines, [String(started.port)]);
  });
  after(() => {
    client?.close();
    server?.forceShutdown();
  });

  it("answers GetPluginInfo and GetSchema with the version", async () => {
    const info = await call<Empty, PluginInfo>(client.getPluginInfo.bind(client), new Empty());
    assert.equal(info.getVersion(), "9.8.7");
    const res = await call<rpc.GetSchemaRequest, rpc.GetSchemaResponse>(
      client.getSchema.bind(client),
      new rpc.GetSchemaRequest(),
    );
    const schema = JSON.parse(res.getSchema()) as { version: string; resources: Record<string, unknown> };
    assert.equal(schema.version, "9.8.7");
    // Every type served (resources and components), and no other.
    const served = [...servedTypes().keys(), ...servedComponents().keys()];
    assert.deepEqual(Object.keys(schema.resources).sort(), served.sort());
    assert.ok(served.includes("svc:index:Account") && served.includes("svc:index:Workflow"));
  });

  it("Cancel with nothing running is a harmless no-op (twice)", async () => {
    await call(client.cancel.bind(client), new Empty());
    await call(client.cancel.bind(client), new Empty());
    const info = await call<Empty, PluginInfo>(client.getPluginInfo.bind(client), new Empty());
    assert.equal(info.getVersion(), "9.8.7");
  });

  it("CheckConfig refuses a mistyped key with the did-you-mean hint", async () => {
    const req = new rpc.CheckRequest()
      .setUrn("urn:pulumi:dev::p::pulumi:providers:svc::default")
      .setNews(Struct.fromJavaScript({ tokn: "t", baseUrl: "http://127.0.0.1:1" }));
    const res = await call<rpc.CheckRequest, rpc.CheckResponse>(client.checkConfig.bind(client), req);
    assert.deepEqual(
      res.getFailuresList().map((f) => f.getReason()),
      ["The stack config has `svc:tokn`, which is no setting of pulumi-svc: did you mean `svc:token`?"],
    );
  });

  it("CheckConfig answers `password` and `token` wrapped as secrets, though they arrive plain", async () => {
    const req = new rpc.CheckRequest()
      .setUrn("urn:pulumi:dev::p::pulumi:providers:svc::second")
      .setNews(
        Struct.fromJavaScript({ password: "pw-unit-server", token: "tok-unit-server", username: "u" }),
      );
    const res = await call<rpc.CheckRequest, rpc.CheckResponse>(client.checkConfig.bind(client), req);
    assert.deepEqual(res.getFailuresList(), []);
    assert.deepEqual(res.getInputs()?.toJavaScript(), {
      password: { [SIG_KEY]: SECRET_SIG, value: "pw-unit-server" },
      token: { [SIG_KEY]: SECRET_SIG, value: "tok-unit-server" },
      username: "u",
    });
  });

  it("refuses a type it does not serve, naming it", async () => {
    const req = new rpc.CheckRequest()
      .setUrn("urn:pulumi:dev::p::svc:index:Nope::n")
      .setNews(Struct.fromJavaScript({}));
    await assert.rejects(call(client.check.bind(client), req), /does not serve the type `svc:index:Nope`/);
  });

  it("a create that failed part-way answers ErrorResourceInitFailed with the state, secrets wrapped", async () => {
    const failing = {
      create: async () => {
        throw new ResourceInitError(
          "stopped after 50 runs; run `pulumi up` to continue",
          "dlqr-1",
          { resumedCount: 50, complete: false, workflowUrl: "http://127.0.0.1/w" },
          undefined,
          new Set(["workflowUrl"]),
        );
      },
    } as unknown as ResourceAdapter;
    const started = await serve("9.8.7", new Map([["svc:index:DlqRecovery", failing]]), () => undefined);
    const c = new ResourceProviderClient(`127.0.0.1:${started.port}`, grpc.credentials.createInsecure());
    try {
      const req = new rpc.CreateRequest()
        .setUrn("urn:pulumi:dev::p::svc:index:DlqRecovery::r")
        .setProperties(Struct.fromJavaScript({}));
      const err = (await call(c.create.bind(c), req).then(
        () => assert.fail("the create should fail"),
        (e: unknown) => e,
      )) as grpc.ServiceError;
      assert.equal(err.details, "stopped after 50 runs; run `pulumi up` to continue");
      const [bin] = err.metadata.get("grpc-status-details-bin") as Buffer[];
      const [detail] = Status.deserializeBinary(bin).getDetailsList();
      assert.equal(detail.getTypeName(), "pulumirpc.ErrorResourceInitFailed");
      const failed = rpc.ErrorResourceInitFailed.deserializeBinary(detail.getValue_asU8());
      assert.equal(failed.getId(), "dlqr-1");
      assert.deepEqual(failed.getReasonsList(), ["stopped after 50 runs; run `pulumi up` to continue"]);
      assert.deepEqual(failed.getProperties()?.toJavaScript(), {
        resumedCount: 50,
        complete: false,
        workflowUrl: { [SIG_KEY]: SECRET_SIG, value: "http://127.0.0.1/w" },
      });
    } finally {
      c.close();
      started.server.forceShutdown();
    }
  });
});
