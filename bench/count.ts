/**
 * 4. Request count: requests of a DlqRecovery drain (`DlqRecoveryController.create`, `all: true`)
 * of N entries, on each path:
 * - the sequential drain (`concurrency: 1`: one cursor over the selection) sends exactly
 *   ceil(N/50) requests;
 * - the default drain (windows, automatic `concurrency`) sends at most ceil(N/50) plus the window
 *   budget (`requestAllowance(N)`, the client's one declaration of it).
 * Counted twice: by the emulator's request log and by the provider's `requestCount` output. A
 * count, not a timing.
 */
import { requestAllowance } from "../drain/windows";
import { DlqRecoveryController } from "../provider/dlqRecovery/controller";
import { CREDS, startEmulatorProcess, type EmulatorProcess } from "./lib/emulator";
import { benchMain } from "./lib/main";
import { result, type BenchResult } from "./lib/result";

const SIZES = [1, 50, 51, 237, 10_000];

/** The drains measured: the name in the report, the inputs beside the selection, the bound. */
const PATHS = [
  {
    name: "sequential (`concurrency: 1`)",
    inputs: { concurrency: 1 },
    bound: (n: number) => Math.ceil(n / 50),
    target: "= ceil(N/50)",
    exact: true,
  },
  {
    name: "default (windows, automatic `concurrency`)",
    inputs: {},
    bound: (n: number) => requestAllowance(n),
    target: "≤ ceil(N/50) + 4 (N ≤ 500), 1.10 × ceil(N/50) + 24 above",
    exact: false,
  },
] as const;

/** One drain of `n` entries on `path`: its table row, and whether it met its bound. */
async function measure(
  emu: EmulatorProcess,
  path: (typeof PATHS)[number],
  n: number,
): Promise<{ row: string[]; ok: boolean }> {
  const provider = new DlqRecoveryController({ log: () => undefined, env: {} });
  await emu.reseed(n);
  const created = await provider.create({
    all: true,
    baseUrl: emu.url,
    token: CREDS.token,
    runLogFile: "",
    ...path.inputs,
  });
  const outs = created.outs!;
  const logged = await emu.requestTotal();
  const bound = path.bound(n);
  const within = path.exact ? logged === bound : logged <= bound;
  const ok = within && outs.requestCount === logged && outs.resumedCount === n;
  const row = [path.name, n.toLocaleString("en-US"), String(Math.ceil(n / 50)), String(bound)];
  row.push(String(logged), String(outs.requestCount), outs.resumedCount.toLocaleString("en-US"));
  return { row: [...row, ok ? "yes" : "**no**"], ok };
}

export async function run(): Promise<BenchResult> {
  const r = result("count", "4. Request count");
  const emu = await startEmulatorProcess(0);
  const rows: string[][] = [];
  try {
    for (const path of PATHS) {
      let allOk = true;
      for (const n of SIZES) {
        const m = await measure(emu, path, n);
        rows.push(m.row);
        allOk &&= m.ok;
      }
      r.rows.push({
        measurement: `requests of the ${path.name} drain for N = 1, 50, 51, 237, 10,000`,
        subjectLabel: "requests sent",
        subject: allOk ? `${path.target} for every N` : "outside the bound (see table)",
        target: path.target,
        ok: allOk,
      });
    }
  } finally {
    await emu.close();
  }
  r.tables.push({
    title: "Requests of a DlqRecovery drain of N entries (`all: true`), on each path:",
    header: [
      "drain",
      "N",
      "ceil(N/50)",
      "bound",
      "requests (emulator log)",
      "requestCount output",
      "resumedCount",
      "within",
    ],
    rows,
  });
  return r;
}

benchMain(module, run);
