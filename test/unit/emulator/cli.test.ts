import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import path from "node:path";
import { parseCliArgs } from "../../../emulator/cli-args";

const ROOT = path.resolve(__dirname, "../../..");
/** Lines of the start-up text, the last one "Stop with Ctrl-C (or SIGTERM)." */
const STARTUP_LINES = 10;

/** A spawned CLI with its collected output. */
interface Cli {
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
  readonly exit: Promise<number | null>;
}

/**
 * Spawn the CLI with the Node running the tests (Node 24) and ts-node.
 *
 * @param args - CLI flags.
 */
function spawnCli(args: string[]): Cli {
  const child = spawn(
    process.execPath,
    ["-r", "ts-node/register/transpile-only", "emulator/cli.ts", ...args],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  return watch(child);
}

/** Collects a child's output and exit code. */
function watch(child: ChildProcess): Cli {
  const cli: Cli = {
    child,
    stdout: "",
    stderr: "",
    exit: new Promise((resolve) => child.on("exit", (code) => resolve(code))),
  };
  child.stdout?.on("data", (chunk: Buffer) => (cli.stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (cli.stderr += chunk.toString()));
  return cli;
}

/**
 * Wait until stdout has at least `lines` complete lines.
 *
 * @param cli - the CLI.
 * @param lines - number of lines.
 */
async function waitForLines(cli: Cli, lines: number): Promise<string[]> {
  for (;;) {
    const complete = cli.stdout.split("\n").slice(0, -1);
    if (complete.length >= lines) return complete;
    if (cli.child.exitCode !== null) throw new Error(`CLI exited early: ${cli.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("emulator CLI", function () {
  this.timeout(60_000);

  it("starts, prints the URL first and the admin hint, serves, never prints secrets, exits 0 on SIGTERM", async () => {
    const cli = spawnCli([
      "--port",
      "0",
      "--dlq",
      "60",
      "--plan",
      "payg",
      "--token",
      "cli-secret-token",
      "--username",
      "cli@example.com",
      "--password=cli-secret-password",
      "--seed",
      "4",
    ]);
    try {
      const lines = await waitForLines(cli, STARTUP_LINES);
      const match = /^svc emulator listening on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(lines[0]);
      assert.ok(match, lines[0]);
      const url = match[1];
      const text = lines.join("\n");
      // One URL for both settings; credentials given as flags are not echoed.
      assert.ok(lines.includes(`  pulumi config set svc:accountApiUrl ${url}`), text);
      assert.ok(lines.includes(`  pulumi config set svc:baseUrl ${url}`), text);
      assert.ok(lines.includes("  pulumi config set --secret svc:token <as given with --token>"), text);
      assert.match(
        text,
        /DLQ: 60 failed runs of the workflow URLs http:\/\/127\.0\.0\.1\/workflows\/orders, /,
      );
      assert.match(text, /\/admin.*rate limit max_requests_per_second \(100\) enforced/);
      const res = await fetch(`${url}/v2/workflows/dlq/resume`, {
        method: "POST",
        headers: { authorization: "Bearer cli-secret-token" },
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("burst-ratelimit-limit"), "100");
      const body = (await res.json()) as { workflowRuns: unknown[]; cursor: string };
      assert.equal(body.workflowRuns.length, 50);
      assert.notEqual(body.cursor, "");
      const user = await fetch(`${url}/v2/svc/user`, {
        headers: {
          authorization: `Basic ${Buffer.from("cli@example.com:cli-secret-password").toString("base64")}`,
        },
      });
      assert.equal(((await user.json()) as { max_delay: number }).max_delay, 31536000);
    } finally {
      cli.child.kill("SIGTERM");
    }
    assert.equal(await cli.exit, 0);
    for (const output of [cli.stdout, cli.stderr]) {
      assert.ok(!output.includes("cli-secret-token") && !output.includes("cli-secret-password"), output);
    }
  });

  it("--no-rate-limit: says so, and answers without rate-limit headers", async () => {
    const cli = spawnCli(["--port", "0", "--dlq", "1", "--no-rate-limit"]);
    try {
      const lines = await waitForLines(cli, STARTUP_LINES);
      assert.match(lines.join("\n"), /rate limit off/);
      // The default credentials in full, so that a program can be pointed at it.
      assert.ok(lines.includes("  pulumi config set svc:username emulator@example.com"), lines.join("\n"));
      assert.ok(lines.includes("  pulumi config set --secret svc:password emulator-password"));
      assert.ok(lines.includes("  pulumi config set --secret svc:token emulator-token"));
      assert.match(lines.join("\n"), /DLQ: 1 failed run of /);
      const url = (/listening on (\S+)$/.exec(lines[0]) ?? [])[1];
      const res = await fetch(`${url}/v2/workflows/dlq/resume`, {
        method: "POST",
        headers: { authorization: "Bearer emulator-token" },
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("burst-ratelimit-limit"), null);
    } finally {
      cli.child.kill("SIGTERM");
    }
    assert.equal(await cli.exit, 0);
  });

  it("closes cleanly on SIGINT", async () => {
    const cli = spawnCli(["--port", "0"]);
    await waitForLines(cli, 1);
    cli.child.kill("SIGINT");
    assert.equal(await cli.exit, 0);
  });

  it("--help lists every flag with its default", async () => {
    const cli = spawnCli(["--help"]);
    assert.equal(await cli.exit, 0);
    for (const flag of [
      "port",
      "host",
      "dlq",
      "seed",
      "plan",
      "token",
      "username",
      "password",
      "no-rate-limit",
      "latency",
      "jitter",
    ]) {
      const line = cli.stdout.split("\n").find((l) => l.trimStart().startsWith(`--${flag} `));
      assert.ok(line !== undefined, `--${flag} in ${cli.stdout}`);
      assert.match(line, /\(default/, line);
    }
    assert.match(cli.stdout, /default emulator-token\)/);
    assert.match(cli.stdout, /set both svc:accountApiUrl and svc:baseUrl to it/);
  });

  it("started through npm (`npm run emulator`), stops when npm gets SIGTERM: the port is free again", async () => {
    const child = spawn("npm", ["run", "--silent", "emulator", "--", "--port", "0"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const cli = watch(child);
    const [first] = await waitForLines(cli, STARTUP_LINES);
    const url = (/listening on (\S+)$/.exec(first) ?? [])[1];
    assert.equal((await fetch(`${url}/admin`)).status, 200);
    child.kill("SIGTERM"); // npm's own process, as `kill $!` after `npm run emulator ... &`
    await cli.exit;
    let refused = false;
    for (let i = 0; i < 100 && !refused; i++) {
      refused = await fetch(`${url}/admin`).then(
        () => false,
        () => true,
      );
      if (!refused) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(refused, `the emulator still serves ${url} 10 s after npm got SIGTERM`);
  });

  it("exits 2 naming the flag and value on a bad flag", async () => {
    const cli = spawnCli(["--port", "0", "--plan", "gold"]);
    assert.equal(await cli.exit, 2);
    assert.match(cli.stderr, /--plan must be one of free, payg, fixed, paid, got "gold"/);
    assert.equal(cli.stdout, "");
  });

  describe("parseCliArgs", () => {
    const bad: [string[], RegExp][] = [
      [["--port", "70000"], /--port must be an integer from 0 to 65535, got "70000"/],
      [["--port", "abc"], /--port must be an integer .* got "abc"/],
      [["--dlq", "-3"], /--dlq must be an integer from 0 to 5000000, got "-3"/],
      [["--dlq=1.5"], /--dlq must be an integer .* got "1\.5"/],
      [["--colour", "red"], /unknown flag "--colour"/],
      [["--port"], /--port needs a value/],
      [["--port", "1", "--port", "2"], /--port is given more than once/],
      [["--host", "0.0.0.0"], /--host must be a loopback address .* got "0\.0\.0\.0"/],
      [["--token="], /--token must not be empty/],
      [["--username", "a:b"], /--username must not contain a colon/],
      [["--latency", "-1"], /--latency must be an integer from 0 to 600000, got "-1"/],
      [["--jitter=2.5"], /--jitter must be an integer from 0 to 600000, got "2\.5"/],
    ];
    for (const [args, pattern] of bad) {
      it(`rejects ${args.join(" ")}`, () => {
        assert.throws(
          () => parseCliArgs(args),
          (e: unknown) => (e as { exitCode?: number }).exitCode === 2 && pattern.test((e as Error).message),
        );
      });
    }

    it("--latency and --jitter: the initial faults' round trip, seeded by --seed", () => {
      assert.deepEqual(parseCliArgs(["--latency", "150", "--jitter=8", "--seed", "3", "--plan", "paid"]), {
        help: false,
        options: { seed: 3, plan: "paid", faults: { seed: 3, latencyMs: 150, latencyJitterMs: 8 } },
      });
      assert.deepEqual(parseCliArgs(["--jitter", "5"]).options, { faults: { latencyJitterMs: 5 } });
    });

    it("never echoes a secret flag's value", () => {
      assert.throws(
        () => parseCliArgs(["--password", "line\nbreak-secret"]),
        (e: unknown) => !(e as Error).message.includes("break-secret"),
      );
    });

    it("parses every flag", () => {
      assert.deepEqual(
        parseCliArgs([
          "--port=0",
          "--dlq",
          "5",
          "--plan",
          "fixed",
          "--token",
          "t",
          "--username",
          "u",
          "--password",
          "p",
          "--seed",
          "9",
          "--host",
          "127.0.0.1",
        ]),
        {
          help: false,
          options: {
            port: 0,
            dlq: 5,
            seed: 9,
            host: "127.0.0.1",
            plan: "fixed",
            token: "t",
            username: "u",
            password: "p",
          },
        },
      );
    });
  });
});
