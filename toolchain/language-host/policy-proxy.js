// The policy proxy (sdk/v3 policy_proxy.go): for a policy pack, RunPlugin first serves the
// Analyzer service itself, so that it learns the stack's configuration (ConfigureStack) before
// the pack starts and can hand it to the pack as environment variables; it then relays every
// call to the pack. Without it `new pulumi.Config()` and `pulumi.getStack()` would not work in
// a pack, as they do under the official host.
"use strict";

const grpc = require("@grpc/grpc-js");
const analyzerproto = require("@pulumi/pulumi/proto/analyzer_pb");
const analyzerrpc = require("@pulumi/pulumi/proto/analyzer_grpc_pb");

const { GRPC_OPTIONS } = require("./helpers");

const ATTACH_FAILED = "could not attach policy pack proxy: ";

/** The Analyzer service with raw (undecoded) messages, so the proxy relays every field as sent. */
const RAW_ANALYZER = Object.fromEntries(
  Object.entries(analyzerrpc.AnalyzerService).map(([name, def]) => {
    if (def.requestStream || def.responseStream) throw new Error(`Analyzer.${name} is streaming`);
    const id = (b) => b;
    return [
      name,
      {
        ...def,
        requestSerialize: id,
        requestDeserialize: id,
        responseSerialize: id,
        responseDeserialize: id,
      },
    ];
  }),
);

/** A promise with its resolve and reject, settled once; its rejection is never "unhandled". */
function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  let settled = false;
  return {
    promise,
    resolve: (v) => !settled && ((settled = true), resolve(v)),
    reject: (e) => !settled && ((settled = true), reject(e)),
  };
}

/**
 * Starts an Analyzer server the engine connects to. It answers Handshake and ConfigureStack
 * itself, resolves `configuration` with the raw ConfigureStack request (or null), and relays
 * every other call to the pack once `client` is resolved with the pack's grpc.Client.
 */
function startPolicyProxy() {
  const configuration = deferred();
  const client = deferred();
  const server = new grpc.Server(GRPC_OPTIONS);
  const relay = (name) => (call, cb) => {
    // The engine calls e.g. GetPluginInfo before ConfigureStack in `pulumi policy publish`: the
    // pack then starts without a stack configuration.
    configuration.resolve(null);
    client.promise.then(
      (c) =>
        c.makeUnaryRequest(
          RAW_ANALYZER[name].path,
          (b) => b,
          (b) => b,
          call.request,
          (err, res) => cb(err, res),
        ),
      (err) => cb({ code: grpc.status.UNKNOWN, details: `policy pack not started: ${err.message}` }),
    );
  };
  const handlers = {};
  for (const name of Object.keys(RAW_ANALYZER)) handlers[name] = relay(name);
  handlers.handshake = (_call, cb) =>
    cb(null, Buffer.from(new analyzerproto.AnalyzerHandshakeResponse().serializeBinary()));
  handlers.configureStack = (call, cb) => {
    configuration.resolve(call.request);
    cb(null, Buffer.from(new analyzerproto.AnalyzerStackConfigureResponse().serializeBinary()));
  };
  server.addService(RAW_ANALYZER, handlers);
  return { server, configuration, client };
}

/** Stops the proxy's server and closes its client of the pack, if any. */
function stopPolicyProxy(proxy) {
  proxy.server.forceShutdown();
  proxy.client.promise.then(
    (c) => c.close(),
    () => undefined,
  );
}

/** The environment that tells a pack about its stack, from a raw ConfigureStack request. */
function stackEnv(raw) {
  if (!raw) return {};
  const req = analyzerproto.AnalyzerStackConfigureRequest.deserializeBinary(raw);
  const env = {};
  const set = (k, v) => {
    if (v !== "") env[k] = v;
  };
  set("PULUMI_NODEJS_ORGANIZATION", req.getOrganization());
  set("PULUMI_NODEJS_PROJECT", req.getProject());
  set("PULUMI_NODEJS_STACK", req.getStack());
  set("PULUMI_NODEJS_DRY_RUN", String(req.getDryRun()));
  const config = {};
  for (const [k, v] of req.getConfigMap().entries()) config[k] = v;
  if (Object.keys(config).length > 0) set("PULUMI_CONFIG", JSON.stringify(config));
  return env;
}

/**
 * Connects the proxy to the pack listening on `packPort`, forwarding the stack configuration
 * first; `fail` gets the error text when the pack refuses it (the pack is then killed).
 */
function connectPack(proxy, packPort, child, fail) {
  const packClient = new grpc.Client(
    `127.0.0.1:${packPort}`,
    grpc.credentials.createInsecure(),
    GRPC_OPTIONS,
  );
  proxy.configuration.promise.then((raw) => {
    if (!raw) return proxy.client.resolve(packClient);
    packClient.makeUnaryRequest(
      RAW_ANALYZER.configureStack.path,
      (b) => b,
      (b) => b,
      raw,
      (err) => {
        if (err && err.code !== grpc.status.UNIMPLEMENTED) {
          const reason = `policy pack configuration failed: ${err.details || err.message}`;
          fail(ATTACH_FAILED + reason);
          proxy.client.reject(new Error(reason));
          packClient.close();
          child.kill("SIGKILL");
          return;
        }
        proxy.client.resolve(packClient);
      },
    );
  });
}

/**
 * Reads the pack's stdout: the first line is its port (then {@link connectPack}), the rest is
 * the pack's output, relayed with `write`. `fail` gets the error text when no port comes.
 */
function attachPack(proxy, child, write, fail) {
  let head = Buffer.alloc(0);
  let attached = false;
  child.stdout.on("data", (d) => {
    if (attached) return write("stdout", d);
    head = Buffer.concat([head, d]);
    const nl = head.indexOf(10);
    if (nl < 0) return;
    attached = true;
    const line = head.subarray(0, nl).toString("utf8").trim();
    const rest = head.subarray(nl + 1);
    if (rest.length > 0) write("stdout", rest);
    if (!/^\d+$/.test(line)) {
      const message = `${ATTACH_FAILED}could not read policy pack port: expected integer, got "${line}"`;
      fail(message);
      proxy.client.reject(new Error(message));
      child.kill("SIGKILL");
      return;
    }
    connectPack(proxy, Number(line), child, fail);
  });
  child.stdout.on("end", () => {
    if (!attached) {
      fail(`${ATTACH_FAILED}could not read policy pack port: EOF`);
      proxy.client.reject(new Error("could not read policy pack port: EOF"));
    }
  });
}

module.exports = { startPolicyProxy, stopPolicyProxy, stackEnv, attachPack };
