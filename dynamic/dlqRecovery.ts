/**
 * `pulumi-svc/providers/dlqRecovery`: the dynamic provider that a `DlqRecovery` of a stack written
 * by 0.2 names in its state (its `__provider` loads this module), so that such a stack still
 * refreshes, destroys, continues a cut-off drain and upgrades to the svc provider with no replace
 * (docs/upgrading.md). It goes in 1.0, which reads no 0.2 state.
 *
 * @packageDocumentation
 */
import "../client/requireNode"; // first: one clear error on a Node.js older than 22.19
import type * as pulumi from "@pulumi/pulumi";
import { DlqRecoveryController } from "../provider/dlqRecovery/controller";
import type { DlqRecoveryInputs, DlqRecoveryOutputs } from "../provider/dlqRecovery/inputs";
import {
  engineLivenessProbe,
  engineWarning,
  exitOrphanedProvider,
  exitWhenOutputCloses,
  withSerializedProvider,
} from "./engineProtocol";

/**
 * Warnings: the engine's, in a dynamic-provider process; else (or when the engine does not take
 * it) a line `warning: …` on stdout.
 */
function warnings(): (line: string) => void {
  const engine = engineWarning();
  return (line) => {
    const printed = () => console.log(`warning: ${line}`);
    if (engine === undefined) printed();
    else void engine(line).then((taken) => taken || printed());
  };
}

/** The DlqRecovery's logic as a dynamic provider: its drains run in the process's drain thread. */
export class DynamicDlqRecoveryProvider implements pulumi.dynamic.ResourceProvider {
  private readonly logic = new DlqRecoveryController({
    drainIn: "drain thread",
    warn: warnings(),
    engineAlive: engineLivenessProbe(),
    exitOrphaned: () => exitOrphanedProvider(),
  });

  /** The server calls it once, before the first operation: the process then watches its output. */
  async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
    exitWhenOutputCloses();
    await this.logic.configure(req.config);
  }
  check(olds: DlqRecoveryInputs, news: DlqRecoveryInputs): Promise<pulumi.dynamic.CheckResult> {
    return this.logic.check(olds, news);
  }
  diff(id: string, olds: DlqRecoveryOutputs, news: DlqRecoveryInputs): Promise<pulumi.dynamic.DiffResult> {
    return this.logic.diff(id, olds, news);
  }
  /** A drain cut off saves its state with the serialized provider, so the next up can continue it. */
  async create(inputs: DlqRecoveryInputs): Promise<pulumi.dynamic.CreateResult> {
    try {
      return await this.logic.create(inputs);
    } catch (e) {
      throw withSerializedProvider(e, inputs);
    }
  }
  async update(
    id: string,
    olds: DlqRecoveryOutputs,
    news: DlqRecoveryInputs,
  ): Promise<pulumi.dynamic.UpdateResult> {
    try {
      return await this.logic.update(id, olds, news);
    } catch (e) {
      throw withSerializedProvider(e, news);
    }
  }
  read(id: string, props: DlqRecoveryOutputs): Promise<pulumi.dynamic.ReadResult> {
    return this.logic.read(id, props);
  }
  delete(): Promise<void> {
    return this.logic.delete();
  }
}

/** The instance a 0.2 state's `__provider` loads. */
export const provider = new DynamicDlqRecoveryProvider();
