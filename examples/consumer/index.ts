/**
 * An application stack that consumes the account stack (../account) through a
 * StackReference: limits arrive as plain values, the token as a secret.
 *
 *   pulumi config set accountStack organization/svc-account/dev
 *   pulumi config set svc:baseUrl http://127.0.0.1:8080
 */
import * as pulumi from "@pulumi/pulumi";
import { DlqRecovery } from "pulumi-svc";

const config = new pulumi.Config();
const account = new pulumi.StackReference(config.require("accountStack"));

const maxParallelism = account.requireOutput("maxParallelism") as pulumi.Output<number>;
const token = account.requireOutput("token") as pulumi.Output<string>; // stays a secret

// Resume this application's failed runs, never above the plan's parallelism.
const recovery = new DlqRecovery("orders-recovery", {
  workflowUrl: config.get("workflowUrl") ?? "http://127.0.0.1/workflows/orders",
  flowControl: { key: "orders-recovery", parallelism: maxParallelism },
  token,
});

export const planParallelism = maxParallelism;
export const resumed = recovery.resumedCount;
