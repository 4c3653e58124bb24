/**
 * The run IDs the emulator (its seeding and entries added without one) and the benchmarks give
 * failed runs, in the shapes real accounts hold (`/work/shared/notes/service-behaviour.md`, "Data
 * shapes"):
 *
 * - `sdk` (the default): what the service's official workflow SDK makes, `wfr_` + a 21-character
 *   nanoid, each character drawn uniformly from the 64 characters `a-zA-Z0-9-_`;
 * - `app`: an application that passes its own ID when it triggers a run: `wfr_` + one of a few
 *   workflow names + `-` + a zero-padded sequence number that rises with the run's trigger time
 *   (per workflow name), so runs triggered together share a long prefix (`wfr_orders-0012345`);
 * - `mixed`: each run one of the two above, half each (one account may hold both);
 * - `numeric`: `wfr_` + ten decimal digits, a sequence number (an application's database IDs),
 *   rising with the trigger time like `app`'s;
 * - `hex`: `wfr_` + 16 hex digits, the IDs the emulator of 0.3.0 and earlier seeds.
 *
 * Deterministic: the same shape, generator and trigger times give the same IDs.
 */
import type { Prng } from "./prng";
import { randomHex32 } from "./prng";

/** The run-ID shapes, as `--run-ids` names them. */
export const RUN_ID_SHAPES = ["sdk", "app", "mixed", "numeric", "hex"] as const;

/** A run-ID shape. */
export type RunIdShape = (typeof RUN_ID_SHAPES)[number];

/** The shape used when none is given: the official SDK's. */
export const DEFAULT_RUN_ID_SHAPE: RunIdShape = "sdk";

/** The characters of the SDK's nanoid, in its order. */
export const SDK_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";

/** Characters of an SDK run ID after `wfr_`. */
export const SDK_ID_LENGTH = 21;

/** The workflow names of `app` IDs. */
export const APP_WORKFLOWS: readonly string[] = ["orders", "payments", "emails", "reports"];

/** Digits an `app` ID's sequence number is padded to. */
export const APP_SEQUENCE_DIGITS = 7;

/** Digits of a `numeric` ID. */
export const NUMERIC_DIGITS = 10;

/** Whether `x` names a run-ID shape. */
export function isRunIdShape(x: unknown): x is RunIdShape {
  return typeof x === "string" && (RUN_ID_SHAPES as readonly string[]).includes(x);
}

/** The `numeric` IDs' counter in {@link RunIdMaker}'s map of sequence numbers. */
const NUMERIC = "";

/**
 * Makes run IDs of one shape from a generator. Sequence numbers (`app`, `numeric`) continue
 * across calls; each workflow name's starts at a random number below 10^5, `numeric`'s below 10^9.
 */
export class RunIdMaker {
  private readonly next = new Map<string, number>();

  /**
   * @param shape - the shape of every ID made.
   * @param prng - the generator drawn from.
   */
  constructor(
    readonly shape: RunIdShape,
    private readonly prng: Prng,
  ) {}

  /**
   * IDs for runs triggered at `triggeredAt` (unix ms), one per run in the given order. `app`
   * sequence numbers rise with the trigger time (runs triggered in the same millisecond in the
   * given order), per workflow name.
   */
  name(triggeredAt: readonly number[]): string[] {
    const out: string[] = new Array<string>(triggeredAt.length);
    const numbered: { i: number; workflow: string }[] = [];
    for (let i = 0; i < triggeredAt.length; i++) {
      const kind = this.shape === "mixed" ? (this.prng() < 0.5 ? "sdk" : "app") : this.shape;
      if (kind === "app") numbered.push({ i, workflow: APP_WORKFLOWS[this.draw(APP_WORKFLOWS.length)] });
      else if (kind === "numeric") numbered.push({ i, workflow: NUMERIC });
      else out[i] = this.random(kind);
    }
    numbered.sort((a, b) => triggeredAt[a.i] - triggeredAt[b.i] || a.i - b.i);
    for (const { i, workflow } of numbered) out[i] = this.sequenced(workflow);
    return out;
  }

  private draw(n: number): number {
    return Math.floor(this.prng() * n);
  }

  private random(kind: "sdk" | "hex"): string {
    if (kind === "hex") return `wfr_${randomHex32(this.prng)}${randomHex32(this.prng)}`;
    let id = "wfr_";
    for (let k = 0; k < SDK_ID_LENGTH; k++) id += SDK_ALPHABET[this.draw(SDK_ALPHABET.length)];
    return id;
  }

  private sequenced(workflow: string): string {
    const seq = this.next.get(workflow) ?? 1 + this.draw(workflow === NUMERIC ? 999_999_999 : 99_999);
    this.next.set(workflow, seq + 1);
    if (workflow === NUMERIC) return `wfr_${String(seq).padStart(NUMERIC_DIGITS, "0")}`;
    return `wfr_${workflow}-${String(seq).padStart(APP_SEQUENCE_DIGITS, "0")}`;
  }
}
