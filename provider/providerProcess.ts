/**
 * What one provider process shares between its resources' operations, held in one object that
 * the provider passes to each of them, so nothing of it lives in a module and tests build their
 * own: the rate gates (the drains of one account pace together), the account limits drains read
 * (one read per account) and the drain thread.
 *
 * @packageDocumentation
 */
import { RateGateRegistry } from "../drain";
import { AccountLimitsCache } from "../core/accountClient";
import { DrainThread } from "./dlqRecovery/drainThread";

/** The state one provider process shares between its operations. */
export class ProviderProcess {
  /** One rate gate per account, for the drains that run in the provider's thread. */
  readonly rateGates = new RateGateRegistry();
  /** The account limits drains read, one read per account; a failed read is asked again. */
  readonly accountLimits = new AccountLimitsCache();
  private thread: DrainThread | undefined;

  /** The process's drain thread (its worker starts at the first drain sent to it). */
  drainThread(): DrainThread {
    this.thread ??= new DrainThread();
    return this.thread;
  }
}
