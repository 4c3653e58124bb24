/**
 * 8. Policy overhead: `pulumi preview` of a program with 100 Workflows with the policy pack
 * (`--policy-pack policies`, reading the live account from the emulator) against the same
 * preview without it. Half the Workflows name their account by ID (`account`, checked against
 * the stack's live record of that ID), half use the stack's `svc:` account: per-account limits.
 * A third variant, a pack with one stack policy that does nothing (`bench/emptyPack`), is the
 * floor any policy pack costs under this CLI and language host (the pack's process, the
 * engine's analyzer calls); the pack against it is what the svc-limits pack itself adds. Runs once the pack (policies/PulumiPolicy.yaml, built into dist/policies)
 * and the `Workflow` export of the built package exist; until then it reports
 * "skipped: policy pack not present yet".
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { PulumiProject } from "../toolchain/pulumi-project";
import { buildProblem } from "./lib/built";
import { CREDS, REPO_ROOT, startEmulatorProcess } from "./lib/emulator";
import { benchMain } from "./lib/main";
import { result, type BenchResult } from "./lib/result";
import { alternate, fmt, now, stat, type Stat } from "./lib/stats";

const WORKFLOWS = 100;

const PROGRAM = `
import { Workflow } from "pulumi-svc";
const accountId = process.env.BENCH_ACCOUNT_ID;
for (let i = 0; i < ${WORKFLOWS}; i++) {
  new Workflow(\`wf-\${i}\`, {
    url: \`http://127.0.0.1/workflows/wf-\${i}\`,
    retries: 1,
    delay: 10,
    flowControl: { key: "bench", parallelism: 1 },
    ...(i % 2 === 0 ? { account: accountId } : {}),
  });
}
`;

/** The emulator account's record ID (outside every timed section). */
async function accountIdOf(url: string): Promise<string> {
  const auth = Buffer.from(`${CREDS.username}:${CREDS.password}`).toString("base64");
  const res = await fetch(`${url}/v2/svc/user`, { headers: { authorization: `Basic ${auth}` } });
  if (!res.ok) throw new Error(`reading the emulator's account record: HTTP ${res.status}`);
  return ((await res.json()) as { id: string }).id;
}

/** Why the bench cannot run yet, or undefined. */
function missing(): string | undefined {
  if (!fs.existsSync(path.join(REPO_ROOT, "policies", "PulumiPolicy.yaml")))
    return "policy pack not present yet";
  const problem = buildProblem();
  if (problem) return problem;
  if (!fs.existsSync(path.join(REPO_ROOT, "dist", "policies", "index.js"))) {
    return "policy pack not present yet (dist/policies/index.js is not built)";
  }
  const lib = require(path.join(REPO_ROOT, "dist", "components", "index.js")) as Record<string, unknown>;
  if (typeof lib.Workflow !== "function")
    return "policy pack not present yet (no `Workflow` export in pulumi-svc)";
  return undefined;
}

/** The rows and note of bench 8: the pack and the empty pack against none, and the pack against the empty one. */
function addRows(r: BenchResult, withPack: Stat, floor: Stat, without: Stat): void {
  const label = `\`pulumi preview\` of ${WORKFLOWS} Workflows`;
  r.rows.push(
    {
      measurement: `${label}, with the policy pack vs without`,
      subjectLabel: "with --policy-pack policies",
      subject: withPack,
      baselineLabel: "without",
      baseline: without,
      ratio: withPack.median / without.median,
      target: "≤ 1.20",
      ok: withPack.median / without.median <= 1.2,
    },
    {
      measurement: `${label}, with a pack that checks nothing vs without (the floor of any pack)`,
      subjectLabel: "with bench/emptyPack",
      subject: floor,
      baselineLabel: "without",
      baseline: without,
      ratio: floor.median / without.median,
      target: "report",
    },
    {
      measurement: `${label}, with the policy pack vs with a pack that checks nothing`,
      subjectLabel: "with --policy-pack policies",
      subject: withPack,
      baselineLabel: "with bench/emptyPack",
      baseline: floor,
      ratio: withPack.median / floor.median,
      target: "report",
    },
  );
  r.notes.push(
    `The pack adds ${fmt(withPack.median - without.median)} ms to the preview, of which a pack that checks ` +
      `nothing adds ${fmt(floor.median - without.median)} ms (differences of medians); one stack, 1 warm-up ` +
      "each, 3 timed, alternated.",
  );
}

/** Runs bench 8: 100 Workflows previewed with the pack, with a pack that checks nothing, and without. */
export async function run(): Promise<BenchResult> {
  const r = result("policy", "8. Policy overhead");
  const why = missing();
  if (why) {
    r.skipped = why;
    return r;
  }
  const emu = await startEmulatorProcess(0);
  const project = await PulumiProject.create({
    name: "bench-policy",
    program: PROGRAM,
    env: {
      SVC_ACCOUNT_API_URL: emu.url,
      SVC_USERNAME: CREDS.username,
      SVC_PASSWORD: CREDS.password,
      BENCH_ACCOUNT_ID: await accountIdOf(emu.url),
    },
  });
  try {
    const pack = path.join(REPO_ROOT, "policies");
    const empty = path.join(REPO_ROOT, "bench", "emptyPack");
    const samples = await alternate(
      ["pack", "empty", "none"] as const,
      { warmup: 1, trials: 3 },
      async (v) => {
        const t0 = now();
        const res = await project.preview(v === "none" ? [] : ["--policy-pack", v === "pack" ? pack : empty]);
        const ms = now() - t0;
        // The pack must really have run (the CLI lists it under "Policy Packs run") and checked everything.
        if (v === "pack" && !/Policy Packs run:[\s\S]*\/policies\b/.test(res.stdout)) {
          throw new Error(`the policy pack did not report:\n${res.stdout.slice(-1500)}`);
        }
        if (v === "pack" && /\[(mandatory|advisory)\]/.test(res.stdout)) {
          throw new Error(`the policy pack reported something:\n${res.stdout.slice(-1500)}`);
        }
        return ms;
      },
    );
    addRows(r, stat(samples.pack, "ms"), stat(samples.empty, "ms"), stat(samples.none, "ms"));
    return r;
  } finally {
    fs.rmSync(project.dir, { recursive: true, force: true });
    await emu.close();
  }
}

benchMain(module, run);
