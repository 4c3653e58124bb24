/**
 * {@link LimitsContext}: what the policies of one pack share — the live account record (read
 * at most once per run of the pack), the lookup of a limit through its sources, and the notes
 * the `account-limits-source` policy reports once at the end (limits that no source had, a live
 * source that failed).
 *
 * @packageDocumentation
 */
import type { PolicyResource } from "@pulumi/policy";
import { isLimitValue, type LimitField, type LimitSpec, type ResolvedLimit } from "./limits";
import { liveAccountFromSettings, type LiveAccountResult, type LiveAccountSource } from "./liveAccount";
import { ACCOUNT_TYPE } from "../core/tokens";
import { label, ofType, readNumber } from "./resources";

/** Options of {@link LimitsContext}; tests inject both. */
export interface LimitsContextOptions {
  /** Reads the live account record. Default: {@link liveAccountFromSettings} with stack config and env. */
  live?: LiveAccountSource;
  /** The current time, unix milliseconds. Default `Date.now`. */
  now?: () => number;
}

/** A limit that no source had, and the resources that needed it. */
export interface MissingLimit {
  readonly spec: LimitSpec;
  /** Labels of the resources that could not be checked, e.g. "Workflow `orders`". */
  readonly resources: Set<string>;
}

/** What happened while resolving limits in this run, for the one summary message. */
export interface RunNotes {
  /** The live source's outcome, when it was consulted. */
  live?: LiveAccountResult;
  /** Limits that no source had. */
  readonly missing: Map<LimitField, MissingLimit>;
  /** Account resources consulted whose limit values were not known (e.g. before their first up). */
  readonly pendingAccounts: Set<string>;
}

function freshNotes(): RunNotes {
  return { missing: new Map(), pendingAccounts: new Set() };
}

/** Shared state of the policies of one pack (one per pack process). */
export class LimitsContext {
  /** The current time, unix milliseconds. */
  readonly now: () => number;
  private readonly source: LiveAccountSource;
  private livePromise: Promise<LiveAccountResult> | undefined;
  private notes: RunNotes = freshNotes();

  /** @param options - the live source and clock; defaults read stack config/env and `Date.now` */
  constructor(options: LimitsContextOptions = {}) {
    this.source = options.live ?? liveAccountFromSettings();
    this.now = options.now ?? Date.now;
  }

  /**
   * The live account record, read on first use and remembered for the life of the pack process
   * (one preview or update): every policy shares one request. Never rejects.
   */
  liveAccount(): Promise<LiveAccountResult> {
    this.livePromise ??= this.source().catch((e: unknown): LiveAccountResult => ({
      status: "failed",
      message: e instanceof Error ? e.message : String(e),
    }));
    return this.livePromise;
  }

  /**
   * Finds a limit in its sources, in order: the policy's static config value, the live account
   * record, the `Account` resources of the stack (smallest known value). When none has it, the
   * limit is noted as missing for the summary and `undefined` is returned.
   *
   * @param spec - the limit
   * @param staticValue - the policy config's value for it (`spec.configKey`), if any
   * @param resources - every resource of the stack
   * @param needers - the resources to check against the limit (named in the summary when missing)
   */
  async resolve(
    spec: LimitSpec,
    staticValue: unknown,
    resources: readonly PolicyResource[],
    needers: readonly PolicyResource[],
  ): Promise<ResolvedLimit | undefined> {
    if (isLimitValue(staticValue)) {
      return {
        spec,
        value: staticValue,
        source: { kind: "config", policy: spec.policy, key: spec.configKey },
      };
    }
    const live = await this.liveAccount();
    this.notes.live = live;
    if (live.status === "ok") {
      const value: unknown = live.record[spec.field];
      if (isLimitValue(value)) return { spec, value, source: { kind: "live" } };
    }
    let best: ResolvedLimit | undefined;
    for (const account of ofType(resources, ACCOUNT_TYPE)) {
      const r = readNumber(account.props, [spec.output]);
      if (r.kind === "known" && isLimitValue(r.value)) {
        if (best === undefined || r.value < best.value) {
          best = { spec, value: r.value, source: { kind: "account", name: account.name, urn: account.urn } };
        }
      } else {
        this.notes.pendingAccounts.add(label(account));
      }
    }
    if (best !== undefined) return best;
    const missing = this.notes.missing.get(spec.field) ?? { spec, resources: new Set<string>() };
    for (const r of needers) missing.resources.add(label(r));
    this.notes.missing.set(spec.field, missing);
    return undefined;
  }

  /** Hands over the notes of this run and starts a new one. */
  takeNotes(): RunNotes {
    const notes = this.notes;
    this.notes = freshNotes();
    return notes;
  }
}
