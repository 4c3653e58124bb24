/**
 * Command-line flags of `emulator/cli.ts`, parsed and validated into {@link EmulatorOptions}.
 * Accepts `--flag value` and `--flag=value`. Errors name the flag and the value (never the value
 * of a credential flag).
 */
import type { EmulatorOptions } from "./options";
import { DEFAULT_OPTIONS, isLoopback } from "./options";
import { isPlanName, PLAN_NAMES } from "./plans";
import { MAX_SEED_COUNT } from "./state";
import { UNKNOWN_DLQ_IDS_MODES } from "./unknown-dlq-ids";
import { RUN_ID_SHAPES } from "./run-ids";

/** Usage text: every flag with its default (`DEFAULT_OPTIONS`). */
export const USAGE = `usage: pulumi-svc-emulator [flags]      (in a clone: npm run emulator -- [flags])
  --port <n>                 TCP port, 0 picks a free one (default ${DEFAULT_OPTIONS.port})
  --host <addr>              loopback address (default ${DEFAULT_OPTIONS.host})
  --dlq <n>                  seeded failed runs, spread over the last 3 days (default ${DEFAULT_OPTIONS.dlq})
  --seed <n>                 seed of the seeding (default ${DEFAULT_OPTIONS.seed})
  --run-ids <shape>          run IDs of seeded entries and of entries added without one: sdk (wfr_ +
                             21 of a-zA-Z0-9-_), app (wfr_orders-0012345), mixed (half each),
                             numeric (wfr_ + 10-digit number) or hex (wfr_ + 16 hex) (default ${DEFAULT_OPTIONS.runIds})
  --plan <free|payg|fixed|paid>  account plan preset (default ${DEFAULT_OPTIONS.plan}): free and payg 100
                             requests a second, fixed and paid (the same record) 500
  --token <t>                bearer token of the resume API, svc:token (default ${DEFAULT_OPTIONS.token})
  --username <u>             Basic username of the account API, svc:username (default ${DEFAULT_OPTIONS.username})
  --password <pw>            Basic password of the account API, svc:password (default ${DEFAULT_OPTIONS.password})
  --no-rate-limit            do not enforce the account's max_requests_per_second (default: enforced)
  --daily-limit <n>          resume requests allowed per account and UTC day (default: off)
  --other-client-load <n>    simulate another client using n requests of every second (default 0)
  --latency <ms>             round trip added to every request (default 0; the faults' latencyMs)
  --jitter <ms>              and 0 to <ms> more, uniform, seeded by --seed (default 0; latencyJitterMs)
  --unknown-dlq-ids <mode>   a dlqIds batch with IDs not in the DLQ: refuse (404, nothing resumed) or
                             resume-known (200 with the known IDs' runs) (default refuse)
  --help                     print this text
One URL serves the account API and the resume API: set both svc:accountApiUrl and svc:baseUrl to it.
Stops on Ctrl-C (SIGINT) or SIGTERM.`;

/** A bad command line; the CLI exits with status 2. */
export class CliUsageError extends Error {
  /** Exit status for usage errors. */
  readonly exitCode = 2;

  /**
   * @param message - names the flag and (for non-secret flags) the value.
   */
  constructor(message: string) {
    super(message);
    this.name = "CliUsageError";
  }
}

/** Result of {@link parseCliArgs}. */
export interface CliArgs {
  /** Whether `--help` was given. */
  readonly help: boolean;
  /** The options for startEmulator. */
  readonly options: EmulatorOptions;
}

/** Flags that take a value. */
const VALUE_FLAGS = new Set([
  "port",
  "host",
  "dlq",
  "seed",
  "plan",
  "token",
  "username",
  "password",
  "daily-limit",
  "unknown-dlq-ids",
  "other-client-load",
  "run-ids",
  "latency",
  "jitter",
]);
/** Flags that take no value. */
const SWITCH_FLAGS = new Set(["no-rate-limit"]);
/** Flags whose value is a secret and must not be echoed. */
const SECRET_FLAGS = new Set(["token", "password"]);

/**
 * The options of the account's limits: `--no-rate-limit`, `--daily-limit` and
 * `--other-client-load`.
 *
 * @param integer - reads an integer flag within bounds (undefined when absent).
 * @param switches - the switches given.
 */
function accountLimitOptions(
  integer: (flag: string, min: number, max: number) => number | undefined,
  switches: ReadonlySet<string>,
): Pick<EmulatorOptions, "rateLimit" | "dailyLimit" | "otherClientLoad"> {
  const dailyLimit = integer("daily-limit", 1, Number.MAX_SAFE_INTEGER);
  const otherClientLoad = integer("other-client-load", 0, 1_000_000);
  return {
    ...(switches.has("no-rate-limit") ? { rateLimit: false } : {}),
    ...(dailyLimit !== undefined ? { dailyLimit } : {}),
    ...(otherClientLoad !== undefined ? { otherClientLoad } : {}),
  };
}

/** Longest `--latency` and `--jitter`, ms (the fault config's bound). */
const MAX_LATENCY_FLAG_MS = 600_000;

/**
 * The initial faults of `--latency` and `--jitter` (none when both are absent): a round trip to
 * the service, with its spread, for tests and benchmarks of a drain far from the service;
 * `--seed` seeds the jitter too, so a run can be repeated.
 *
 * @param integer - reads an integer flag within bounds (undefined when absent).
 */
