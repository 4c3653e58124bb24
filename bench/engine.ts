/**
 * 6. Engine overhead: `pulumi up` (real CLI, PulumiProject of toolchain/pulumi-project.ts) of a
 * program with one Account and one DlqRecovery draining 1,200 entries, against `pulumi up` of an
 * empty program. Every trial uses a fresh project and stack (created untimed) and a re-seeded
 * emulator; only `pulumi up` is timed. The DlqRecovery is the default one (the windowed drain), so
 * its requests vary a little from run to run: each run resumes every entry once within
 * `requestAllowance`. Needs the built package (dist/).
 */
import * as fs from "node:fs";
import { requestAllowance } from "../drain/windows";
import { PulumiProject } from "../toolchain/pulumi-project";
import { buildProblem } from "./lib/built";
import { CREDS, startEmulatorProcess } from "./lib/emulator";
import { benchMain } from "./lib/main";
import { result, type BenchResult } from "./lib/result";
import { alternate, fmt, now, stat } from "./lib/stats";

const ENTRIES = 1_200;

const PROGRAMS = {
  resources: `
import { Account, DlqRecovery } from "pulumi-svc";
const account = new Account("account");
const recovery = new DlqRecovery("recovery", { all: true, runLogFile: "" });
export const plan = account.type;
export const resumedCount = recovery.resumedCount;
export const requestCount = recovery.requestCount;
`,
  empty: `export {};\n`,
} as const;

export async function run(): Promise<BenchResult> {
  const r = result("engine", "6. Engine overhead");
  const problem = buildProblem();
  if (problem) {
    r.skipped = problem;
    return r;
  }
  const emu = await startEmulatorProcess(0);
  const env = {
    SVC_ACCOUNT_API_URL: emu.url,
    SVC_USERNAME: CREDS.username,
    SVC_PASSWORD: CREDS.password,
    SVC_BASE_URL: emu.url,
    SVC_TOKEN: CREDS.token,
  };
  const requests: number[] = [];
  try {
    const samples = await alternate(["resources", "empty"] as const, { warmup: 1, trials: 3 }, async (v) => {
      await emu.reseed(ENTRIES);
      const p = await PulumiProject.create({ name: `bench-${v}`, program: PROGRAMS[v], env });
      try {
        const t0 = now();
        await p.up();
        const ms = now() - t0;
        if (v === "resources") {
          const out = await p.outputs();
          const sent = Number(out.requestCount);
          if (out.resumedCount !== ENTRIES || !(sent <= requestAllowance(ENTRIES))) {
            throw new Error(`unexpected outputs ${JSON.stringify(out)}`);
          }
          requests.push(sent);
        }
        return ms;
      } finally {
        fs.rmSync(p.dir, { recursive: true, force: true });
      }
    });
    const res = stat(samples.resources, "ms");
    const empty = stat(samples.empty, "ms");
    r.rows.push({
      measurement: `\`pulumi up\`: Account + DlqRecovery over ${ENTRIES.toLocaleString("en-US")} entries vs empty program`,
      subjectLabel: "Account + DlqRecovery",
      subject: res,
      baselineLabel: "empty program",
      baseline: empty,
      ratio: res.median / empty.median,
      target: "report",
    });
    r.notes.push(
      `The two resources add ${fmt(res.median - empty.median)} ms to \`pulumi up\` (difference of medians); ` +
        `the drain itself is ${Math.min(...requests)} to ${Math.max(...requests)} requests ` +
        `(ceil(N/50) = ${ENTRIES / 50}, the allowance ${requestAllowance(ENTRIES)}). Fresh project and stack per trial; 1 warm-up each, 3 timed, alternated.`,
    );
    return r;
  } finally {
    await emu.close();
  }
}

benchMain(module, run);
