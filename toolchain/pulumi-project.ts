/**
 * A throwaway Pulumi project and stack on a local `file://` backend, driven with the real
 * Pulumi CLI: the harness of the e2e tests (`test/helpers/pulumi.ts`) and of the CLI
 * benchmarks (`bench/`). Every run hands back what the CLI printed; the project keeps a
 * transcript of everything printed so tests can search it for secrets.
 *
 * Isolation: each project gets its own backend folder, PULUMI_HOME and passphrase in a
 * temporary folder; a user's own `~/.pulumi`, backend and login are never touched.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** The repository root. */
export const REPO_ROOT = path.resolve(__dirname, "..");

/**
 * The Pulumi CLI version the project pins, e.g. `v3.259.0`: written once, as the
 * `github.com/pulumi/pulumi/pkg/v3` requirement of `toolchain/go/go.mod`, which
 * `toolchain/provision.sh` builds and reads too.
 */
export const PINNED_PULUMI_VERSION = pinnedCliVersion(
  fs.readFileSync(path.join(REPO_ROOT, "toolchain/go/go.mod"), "utf8"),
);

/**
 * The CLI version a `go.mod` requires.
 *
 * @param goMod - the text of `toolchain/go/go.mod`
 * @throws Error when it has no `require github.com/pulumi/pulumi/pkg/v3 v<version>` line
 */
export function pinnedCliVersion(goMod: string): string {
  const m = /^require github\.com\/pulumi\/pulumi\/pkg\/v3 (v\d+\.\d+\.\d+)$/m.exec(goMod);
  if (m === null)
    throw new Error("toolchain/go/go.mod has no `require github.com/pulumi/pulumi/pkg/v3 v<version>` line.");
  return m[1];
}

/** What one CLI invocation printed. */
export interface CliResult {
  /** The command line, for messages. */
  command: string;
  /** Exit code (null when killed by a signal). */
  code: number | null;
  /** Signal that ended the CLI, if any. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link PulumiProject.create}. */
export interface ProjectOptions {
  /** Project name (Pulumi.yaml `name`). */
  name?: string;
  /** The program: `index.ts` source. */
  program: string;
  /** Extra files to write, relative path to contents. */
  files?: Record<string, string>;
  /** Stack name; default `dev`. */
  stack?: string;
  /** Environment for every CLI run (on top of the isolated Pulumi environment). */
  env?: Record<string, string | undefined>;
  /** Backend folder to share with another project (for StackReference); default: a new one. */
  backendDir?: string;
  /**
   * Link the repository's node_modules (the built library included) into the project.
   * Default true; false leaves the project to install its own packages.
   */
  linkNodeModules?: boolean;
  /**
   * Type-check the program on every run, as ts-node does by default (about 1 s of CPU a run).
   * Default false: the program runs transpile-only (`PULUMI_NODEJS_TRANSPILE_ONLY`, what a
   * user's `noCheck` does). The repository's own programs are type-checked by `tsc` in
   * `npm run check`, and the own-program e2e runs a user's program with the default type check.
   */
  typeCheck?: boolean;
}

/** Options of one CLI run. */
export interface RunOptions {
  /** Resolve with the result instead of throwing when the exit code is not 0. */
  allowFailure?: boolean;
  /** Extra environment for this run only. */
  env?: Record<string, string | undefined>;
  /** Called with the child process once started (e.g. to send SIGINT). */
  onSpawn?: (child: import("node:child_process").ChildProcess) => void;
  /** Called with each chunk of stdout as it arrives. */
  onStdout?: (chunk: string) => void;
  /**
   * The output deliberately reveals secrets (e.g. `--show-secrets`): it is left out of the
   * transcript that secret scans search.
   */
  revealsSecrets?: boolean;
  /** Written to the CLI's standard input (e.g. a secret config value, never on the command line). */
  input?: string;
}

let cliChecked = false;

/**
 * Fails with instructions when the provisioned Pulumi CLI is not on PATH. Tests call it
 * through {@link PulumiProject.create}; nothing is skipped silently.
 */
export async function assertPulumiCli(): Promise<void> {
  if (cliChecked) return;
  const res = await runProcess("pulumi", ["version"], { ...process.env }, os.tmpdir()).catch((e: Error) => {
    throw new Error(
      `The Pulumi CLI is not on PATH (${e.message}). Run the tests with \`npm test\`, which provisions ` +
        `${PINNED_PULUMI_VERSION} (toolchain/provision.sh) and runs mocha inside toolchain/with-env.sh.`,
    );
  });
  const got = res.stdout.trim();
  if (got !== PINNED_PULUMI_VERSION) {
    throw new Error(
      `The Pulumi CLI on PATH is ${got || "of unknown version"}, the project pins ${PINNED_PULUMI_VERSION}. ` +
        "Run `bash toolchain/provision.sh` and run the tests with `npm test`.",
    );
  }
  cliChecked = true;
}

function runProcess(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  opts: RunOptions = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd,
      env,
      stdio: [opts.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
      opts.onStdout?.(d);
    });
    child.stderr?.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code, signal) =>
      resolve({ command: `${cmd} ${args.join(" ")}`, code, signal, stdout, stderr }),
    );
    opts.onSpawn?.(child);
  });
}

