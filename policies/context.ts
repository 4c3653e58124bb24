/**
 * {@link LimitsContext}: what the policies of one pack share — the live account records (each
 * read at most once per account per run of the pack), the lookup of a limit for one resource's
 * account through its sources, and the notes the `account-limits-source` policy reports once at
 * the end (checks that could not run, and why).
 *
 * @packageDocumentation
 */
import type { PolicyResource } from "@pulumi/policy";
import type { AccountConnectionInputs } from "../core/accountClient";
import { sentences } from "../client/messageText";
import {
  accountIdOf,
  accountResources,
  connectionOf,
  type AccountConnection,
  type Binding,
} from "./accounts";
import { fixKey, type ConfigFix } from "./configFix";
import {
  describeSource,
  isLimitValue,
  type AccountLimitsConfig,
  type LimitSpec,
  type ResolvedLimit,
} from "./limits";
import {
  describeLive,
  liveAccountFromSettings,
  type LiveAccountResult,
  type LiveAccountSource,
} from "./liveAccount";
import { isOfKind, label, readNumber, type UnknownValues } from "./resources";
import { freshNotes, type RunNotes } from "./runNotes";

export type { DeferredChecks, RunNotes, StrictestChecks, UncheckedChecks } from "./runNotes";

/** Options of {@link LimitsContext}; tests inject both. */
export interface LimitsContextOptions {
  /** Reads a live account record. Default: {@link liveAccountFromSettings} with stack config and env. */
  live?: LiveAccountSource;
  /** The current time, unix milliseconds. Default `Date.now`. */
  now?: () => number;
}

/** A limit policy's config as the context reads it: the static limit and the `accounts` option. */
export type LimitPolicyConfig = Record<string, unknown> & { accounts?: AccountLimitsConfig };

/** The outcome of looking up one limit for one resource's account. */
export type Resolution =
  | { readonly kind: "ok"; readonly limit: ResolvedLimit }
  | {
      readonly kind: "unchecked";
      /** Why no source had the limit, in words, without credentials. */
      readonly cause: string;
      /** True when only values unknown during preview are missing: a Workflow check may wait for `up`. */
      readonly deferrable: boolean;
      /** The pack config that would give the check its limit, when one would. */
      readonly fix?: ConfigFix;
    };

function unchecked(cause: string, deferrable = false): Resolution {
  return { kind: "unchecked", cause, deferrable };
}

/** Shared state of the policies of one pack (one per pack process, i.e. one preview or update). */
export class LimitsContext {
  /** The current time, unix milliseconds. */
  readonly now: () => number;
  private readonly source: LiveAccountSource;
  private readonly reads = new Map<string, Promise<LiveAccountResult>>();
  private notes: RunNotes = freshNotes();

  /** @param options - the live source and clock; defaults read stack config/env and `Date.now` */
  constructor(options: LimitsContextOptions = {}) {
    this.source = options.live ?? liveAccountFromSettings();
    this.now = options.now ?? Date.now;
  }

  /**
   * A live account record, read on first use and remembered for the life of the pack process:
   * every policy shares one request per account. Never rejects.
   *
   * @param key - the account: `"stack"` or an Account's URN
   * @param inputs - its settings (`{}` for the stack's `svc:` account)
   */
  liveAccount(key = "stack", inputs: AccountConnectionInputs = {}): Promise<LiveAccountResult> {
    let read = this.reads.get(key);
    if (read === undefined) {
      read = this.source(inputs).catch((e: unknown): LiveAccountResult => ({
        status: "failed",
        message: e instanceof Error ? e.message : String(e),
      }));
      this.reads.set(key, read);
    }
    return read;
  }

  /**
   * Starts reading the stack's account record now (the pack calls it once it serves the engine,
   * so the read overlaps the program). An outcome without settings is not kept: a later call
   * looks for them again.
   */
  prefetch(): void {
    void this.liveAccount().then((live) => {
      if (live.status === "not-configured" || live.status === "incomplete") this.reads.delete("stack");
    });
  }

