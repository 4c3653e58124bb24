/**
 * The svc provider's gRPC server: the provider protocol (`pulumirpc.ResourceProvider`) served with
 * the stubs `@pulumi/pulumi` publishes, and the plugin handshake (the port on the first line of
 * stdout). Each call unmarshals its properties (`properties.ts`), hands them to the resource's
 * adapter (`resource.ts`; one per type, `<resource>/adapter.ts`) or the configuration
 * (`config.ts`), and marshals the answer.
 *
 * @packageDocumentation
 */
import * as grpc from "@grpc/grpc-js";
import { Any } from "google-protobuf/google/protobuf/any_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { ResourceProviderService } from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as rpc from "@pulumi/pulumi/proto/provider_pb";
import { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import { ACCOUNT_PROVIDER_TYPE, DLQ_RECOVERY_PROVIDER_TYPE, WORKFLOW_TYPE } from "../core/typeTokens";
import { AccountAdapter } from "./account/adapter";
import { DlqRecoveryAdapter } from "./dlqRecovery/adapter";
import { engineAt, type Engine } from "./engine";
import { ResourceInitError, type ResourceAdapter } from "./resource";
import { changedConfig, checkConfig, configReader } from "./config";
import { construct, type ComponentAdapter, type Components } from "./construct";
import { marshal, unmarshal } from "./properties";
import { packageSchema } from "./schema";

/** A unary call's handler. */
type Handler<Req, Res> = (call: grpc.ServerUnaryCall<Req, Res>, cb: grpc.sendUnaryData<Res>) => void;

/**
 * The error a rejection is answered with: its message (no stack trace); a {@link ResourceInitError}
 * also carries the state to save (`ErrorResourceInitFailed` in the status details, as the engine
 * reads them).
 */
function grpcError(e: unknown): Partial<grpc.StatusObject> {
  const message = e instanceof Error ? e.message : String(e);
  if (!(e instanceof ResourceInitError)) return { code: grpc.status.UNKNOWN, details: message };
  const failed = new rpc.ErrorResourceInitFailed()
    .setId(e.id)
    .setProperties(marshal(e.outputs.values, e.outputs.secrets))
    .setReasonsList([...e.reasons]);
  const detail = new Any();
  detail.pack(failed.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
  const status = new Status().setCode(grpc.status.UNKNOWN).setMessage(message).setDetailsList([detail]);
  const metadata = new grpc.Metadata();
  metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  return { code: grpc.status.UNKNOWN, details: message, metadata };
}

/** A handler from an async function: a rejection is answered with {@link grpcError}. */
function unary<Req, Res>(fn: (req: Req) => Promise<Res>): Handler<Req, Res> {
  return (call, cb) => {
    fn(call.request).then(
      (res) => cb(null, res),
      (e: unknown) => cb(grpcError(e)),
    );
  };
}

/** The resource types the provider serves, by type token. */
export type Served = ReadonlyMap<string, ResourceAdapter>;

/** The resource types of the provider the CLI loads, each with its logic; `engine` is the CLI's. */
export function servedTypes(engine: Engine = engineAt(undefined)): Served {
  return new Map<string, ResourceAdapter>([
    [ACCOUNT_PROVIDER_TYPE, new AccountAdapter(engine)],
    [DLQ_RECOVERY_PROVIDER_TYPE, new DlqRecoveryAdapter(engine)],
  ]);
}

/**
 * A component adapter loaded on its first `Construct`: the Workflow's logic is the TypeScript
 * component's, which loads the whole Pulumi SDK (about 60 MB), which a provider that serves only
 * Accounts and DlqRecoveries never needs.
 */
function loadedOnUse(load: () => ComponentAdapter): ComponentAdapter {
  let adapter: ComponentAdapter | undefined;
  const loaded = () => (adapter ??= load());
  return {
    get sources() {
      return loaded().sources;
    },
    outputs: (name, inputs) => loaded().outputs(name, inputs),
  };
}

/** The component types of the provider (served by `Construct`), each with its logic. */
export function servedComponents(): Components {
  const workflow = loadedOnUse(
    () => new (require("./workflow/component") as typeof import("./workflow/component")).WorkflowComponent(),
  );
  return new Map<string, ComponentAdapter>([[WORKFLOW_TYPE, workflow]]);
}

/** The handler of `Construct` (component resources). */
function componentHandlers(components: Components) {
  return { construct: unary(async (req: rpc.ConstructRequest) => construct(req, components)) };
}

/** The adapter of a request's type (the URN's), or an error naming the type. */
function resourceOf(served: Served, urn: string): ResourceAdapter {
  const type = urn.split("::")[2];
  const r = served.get(type);
  if (r === undefined) throw new Error(`The svc provider does not serve the type \`${type}\`.`);
  return r;
}

/** Check failures as the protocol carries them. */
function failuresOf(list: ReadonlyArray<{ property: string; reason: string }>): rpc.CheckFailure[] {
  return list.map((f) => new rpc.CheckFailure().setProperty(f.property).setReason(f.reason));
}

/** The handlers of the provider's configuration, schema and plugin info. */
function providerHandlers(served: Served, version: string) {
  return {
    getPluginInfo: unary(async () => new PluginInfo().setVersion(version)),
    getSchema: unary(async () =>
      new rpc.GetSchemaResponse().setSchema(JSON.stringify(packageSchema(version))),
    ),
    checkConfig: unary(async (req: rpc.CheckRequest) => {
      const res = checkConfig(req.getUrn(), unmarshal(req.getNews()));
      return new rpc.CheckResponse()
        .setInputs(marshal(res.inputs.values, res.inputs.secrets))
        .setFailuresList(failuresOf(res.failures));
    }),
    diffConfig: unary(async (req: rpc.DiffRequest) => {
      const changed = changedConfig(unmarshal(req.getOldInputs()).values, unmarshal(req.getNews()).values);
      return new rpc.DiffResponse()
        .setChanges(
          changed.length > 0
            ? rpc.DiffResponse.DiffChanges.DIFF_SOME
            : rpc.DiffResponse.DiffChanges.DIFF_NONE,
        )
        .setDiffsList(changed);
    }),
    configure: unary(async (req: rpc.ConfigureRequest) => {
      const config = configReader(unmarshal(req.getArgs()).values, req.getUrn());
      await Promise.all([...served.values()].map((r) => r.configure(config)));
      return new rpc.ConfigureResponse().setAcceptsecrets(true).setSupportspreview(true);
    }),
    cancel: unary(async () => {
      await Promise.all([...served.values()].map((r) => r.cancel()));
      return new Empty();
    }),
  };
}

/** The handlers of the resource calls. */
function resourceHandlers(served: Served) {
  return {
    check: unary(async (req: rpc.CheckRequest) => {
      const news = unmarshal(req.getNews());
      const res = await resourceOf(served, req.getUrn()).check(req.getUrn(), unmarshal(req.getOlds()), news);
      return new rpc.CheckResponse()
        .setInputs(marshal(res.inputs.values, res.inputs.secrets))
        .setFailuresList(failuresOf(res.failures));
    }),
    diff: unary(async (req: rpc.DiffRequest) => {
      const r = resourceOf(served, req.getUrn());
      const changed = await r.diff(
        req.getId(),
        req.getUrn(),
        unmarshal(req.getOlds()),
        unmarshal(req.getNews()),
      );
      return new rpc.DiffResponse().setChanges(
        changed ? rpc.DiffResponse.DiffChanges.DIFF_SOME : rpc.DiffResponse.DiffChanges.DIFF_NONE,
      );
    }),
    create: unary(async (req: rpc.CreateRequest) => {
      const r = resourceOf(served, req.getUrn());
      const res = await r.create(
        req.getUrn(),
        unmarshal(req.getProperties()),
        req.getPreview(),
        req.getTimeout(),
      );
      return new rpc.CreateResponse()
        .setId(res.id)
        .setProperties(marshal(res.outputs.values, res.outputs.secrets));
    }),
    update: unary(async (req: rpc.UpdateRequest) => {
      const r = resourceOf(served, req.getUrn());
      const olds = unmarshal(req.getOlds());
      const outs = await r.update(
        req.getId(),
        req.getUrn(),
        olds,
        unmarshal(req.getNews()),
        req.getPreview(),
        req.getTimeout(),
      );
      return new rpc.UpdateResponse().setProperties(marshal(outs.values, outs.secrets));
    }),
    read: unary(async (req: rpc.ReadRequest) => {
      const r = resourceOf(served, req.getUrn());
      const res = await r.read(
        req.getId(),
        req.getUrn(),
        unmarshal(req.getProperties()),
        unmarshal(req.getInputs()),
      );
      return new rpc.ReadResponse()
        .setId(res.id)
        .setProperties(marshal(res.outputs.values, res.outputs.secrets))
        .setInputs(marshal(res.inputs.values, res.inputs.secrets));
    }),
    delete: unary(async (req: rpc.DeleteRequest) => {
      await resourceOf(served, req.getUrn()).delete(
        req.getId(),
        req.getUrn(),
        unmarshal(req.getProperties()),
      );
      return new Empty();
    }),
  };
}

/**
 * Starts the provider's server on a loopback port and prints the port on stdout's first line
 * (the plugin handshake). Resolves with the server and its port.
 *
 * @param version - the version the provider reports (`GetPluginInfo`, the schema)
 * @param served - the resource types served (tests pass adapters with their own environment)
 * @param print - writes the handshake line (stdout by default)
 * @param components - the component types served (`Construct`)
 */
export async function serve(
  version: string,
  served: Served = servedTypes(),
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  components: Components = servedComponents(),
): Promise<{ server: grpc.Server; port: number }> {
  const server = new grpc.Server({
    "grpc.max_receive_message_length": 400 * 1024 * 1024,
    "grpc.max_send_message_length": 400 * 1024 * 1024,
  });
  // Methods left out (Handshake, Invoke, Call, ...) answer UNIMPLEMENTED.
  server.addService(ResourceProviderService, {
    ...providerHandlers(served, version),
    ...resourceHandlers(served),
    ...componentHandlers(components),
  } as unknown as grpc.UntypedServiceImplementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  print(String(port));
  return { server, port };
}
