/**
 * Command-line entry point:
 *
 *   node -r ts-node/register/transpile-only emulator/cli.ts --port 0 --dlq 100 --plan payg \
 *     --token t --username u --password pw [--seed 1] [--no-rate-limit]
 *
 * First stdout line: `svc emulator listening on http://127.0.0.1:PORT`, then the admin URL hint.
 * Never prints the token or password. Bad flags exit 2; other start failures exit 1;
 * SIGINT/SIGTERM close the server and exit 0.
 */
import { startEmulator } from "./index";
import { CliUsageError, parseCliArgs, USAGE } from "./cli-args";

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
  const running = emulator;
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`svc emulator: ${signal}, closing\n`);
    void running.close().then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  process.stdout.write(`svc emulator listening on ${emulator.url}\n`);
  process.stdout.write(
    `admin API (no auth, loopback only): ${emulator.adminUrl} — plan ${emulator.state.account.plan}, ` +
      `${emulator.state.dlq.size} DLQ entries, ` +
      (emulator.state.rateLimit.enabled
        ? `rate limit max_requests_per_second (${String(emulator.state.account.maxRequestsPerSecond)}) enforced\n`
        : "rate limit off\n"),
  );
}

if (require.main === module) {
  void main(process.argv.slice(2));
}
