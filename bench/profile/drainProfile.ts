/**
 * Profiling aid for bench 3: runs `DRAINS` provider drains of 10,000 entries (or bare drains with
 * `bare` as first argument) against an emulator child process, so that
 * `node --cpu-prof --cpu-prof-dir=bench/results/prof -r ts-node/register/transpile-only bench/profile/drainProfile.ts`
 * profiles only the drain side. Summarise with `bench/profile/top.ts`.
 */
import { DlqRecoveryController } from "../../provider/dlqRecovery/controller";
import { bareDrain, barePool } from "../lib/bare";
import { CREDS, startEmulatorProcess } from "../lib/emulator";

const DRAINS = Number(process.env.DRAINS ?? 30);

async function main(): Promise<void> {
  const bare = process.argv[2] === "bare";
  const emu = await startEmulatorProcess(0);
  const provider = new DlqRecoveryController({ log: () => undefined, env: {} });
  try {
    let ms = 0;
    for (let i = 0; i < DRAINS; i++) {
      await emu.reseed(10_000);
      const t0 = performance.now();
      if (bare) {
        const pool = barePool(emu.url);
        await bareDrain(pool);
        await pool.close();
      } else {
        await provider.create({ all: true, baseUrl: emu.url, token: CREDS.token, runLogFile: "" });
      }
      ms += performance.now() - t0;
    }
    process.stdout.write(`${bare ? "bare" : "provider"}: ${(ms / DRAINS).toFixed(1)} ms per drain\n`);
  } finally {
    await emu.close();
  }
}

void main();
