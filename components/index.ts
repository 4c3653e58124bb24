/**
 * Pulumi components for the svc durable-workflow queue service.
 *
 * @packageDocumentation
 */
export { Account } from "./Account";
export type { AccountArgs } from "./Account";
export { ACCOUNT_FIELDS } from "./accountFields";
export type { AccountOutputName, AccountRecordField } from "./accountFields";
export { SETTINGS as CONNECTION_SETTINGS } from "./connection";
export { DlqRecovery } from "./DlqRecovery";
export type { DlqRecoveryArgs, FlowControlArgs, ResumedRunOutput } from "./DlqRecovery";
export * from "./Workflow";
export { parseDuration, formatDuration } from "./duration";
