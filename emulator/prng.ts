/**
 * Small deterministic pseudo-random number generator (mulberry32) and helpers.
 *
 * Used wherever the emulator must be reproducible from a seed: DLQ seeding and fault injection.
 * Not for secrets; run IDs of resumed runs use `node:crypto` instead.
 */

/** A function returning a uniformly distributed float in [0, 1). */
export type Prng = () => number;

/**
 * Create a mulberry32 generator.
 *
 * @param seed - any number; only its low 32 bits are used.
 * @returns a generator; the same seed always yields the same sequence.
 */
export function mulberry32(seed: number): Prng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Combine two numbers into one 32-bit seed (used to derive independent streams from one seed).
 *
 * @param a - first component.
 * @param b - second component.
 * @returns a 32-bit unsigned integer.
 */
export function mixSeed(a: number, b: number): number {
  let h = Math.imul((a >>> 0) ^ 0x9e3779b9, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h ^ (b >>> 0), 0xc2b2ae35);
  h ^= h >>> 16;
  // Fold in the high bits of large (up to 2^53) inputs so that e.g. big sequence numbers still differ.
  h = Math.imul(h ^ Math.floor(a / 4294967296), 0x27d4eb2f);
  h = Math.imul(h ^ Math.floor(b / 4294967296), 0x165667b1);
  return (h ^ (h >>> 15)) >>> 0;
}

/**
 * Draw an integer in [min, max] (both inclusive).
 *
 * @param prng - the generator to draw from.
 * @param min - smallest value.
 * @param max - largest value, at least `min`.
 */
export function randomInt(prng: Prng, min: number, max: number): number {
  return min + Math.floor(prng() * (max - min + 1));
}

/** Two-digit lowercase hex of every byte value (number-to-hex via toString is slow on doubles). */
const BYTE_HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/**
 * Draw eight lowercase hex characters (32 random bits).
 *
 * @param prng - the generator to draw from.
 */
export function randomHex32(prng: Prng): string {
  const v = (prng() * 4294967296) >>> 0;
  return BYTE_HEX[v >>> 24] + BYTE_HEX[(v >>> 16) & 255] + BYTE_HEX[(v >>> 8) & 255] + BYTE_HEX[v & 255];
}
