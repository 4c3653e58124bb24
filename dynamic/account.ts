/**
 * `pulumi-svc/providers/account`: the dynamic provider that an `Account` of a stack written by 0.2
 * names in its state (its `__provider` loads this module), so that such a stack still refreshes,
 * destroys and upgrades to the svc provider with no replace (docs/upgrading.md). It goes in 1.0,
 * which reads no 0.2 state.
 *
 * @packageDocumentation
 */
import "../client/requireNode"; // first: one clear error on a Node.js older than 22.19
import type * as pulumi from "@pulumi/pulumi";
import { AccountController, type AccountInputs, type AccountOutputs } from "../provider/account/controller";
import { exitWhenOutputCloses } from "./engineProtocol";

/** The Account's logic as a dynamic provider. */
export class DynamicAccountProvider implements pulumi.dynamic.ResourceProvider {
  private readonly logic = new AccountController();

  /** The server calls it once, before the first operation: the process then watches its output. */
  async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
    exitWhenOutputCloses();
    await this.logic.configure(req.config);
  }
  check(olds: AccountInputs, news: AccountInputs): Promise<pulumi.dynamic.CheckResult> {
    return this.logic.check(olds, news);
  }
  diff(id: string, olds: AccountOutputs, news: AccountInputs): Promise<pulumi.dynamic.DiffResult> {
    return this.logic.diff(id, olds, news);
  }
  create(inputs: AccountInputs): Promise<pulumi.dynamic.CreateResult> {
    return this.logic.create(inputs);
  }
  update(id: string, olds: AccountOutputs, news: AccountInputs): Promise<pulumi.dynamic.UpdateResult> {
    return this.logic.update(id, olds, news);
  }
  read(id: string, props: AccountOutputs): Promise<pulumi.dynamic.ReadResult> {
    return this.logic.read(id, props);
  }
  delete(): Promise<void> {
    return this.logic.delete();
  }
}

/** The instance a 0.2 state's `__provider` loads. */
export const provider = new DynamicAccountProvider();
