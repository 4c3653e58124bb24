/**
 * What the svc provider's process loads: the provider started as the engine starts it (its own
 * process, the engine's address as its argument, the port on its first line of stdout), a
 * DlqRecovery `Check` and `Create` over gRPC that drains a few hundred entries of the real
 * emulator in the drain thread, and every module each thread of the process compiled, recorded
 * by a `--require` preload (fixtures/module-recorder.js). The provider serves the engine and
 * loads nothing of `components/`, the SDK classes a program uses: a provider that did would carry
 * the classes' dependencies (the whole Pulumi SDK) into every process the engine starts.
 */
import * as assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as readline from "node:readline";
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { EngineService } from "@pulumi/pulumi/proto/engine_grpc_pb";
import type { LogRequest } from "@pulumi/pulumi/proto/engine_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as rpc from "@pulumi/pulumi/proto/provider_pb";
import { startEmulator, type RunningEmulator } from "../../emulator";

const REPO_ROOT = path.resolve(__dirname, "..", "..");
const RECORDER = path.join(__dirname, "fixtures", "module-recorder.js");
const TOKEN = "tok-provider-modules-7e2b4c91";
const URN = "urn:pulumi:dev::proj::svc:index:DlqRecovery::modules";
const ENTRIES = 300;

/** A unary call as a promise. */
function call<Req, Res>(
  fn: (req: Req, cb: (err: grpc.ServiceError | null, res: Res) => void) => unknown,
  req: Req,
): Promise<Res> {
  return new Promise((resolve, reject) => fn(req, (err, res) => (err ? reject(err) : resolve(res))));
}

/** The engine's `Engine` service, as much of it as the provider calls: `Log`, recorded. */
async function fakeEngine(): Promise<{ server: grpc.Server; address: string; lines: string[] }> {
  const lines: string[] = [];
  const server = new grpc.Server();
  const refuse = (_: unknown, cb: grpc.sendUnaryData<never>) => cb({ code: grpc.status.UNIMPLEMENTED });
  server.addService(EngineService, {
    log: (c: grpc.ServerUnaryCall<LogRequest, Empty>, cb: grpc.sendUnaryData<Empty>) => {
      lines.push(c.request.getMessage());
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
  return { server, address: `127.0.0.1:${port}`, lines };
}

/**
 * Starts `provider/index.ts` as the engine starts `pulumi-resource-svc` (the engine's address as
 * its argument) and resolves with the port it prints on its first line.
 */
function startProvider(engine: string, record: string): { child: ChildProcess; port: Promise<number> } {
  const child = spawn(
    process.execPath,
    [
      "-r",
      RECORDER,
      "-r",
      require.resolve("ts-node/register/transpile-only"),
      path.join(REPO_ROOT, "provider", "index.ts"),
      engine,
    ],
    {
      // Outside the repository, as the engine starts a plugin in the program's folder (ts-node
      // told where the sources' tsconfig is, which it looks for from the working folder).
      cwd: path.dirname(record),
      env: {
        ...process.env,
        SVC_MODULE_RECORD: record,
        TS_NODE_PROJECT: path.join(REPO_ROOT, "tsconfig.json"),
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const port = new Promise<number>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).once("line", (l) => resolve(Number(l.trim())));
    child.once("exit", (code) =>
      reject(new Error(`the provider exited (${code}) before its port: ${stderr}`)),
    );
  });
  return { child, port };
}

/** The modules each thread compiled: thread id → absolute paths, in load order. */
function recorded(record: string): Map<number, string[]> {
  const byThread = new Map<number, string[]>();
  for (const line of fs.readFileSync(record, "utf8").split("\n")) {
    const space = line.indexOf(" ");
    if (space < 0) continue;
    const thread = Number(line.slice(0, space));
    byThread.set(thread, [...(byThread.get(thread) ?? []), line.slice(space + 1)]);
  }
  return byThread;
}

/** The paths relative to the repository, of modules of the repository (not node_modules). */
function ownModules(files: readonly string[]): string[] {
  return files
    .map((f) => path.relative(REPO_ROOT, f).split(path.sep).join("/"))
    .filter((f) => !f.startsWith("..") && !f.includes("node_modules/"));
}

describe("integration: what the svc provider's process loads", function () {
  this.timeout(120_000);
  let emulator: RunningEmulator;
  let engine: Awaited<ReturnType<typeof fakeEngine>>;
  let dir: string;
  let child: ChildProcess | undefined;
  let client: ResourceProviderClient | undefined;

  beforeEach(async () => {
    emulator = await startEmulator({ plan: "payg", token: TOKEN });
    emulator.seed(ENTRIES);
    engine = await fakeEngine();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-provider-modules-"));
  });
  afterEach(async () => {
    client?.close();
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child?.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    }
    engine?.server.forceShutdown();
    await emulator?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("a DlqRecovery Check and Create that drain in the drain thread load nothing of components/", async () => {
    const record = path.join(dir, "modules.txt");
    const started = startProvider(engine.address, record);
    child = started.child;
    client = new ResourceProviderClient(`127.0.0.1:${await started.port}`, grpc.credentials.createInsecure());

    await call(client.configure.bind(client), new rpc.ConfigureRequest().setArgs(Struct.fromJavaScript({})));
    // The run log in the test's folder: the provider runs in the repository, as in development.
    const runLogFile = path.join(dir, "run.jsonl");
    const news = { all: true, baseUrl: emulator.url, token: TOKEN, runLogFile };
    const checked = await call<rpc.CheckRequest, rpc.CheckResponse>(
      client.check.bind(client),
      new rpc.CheckRequest().setUrn(URN).setNews(Struct.fromJavaScript(news)),
    );
    assert.deepEqual(
      checked.getFailuresList().map((f) => f.getReason()),
      [],
    );
    const created = await call<rpc.CreateRequest, rpc.CreateResponse>(
      client.create.bind(client),
      new rpc.CreateRequest().setUrn(URN).setProperties(checked.getInputs()),
    );
    const outs = created.getProperties()?.toJavaScript() as { resumedCount: number; complete: boolean };
    assert.equal(outs.resumedCount, ENTRIES);
    assert.equal(outs.complete, true);
    assert.equal(emulator.state.ledger.totals().distinctEntriesResumed, ENTRIES);
    assert.ok(engine.lines.length > 0, "the progress lines reached the engine");

    const threads = recorded(record);
    const main = ownModules(threads.get(0) ?? []);
    const worker = ownModules([...threads.entries()].filter(([t]) => t !== 0).flatMap(([, f]) => f));
    // The recorder works, in both threads: the resource's logic here, the drain in the thread.
    assert.ok(main.includes("provider/dlqRecovery/controller.ts"), `main thread: ${main.join(", ")}`);
    assert.ok(worker.includes("drain/windowDrain.ts"), `drain thread: ${worker.join(", ")}`);
    const offenders = [...main, ...worker].filter((f) => /^(dist\/)?components\//.test(f));
    assert.deepEqual([...new Set(offenders)], [], "modules of components/ the provider loaded");
  });
});