  /** The stack's `svc:` account, noted for the summary. */
  private async stackLive(): Promise<LiveAccountResult> {
    const live = await this.liveAccount();
    this.notes.live = live;
    return live;
  }

  /**
   * Finds a limit for a resource's account, in order: the policy's static option, its `accounts`
   * option (by account ID), the account's live record, the Account resource's outputs.
   *
   * @param spec - the limit
   * @param config - the checking policy's config
   * @param resources - every resource of the stack
   * @param binding - the resource's account
   */
  async resolve(
    spec: LimitSpec,
    config: LimitPolicyConfig,
    resources: readonly PolicyResource[],
    binding: Binding,
  ): Promise<Resolution> {
    const staticValue = config[spec.configKey];
    if (isLimitValue(staticValue)) {
      return {
        kind: "ok",
        limit: {
          spec,
          value: staticValue,
          source: { kind: "config", policy: spec.policy, key: spec.configKey },
        },
      };
    }
    const statically: ConfigFix = { kind: "static" };
    const pending = "its `account` is unknown until the resources it depends on are created";
    if (binding.kind === "unknown") return withFix(unchecked(pending, true), statically);
    if (binding.kind === "invalid") return unchecked(binding.problem);
    const ref = binding.ref;
    if (ref.kind === "stack") return withFix(await this.resolveStack(spec, config, resources), statically);
    if (ref.kind === "id") {
      const byId: ConfigFix = { kind: "accounts", id: ref.id };
      return withFix(await this.resolveId(spec, config, resources, ref.id), byId);
    }
    const account = accountResources(resources).find((r) => r.urn === ref.urn);
    if (account === undefined) return unchecked(`its Account \`${ref.name}\` is not in this stack`);
    const id = accountIdOf(account);
    const fix: ConfigFix = id === undefined ? statically : { kind: "accounts", id };
    return withFix(await this.resolveAccount(spec, config, account), fix);
  }

  /** A resource without `account`: the stack's `svc:` account, else the strictest of the Accounts. */
  private async resolveStack(
    spec: LimitSpec,
    config: LimitPolicyConfig,
    resources: readonly PolicyResource[],
  ): Promise<Resolution> {
    const live = await this.stackLive();
    if (live.status === "ok" && isLimitValue(live.record[spec.field])) {
      return { kind: "ok", limit: { spec, value: live.record[spec.field], source: { kind: "live" } } };
    }
    const stackCause = `the live account record ${describeLive(live)}`;
    const accounts = accountResources(resources);
    if (accounts.length === 0)
      return unchecked(sentences(stackCause, "there is no Account resource in this stack"));
    const each = await Promise.all(accounts.map((a) => this.resolveAccount(spec, config, a)));
    const failed = each.filter((r) => r.kind === "unchecked");
    if (failed.length > 0) {
      const causes = failed.map((r) => r.cause).join("; ");
      // Waiting for an Account's outputs: say only that; anything else also says why the stack's source failed.
      if (failed.every((r) => r.deferrable)) return unchecked(causes, true);
      return unchecked(sentences(stackCause, ...failed.map((r) => r.cause)));
    }
    const limits = each.map((r) => (r as { limit: ResolvedLimit }).limit);
    if (limits.length === 1) return { kind: "ok", limit: limits[0] };
    const value = Math.min(...limits.map((l) => l.value));
    const of = accounts.map((a, i) => ({ name: a.name, value: limits[i].value }));
    return { kind: "ok", limit: { spec, value, source: { kind: "strictest", of } } };
  }

