/**
 * What `engineProtocol.ts` relies on from the installed `@pulumi/pulumi` dynamic-provider server
 * (`cmd/dynamic-provider/index.js`): each test reads the installed server and fails when the
 * behaviour the module documents changes, so an upgrade of `@pulumi/pulumi` cannot silently
 * drop a cut-off drain's state or leave an orphaned provider running.
 */
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import {
  PROVIDER_KEY,
  PULUMI_CHECKED_VERSION,
  engineAddress,
  engineLivenessProbe,
  engineWarning,
  exitWhenOutputCloses,
  withSerializedProvider,
} from "../../../dynamic/engineProtocol";
import { ResourceInitError } from "../../../provider/resource";
import * as grpc from "@grpc/grpc-js";
import { EngineService } from "@pulumi/pulumi/proto/engine_grpc_pb";
import { LogSeverity, type LogRequest } from "@pulumi/pulumi/proto/engine_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";

const PULUMI_DIR = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
const SERVER = path.join(PULUMI_DIR, "cmd/dynamic-provider/index.js");
const source = () => fs.readFileSync(SERVER, "utf8");

/** A top-level function of the installed server, by name, as its source text. */
function serverFunction(name: string): string {
  const text = source();
  const start = Math.max(text.indexOf(`\nfunction ${name}(`), text.indexOf(`\nasync function ${name}(`));
  assert.ok(start >= 0, `the dynamic-provider server has no function ${name}`);
  const end = text.indexOf("\n}\n", start);
  return text.slice(start, end + 2);
}

/** The installed server's `grpcResponseFromError`, run with the modules it requires. */
function grpcResponseFromError(e: unknown): { message: string; metadata: { get(k: string): unknown[] } } {
  const req = (m: string) => require(path.join(PULUMI_DIR, m));
  const fn = new Function(
    "grpc",
    "statusproto",
    "provproto",
    "structproto",
    "anyproto",
    `${serverFunction("grpcResponseFromError")}\nreturn grpcResponseFromError;`,
  )(
    require(require.resolve("@grpc/grpc-js", { paths: [PULUMI_DIR] })),
    req("proto/status_pb"),
    req("proto/provider_pb"),
    require(require.resolve("google-protobuf/google/protobuf/struct_pb", { paths: [PULUMI_DIR] })),
    require(require.resolve("google-protobuf/google/protobuf/any_pb", { paths: [PULUMI_DIR] })),
  ) as (e: unknown) => { message: string; metadata: { get(k: string): unknown[] } };
  return fn(e);
}

