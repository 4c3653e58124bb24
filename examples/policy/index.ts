/**
 * The svc-limits policy pack at work. Two workflows whose trigger settings are checked
 * against the account's limits on every preview: the `passing` variant (the default) stays
 * within a free plan (max_parallelism 2, max_retries 999, max_delay 7 days); the `failing`
 * variant breaks all three limits at once.
 *
 * Against the emulator (from the repository root: `npm run build`, then
 * `npm run emulator -- --port 8080`, free plan by default), in this folder:
 *
 *   pulumi stack init dev
 *   pulumi config set svc:accountApiUrl http://127.0.0.1:8080
 *   pulumi config set svc:username emulator@example.com
 *   pulumi config set --secret svc:password emulator-password
 *
 *   pulumi preview --policy-pack ../../policies            # passes
 *   pulumi config set variant failing
 *   pulumi preview --policy-pack ../../policies            # fails: three mandatory violations
 *   pulumi preview --policy-pack ../../policies --policy-pack-config advisory.json   # warns, passes
 *   pulumi preview --policy-pack ../../policies --policy-pack-config static-limits.json
 *
 * The limits come from the live account record, read once per preview with the `svc:` config
 * above; `static-limits.json` pins some of them in the pack's config instead. See
 * docs/policies.md.
 */
import * as pulumi from "@pulumi/pulumi";
import { Workflow } from "pulumi-svc";

const config = new pulumi.Config();
const failing = config.get("variant") === "failing";
const workflowBaseUrl = config.get("workflowBaseUrl") ?? "http://127.0.0.1:3000/api";

const orders = new Workflow("orders", {
  url: `${workflowBaseUrl}/orders`,
  // failing: above max_retries (999 on the free plan), max_delay (7 days) and max_parallelism (2).
  retries: failing ? 1000 : 3,
  delay: failing ? "8d" : "10m",
  flowControl: { key: "orders", parallelism: failing ? 5 : 2, rate: 10, period: "1s" },
});

const emails = new Workflow("emails", {
  url: `${workflowBaseUrl}/emails`,
  retries: 2,
  delay: 60,
  flowControl: { key: "emails", parallelism: 1 },
});

/** What an application sends when it triggers each workflow. */
export const headers = { orders: orders.headers, emails: emails.headers };
