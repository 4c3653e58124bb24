/**
 * The provider's `Construct` over loopback (`provider/construct.ts`, served by `server.ts`): a
 * recording resource monitor stands in for the engine's. The component is registered as the
 * request names it, with its inputs and dependencies, then its outputs; the answer carries the
 * URN, the outputs (secrets wrapped) and their dependencies; bad input registers nothing and is
 * answered with the message alone.
 */
import * as assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { ResourceMonitorService } from "@pulumi/pulumi/proto/resource_grpc_pb";
import * as res from "@pulumi/pulumi/proto/resource_pb";
import * as rpc from "@pulumi/pulumi/proto/provider_pb";
import { SECRET_SIG, SIG_KEY, wrapSecret } from "../../../provider/properties";
import { serve } from "../../../provider/server";

const URN = "urn:pulumi:dev::proj::svc:index:Workflow::orders";
const PARENT = "urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev";
const ACCOUNT_URN = "urn:pulumi:dev::proj::svc:index:Account::account";

/** What the recording monitor received. */
interface Recorded {
  registrations: res.RegisterResourceRequest[];
  outputs: res.RegisterResourceOutputsRequest[];
}

/** Starts a resource monitor on loopback that records registrations and answers with {@link URN}. */
async function recordingMonitor(): Promise<{ server: grpc.Server; endpoint: string; recorded: Recorded }> {
  const recorded: Recorded = { registrations: [], outputs: [] };
  const server = new grpc.Server();
  server.addService(ResourceMonitorService, {
    registerResource: (
      call: grpc.ServerUnaryCall<res.RegisterResourceRequest, res.RegisterResourceResponse>,
      cb: grpc.sendUnaryData<res.RegisterResourceResponse>,
    ) => {
      recorded.registrations.push(call.request);
      cb(null, new res.RegisterResourceResponse().setUrn(URN));
    },
    registerResourceOutputs: (
      call: grpc.ServerUnaryCall<res.RegisterResourceOutputsRequest, Empty>,
      cb: grpc.sendUnaryData<Empty>,
    ) => {
      recorded.outputs.push(call.request);
      cb(null, new Empty());
    },
  } as unknown as grpc.UntypedServiceImplementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) =>
      e ? reject(e) : resolve(p),
    ),
  );
  return { server, endpoint: `127.0.0.1:${port}`, recorded };
}

/** A Workflow's ConstructRequest. */
function request(endpoint: string, inputs: Record<string, unknown>): rpc.ConstructRequest {
  const req = new rpc.ConstructRequest()
    .setMonitorendpoint(endpoint)
    .setType("svc:index:Workflow")
    .setName("orders")
    .setParent(PARENT)
    .setInputs(Struct.fromJavaScript(inputs as Parameters<typeof Struct.fromJavaScript>[0]))
    .setDependenciesList([ACCOUNT_URN]);
  req
    .getInputdependenciesMap()
    .set("account", new rpc.ConstructRequest.PropertyDependencies().setUrnsList([ACCOUNT_URN]));
  return req;
}

describe("provider: Construct registers a component with the engine's resource monitor", () => {
  let provider: grpc.Server;
  let client: ResourceProviderClient;
  let monitor: Awaited<ReturnType<typeof recordingMonitor>>;

  before(async () => {
    const served = await serve("1.0.0", undefined, () => {});
    provider = served.server;
    client = new ResourceProviderClient(`127.0.0.1:${served.port}`, grpc.credentials.createInsecure());
    monitor = await recordingMonitor();
  });
  after(() => {
    client.close();
    provider.forceShutdown();
    monitor.server.forceShutdown();
  });
  beforeEach(() => {
    monitor.recorded.registrations.length = 0;
    monitor.recorded.outputs.length = 0;
  });

  function construct(req: rpc.ConstructRequest): Promise<rpc.ConstructResponse> {
    return new Promise((resolve, reject) => client.construct(req, (e, r) => (e ? reject(e) : resolve(r))));
  }

  it("registers the Workflow as named, with its inputs, then its outputs; answers URN, outputs, dependencies", async () => {
    const inputs = {
      url: wrapSecret("https://example.com/api/orders"),
      retries: 3,
      flowControl: { key: "orders", parallelism: 2 },
      account: "acct-1",
    };
    const resp = await construct(request(monitor.endpoint, inputs));
    const [reg] = monitor.recorded.registrations;
    assert.equal(monitor.recorded.registrations.length, 1);
    assert.equal(reg.getType(), "svc:index:Workflow");
    assert.equal(reg.getName(), "orders");
    assert.equal(reg.getParent(), PARENT);
    assert.equal(reg.getCustom(), false);
    assert.deepEqual(reg.getObject()?.toJavaScript(), inputs);
    assert.deepEqual(reg.getDependenciesList(), [ACCOUNT_URN]);
    assert.deepEqual(reg.getPropertydependenciesMap().get("account")?.getUrnsList(), [ACCOUNT_URN]);

    const outputs = {
      url: { [SIG_KEY]: SECRET_SIG, value: "https://example.com/api/orders" },
      retries: 3,
      flowControl: { key: "orders", parallelism: 2 },
      headers: {
        "Svc-Retries": "3",
        "Svc-Flow-Control-Key": "orders",
        "Svc-Flow-Control-Value": "parallelism=2",
      },
      account: "acct-1",
    };
    assert.equal(monitor.recorded.outputs.length, 1);
    assert.equal(monitor.recorded.outputs[0].getUrn(), URN);
    assert.deepEqual(monitor.recorded.outputs[0].getOutputs()?.toJavaScript(), outputs);
    assert.equal(resp.getUrn(), URN);
    assert.deepEqual(resp.getState()?.toJavaScript(), outputs);
    assert.deepEqual([...resp.getStatedependenciesMap().keys()], ["account"]);
    assert.deepEqual(resp.getStatedependenciesMap().get("account")?.getUrnsList(), [ACCOUNT_URN]);
  });

  it("bad input: the message alone (no stack trace), and nothing registered", async () => {
    const req = request(monitor.endpoint, { url: "https://example.com/x", retries: -1 });
    await assert.rejects(construct(req), (e: grpc.ServiceError) => {
      assert.equal(e.details, "Workflow `orders`: `retries` must be a non-negative integer; got -1.");
      return true;
    });
    assert.equal(monitor.recorded.registrations.length, 0);
    assert.equal(monitor.recorded.outputs.length, 0);
  });

  it("a component type the provider does not serve is refused, naming it", async () => {
    const req = request(monitor.endpoint, {}).setType("svc:index:Other");
    await assert.rejects(construct(req), /does not serve the component type `svc:index:Other`/);
    assert.equal(monitor.recorded.registrations.length, 0);
  });
});
