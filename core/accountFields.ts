/**
 * The account record's fields (spec 2.3) and the camelCase output each one becomes.
 * One table for the `Account` resource, its provider and the policy pack.
 */
export const ACCOUNT_FIELDS = {
  customer_id: "customerId",
  id: "accountId",
  password: "password",
  token: "token",
  active: "active",
  state: "state",
  last_plan_upgrade_time: "lastPlanUpgradeTime",
  max_message_size: "maxMessageSize",
  max_requests_per_day: "maxRequestsPerDay",
  max_requests_per_day_hard: "maxRequestsPerDayHard",
  max_endpoints_per_topic: "maxEndpointsPerTopic",
  max_requests_per_second: "maxRequestsPerSecond",
  max_dlq_size: "maxDlqSize",
  max_retries: "maxRetries",
  max_topics: "maxTopics",
  max_schedules: "maxSchedules",
  max_events_size: "maxEventsSize",
  max_dlq_retention_time_milis: "maxDlqRetentionTimeMilis",
  max_delay: "maxDelay",
  max_parallelism: "maxParallelism",
  max_global_parallelism: "maxGlobalParallelism",
  max_queues: "maxQueues",
  prod_pack_enabled: "prodPackEnabled",
  timeout: "timeout",
  type: "type",
  reserved_type: "reservedType",
  reserved_price: "reservedPrice",
  created_by: "createdBy",
  creation_time: "creationTime",
} as const;

/** A field of the account record as the service names it. */
export type AccountRecordField = keyof typeof ACCOUNT_FIELDS;

/** An output of `Account`. */
export type AccountOutputName = (typeof ACCOUNT_FIELDS)[AccountRecordField];

/** Outputs that are secrets in outputs and in state. */
export const SECRET_ACCOUNT_OUTPUTS: readonly AccountOutputName[] = ["password", "token"];
