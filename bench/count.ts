/**
 * 4. Request count: a DlqRecovery drain (`DlqRecoveryProvider.create`, `all: true`) of N entries
 * sends exactly ceil(N/50) requests. Counted twice: by the emulator's request log and by the
 * provider's `requestCount` output. A count, not a timing.
 */
import { DlqRecoveryProvider } from "../components/providers/dlqRecovery";
import { CREDS, startEmulatorProcess } from "./lib/emulator";
import { benchMain } from "./lib/main";
import { result, type BenchResult } from "./lib/result";

const SIZES = [1, 50, 51, 237, 10_000];

export async function run(): Promise<BenchResult> {
  const r = result("count", "4. Request count");
  const emu = await startEmulatorProcess(0);
  const provider = new DlqRecoveryProvider({ log: () => undefined, env: {} });
  const rows: string[][] = [];
  let allOk = true;
  try {
    for (const n of SIZES) {
      await emu.reseed(n);
      const created = await provider.create({
        all: true,
        baseUrl: emu.url,
        token: CREDS.token,
        runLogFile: "",
      });
      const outs = created.outs!;
      const logged = await emu.requestTotal();
      const expected = Math.ceil(n / 50);
      const ok = logged === expected && outs.requestCount === expected && outs.resumedCount === n;
      allOk &&= ok;
      rows.push([
        n.toLocaleString("en-US"),
        String(expected),
        String(logged),
        String(outs.requestCount),
        outs.resumedCount.toLocaleString("en-US"),
        ok ? "yes" : "**no**",
      ]);
    }
  } finally {
    await emu.close();
  }
  r.rows.push({
    measurement: "requests for N = 1, 50, 51, 237, 10,000",
    subjectLabel: "requests sent",
    subject: allOk ? "exactly ceil(N/50) for every N" : "differs (see table)",
    target: "= ceil(N/50)",
    ok: allOk,
  });
  r.tables.push({
    title: "Requests of a DlqRecovery drain of N entries (`all: true`):",
    header: ["N", "ceil(N/50)", "requests (emulator log)", "requestCount output", "resumedCount", "exact"],
    rows,
  });
  return r;
}

benchMain(module, run);