  /** A resource bound to an account ID. */
  private async resolveId(
    spec: LimitSpec,
    config: LimitPolicyConfig,
    resources: readonly PolicyResource[],
    id: string,
  ): Promise<Resolution> {
    const configured = config.accounts?.[id];
    if (isLimitValue(configured)) {
      return {
        kind: "ok",
        limit: { spec, value: configured, source: { kind: "accounts-config", policy: spec.policy, id } },
      };
    }
    const live = await this.stackLive();
    if (live.status === "ok" && live.record.id === id && isLimitValue(live.record[spec.field])) {
      return { kind: "ok", limit: { spec, value: live.record[spec.field], source: { kind: "live" } } };
    }
    const account = accountResources(resources).find((a) => accountIdOf(a) === id);
    if (account !== undefined) return this.resolveAccount(spec, config, account);
    const stack =
      live.status === "ok"
        ? `the stack's \`svc:\` settings read the account ${JSON.stringify(live.record.id)}`
        : `the live account record ${describeLive(live)}`;
    return unchecked(
      // One cause for every limit of the account: the pack config to add is named once, below the causes.
      `no source has the limits of the account ${JSON.stringify(id)}: the policy pack config has none under ` +
        `"accounts" for it, no Account resource of this stack has that accountId, and ${stack}`,
    );
  }

