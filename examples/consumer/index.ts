/**
 * An application stack that consumes the account stack (../account) through a
 * StackReference: limits arrive as plain values, the token as a secret.
 *
 *   pulumi config set accountStack organization/svc-account/dev
 *   pulumi config set svc:baseUrl http://127.0.0.1:8080
 *   pulumi preview --policy-pack ../../policies --policy-pack-config policy-config.json
 *
 * The policy pack checks the DlqRecovery against its own account's limits. This stack has no
 * Account resource and no `svc:` account settings (the password stays in the account stack), so
 * the pack takes the limits from its config, keyed by the account ID that `account` names:
 * `policy-config.json`, written for the emulator's account (`emulator@example.com`). For your
 * account, put the account stack's `pulumi stack output accountId` there, and its limits
 * (`pulumi stack output maxParallelism`, `maxGlobalParallelism`). Without it the preview fails
 * closed, naming exactly this config.
 */
import * as pulumi from "@pulumi/pulumi";
import { DlqRecovery } from "pulumi-svc";

const config = new pulumi.Config();
const account = new pulumi.StackReference(config.require("accountStack"));

const accountId = account.requireOutput("accountId") as pulumi.Output<string>;
const maxParallelism = account.requireOutput("maxParallelism") as pulumi.Output<number>;
const token = account.requireOutput("token") as pulumi.Output<string>; // stays a secret

// Resume this application's failed runs, never above the plan's parallelism.
const recovery = new DlqRecovery("orders-recovery", {
  workflowUrl: config.get("workflowUrl") ?? "http://127.0.0.1/workflows/orders",
  flowControl: { key: "orders-recovery", parallelism: maxParallelism },
  token,
  account: accountId, // checked against this account's limits in policy-config.json
});

export const planParallelism = maxParallelism;
export const resumed = recovery.resumedCount;
