/**
 * Exports the svc account record (plan, limits, credentials) as stack outputs, so that
 * application stacks can read them through a StackReference (see ../consumer).
 *
 * Configure the account API before `pulumi up`:
 *   pulumi config set svc:accountApiUrl http://127.0.0.1:8080
 *   pulumi config set svc:username platform@example.com
 *   pulumi config set --secret svc:password <api key>
 */
import { Account } from "pulumi-svc";

const account = new Account("account");

export const accountId = account.accountId;
export const plan = account.type;
export const reservedType = account.reservedType;
export const state = account.state;
export const maxParallelism = account.maxParallelism;
export const maxGlobalParallelism = account.maxGlobalParallelism;
export const maxRetries = account.maxRetries;
export const maxDelay = account.maxDelay;
export const maxRequestsPerSecond = account.maxRequestsPerSecond;
export const maxDlqRetentionTimeMilis = account.maxDlqRetentionTimeMilis;
export const timeout = account.timeout;
/** A secret: `pulumi stack output token` shows `[secret]`. */
export const token = account.token;