function latencyOptions(
  integer: (flag: string, min: number, max: number) => number | undefined,
): Pick<EmulatorOptions, "faults"> {
  const seed = integer("seed", 0, Number.MAX_SAFE_INTEGER);
  const latencyMs = integer("latency", 0, MAX_LATENCY_FLAG_MS);
  const latencyJitterMs = integer("jitter", 0, MAX_LATENCY_FLAG_MS);
  if (latencyMs === undefined && latencyJitterMs === undefined) return {};
  return {
    faults: {
      ...(seed !== undefined ? { seed } : {}),
      ...(latencyMs !== undefined ? { latencyMs } : {}),
      ...(latencyJitterMs !== undefined ? { latencyJitterMs } : {}),
    },
  };
}

/**
 * The option of `--unknown-dlq-ids` (none when the flag is absent).
 *
 * @param values - the flags given with their values.
 */
function unknownDlqIdsOption(values: ReadonlyMap<string, string>): Pick<EmulatorOptions, "unknownDlqIds"> {
  const raw = values.get("unknown-dlq-ids");
  if (raw === undefined) return {};
  const mode = UNKNOWN_DLQ_IDS_MODES.find((m) => m === raw);
  if (mode === undefined) {
    throw new CliUsageError(
      `--unknown-dlq-ids must be one of ${UNKNOWN_DLQ_IDS_MODES.join(", ")}, got ${JSON.stringify(raw)}`,
    );
  }
  return { unknownDlqIds: mode };
}

/**
 * The option of `--run-ids` (none when the flag is absent).
 *
 * @param values - the flags given with their values.
 */
function runIdsOption(values: ReadonlyMap<string, string>): Pick<EmulatorOptions, "runIds"> {
  const raw = values.get("run-ids");
  if (raw === undefined) return {};
  const shape = RUN_ID_SHAPES.find((m) => m === raw);
  if (shape === undefined) {
    throw new CliUsageError(
      `--run-ids must be one of ${RUN_ID_SHAPES.join(", ")}, got ${JSON.stringify(raw)}`,
    );
  }
  return { runIds: shape };
}

/**
 * The options whose value is one of a list: `--plan`, `--unknown-dlq-ids` and `--run-ids`.
 *
 * @param values - the flags given with their values.
 */
function choiceOptions(
  values: ReadonlyMap<string, string>,
): Pick<EmulatorOptions, "plan" | "unknownDlqIds" | "runIds"> {
  const plan = values.get("plan");
  if (plan !== undefined && !isPlanName(plan))
    throw new CliUsageError(`--plan must be one of ${PLAN_NAMES.join(", ")}, got ${JSON.stringify(plan)}`);
  return { ...(plan !== undefined ? { plan } : {}), ...unknownDlqIdsOption(values), ...runIdsOption(values) };
}

/**
 * Parse the arguments after the script name.
 *
 * @param argv - e.g. `["--port", "0", "--plan=payg"]`.
 * @throws CliUsageError naming the flag and the value.
 */
export function parseCliArgs(argv: readonly string[]): CliArgs {
  const values = new Map<string, string>();
  const switches = new Set<string>();
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--help" || arg === "-h") {
      help = true;
      continue;
    }
    if (arg.startsWith("--") && SWITCH_FLAGS.has(arg.slice(2).split("=")[0])) {
      const flag = arg.slice(2);
      if (flag.includes("=")) throw new CliUsageError(`--${flag.split("=")[0]} takes no value`);
      if (switches.has(flag)) throw new CliUsageError(`--${flag} is given more than once`);
      switches.add(flag);
      continue;
    }
    const match = /^--([a-z]+(?:-[a-z]+)*)(?:=(.*))?$/s.exec(arg);
    if (match === null || !VALUE_FLAGS.has(match[1])) {
      throw new CliUsageError(`unknown flag ${JSON.stringify(arg.split("=")[0])}`);
    }
    const flag = match[1];
    let value = match[2];
    if (value === undefined) {
      if (i + 1 >= argv.length || argv[i + 1].startsWith("--"))
        throw new CliUsageError(`--${flag} needs a value`);
      value = argv[++i];
    }
    if (values.has(flag)) throw new CliUsageError(`--${flag} is given more than once`);
    values.set(flag, value);
  }

  const integer = (flag: string, min: number, max: number): number | undefined => {
    const raw = values.get(flag);
    if (raw === undefined) return undefined;
    if (!/^[0-9]+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      throw new CliUsageError(
        `--${flag} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`,
      );
    }
    return Number(raw);
  };
  const options: { -readonly [K in keyof EmulatorOptions]: EmulatorOptions[K] } = {};
  const port = integer("port", 0, 65535);
  if (port !== undefined) options.port = port;
  const dlq = integer("dlq", 0, MAX_SEED_COUNT);
  if (dlq !== undefined) options.dlq = dlq;
  const seed = integer("seed", 0, Number.MAX_SAFE_INTEGER);
  if (seed !== undefined) options.seed = seed;
  const host = values.get("host");
  if (host !== undefined) {
    if (!isLoopback(host)) {
      throw new CliUsageError(
        `--host must be a loopback address (127.0.0.1, ::1 or localhost), got ${JSON.stringify(host)}`,
      );
    }
    options.host = host;
  }
  for (const flag of ["token", "username", "password"] as const) {
    const value = values.get(flag);
    if (value === undefined) continue;
    if (value === "") throw new CliUsageError(`--${flag} must not be empty`);
    if (/[\r\n]/.test(value) || (flag === "username" && value.includes(":"))) {
      throw new CliUsageError(
        SECRET_FLAGS.has(flag)
          ? `--${flag} must not contain line breaks`
          : `--${flag} must not contain a colon or line breaks, got ${JSON.stringify(value)}`,
      );
    }
    options[flag] = value;
  }
  const limits = accountLimitOptions(integer, switches);
  Object.assign(options, limits, choiceOptions(values), latencyOptions(integer));
  return { help, options };
}
