/**
 * One timed drain with its CPU cost split by side: wall time, CPU of this process (the drain
 * side: client, provider, GC) and CPU of the emulator child process. In a sequential drain the
 * two sides take turns, so wall ≈ drain-side CPU + emulator CPU on a quiet machine; the CPU
 * figures stay meaningful when other processes load the machine and the wall time does not.
 */
import type { EmulatorProcess } from "./emulator";
import { processCpuMs } from "./emulator";
import { cpuMs, now, stat, type Stat } from "./stats";

/** One drain's costs, ms. */
export interface DrainSample {
  wall: number;
  cpu: number;
  emu: number;
}

/** Times `drain` (which must do the whole drain and nothing else). */
export async function sampleDrain(emu: EmulatorProcess, drain: () => Promise<void>): Promise<DrainSample> {
  const e0 = processCpuMs(emu.child.pid);
  const c0 = cpuMs();
  const t0 = now();
  await drain();
  const wall = now() - t0;
  const cpu = cpuMs() - c0;
  return { wall, cpu, emu: processCpuMs(emu.child.pid) - e0 };
}

/** Summary of a variant's samples. */
export interface DrainStats {
  wall: Stat;
  cpu: Stat;
  /** Median emulator CPU per drain. */
  emu: number;
}

export function drainStats(samples: DrainSample[]): DrainStats {
  return {
    wall: stat(
      samples.map((s) => s.wall),
      "ms",
    ),
    cpu: stat(
      samples.map((s) => s.cpu),
      "ms CPU",
    ),
    emu: stat(
      samples.map((s) => s.emu),
      "ms CPU",
    ).median,
  };
}

/**
 * The emulator's CPU per drain, shared by every variant: all of them send the same requests, so
 * the median over all their samples is the best estimate of the emulator's share.
 */
export function sharedEmu(samples: DrainSample[][]): number {
  return stat(
    samples.flat().map((x) => x.emu),
    "ms CPU",
  ).median;
}

/**
 * Quiet-machine estimate of the wall-time ratio: (drain-side CPU + emulator CPU) of the subject
 * over the same sum for the baseline, from the medians of this run and the shared emulator CPU.
 */
export function cpuRatio(subject: DrainStats, baseline: DrainStats, emu: number): number {
  return (subject.cpu.median + emu) / (baseline.cpu.median + emu);
}
