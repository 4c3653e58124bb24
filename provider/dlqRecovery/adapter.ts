/**
 * `svc:index:DlqRecovery` served by the svc provider: an adapter from the provider protocol's
 * calls to the one implementation of the DlqRecovery's logic, `DlqRecoveryController`
 * (`controller.ts`). What the protocol adds to that logic is here:
 *
 * - the resource's name comes from its URN (`recoveryName`, which the logic names it by in
 *   messages and run logs; never stored);
 * - progress lines and warnings go to the engine with the resource's URN, so they show on the
 *   DlqRecovery's own row, and each call's lines reach the engine before its answer;
 * - the engine's `Cancel` (Ctrl-C) and the resource's `customTimeouts` stop a running drain: no
 *   request is sent after them, those in flight are answered and recorded, and the partial state
 *   is saved ({@link ResourceInitError}); the next up continues it, each entry once;
 * - `token` is a secret input and never an output.
 *
 * @packageDocumentation
 */
import { DlqRecoveryController, type DlqRecoveryDeps } from "./controller";
import { ProviderProcess } from "../providerProcess";
import type { DlqRecoveryInputs, DlqRecoveryOutputs } from "./inputs";
import type { StackConfigReader } from "../../core/connection";
import type { Engine } from "../engine";
import {
  ResourceInitError,
  RowLog,
  nameOfUrn,
  type CheckResult,
  type Props,
  type ReadResult,
  type ResourceAdapter,
} from "../resource";

/** The input that is always a secret (and never an output). */
const TOKEN = "token";

/** `values` with the resource's name as `recoveryName`. */
function named(urn: string, values: Record<string, unknown>): Record<string, unknown> {
  return { ...values, recoveryName: nameOfUrn(urn) };
}

/**
 * The outputs to store: without the name (the URN's) and without the serialized provider a 0.2
 * dynamic resource stored beside them (`__provider`).
 */
function stored(values: Record<string, unknown>): Record<string, unknown> {
  const { recoveryName: _name, __provider: _provider, ...rest } = values;
  return rest;
}

/** The secrets of the outputs: the inputs that arrived secret, but the token (never stored). */
function outputSecrets(news: Props): Set<string> {
  return new Set([...news.secrets].filter((k) => k !== TOKEN));
}

/** The DlqRecovery resource of the svc provider. */
export class DlqRecoveryAdapter implements ResourceAdapter {
  private config: StackConfigReader | undefined;
  /** Aborted by `cancel`; each drain also listens to its own `customTimeouts`. */
  private cancelling = new AbortController();
  /** What every call's logic is built with; its `providerProcess` is the one of this provider. */
  private readonly deps: Partial<DlqRecoveryDeps> & Pick<DlqRecoveryDeps, "providerProcess">;

  /**
   * @param engine - the engine that started the provider (logs on the row, liveness)
   * @param deps - what the logic needs beside the engine (tests run drains in their own thread)
   */
  constructor(
    private readonly engine: Engine,
    deps: Partial<DlqRecoveryDeps> = { drainIn: "drain thread" },
  ) {
    // Every call's logic shares the process's rate gates, account limits and drain thread.
    this.deps = { ...deps, providerProcess: deps.providerProcess ?? new ProviderProcess() };
  }

  /** Takes the provider's configuration (the `svc:` stack config, or an explicit provider's inputs). */
  async configure(config: StackConfigReader): Promise<void> {
    this.config = config;
  }

  /** Stops every running drain, which saves its state; harmless when none runs. */
  async cancel(): Promise<void> {
    this.cancelling.abort();
    this.cancelling = new AbortController();
  }

  async check(urn: string, olds: Props, news: Props): Promise<CheckResult> {
    const log = new RowLog(this.engine, urn);
    const res = await this.logic(log).check(
      named(urn, olds.values) as DlqRecoveryInputs,
      named(urn, news.values) as DlqRecoveryInputs,
    );
    await log.flushed();
    const failures = (res.failures ?? []).map((f) => ({ property: f.property, reason: f.reason }));
    return { inputs: { values: news.values, secrets: new Set([...news.secrets, TOKEN]) }, failures };
  }

  async diff(id: string, urn: string, olds: Props, news: Props): Promise<boolean> {
    const log = new RowLog(this.engine, urn);
    const res = await this.logic(log).diff(
      id,
      named(urn, olds.values) as unknown as DlqRecoveryOutputs,
      named(urn, news.values) as DlqRecoveryInputs,
    );
    await log.flushed();
    return res.changes === true;
  }

  async create(
    urn: string,
    news: Props,
    preview: boolean,
    timeoutSeconds = 0,
  ): Promise<{ id: string; outputs: Props }> {
    return this.draining(urn, news, timeoutSeconds, async (logic, signal) => {
      const res = await logic.create(named(urn, news.values) as DlqRecoveryInputs, { preview, signal });
      return { id: res.id, outputs: { values: stored({ ...res.outs }), secrets: outputSecrets(news) } };
    });
  }

  async update(
    id: string,
    urn: string,
    olds: Props,
    news: Props,
    preview: boolean,
    timeoutSeconds = 0,
  ): Promise<Props> {
    return this.draining(urn, news, timeoutSeconds, async (logic, signal) => {
      const res = await logic.update(
        id,
        named(urn, olds.values) as unknown as DlqRecoveryOutputs,
        named(urn, news.values) as DlqRecoveryInputs,
        { preview, signal },
      );
      return { values: stored({ ...res.outs }), secrets: outputSecrets(news) };
    });
  }

  /**
   * `pulumi refresh`: the state as it is (the service has nothing to read back), less what a 0.2
   * dynamic resource stored beside it (its serialized provider, its name).
   */
  async read(id: string, _urn: string, props: Props, inputs: Props): Promise<ReadResult> {
    return {
      id,
      outputs: { values: stored(props.values), secrets: props.secrets },
      inputs: { values: stored(inputs.values), secrets: inputs.secrets },
    };
  }

  /** Deleting a DlqRecovery leaves the service untouched: resumed runs are not undone. */
  async delete(): Promise<void> {}

  /**
   * Runs `fn` (a create or an update that may drain) with a logic whose drain stops at a
   * `Cancel` or after `timeoutSeconds`; a drain cut off rejects with the state to save.
   */
  private async draining<T>(
    urn: string,
    news: Props,
    timeoutSeconds: number,
    fn: (logic: DlqRecoveryController, signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const log = new RowLog(this.engine, urn);
    const stops = [this.cancelling.signal];
    if (timeoutSeconds > 0) stops.push(AbortSignal.timeout(timeoutSeconds * 1000));
    try {
      return await fn(this.logic(log), AbortSignal.any(stops));
    } catch (e) {
      if (!(e instanceof ResourceInitError)) throw e;
      throw new ResourceInitError(e.message, e.id, stored(e.properties), e.reasons, outputSecrets(news));
    } finally {
      await log.flushed();
    }
  }

  /** The logic for one call: its lines on the resource's row. */
  private logic(log: RowLog): DlqRecoveryController {
    return new DlqRecoveryController(
      {
        ...this.deps,
        log: log.info,
        status: log.status,
        warn: log.warning,
        engineAlive: () => this.engine.alive(),
        exitOrphaned: this.deps.exitOrphaned ?? (() => setTimeout(() => process.exit(1), 200).unref()),
      },
      this.config,
    );
  }
}
