/**
 * The error of a drain that stopped: the failure's code and HTTP context, and what was done
 * before it ({@link DrainError.partial}), to continue from.
 *
 * @packageDocumentation
 */
import { SvcError, type SvcErrorCode, type SvcErrorDetails } from "../client/errors";
import type { DrainProgress } from "./types";

/**
 * A failure in the middle of {@link DrainClient.drain} or {@link DrainClient.resumeByIds}.
 * `partial` holds everything that was resumed before the failure. The code, status and
 * HTTP context are those of the underlying failure, which is also the `cause`.
 */
export class DrainError extends SvcError {
  /** What was done before the failure: the runs, counts, and where to continue. */
  readonly partial: DrainProgress;

  /**
   * @param code - stable error code (usually that of the cause)
   * @param message - credential-free message
   * @param partial - progress made before the failure
   * @param details - HTTP context
   */
  constructor(code: SvcErrorCode, message: string, partial: DrainProgress, details: SvcErrorDetails = {}) {
    super(code, message, details);
    this.name = "DrainError";
    this.partial = partial;
  }

  /**
   * Wraps a failure that happened mid-drain, keeping the underlying code and HTTP context.
   *
   * @param error - the failure (an {@link SvcError}, or anything thrown by a callback)
   * @param partial - progress made before the failure
   * @param what - the operation, e.g. `"the drain"`
   */
  static wrap(error: unknown, partial: DrainProgress, what: string): DrainError {
    const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;
    const lost =
      partial.ambiguousRequests > 0
        ? `; ${plural(partial.ambiguousRequests, "request")} lost an answer and may have resumed runs not counted`
        : "";
    const summary =
      `${what} stopped after ${plural(partial.requestCount, "request")} that resumed ` +
      `${plural(partial.resumedCount, "run")}${lost}; resumed entries have left the DLQ, ` +
      "so continuing resumes none of them twice";
    if (error instanceof SvcError) {
      return new DrainError(error.code, `${error.message} (${summary})`, partial, {
        status: error.status,
        serviceMessage: error.serviceMessage,
        method: error.method,
        url: error.url,
        retryable: error.retryable,
        ambiguous: error.ambiguous,
        attempts: error.attempts,
        dailyLimit: error.dailyLimit,
        resetAt: error.resetAt,
        cause: error,
      });
    }
    return new DrainError("SVC_CALLBACK_FAILED", `The onPage callback threw (${summary})`, partial, {
      cause: error,
    });
  }

  /** @inheritDoc */
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), partial: this.partial };
  }
}
