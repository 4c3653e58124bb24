/**
 * Pulumi components for the svc durable-workflow queue service: the public API of the package
 * (`pulumi-svc`). Everything else in `components/` is internal.
 *
 * @packageDocumentation
 */
import "../client/requireNode"; // first: one clear error on a Node.js older than 22.19
export { Account } from "./Account";
export type { AccountArgs, AccountRecordOutputs } from "./Account";
export { ACCOUNT_FIELDS, ACCOUNT_RECORD_FIELDS, OUTPUT_OF_ACCOUNT_FIELD } from "../core/accountFields";
export type { AccountOutputName, AccountRecordField } from "../core/accountFields";
export { SETTINGS as CONNECTION_SETTINGS } from "../core/connection";
export { DlqRecovery } from "./DlqRecovery";
export type { DlqRecoveryArgs } from "./DlqRecovery";
export type {
  DlqRecoveryResults,
  DlqSelectionArgs,
  FlowControlArgs,
  ResumedRunOutput,
} from "../core/resources/dlqRecovery";
export { Provider } from "./Provider";
export type { ProviderArgs } from "./Provider";
export { Workflow, DELAY_HEADER } from "./Workflow";
export type { WorkflowArgs, WorkflowFlowControl, WorkflowFlowControlArgs } from "./Workflow";
export {
  ACCOUNT_DYNAMIC_TYPE,
  ACCOUNT_PROVIDER_TYPE,
  DLQ_RECOVERY_DYNAMIC_TYPE,
  DLQ_RECOVERY_PROVIDER_TYPE,
  WORKFLOW_TYPE,
} from "../core/typeTokens";
/** @deprecated Since 0.4.0: renamed {@link ACCOUNT_DYNAMIC_TYPE} (the 0.2 token). */
export { ACCOUNT_DYNAMIC_TYPE as ACCOUNT_TYPE } from "../core/typeTokens";
/** @deprecated Since 0.4.0: renamed {@link DLQ_RECOVERY_DYNAMIC_TYPE} (the 0.2 token). */
export { DLQ_RECOVERY_DYNAMIC_TYPE as DLQ_RECOVERY_TYPE } from "../core/typeTokens";
export { parseDuration, formatDuration } from "../core/duration";