/** A throwaway Pulumi project with one stack, on its own local backend. */
export class PulumiProject {
  /** Everything every CLI run printed (stdout and stderr), in order. */
  public transcript = "";
  /** Plain config values set since the last CLI run: written with the next one but a secret's (`setConfig`). */
  private pendingConfig: [key: string, value: string][] = [];

  private constructor(
    /** The project folder. */
    public readonly dir: string,
    /** The backend folder (file:// URL target). */
    public readonly backendDir: string,
    public readonly stack: string,
    private readonly baseEnv: NodeJS.ProcessEnv,
  ) {}

  /** Creates the project folder, writes the program and initialises the stack. */
  static async create(opts: ProjectOptions): Promise<PulumiProject> {
    await assertPulumiCli();
    const name = opts.name ?? "e2e";
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `pulumi-svc-${name}-`));
    const backendDir = opts.backendDir ?? path.join(dir, ".backend");
    fs.mkdirSync(backendDir, { recursive: true });
    const home = path.join(dir, ".pulumi-home");
    fs.mkdirSync(home, { recursive: true });
    // The svc provider, found in the linked package (the README's one step for your own program).
    fs.writeFileSync(
      path.join(dir, "Pulumi.yaml"),
      `name: ${name}\nruntime: nodejs\nplugins:\n  providers:\n    - name: svc\n      path: ./node_modules/pulumi-svc/dist/provider\n`,
    );
    fs.writeFileSync(
      path.join(dir, "package.json"),
      JSON.stringify({ name, private: true, main: "index.ts" }, null, 2),
    );
    fs.writeFileSync(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: "ES2022",
          module: "commonjs",
          moduleResolution: "node10",
          esModuleInterop: true,
          skipLibCheck: true,
        },
      }),
    );
    fs.writeFileSync(path.join(dir, "index.ts"), opts.program);
    for (const [rel, text] of Object.entries(opts.files ?? {})) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    }
    // The repository's installed packages, pulumi-svc (the built library) included.
    if (opts.linkNodeModules !== false) {
      fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
    }
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PULUMI_HOME: home,
      PULUMI_BACKEND_URL: `file://${backendDir}`,
      PULUMI_CONFIG_PASSPHRASE: "e2e-passphrase",
      PULUMI_CONFIG_PASSPHRASE_FILE: undefined,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_SKIP_CONFIRMATIONS: "true",
      PULUMI_ACCESS_TOKEN: undefined,
      PULUMI_NODEJS_TRANSPILE_ONLY: opts.typeCheck ? undefined : "true",
      NO_COLOR: "1",
      ...opts.env,
    };
    for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
    const project = new PulumiProject(dir, backendDir, opts.stack ?? "dev", env);
    await project.cli(["stack", "init", project.stack]);
    return project;
  }

  /** Runs any command in the project folder with the project's environment (e.g. `npm install`). */
  async exec(cmd: string, args: string[]): Promise<CliResult> {
    const res = await runProcess(cmd, args, this.baseEnv, this.dir);
    this.transcript += `\n$ ${res.command}\n${res.stdout}\n${res.stderr}`;
    if (res.code !== 0)
      throw new Error(`\`${res.command}\` exited with ${res.code}\n${res.stdout}\n${res.stderr}`);
    return res;
  }

  /**
   * Runs `pulumi <args>` in the project folder (after writing the plain config values set since
   * the last run); throws on a non-zero exit unless allowed.
   */
  async cli(args: string[], opts: RunOptions = {}): Promise<CliResult> {
    await this.flushConfig();
    return this.run(args, opts);
  }

  /** Runs `pulumi <args>` as it is. */
  private async run(args: string[], opts: RunOptions = {}): Promise<CliResult> {
    const env = { ...this.baseEnv, ...opts.env };
    for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
    const res = await runProcess("pulumi", ["--non-interactive", ...args], env, this.dir, opts);
    this.transcript += opts.revealsSecrets
      ? `\n$ ${res.command}\n(output withheld: it reveals secrets on purpose)\n`
      : `\n$ ${res.command}\n${res.stdout}\n${res.stderr}`;
    if (res.code !== 0 && !opts.allowFailure) {
      throw new Error(
        `\`${res.command}\` exited with ${res.code ?? res.signal}\n--- stdout\n${res.stdout}\n--- stderr\n${res.stderr}`,
      );
    }
    return res;
  }

  /** `pulumi up --yes`. */
  up(extra: string[] = [], opts?: RunOptions): Promise<CliResult> {
    return this.operation(["up", "--yes", "--skip-preview", ...extra], opts);
  }

  /** `pulumi preview`. */
  preview(extra: string[] = [], opts?: RunOptions): Promise<CliResult> {
    return this.operation(["preview", "--diff", ...extra], opts);
  }

  /** `pulumi refresh --yes`. */
  refresh(extra: string[] = [], opts?: RunOptions): Promise<CliResult> {
    return this.operation(["refresh", "--yes", "--skip-preview", ...extra], opts);
  }

  /** `pulumi destroy --yes`. */
  destroy(extra: string[] = [], opts?: RunOptions): Promise<CliResult> {
    return this.operation(["destroy", "--yes", "--skip-preview", ...extra], opts);
  }

  /**
   * Runs an operation (`up`, `preview`, `refresh`, `destroy`) with the plain config values set
   * since the last run as its `--config` flags, which the CLI saves to the stack's config file
   * before it starts: the same result as a `config set-all` first, without a CLI run of its own.
   */
  private operation([command, ...rest]: string[], opts?: RunOptions): Promise<CliResult> {
    const config = this.pendingConfig.map(([k, v]) => `--config=${k}=${v}`);
    this.pendingConfig = [];
    return this.run([command, ...config, ...rest], opts);
  }

  /**
   * Sets stack config; `secret` stores it encrypted, its value through standard input (one
   * `config set --secret` each: `config set-all` takes values on its command line only), so it
   * is on no command line and in no transcript. Plain values are written together with the next
   * CLI run but a secret's: as an operation's `--config` flags, or by one `config set-all`.
   */
  async setConfig(key: string, value: string, secret = false): Promise<void> {
    // A later value of a key replaces a pending one, as it would after a `config set` of each.
    this.pendingConfig = this.pendingConfig.filter(([k]) => k !== key);
    if (!secret) {
      this.pendingConfig.push([key, value]);
      return;
    }
    // Pending plain values wait for the next run (a `config set-all` before each: a CLI run, 0.17 s CPU).
    await this.run(["config", "set", "--secret", key], { input: value });
  }

  /** Runs `fn`, then restores `Pulumi.<stack>.yaml` and the unwritten values (a secret's set: 0.33 s CPU). */
  async withConfigRestored<T>(fn: () => Promise<T>): Promise<T> {
    const [file, pending] = [path.join(this.dir, `Pulumi.${this.stack}.yaml`), [...this.pendingConfig]];
    const text = fs.readFileSync(file, "utf8");
    try {
      return await fn();
    } finally {
      fs.writeFileSync(file, text);
      this.pendingConfig = pending;
    }
  }

  /** Writes the plain config values set since the last CLI run, in one `config set-all`. */
  private async flushConfig(): Promise<void> {
    if (this.pendingConfig.length === 0) return;
    const args = this.pendingConfig.flatMap(([k, v]) => ["--plaintext", `${k}=${v}`]);
    this.pendingConfig = [];
    await this.run(["config", "set-all", ...args]);
  }

  /** Stack outputs as plain JSON (secrets shown only when asked). */
  async outputs(showSecrets = false): Promise<Record<string, unknown>> {
    const res = await this.cli(["stack", "output", "--json", ...(showSecrets ? ["--show-secrets"] : [])], {
      revealsSecrets: showSecrets,
    });
    return JSON.parse(res.stdout) as Record<string, unknown>;
  }

  /**
   * The stack's state as text and parsed, read from its checkpoint file: on a `file://` backend,
   * `pulumi stack export` prints the file's `latest` (`ExportDeployment`, pkg/backend/diy), at
   * 0.17 s of CPU a run. The text is the whole file. The Account e2e compares {@link stackExport}.
   */
  async exportState(): Promise<{ text: string; deployment: StateDeployment }> {
    const text = fs.readFileSync(this.stateFile(), "utf8");
    const file = JSON.parse(text) as { checkpoint?: { latest?: StateDeployment } };
    const deployment = file.checkpoint?.latest;
    if (deployment === undefined) throw new Error(`the state file of ${this.stack} holds no deployment`);
    return { text, deployment };
  }

  /** `pulumi stack export`: the state as the CLI prints it, as text and parsed. */
  async stackExport(): Promise<{ text: string; deployment: StateDeployment }> {
    const res = await this.cli(["stack", "export"]);
    return {
      text: res.stdout,
      deployment: (JSON.parse(res.stdout) as { deployment: StateDeployment }).deployment,
    };
  }

  /** The stack's state file in the backend, `.pulumi/stacks/<project>/<stack>.json` (its size, its text). */
  stateFile(): string {
    const yaml = fs.readFileSync(path.join(this.dir, "Pulumi.yaml"), "utf8");
    const project = /^name:\s*(\S+)\s*$/m.exec(yaml)?.[1] ?? "";
    const file = path.join(this.backendDir, ".pulumi", "stacks", project, `${this.stack}.json`);
    if (!fs.existsSync(file)) throw new Error(`no state file for the stack ${this.stack} at ${file}`);
    return file;
  }

  /**
   * Removes the project folder, its backend and its Pulumi home with it. Nothing is destroyed
   * first: the stack's resources live only in this backend and in an emulator the test closes,
   * and a `pulumi destroy` per project would cost about a tenth of the e2e suite's CPU.
   */
  async cleanup(): Promise<void> {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The part of `pulumi stack export` tests read. */
export interface StateDeployment {
  resources: Array<{
    urn: string;
    type: string;
    id?: string;
    inputs?: Record<string, unknown>;
    outputs?: Record<string, unknown>;
    initErrors?: string[];
  }>;
  pending_operations?: unknown[];
}

/** Finds the one resource of a type in exported state. */
export function resourceOfType(
  deployment: StateDeployment,
  type: string,
): StateDeployment["resources"][number] {
  const found = deployment.resources.filter((r) => r.type === type);
  if (found.length !== 1) throw new Error(`expected one ${type} in state, found ${found.length}`);
  return found[0];
}
