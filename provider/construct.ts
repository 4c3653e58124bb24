/**
 * The provider protocol's `Construct`: a component resource (`svc:index:Workflow`) a program
 * that is not TypeScript declares. The component is checked first (bad input registers
 * nothing), then registered with the engine's resource monitor named in the request (its type,
 * name, parent, inputs and options), then its outputs. One adapter per component type.
 *
 * @packageDocumentation
 */
import * as grpc from "@grpc/grpc-js";
import { ResourceMonitorClient } from "@pulumi/pulumi/proto/resource_grpc_pb";
import * as res from "@pulumi/pulumi/proto/resource_pb";
import * as rpc from "@pulumi/pulumi/proto/provider_pb";
import { marshal, unmarshal } from "./properties";
import type { Props } from "./resource";

/** One component type served by `Construct`. */
export interface ComponentAdapter {
  /** Each output with the inputs it is computed from (secrets and dependencies follow them). */
  readonly sources: Readonly<Record<string, readonly string[]>>;
  /** The outputs of the inputs; throws an error naming every invalid input and its value. */
  outputs(name: string, inputs: Props): Props;
}

/** The component types the provider serves, by type token. */
export type Components = ReadonlyMap<string, ComponentAdapter>;

/** A unary call of the monitor as a promise. */
function call<Req, Res>(
  fn: (req: Req, cb: (e: grpc.ServiceError | null, r: Res) => void) => unknown,
  req: Req,
): Promise<Res> {
  return new Promise((resolve, reject) => fn(req, (e, r) => (e ? reject(e) : resolve(r))));
}

/** The URNs each input depends on. */
function inputDependencies(req: rpc.ConstructRequest): Map<string, string[]> {
  const deps = new Map<string, string[]>();
  req.getInputdependenciesMap().forEach((d, k) => deps.set(k, d.getUrnsList()));
  return deps;
}

/** The registration of the component: as the request names it, with its inputs and options. */
function registration(req: rpc.ConstructRequest, inputs: Props): res.RegisterResourceRequest {
  const r = new res.RegisterResourceRequest()
    .setType(req.getType())
    .setName(req.getName())
    .setParent(req.getParent())
    .setCustom(false)
    .setObject(marshal(inputs.values, inputs.secrets))
    .setDependenciesList(req.getDependenciesList())
    .setAliasesList(req.getAliasesList())
    .setAliasspecs(true)
    .setAcceptsecrets(true);
  if (req.getProtect() !== undefined) r.setProtect(req.getProtect() === true);
  for (const [k, urns] of inputDependencies(req)) {
    r.getPropertydependenciesMap().set(
      k,
      new res.RegisterResourceRequest.PropertyDependencies().setUrnsList(urns),
    );
  }
  return r;
}

/** The answer: the URN, the outputs, and the resources each output depends on (its inputs'). */
function response(req: rpc.ConstructRequest, urn: string, outputs: Props, c: ComponentAdapter) {
  const resp = new rpc.ConstructResponse().setUrn(urn).setState(marshal(outputs.values, outputs.secrets));
  const deps = inputDependencies(req);
  for (const [output, inputs] of Object.entries(c.sources)) {
    const urns = [...new Set(inputs.flatMap((i) => deps.get(i) ?? []))];
    if (urns.length > 0) {
      resp
        .getStatedependenciesMap()
        .set(output, new rpc.ConstructResponse.PropertyDependencies().setUrnsList(urns));
    }
  }
  return resp;
}

/**
 * Constructs a component: checks its inputs (an error naming each bad one, before anything is
 * registered), registers it and its outputs with the engine's resource monitor.
 *
 * @param req - the engine's request
 * @param components - the component types served
 */
export async function construct(
  req: rpc.ConstructRequest,
  components: Components,
): Promise<rpc.ConstructResponse> {
  const c = components.get(req.getType());
  if (c === undefined)
    throw new Error(`The svc provider does not serve the component type \`${req.getType()}\`.`);
  const inputs = unmarshal(req.getInputs());
  const outputs = c.outputs(req.getName(), inputs);
  const monitor = new ResourceMonitorClient(req.getMonitorendpoint(), grpc.credentials.createInsecure());
  try {
    const registered = await call<res.RegisterResourceRequest, res.RegisterResourceResponse>(
      (q, cb) => monitor.registerResource(q, cb),
      registration(req, inputs),
    );
    const urn = registered.getUrn();
    await call(
      (q, cb) => monitor.registerResourceOutputs(q, cb),
      new res.RegisterResourceOutputsRequest()
        .setUrn(urn)
        .setOutputs(marshal(outputs.values, outputs.secrets)),
    );
    return response(req, urn, outputs, c);
  } finally {
    monitor.close();
  }
}
