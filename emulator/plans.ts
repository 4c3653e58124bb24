/**
 * Account plan presets: the limit and plan fields of the account record per plan.
 *
 * - `free`: the service's published example of a free account, verbatim.
 * - `fixed`: the published example of a paid fixed-price account (matches the "Fixed 1M" column
 *   of the plan table); `reserved_type` "svc_enterprise_1m" and `prod_pack_enabled` true are
 *   emulator choices (the example does not show them).
 * - `paid`: the same published paid record as `fixed` (500 requests a second), under the name the
 *   tests and benchmarks use for "the paid plan's rate"; `fixed` stays for the plan table's name.
 * - `payg`: pay-as-you-go from the published plan table (max_delay 1 year, timeout 2 h, DLQ
 *   retention 7 days, parallelism 10, global parallelism 100, type/reserved_type "paid"). The
 *   table does not list the other limits; the emulator uses: max_message_size 1 MiB,
 *   max_requests_per_day 1,000,000 (hard 10,000,000), max_endpoints_per_topic 100,
 *   max_requests_per_second 100, max_dlq_size 1,000,000, max_retries 999, max_topics 100,
 *   max_schedules 1,000, max_events_size 10,000, max_queues 100, reserved_price 0,
 *   prod_pack_enabled false.
 */

/** Names of the presets. */
export type PlanName = "free" | "payg" | "fixed" | "paid";

/** All preset names, for validation. */
export const PLAN_NAMES: readonly PlanName[] = ["free", "payg", "fixed", "paid"];

/** The plan-dependent fields of the account record. */
export interface PlanLimits {
  readonly max_message_size: number;
  readonly max_requests_per_day: number;
  readonly max_requests_per_day_hard: number;
  readonly max_endpoints_per_topic: number;
  readonly max_requests_per_second: number;
  readonly max_dlq_size: number;
  readonly max_retries: number;
  readonly max_topics: number;
  readonly max_schedules: number;
  readonly max_events_size: number;
  readonly max_dlq_retention_time_milis: number;
  readonly max_delay: number;
  readonly max_parallelism: number;
  readonly max_global_parallelism: number;
  readonly max_queues: number;
  readonly prod_pack_enabled: boolean;
  readonly timeout: number;
  readonly type: "free" | "paid";
  readonly reserved_type: "" | "paid" | "svc_enterprise_1m" | "svc_enterprise_10m";
  readonly reserved_price: number;
}

/** One day in milliseconds. */
const DAY_MS = 86_400_000;

/** The presets but `paid`, which is `fixed` again. */
const PRESETS: Readonly<Record<Exclude<PlanName, "paid">, PlanLimits>> = {
  free: {
    max_message_size: 1_048_576,
    max_requests_per_day: 1_000,
    max_requests_per_day_hard: 1_000,
    max_endpoints_per_topic: 100,
    max_requests_per_second: 100,
    max_dlq_size: 1_000_000,
    max_retries: 999,
    max_topics: 1,
    max_schedules: 10,
    max_events_size: 10_000,
    max_dlq_retention_time_milis: 3 * DAY_MS,
    max_delay: 604_800,
    max_parallelism: 2,
    max_global_parallelism: 10,
    max_queues: 10,
    prod_pack_enabled: false,
    timeout: 900,
    type: "free",
    reserved_type: "",
    reserved_price: 0,
  },
  payg: {
    max_message_size: 1_048_576,
    max_requests_per_day: 1_000_000,
    max_requests_per_day_hard: 10_000_000,
    max_endpoints_per_topic: 100,
    max_requests_per_second: 100,
    max_dlq_size: 1_000_000,
    max_retries: 999,
    max_topics: 100,
    max_schedules: 1_000,
    max_events_size: 10_000,
    max_dlq_retention_time_milis: 7 * DAY_MS,
    max_delay: 31_536_000,
    max_parallelism: 10,
    max_global_parallelism: 100,
    max_queues: 100,
    prod_pack_enabled: false,
    timeout: 7_200,
    type: "paid",
    reserved_type: "paid",
    reserved_price: 0,
  },
  fixed: {
    max_message_size: 52_428_800,
    max_requests_per_day: 1_000_000,
    max_requests_per_day_hard: 10_000_000,
    max_endpoints_per_topic: 1_000,
    max_requests_per_second: 500,
    max_dlq_size: 2_147_483_647,
    max_retries: 20,
    max_topics: 1_000,
    max_schedules: 1_000_000,
    max_events_size: 100_000,
    max_dlq_retention_time_milis: 30 * DAY_MS,
    max_delay: 2_147_483_647,
    max_parallelism: 10,
    max_global_parallelism: 200,
    max_queues: 1_000,
    prod_pack_enabled: true,
    timeout: 21_600,
    type: "paid",
    reserved_type: "svc_enterprise_1m",
    reserved_price: 180,
  },
};

/** The presets. */
export const PLAN_PRESETS: Readonly<Record<PlanName, PlanLimits>> = { ...PRESETS, paid: PRESETS.fixed };

/**
 * Is this a preset name?
 *
 * @param value - any value.
 */
export function isPlanName(value: unknown): value is PlanName {
  return typeof value === "string" && (PLAN_NAMES as readonly string[]).includes(value);
}
