/**
 * The account record served by `GET /v2/svc/user`, its plan changes and admin patches.
 *
 * The record carries every field of spec section 2.3 plus two fields the spec does not list
 * (`region`, `read_only_token` — a placeholder, not a secret) so that clients prove they tolerate
 * unknown fields. The credentials checked by the auth layer are the record's own `token`,
 * `customer_id` (Basic username) and `password`, so patching them rotates the credentials.
 */
import { createHash } from "node:crypto";
import { show } from "./http";
import type { PlanLimits, PlanName } from "./plans";
import { PLAN_PRESETS, isPlanName, PLAN_NAMES } from "./plans";

/** The account record (spec 2.3 plus extra fields). */
export interface AccountRecord extends PlanLimits {
  customer_id: string;
  id: string;
  password: string;
  token: string;
  active: boolean;
  state: "active" | "passive";
  last_plan_upgrade_time: number;
  created_by: string;
  creation_time: number;
  /** Extra field not in the spec. */
  region?: string;
  /** Extra field not in the spec; a fixed placeholder, never a usable credential. */
  read_only_token?: string;
  /** Further fields added by admin patches. */
  [extra: string]: unknown;
}

/** Initial settings of the account. */
export interface AccountInit {
  /** Bearer token. */
  readonly token: string;
  /** Basic username, also `customer_id`. */
  readonly username: string;
  /** Basic password. */
  readonly password: string;
  /** Initial plan. */
  readonly plan: PlanName;
  /** Current time, unix ms. */
  readonly now: number;
}

/** Fields that hold credentials and may not be deleted. */
const CREDENTIAL_FIELDS = new Set(["customer_id", "password", "token"]);
/** Integer fields of the record (non-negative). */
const INTEGER_FIELDS = new Set([
  "last_plan_upgrade_time",
  "creation_time",
  ...Object.keys(PLAN_PRESETS.free).filter(
    (k) => typeof PLAN_PRESETS.free[k as keyof PlanLimits] === "number",
  ),
]);
INTEGER_FIELDS.delete("reserved_price");
/** Enum fields and their allowed values. */
const ENUM_FIELDS: Readonly<Record<string, readonly string[]>> = {
  state: ["active", "passive"],
  type: ["free", "paid"],
  reserved_type: ["", "paid", "svc_enterprise_1m", "svc_enterprise_10m"],
};

/**
 * A stable UUID derived from the username (same username, same ID across restarts).
 *
 * @param username - the account username.
 */
export function stableAccountId(username: string): string {
  const hex = createHash("sha256").update(`svc-emulator-account:${username}`).digest("hex");
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** When the emulator's account was created (`creation_time`, `last_plan_upgrade_time`), unix ms. */
export const ACCOUNT_CREATED_MS = Date.UTC(2025, 0, 1);

/** Holds and changes the account record. */
export class AccountStore {
  private current: AccountRecord;
  private planName: PlanName;

  /**
   * @param init - credentials, plan and creation time.
   */
  constructor(init: AccountInit) {
    // Stable across restarts, as the record's `id` is: a restarted emulator serves the same
    // record, so a program's second `up` against it sees no change of plan.
    const seconds = Math.floor(Math.min(init.now, ACCOUNT_CREATED_MS) / 1000);
    this.planName = init.plan;
    this.current = {
      customer_id: init.username,
      id: stableAccountId(init.username),
      password: init.password,
      token: init.token,
      active: true,
      state: "active",
      last_plan_upgrade_time: seconds,
      ...PLAN_PRESETS[init.plan],
      created_by: init.username.includes("@") ? init.username : "owner@example.com",
      creation_time: seconds,
      region: "local-1",
      read_only_token: "emulator-read-only-placeholder",
    };
  }

  /** The current record (a copy). */
  get record(): AccountRecord {
    return { ...this.current };
  }

  /** Name of the last preset applied. */
  get plan(): PlanName {
    return this.planName;
  }

  /** The account's identity (the record's `id`), by which the rate limit counts. */
  get id(): string {
    return this.current.id;
  }

  /** The record's `max_requests_per_second` as it is now (`undefined` once deleted by a patch). */
  get maxRequestsPerSecond(): unknown {
    return this.current.max_requests_per_second;
  }

  /** Current bearer token. */
  get token(): string {
    return this.current.token;
  }

  /** Current Basic username. */
  get username(): string {
    return this.current.customer_id;
  }

  /** Current Basic password. */
  get password(): string {
    return this.current.password;
  }

  /**
   * Switch to a preset: overwrites every plan field and sets `last_plan_upgrade_time`.
   *
   * @param plan - the preset name.
   * @param now - current time, unix ms.
   * @throws Error naming the value when it is not a preset.
   */
  setPlan(plan: unknown, now: number): AccountRecord {
    if (!isPlanName(plan)) throw new Error(`plan must be one of ${PLAN_NAMES.join(", ")}, got ${show(plan)}`);
    this.planName = plan;
    this.current = { ...this.current, ...PLAN_PRESETS[plan], last_plan_upgrade_time: Math.floor(now / 1000) };
    return this.record;
  }

  /**
   * Change fields of the record. Known fields are type-checked; unknown fields are stored as
   * given (to test clients against extra fields); `null` deletes a field (not credentials).
   * All-or-nothing: nothing changes when one field is invalid.
   *
   * @param fields - field name to new value.
   * @throws Error naming the field and the value.
   */
  patch(fields: unknown): AccountRecord {
    if (typeof fields !== "object" || fields === null || Array.isArray(fields)) {
      throw new Error(`account patch must be a JSON object of field: value, got ${show(fields)}`);
    }
    const next: AccountRecord = { ...this.current };
    for (const [field, value] of Object.entries(fields as Record<string, unknown>)) {
      if (value === null) {
        if (CREDENTIAL_FIELDS.has(field))
          throw new Error(`${field} cannot be deleted; it holds a credential`);
        delete next[field];
        continue;
      }
      checkField(field, value);
      next[field] = value;
    }
    this.current = next;
    return this.record;
  }
}

/**
 * Type-check one known field of a patch.
 *
 * @param field - field name.
 * @param value - new value (not null).
 */
function checkField(field: string, value: unknown): void {
  if (INTEGER_FIELDS.has(field)) {
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
      throw new Error(`${field} must be a non-negative integer, got ${show(value)}`);
    }
  } else if (field === "reserved_price") {
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new Error(`${field} must be a non-negative number, got ${show(value)}`);
    }
  } else if (field === "active" || field === "prod_pack_enabled") {
    if (typeof value !== "boolean") throw new Error(`${field} must be a boolean, got ${show(value)}`);
  } else if (field in ENUM_FIELDS) {
    if (typeof value !== "string" || !ENUM_FIELDS[field].includes(value)) {
      throw new Error(
        `${field} must be one of ${ENUM_FIELDS[field].map((v) => show(v)).join(", ")}, got ${show(value)}`,
      );
    }
  } else if (["customer_id", "id", "password", "token", "created_by"].includes(field)) {
    if (typeof value !== "string" || value === "") {
      throw new Error(
        `${field} must be a non-empty string, got ${field === "password" || field === "token" ? "another value" : show(value)}`,
      );
    }
    if (field === "customer_id" && value.includes(":")) {
      throw new Error(
        `customer_id must not contain a colon (it is the HTTP Basic username), got ${show(value)}`,
      );
    }
  }
}
