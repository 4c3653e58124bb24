/**
 * Incident clean-up: the payments provider was down between 08:00 and 09:30 UTC and the
 * `orders` workflow's `charge-card` step failed for every order. Once it is back, this
 * program resumes exactly those runs, throttled so the provider is not flooded, with a
 * few more retries than usual. Review with `pulumi preview --diff`, apply with
 * `pulumi up`; the stack history records what was resumed, when and with which overrides.
 *
 *   pulumi config set svc:baseUrl http://127.0.0.1:8080
 *   pulumi config set --secret svc:token <token>
 *   pulumi config set outageStart 2026-11-20T08:00:00Z
 *   pulumi config set outageEnd 2026-11-20T09:30:00Z
 */
import * as pulumi from "@pulumi/pulumi";
import { DlqRecovery } from "pulumi-svc";

const config = new pulumi.Config();
const outageStart = Date.parse(config.require("outageStart"));
const outageEnd = Date.parse(config.require("outageEnd"));

const recovery = new DlqRecovery("orders-outage", {
  workflowUrl: config.get("workflowUrl") ?? "http://127.0.0.1/workflows/orders",
  fromDate: outageStart,
  toDate: outageEnd,
  // At most 5 resumed runs in parallel, 10 starts a second: the provider is still warming up.
  flowControl: { key: "orders-recovery", parallelism: 5, rate: 10, period: "1s" },
  retries: 5,
  // Bump to resume the same window again (for instance after a second fix).
  triggers: [config.get("attempt") ?? "1"],
});

export const resumedCount = recovery.resumedCount;
export const requestCount = recovery.requestCount;
export const complete = recovery.complete;
export const resumedRuns = recovery.resumedRuns;
