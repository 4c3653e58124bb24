/**
 * The contract between the `/v2` pipeline (`request-pipeline.ts`) and its endpoint handlers
 * (`resume-endpoint.ts`, `account-endpoint.ts`): what a handler gets and what it returns. Kept
 * in its own module so that the pipeline imports the handlers and the handlers import only this
 * (no import cycle).
 */
import type { IncomingMessage } from "node:http";
import type { FaultPlan } from "./faults";
import type { LoggedRequest } from "./request-log";
import type { EmulatorState } from "./state";

/** What an endpoint gets. */
export interface V2Context {
  readonly state: EmulatorState;
  readonly req: IncomingMessage;
  readonly url: URL;
  /** The request body text ("" when none). */
  readonly body: string;
  /** The faults decided for this request. */
  readonly plan: FaultPlan;
  /** The request's log entry (index, and fields the endpoint may fill in). */
  readonly logEntry: LoggedRequest;
}

/** What an endpoint returns. */
export type V2Result =
  | { readonly kind: "json"; readonly status: number; readonly body: unknown }
  /** The work was committed, but the response must be lost (socket destroyed). */
  | { readonly kind: "lost" };
