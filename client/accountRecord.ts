/**
 * The account record (spec 2.3), declared once: for each field its wire name, type, the
 * `Account` output it becomes, whether it is a secret, its unit, and its doc (the comment on the
 * entry, which the `Account` outputs carry as their TSDoc). The record's type
 * ({@link AccountRecord}), its validation (`validate.ts`), the `Account` outputs and their docs,
 * and every list of wire or output names follow from this table. The emulator keeps its own copy
 * on purpose (an independent check; `test/unit/contract.test.ts` feeds both).
 *
 * @packageDocumentation
 */

/** A field's type on the wire: a JSON type, or one of a few strings. */
export type AccountFieldKind =
  "string" | "integer" | "number" | "boolean" | { readonly enum: readonly string[] };

/** The unit of a number field, where it has one. */
export type AccountFieldUnit =
  "seconds" | "milliseconds" | "unix seconds" | "bytes" | "requests per second" | "requests per day";

/** One field of the account record. */
export interface AccountFieldSpec {
  /** The field's name in the service's JSON, e.g. `max_delay`. */
  readonly wire: string;
  /** Its type on the wire. */
  readonly kind: AccountFieldKind;
  /** True for a credential: a secret output, never shown in a message. */
  readonly secret?: true;
  /** Its unit, for a number with one; the entry's doc says it too. */
  readonly unit?: AccountFieldUnit;
}

/**
 * The account record's fields in spec order, by `Account` output name (names that existing
 * stacks store: they never change).
 */
export const ACCOUNT_RECORD_FIELDS = {
  /** The customer: an e-mail address or a team ID. */
  customerId: { wire: "customer_id", kind: "string" },
  /** The account's unique ID (a UUID); the record's `id`. */
  accountId: { wire: "id", kind: "string" },
  /** The service's authentication password (API key). A secret, in outputs and in state. */
  password: { wire: "password", kind: "string", secret: true },
  /** The token for queue operations (the resume API's bearer token). A secret, in outputs and in state. */
  token: { wire: "token", kind: "string", secret: true },
  /** Whether the account is active. */
  active: { wire: "active", kind: "boolean" },
  /** `"active"` or `"passive"`. */
  state: { wire: "state", kind: { enum: ["active", "passive"] } },
  /** When the plan was last upgraded, in unix seconds. */
  lastPlanUpgradeTime: { wire: "last_plan_upgrade_time", kind: "integer", unit: "unix seconds" },
  /** The largest message, in bytes. */
  maxMessageSize: { wire: "max_message_size", kind: "integer", unit: "bytes" },
  /** The soft daily request limit, in requests per day. */
  maxRequestsPerDay: { wire: "max_requests_per_day", kind: "integer", unit: "requests per day" },
  /** The hard daily request limit, in requests per day. */
  maxRequestsPerDayHard: { wire: "max_requests_per_day_hard", kind: "integer", unit: "requests per day" },
  /** Endpoints allowed per topic (a count). */
  maxEndpointsPerTopic: { wire: "max_endpoints_per_topic", kind: "integer" },
  /** The rate limit, in requests per second. */
  maxRequestsPerSecond: { wire: "max_requests_per_second", kind: "integer", unit: "requests per second" },
  /** The most entries the DLQ holds (a count). */
  maxDlqSize: { wire: "max_dlq_size", kind: "integer" },
  /** The most retries of a failed message (a count). */
  maxRetries: { wire: "max_retries", kind: "integer" },
  /** Topics allowed (a count). */
  maxTopics: { wire: "max_topics", kind: "integer" },
  /** Schedules allowed (a count). */
  maxSchedules: { wire: "max_schedules", kind: "integer" },
  /** The largest size of events, in bytes. */
  maxEventsSize: { wire: "max_events_size", kind: "integer", unit: "bytes" },
  /** How long failed runs stay in the DLQ, in milliseconds (the field is spelled so by the service). */
  maxDlqRetentionTimeMilis: { wire: "max_dlq_retention_time_milis", kind: "integer", unit: "milliseconds" },
  /** The longest delay of a scheduled message, in seconds. */
  maxDelay: { wire: "max_delay", kind: "integer", unit: "seconds" },
  /** Parallel processing per endpoint (a count). */
  maxParallelism: { wire: "max_parallelism", kind: "integer" },
  /** Parallel processing across all endpoints (a count). */
  maxGlobalParallelism: { wire: "max_global_parallelism", kind: "integer" },
  /** Queues allowed (a count). */
  maxQueues: { wire: "max_queues", kind: "integer" },
  /** Whether production-pack features are enabled. */
  prodPackEnabled: { wire: "prod_pack_enabled", kind: "boolean" },
  /** The request timeout, in seconds. */
  timeout: { wire: "timeout", kind: "integer", unit: "seconds" },
  /** The plan type: `"free"` or `"paid"`. */
  type: { wire: "type", kind: { enum: ["free", "paid"] } },
  /**
   * The reserved plan: `""`, `"paid"`, `"svc_enterprise_1m"`, `"svc_enterprise_10m"`; any string is
   * accepted (new plans appear over time).
   */
  reservedType: { wire: "reserved_type", kind: "string" },
  /** The price of the reserved plan. */
  reservedPrice: { wire: "reserved_price", kind: "number" },
  /** The e-mail address of the user who created the account. */
  createdBy: { wire: "created_by", kind: "string" },
  /** When the account was created, in unix seconds. */
  creationTime: { wire: "creation_time", kind: "integer", unit: "unix seconds" },
} as const satisfies Readonly<Record<string, AccountFieldSpec>>;

type Table = typeof ACCOUNT_RECORD_FIELDS;

/** An output of `Account`: a field of the record in camelCase, e.g. `maxDelay`. */
export type AccountOutputName = keyof Table;

/** A field of the account record as the service names it, e.g. `max_delay`. */
export type AccountRecordField = Table[AccountOutputName]["wire"];

/** The TypeScript type of a field of a given kind. */
export type AccountFieldValue<K extends AccountFieldKind> = K extends "string"
  ? string
  : K extends "integer" | "number"
    ? number
    : K extends "boolean"
      ? boolean
      : K extends { readonly enum: readonly (infer E)[] }
        ? E
        : never;

/** The queue-service account record (spec 2.3), by wire name. Unknown extra fields are dropped. */
export type AccountRecord = {
  -readonly [O in AccountOutputName as Table[O]["wire"]]: AccountFieldValue<Table[O]["kind"]>;
};

/** The table's entries, each with its output name, in spec order. */
export const ACCOUNT_FIELD_LIST: ReadonlyArray<AccountFieldSpec & { readonly output: AccountOutputName }> =
  Object.entries(ACCOUNT_RECORD_FIELDS).map(([output, spec]) => ({
    ...spec,
    output: output as AccountOutputName,
  }));

/** Output names of the secret fields (`password`, `token`). */
export const SECRET_ACCOUNT_OUTPUTS: readonly AccountOutputName[] = ACCOUNT_FIELD_LIST.filter(
  (f) => f.secret,
).map((f) => f.output);

/** Wire names of the secret fields. */
export const SECRET_ACCOUNT_FIELDS: readonly AccountRecordField[] = ACCOUNT_FIELD_LIST.filter(
  (f) => f.secret,
).map((f) => f.wire as AccountRecordField);
