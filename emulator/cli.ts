/**
 * Command-line entry point, run by the package's `pulumi-svc-emulator` command
 * (`bin/pulumi-svc-emulator.ts`; in a clone: `npm run emulator -- [flags]`; `--help` lists every
 * flag with its default):
 *
 *   pulumi-svc-emulator --port 8080 --dlq 1000 --plan free
 *
 * First stdout line: `svc emulator listening on http://127.0.0.1:PORT`; then the stack config
 * that points a program at it (one URL for both `svc:accountApiUrl` and `svc:baseUrl`, and the
 * credentials: the defaults in full, a credential given as a flag as `<as given>`), the seeded
 * workflow URLs and the admin API. Bad flags exit 2; other start failures exit 1; SIGINT/SIGTERM
 * close the server and exit 0. Started through npm, it also stops when npm is gone.
 */
import { startEmulator, type RunningEmulator } from "./index";
import { CliUsageError, parseCliArgs, USAGE } from "./cli-args";
import { DEFAULT_OPTIONS, type EmulatorOptions } from "./options";
import { SEED_WORKFLOWS } from "./seed";

/** How often a process started through npm checks that npm is still its parent, milliseconds. */
const PARENT_CHECK_MS = 500;

/**
 * Run the CLI.
 *
 * @param argv - arguments after the script name.
 */
export async function main(argv: readonly string[]): Promise<void> {
  let args;
  try {
    args = parseCliArgs(argv);
  } catch (error) {
    process.stderr.write(`svc emulator: ${(error as Error).message}\n${USAGE}\n`);
    process.exitCode = error instanceof CliUsageError ? error.exitCode : 2;
    return;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  let emulator;
  try {
    emulator = await startEmulator(args.options);
  } catch (error) {
    process.stderr.write(`svc emulator: could not start: ${(error as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  // Install the signal handlers before announcing the URL: a caller may signal right after it.
  stopOnSignals(emulator);
  process.stdout.write(startupText(emulator, args.options));
}

/** Closes the emulator and exits on SIGINT or SIGTERM, or when the npm that started it is gone. */
function stopOnSignals(running: RunningEmulator): void {
  let stopping = false;
  const stop = (why: string): void => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`svc emulator: ${why}, closing\n`);
    void running.close().then(() => process.exit(0));
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  // `npm run emulator &` then `kill <npm's pid>`: npm's shell may die without passing the
  // signal on. A process started through npm stops when its parent is gone (it is re-parented).
  if (process.env.npm_lifecycle_event !== undefined) {
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent) stop("the npm process that started it is gone");
    }, PARENT_CHECK_MS).unref();
  }
}

/** The round trip `--latency`/`--jitter` added, when one was. */
function latencyLine(options: EmulatorOptions): string[] {
  const f = options.faults;
  if (f?.latencyMs === undefined && f?.latencyJitterMs === undefined) return [];
  return [`latency: ${f.latencyMs ?? 0} ms + 0 to ${f.latencyJitterMs ?? 0} ms a request`];
}

/**
 * What the emulator prints once it listens: the URL, the stack config to use it, the seeded
 * workflows and the admin API.
 *
 * @param emulator - the running emulator
 * @param options - the options from the command line (credentials given there are not echoed)
 */
export function startupText(emulator: RunningEmulator, options: EmulatorOptions): string {
  const cred = (flag: "username" | "password" | "token"): string =>
    options[flag] === undefined ? DEFAULT_OPTIONS[flag] : `<as given with --${flag}>`;
  const size = emulator.state.dlq.size;
  const lines = [
    `svc emulator listening on ${emulator.url}`,
    `One URL serves the account API and the resume API. Stack config for a program:`,
    `  pulumi config set svc:accountApiUrl ${emulator.url}`,
    `  pulumi config set svc:baseUrl ${emulator.url}`,
    `  pulumi config set svc:username ${cred("username")}`,
    `  pulumi config set --secret svc:password ${cred("password")}`,
    `  pulumi config set --secret svc:token ${cred("token")}`,
    size === 0
      ? "DLQ: empty (start with --dlq <n> to seed failed runs)"
      : `DLQ: ${size} failed ${size === 1 ? "run" : "runs"} of the workflow URLs ` +
        SEED_WORKFLOWS.map((w) => w.url).join(", ") +
        " (workflowUrl of a DlqRecovery), failed over the last 3 days",
    `admin API (no auth, loopback only): ${emulator.adminUrl} — plan ${emulator.state.account.plan}, ` +
      (emulator.state.rateLimit.enabled
        ? `rate limit max_requests_per_second (${String(emulator.state.account.maxRequestsPerSecond)}) enforced`
        : "rate limit off"),
    ...latencyLine(options),
    "Stop with Ctrl-C (or SIGTERM).",
  ];
  return `${lines.join("\n")}\n`;
}

if (require.main === module) {
  void main(process.argv.slice(2));
}
