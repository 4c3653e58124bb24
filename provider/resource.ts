/**
 * What the svc provider's server asks of each resource type it serves: the provider protocol's
 * resource calls, with properties as plain values and the names of those that are secrets
 * (`properties.ts` unwraps and wraps them). One adapter per type, registered in `server.ts`.
 *
 * @packageDocumentation
 */
import type { StackConfigReader } from "../core/connection";
import type { Engine, Severity } from "./engine";

/** A resource's name: the last part of its URN (`urn:pulumi:dev::proj::svc:index:Account::account`). */
export function nameOfUrn(urn: string): string {
  return urn.slice(urn.lastIndexOf("::") + 2);
}

/** Properties and the names of those that are secrets. */
export interface Props {
  readonly values: Record<string, unknown>;
  readonly secrets: ReadonlySet<string>;
}

/** A check failure: the property (empty for the resource as a whole) and the reason. */
export interface Failure {
  readonly property: string;
  readonly reason: string;
}

/** The result of `check`. */
export interface CheckResult {
  readonly inputs: Props;
  readonly failures: ReadonlyArray<Failure>;
}

/** The result of `read`: the ID, the outputs and the inputs (`pulumi refresh`, `pulumi import`). */
export interface ReadResult {
  readonly id: string;
  readonly outputs: Props;
  readonly inputs: Props;
}

/**
 * What a create or update is asked beside its inputs: whether it is a preview (nothing is sent
 * that changes the service; unknown outputs stay unknown), and the signal that stops it (the
 * engine's `Cancel`, the resource's `customTimeouts`).
 */
export interface Operation {
  readonly preview?: boolean;
  readonly signal?: AbortSignal;
}

/**
 * A create or update that failed part-way: the engine saves `properties` as the resource's state,
 * with `reasons` as its init errors (the protocol's `ErrorResourceInitFailed`, which `server.ts`
 * sends), so nothing done so far is lost and the next up continues from it. The one partial-state
 * error: a resource's logic throws it, its adapter names the secrets of the state.
 */
export class ResourceInitError extends Error {
  /**
   * @param message - what happened and what to do
   * @param id - the resource's ID
   * @param properties - the state to save
   * @param reasons - the init errors to record
   * @param secrets - the names of the properties that are secrets
   */
  constructor(
    message: string,
    readonly id: string,
    readonly properties: Record<string, unknown>,
    readonly reasons: readonly string[] = [message],
    readonly secrets: ReadonlySet<string> = new Set(),
  ) {
    super(message);
    this.name = "ResourceInitError";
  }

  /** The state to save, with its secrets named. */
  get outputs(): Props {
    return { values: this.properties, secrets: this.secrets };
  }
}

/** One resource type served by the provider (its logic lives in its folder: `account/`, `dlqRecovery/`). */
export interface ResourceAdapter {
  /** Takes the provider's configuration (the `svc:` stack config, or an explicit provider's inputs). */
  configure(config: StackConfigReader): Promise<void>;
  /** Stops what runs (the engine's `Cancel`, also sent at every normal shutdown); harmless when idle. */
  cancel(): Promise<void>;
  check(urn: string, olds: Props, news: Props): Promise<CheckResult>;
  /** True when the resource changed (the next up updates it; never a replacement). */
  diff(id: string, urn: string, olds: Props, news: Props): Promise<boolean>;
  /**
   * @param timeoutSeconds - the resource's `customTimeouts` for this call (0: none)
   * @throws ResourceInitError when it failed part-way, with the state to save
   */
  create(
    urn: string,
    news: Props,
    preview: boolean,
    timeoutSeconds?: number,
  ): Promise<{ id: string; outputs: Props }>;
  /** @throws ResourceInitError when it failed part-way, with the state to save */
  update(
    id: string,
    urn: string,
    olds: Props,
    news: Props,
    preview: boolean,
    timeoutSeconds?: number,
  ): Promise<Props>;
  read(id: string, urn: string, props: Props, inputs: Props): Promise<ReadResult>;
  delete(id: string, urn: string, props: Props): Promise<void>;
}

/** One call's lines, sent to the engine on the resource's row; `flushed` waits for them all. */
export class RowLog {
  /** The lines are sent one after the other: concurrent calls could reach the engine out of order. */
  private last: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly engine: Engine,
    private readonly urn: string,
  ) {}

  readonly info = (line: string): void => this.send("info", line);
  /** A progress line: on the row while the step runs, not in the update's diagnostics. */
  readonly status = (line: string): void => this.send("status", line);
  readonly warning = (line: string): void => this.send("warning", line);

  /** Resolves once every line sent so far was answered by the engine. */
  async flushed(): Promise<void> {
    await this.last;
  }

  private send(severity: Severity, line: string): void {
    this.last = this.last.then(() => this.engine.log(this.urn, severity, line));
  }
}