describe("dynamic/engineProtocol: what the installed @pulumi/pulumi server does", () => {
  it(`the installed @pulumi/pulumi is the version checked (${PULUMI_CHECKED_VERSION})`, () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(PULUMI_DIR, "package.json"), "utf8")) as {
      version: string;
    };
    assert.equal(
      version,
      PULUMI_CHECKED_VERSION,
      "re-read cmd/dynamic-provider/index.js against engineProtocol.ts, then update PULUMI_CHECKED_VERSION",
    );
  });

  it("a rejection's id, properties and reasons become the ErrorResourceInitFailed the engine saves", () => {
    const inputs = { [PROVIDER_KEY]: "serialized provider", recoveryName: "x" };
    const cutOff = new ResourceInitError("cut off", "dlqr-1", { resumedCount: 7, complete: false });
    const err = withSerializedProvider(cutOff, inputs);
    assert.ok(err instanceof ResourceInitError);
    const res = grpcResponseFromError(err);
    assert.equal(res.message, "cut off");
    const [bin] = res.metadata.get("grpc-status-details-bin") as Buffer[];
    assert.ok(bin, "the server packs the partial state into grpc-status-details-bin");
    const statusproto = require(path.join(PULUMI_DIR, "proto/status_pb"));
    const provproto = require(path.join(PULUMI_DIR, "proto/provider_pb"));
    const status = statusproto.Status.deserializeBinary(new Uint8Array(bin));
    const [any] = status.getDetailsList();
    assert.equal(any.getTypeName(), "pulumirpc.ErrorResourceInitFailed");
    const detail = provproto.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
    assert.equal(detail.getId(), "dlqr-1");
    assert.deepEqual(detail.getReasonsList(), ["cut off"]);
    assert.deepEqual(detail.getProperties().toJavaScript(), {
      resumedCount: 7,
      complete: false,
      [PROVIDER_KEY]: "serialized provider",
    });
  });

  it("a rejection without an id saves nothing (a plain failure)", () => {
    const res = grpcResponseFromError(new Error("bad"));
    assert.deepEqual(res.metadata.get("grpc-status-details-bin"), []);
  });

  it(`the server adds ${PROVIDER_KEY} to results but not to a rejection's properties (so withSerializedProvider carries it)`, () => {
    const text = source();
    assert.match(text, new RegExp(`const providerKey = "${PROVIDER_KEY}";`));
    assert.match(serverFunction("resultIncludingProvider"), /\[providerKey\]: props\[providerKey\]/);
    assert.doesNotMatch(serverFunction("grpcResponseFromError"), /providerKey/);
  });

  it("the server is started with the engine's address as its first argument", () => {
    assert.match(source(), /\nmain\(process\.argv\.slice\(2\)\);/);
    assert.match(serverFunction("main"), /args\.length === 0[\s\S]*Missing <engine> address/);
    const argv = ["node", SERVER, "127.0.0.1:43210", "ignored"];
    assert.equal(engineAddress(argv), "127.0.0.1:43210");
    assert.equal(engineAddress(["node", "/app/index.js", "127.0.0.1:43210"]), undefined, "not a provider");
  });

  it("the server prints an uncaught error to stderr; a provider ends its process at the first EPIPE on its output", () => {
    // What makes a closed pipe spin: the server's handler writes the error where the error came from.
    assert.match(source(), /process\.on\("uncaughtException", uncaughtHandler\)/);
    assert.match(source(), /const uncaughtHandler = \(err\) => \{[\s\S]*?console\.error\(/);
    const { EventEmitter } = require("node:events") as typeof import("node:events");
    const [stdout, stderr, elsewhere] = [new EventEmitter(), new EventEmitter(), new EventEmitter()];
    let exits = 0;
    exitWhenOutputCloses(["node", SERVER, "127.0.0.1:1"], [stdout, stderr], () => (exits += 1));
    exitWhenOutputCloses(["node", SERVER, "127.0.0.1:1"], [stdout], () => (exits += 100));
    exitWhenOutputCloses(["node", "/app/index.js"], [elsewhere], () => (exits += 1000));
    stdout.emit("error", Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    stderr.emit("error", Object.assign(new Error("write EIO"), { code: "EIO" }));
    assert.equal(exits, 1, "once, for EPIPE, by the first watcher; nothing outside a provider");
    assert.equal(elsewhere.listenerCount("error"), 0);
  });

  it("the liveness probe is true outside a provider and false when nothing listens at the engine's address", async () => {
    assert.equal(await engineLivenessProbe(["node", "/app/index.js"])(), true);
    // Port 1 on loopback: nothing listens there.
    assert.equal(await engineLivenessProbe(["node", SERVER, "127.0.0.1:1"])(), false);
  });

  it("a warning goes to the engine's Log as WARNING without a URN; outside a provider there is no engine to send it to", async () => {
    assert.equal(engineWarning(["node", "/app/index.js"]), undefined);
    const received: LogRequest[] = [];
    const server = new grpc.Server();
    const refuse = (_: unknown, cb: grpc.sendUnaryData<never>) => cb({ code: grpc.status.UNIMPLEMENTED });
    server.addService(EngineService, {
      log: (call: grpc.ServerUnaryCall<LogRequest, Empty>, cb: grpc.sendUnaryData<Empty>) => {
        received.push(call.request);
        cb(null, new Empty());
      },
      getRootResource: refuse,
      setRootResource: refuse,
      startDebugging: refuse,
      requirePulumiVersion: refuse,
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) =>
        e ? reject(e) : resolve(p),
      ),
    );
    try {
      const warn = engineWarning(["node", SERVER, `127.0.0.1:${port}`]);
      assert.ok(warn);
      assert.equal(await warn("DlqRecovery `x`: 1 ID of the 2 `dlqIds` was not in the DLQ"), true);
      assert.equal(received.length, 1);
      assert.equal(received[0].getSeverity(), LogSeverity.WARNING);
      assert.equal(received[0].getMessage(), "DlqRecovery `x`: 1 ID of the 2 `dlqIds` was not in the DLQ");
      assert.equal(received[0].getUrn(), "");
    } finally {
      server.forceShutdown();
    }
    // Nothing listening: the warning is not taken (the provider prints it instead).
    assert.equal(await engineWarning(["node", SERVER, "127.0.0.1:1"])?.("x"), false);
  });
});
