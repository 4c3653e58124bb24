/**
 * `npm start`: the whole product on one machine, from a fresh clone.
 *
 * 1. starts the emulator with a realistic backlog (1,200 failed runs over three workflows);
 * 2. creates a fresh local stack `quickstart` of the root Pulumi.yaml, configured for it;
 * 3. runs the policy preview (`pulumi preview --policy-pack policies`);
 * 4. runs `pulumi up` (the DlqRecovery prints its progress);
 * 5. prints a summary (plan and limits, runs resumed, requests, duration);
 * 6. runs a second `pulumi up`, which must change nothing;
 * 7. stops the emulator.
 *
 * Runs inside toolchain/with-env.sh (isolated Pulumi home, file:// backend in .toolchain/).
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { startEmulator } from "../emulator";

const ROOT = path.resolve(__dirname, "..");
const STACK = "quickstart";
const BACKLOG = [
  { url: "http://127.0.0.1/workflows/orders", count: 520 },
  { url: "http://127.0.0.1/workflows/payments", count: 430 },
  { url: "http://127.0.0.1/workflows/emails", count: 250 },
];

function pulumi(args: string[], opts: { input?: string; quiet?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("pulumi", ["--non-interactive", ...args], {
      cwd: ROOT,
      env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" },
      stdio: [opts.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      if (!opts.quiet) process.stdout.write(d);
    });
    child.stderr?.on("data", (d: Buffer) => {
      out += d.toString();
      if (!opts.quiet) process.stderr.write(d);
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`pulumi ${args.join(" ")} exited with ${code}\n${out}`)),
    );
  });
}

function banner(text: string): void {
  console.log(`\n=== ${text}`);
}

async function main(): Promise<void> {
  const started = Date.now();
  const emulator = await startEmulator({ plan: "free" });
  try {
    const now = Date.now();
    let n = 0;
    for (const { url, count } of BACKLOG) {
      emulator.addEntries(
        Array.from({ length: count }, () => ({
          workflowUrl: url,
          failedAt: now - 86_400_000 + (n++ % 1440) * 60_000,
        })),
      );
    }
    banner(
      `emulator on ${emulator.url}: ${emulator.state.dlq.size} failed runs in the DLQ (${BACKLOG.map((b) => `${b.count} ${path.basename(b.url)}`).join(", ")})`,
    );

    banner(`fresh local stack \`${STACK}\``);
    await pulumi(["stack", "rm", STACK, "--yes", "--force"], { quiet: true }).catch(() => undefined);
    await pulumi(["stack", "init", STACK], { quiet: true });
    const creds = emulator.state.account;
    await pulumi(["config", "set", "--plaintext", "svc:accountApiUrl", emulator.url], { quiet: true });
    await pulumi(["config", "set", "--plaintext", "svc:username", creds.username], { quiet: true });
    await pulumi(["config", "set", "--secret", "svc:password"], { input: creds.password, quiet: true });
    await pulumi(["config", "set", "--plaintext", "svc:baseUrl", emulator.url], { quiet: true });
    await pulumi(["config", "set", "--secret", "svc:token"], { input: creds.token, quiet: true });

    banner("policy preview: pulumi preview --policy-pack policies");
    await pulumi(["preview", "--policy-pack", "policies"]);

    banner("pulumi up");
    const upStarted = Date.now();
    await pulumi(["up", "--yes", "--skip-preview"]);
    const upSeconds = (Date.now() - upStarted) / 1000;

    const outputs = JSON.parse(await pulumi(["stack", "output", "--json"], { quiet: true })) as Record<
      string,
      unknown
    >;
    banner("summary");
    console.log(
      `plan:             ${outputs.plan} (max_parallelism ${outputs.maxParallelism}, max_retries ${outputs.maxRetries}, max_delay ${outputs.maxDelay} s, max_requests_per_second ${outputs.maxRequestsPerSecond})`,
    );
    console.log(`runs resumed:     ${outputs.resumedCount} (DLQ now holds ${emulator.state.dlq.size})`);
    console.log(`requests:         ${outputs.requestCount}`);
    console.log(`pulumi up took:   ${upSeconds.toFixed(1)} s`);
    const ledger = emulator.state.ledger.totals();
    console.log(
      `emulator ledger:  ${ledger.distinctEntriesResumed} entries resumed, ${ledger.duplicates} resumed twice`,
    );

    banner("second pulumi up: must change nothing");
    const before = emulator.state.log.total;
    await pulumi(["up", "--yes", "--skip-preview", "--expect-no-changes"]);
    const second = emulator.state.log.since(before);
    const resumes = second.filter((r) => r.path === "/v2/workflows/dlq/resume").length;
    const reads = second.filter((r) => r.path === "/v2/svc/user").length;
    console.log(`second up: ${resumes} resume requests, ${reads} account record read (the freshness check)`);

    banner(
      `done in ${((Date.now() - started) / 1000).toFixed(1)} s; the stack stays in .toolchain/state (bash toolchain/with-env.sh pulumi stack -s ${STACK})`,
    );
  } finally {
    await emulator.close();
  }
}

main().catch((e: Error) => {
  console.error(`\nquickstart failed: ${e.message}`);
  process.exit(1);
});
