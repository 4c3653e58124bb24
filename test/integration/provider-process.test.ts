/**
 * The provider process's state (provider/providerProcess.ts): nothing of it is set
 * up when the provider modules are loaded; the dynamic-provider server's first `configure` starts
 * the watch on the process's output. In a process of its own, started as the dynamic-provider
 * server is (its path and the engine's address in argv).
 */
import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";

const REPO_ROOT = path.resolve(__dirname, "..", "..");

/** Prints the error listeners on stdout and stderr after each step, as JSON. */
const SCRIPT = `
process.argv[1] = "/x/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js";
process.argv[2] = "127.0.0.1:1";
const listeners = () => process.stdout.listenerCount("error") + process.stderr.listenerCount("error");
const before = listeners();
const dlq = require("./dynamic/dlqRecovery");
const account = require("./dynamic/account");
const atImport = listeners() - before;
const config = { config: { get: () => undefined } };
(async () => {
  await dlq.provider.configure(config);
  const afterConfigure = listeners() - before;
  await account.provider.configure(config);
  await dlq.provider.configure(config);
  const afterAll = listeners() - before;
  console.log(JSON.stringify({ atImport, afterConfigure, afterAll }));
})();
`;

describe("integration: the provider process's state", function () {
  this.timeout(60_000);

  it("loading the provider modules sets nothing up; the first configure watches stdout and stderr, once", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["-r", "ts-node/register/transpile-only", "-e", SCRIPT],
      { cwd: REPO_ROOT, env: { ...process.env, TS_NODE_TRANSPILE_ONLY: "true" } },
    );
    const counts = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as Record<string, number>;
    assert.deepEqual(counts, { atImport: 0, afterConfigure: 2, afterAll: 2 });
  });
});
