/**
 * The quickstart program (the root Pulumi.yaml runs it): an Account, three Workflows
 * sized within the account's limits, and a DlqRecovery that resumes the failed runs of
 * the DLQ, with stack outputs meant for other stacks.
 *
 * Config (set by `npm start` for the emulator; set them yourself for the real service):
 *   svc:accountApiUrl, svc:username, svc:password (secret)   → Account
 *   svc:baseUrl, svc:token (secret)                          → DlqRecovery
 *   workflowBaseUrl                                          → where your workflows are served
 */
import * as pulumi from "@pulumi/pulumi";
import { Account, DlqRecovery, Workflow } from "pulumi-svc";

const config = new pulumi.Config();
const workflowBaseUrl = config.get("workflowBaseUrl") ?? "http://127.0.0.1/workflows";

const account = new Account("account");

const workflows = [
  new Workflow("orders", {
    url: `${workflowBaseUrl}/orders`,
    retries: 3,
    delay: "10s",
    flowControl: { key: "orders", parallelism: 2 },
  }),
  new Workflow("payments", {
    url: `${workflowBaseUrl}/payments`,
    retries: 5,
    flowControl: { key: "payments", parallelism: 1, rate: 10, period: "1s" },
  }),
  new Workflow("emails", { url: `${workflowBaseUrl}/emails`, retries: 2, delay: 60 }),
];

// Resume the whole backlog, at most 2 resumed runs in parallel, 3 retries each.
const recovery = new DlqRecovery("backlog", {
  all: true,
  flowControl: { key: "backlog-recovery", parallelism: 2 },
  retries: 3,
});

// For other stacks (StackReference): the plan, its limits, and the token as a secret.
export const plan = account.type;
export const maxParallelism = account.maxParallelism;
export const maxGlobalParallelism = account.maxGlobalParallelism;
export const maxRetries = account.maxRetries;
export const maxDelay = account.maxDelay;
export const maxRequestsPerSecond = account.maxRequestsPerSecond;
export const token = account.token;
export const workflowHeaders = pulumi
  .all(workflows.map((w) => pulumi.all([w.url, w.headers])))
  .apply((pairs) => Object.fromEntries(pairs));
export const resumedCount = recovery.resumedCount;
export const requestCount = recovery.requestCount;
export const recoveryStartedAt = recovery.startedAt;
export const recoveryFinishedAt = recovery.finishedAt;