  /** A resource bound to an Account resource: that Account's own settings, then its outputs. */
  private async resolveAccount(
    spec: LimitSpec,
    config: LimitPolicyConfig,
    account: PolicyResource,
  ): Promise<Resolution> {
    const id = accountIdOf(account);
    const configured = id === undefined ? undefined : config.accounts?.[id];
    if (id !== undefined && isLimitValue(configured)) {
      return {
        kind: "ok",
        limit: { spec, value: configured, source: { kind: "accounts-config", policy: spec.policy, id } },
      };
    }
    const connection = connectionOf(account);
    const live = await this.accountLive(account, connection);
    if (live?.status === "ok" && isLimitValue(live.record[spec.field])) {
      return {
        kind: "ok",
        limit: { spec, value: live.record[spec.field], source: { kind: "account-live", name: account.name } },
      };
    }
    const out = readNumber(account.props, [spec.output]);
    if (out.kind === "known" && isLimitValue(out.value)) {
      return {
        kind: "ok",
        limit: { spec, value: out.value, source: { kind: "account", name: account.name, urn: account.urn } },
      };
    }
    const name = `the Account \`${account.name}\``;
    if (connection.kind === "partial") {
      const why =
        `${name} sets ${connection.own.map((k) => `\`${k}\``).join(", ")} but not ` +
        `${connection.missing.map((k) => `\`${k}\``).join(", ")}, so its record is not read (the pack reads it ` +
        "only with the Account's own URL, username and password together, or with the stack's `svc:` settings " +
        "when it sets none of them)";
      return out.kind === "unknown"
        ? unchecked(`${why}, and its outputs are unknown until its first \`pulumi up\``, true)
        : unchecked(why);
    }
    if (connection.kind === "unknown") {
      return unchecked(
        `a setting of ${name} is computed from another resource's output, so neither its record nor its ` +
          "outputs can be read before `pulumi up`",
        true,
      );
    }
    if (live === undefined || live.status === "not-configured") {
      return unchecked(
        `${name} has no known values yet (its settings and outputs are unknown until its first \`pulumi up\`)`,
        true,
      );
    }
    return unchecked(`the live record of ${name} ${describeLive(live)}`);
  }

  /**
   * Why an Account's live record cannot be read with the settings it has now, or `undefined` when
   * it can (or when they are not all known, or taken from two sources: the pack does not read it
   * then). For `account-limits-source`'s check of each Account as it is registered: a preview
   * that fails on that Account (its provider reads the same record) never reaches the stack
   * policies, so the policy section would otherwise read as a pass.
   */
  async accountReadFailure(account: PolicyResource): Promise<string | undefined> {
    const live = await this.accountLive(account, connectionOf(account));
    if (live === undefined || live.status === "ok") return undefined;
    return `the live record of the Account \`${account.name}\` ${describeLive(live)}`;
  }

  /** An Account's live record, with its own settings or the stack's; `undefined` when it cannot be read. */
  private accountLive(account: PolicyResource, c: AccountConnection): Promise<LiveAccountResult> | undefined {
    if (c.kind === "own") return this.liveAccount(account.urn, c.inputs);
    if (c.kind !== "stack") return undefined;
    // The stack's settings: the stack's own read, unless the Account relaxes the transport rule.
    return c.allowInsecureHttp
      ? this.liveAccount(account.urn, { allowInsecureHttp: true })
      : this.liveAccount();
  }

  /**
   * Settles a check: one whose limit was found against the strictest of several Accounts is
   * noted for `account-limits-strictest`. One whose limit was not found: a Workflow waits for `up`
   * when only unknown values are missing (noted once for the whole run, which
   * `account-limits-source` reports in one sentence, not once per limit policy); anything else is
   * noted as unchecked, which fails the preview through `account-limits-source`. A DlqRecovery
   * never waits: its drain cannot be undone.
   */
  settle(spec: LimitSpec, resource: PolicyResource, res: Resolution): void {
    if (res.kind === "ok") {
      if (res.limit.source.kind === "strictest") this.noteStrictest(res.limit, resource);
      return;
    }
    if (res.deferrable && isOfKind(resource, "Workflow")) {
      this.noteDeferred(spec, resource, res.cause);
    } else {
      this.noteUnchecked(spec, [resource], res.deferrable ? neverDeferred(res.cause) : res.cause, res.fix);
    }
  }

  /**
   * Settles a checked value that is unknown during preview: a Workflow's is reported as unknown
   * (the check runs again on `up`); a DlqRecovery's fails closed.
   */
  settleUnknownValue(
    spec: LimitSpec,
    resource: PolicyResource,
    property: string,
    unknowns: UnknownValues,
  ): void {
    if (isOfKind(resource, "Workflow")) unknowns.add(resource, property);
    else
      this.noteUnchecked(
        spec,
        [resource],
        neverDeferred(`its \`${property}\` is unknown during this preview`),
      );
  }

  /**
   * Notes checks that could not run, for the summary of `account-limits-source`.
   *
   * @param fix - the pack config that would give them their limit, when one would
   */
  noteUnchecked(spec: LimitSpec, resources: readonly PolicyResource[], cause: string, fix?: ConfigFix): void {
    const key = `${spec.field}\n${cause}`;
    const entry = this.notes.unchecked.get(key) ?? {
      spec,
      cause,
      resources: new Set<string>(),
      fixes: new Map<string, ConfigFix>(),
    };
    for (const r of resources) entry.resources.add(label(r));
    if (fix !== undefined) entry.fixes.set(fixKey(fix), fix);
    this.notes.unchecked.set(key, entry);
  }

  /** Notes a Workflow check left to `up` (its account's limit unknown in preview), for `account-limits-source`. */
  private noteDeferred(spec: LimitSpec, resource: PolicyResource, cause: string): void {
    const entry = this.notes.deferred.get(cause) ?? {
      cause,
      fields: new Set<string>(),
      resources: new Set<string>(),
    };
    entry.fields.add(spec.field);
    entry.resources.add(label(resource));
    this.notes.deferred.set(cause, entry);
  }

  /** Notes a check that ran against the strictest of several Accounts, for `account-limits-strictest`. */
  private noteStrictest(limit: ResolvedLimit, resource: PolicyResource): void {
    const entry = this.notes.strictest.get(limit.spec.field) ?? {
      spec: limit.spec,
      source: describeSource(limit.source),
      resources: new Set<string>(),
    };
    entry.resources.add(label(resource));
    this.notes.strictest.set(limit.spec.field, entry);
  }

  /** The notes of this run so far, left in place (`account-limits-source` takes them last). */
  peekNotes(): RunNotes {
    return this.notes;
  }

  /** Hands over the notes of this run and starts a new one. */
  takeNotes(): RunNotes {
    const notes = this.notes;
    this.notes = freshNotes();
    return notes;
  }
}

/** A cause, with why a DlqRecovery does not wait for `up`. */
function neverDeferred(cause: string): string {
  return sentences(cause, "a DlqRecovery is never deferred to `up` (its drain cannot be undone)");
}

/** An unchecked resolution with the pack config that would fix it; any other as it is. */
function withFix(res: Resolution, fix: ConfigFix): Resolution {
  return res.kind === "unchecked" ? { ...res, fix } : res;
}
