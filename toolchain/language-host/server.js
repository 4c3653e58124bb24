// The gRPC server of the language host: the LanguageRuntime service table (every RPC bound to
// the host state), Handshake, and the start-up line the CLI reads (the port, alone on stdout).
// RPCs the official host implements with its Go code generator answer UNIMPLEMENTED.
"use strict";

const grpc = require("@grpc/grpc-js");
const langproto = require("@pulumi/pulumi/proto/language_pb");
const langrpc = require("@pulumi/pulumi/proto/language_grpc_pb");

const { about, getPluginInfo, runtimeOptionsPrompts, template } = require("./about");
const { getProgramDependencies } = require("./dependencies");
const { GRPC_OPTIONS } = require("./helpers");
const { installDependencies } = require("./install");
const { getRequiredPackages } = require("./packages");
const { watchEngine } = require("./processes");
const { cancel, run } = require("./run");
const { runPlugin } = require("./run-plugin");

/** A handler that answers UNIMPLEMENTED with the official host's text. */
function unimplemented(name) {
  return (_call, cb) => cb({ code: grpc.status.UNIMPLEMENTED, details: `method ${name} not implemented` });
}

/** The Handshake RPC: learns the engine's address (for Run and for the engine watch). */
function handshake(state, call, cb) {
  const address = call.request.getEngineAddress();
  if (address) {
    state.engineAddress = address;
    watchEngine(state, address);
  }
  cb(null, new langproto.LanguageHandshakeResponse());
}

/** The LanguageRuntime service's handlers, bound to `state`. */
function handlers(state) {
  return {
    handshake: (call, cb) => handshake(state, call, cb),
    getRequiredPlugins: unimplemented("GetRequiredPlugins"),
    getRequiredPackages,
    run: (call, cb) => run(state, call, cb),
    getPluginInfo: (call, cb) => getPluginInfo(state, call, cb),
    installDependencies: (call) => installDependencies(state, call),
    runtimeOptionsPrompts,
    template,
    about,
    getProgramDependencies,
    runPlugin: (call) => {
      runPlugin(state, call).catch((e) =>
        call.emit("error", { code: grpc.status.UNKNOWN, details: e.message }),
      );
    },
    generateProgram: unimplemented("GenerateProgram"),
    generateProject: unimplemented("GenerateProject"),
    generatePackage: unimplemented("GeneratePackage"),
    pack: unimplemented("Pack"),
    link: unimplemented("Link"),
    cancel: (call, cb) => cancel(state, call, cb),
  };
}

/**
 * Serves the LanguageRuntime service on a free loopback port and prints the port, which is how
 * the CLI finds a plugin; exits 1 when the server cannot start.
 */
function startServer(state) {
  const server = new grpc.Server(GRPC_OPTIONS);
  server.addService(langrpc.LanguageRuntimeService, handlers(state));
  server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) {
      console.error(`could not start language host RPC server: ${err.message}`);
      process.exit(1);
    }
    process.stdout.write(`${port}\n`);
    if (state.engineAddress) watchEngine(state, state.engineAddress);
  });
  return server;
}

module.exports = { startServer };
