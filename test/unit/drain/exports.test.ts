/**
 * `pulumi-svc/drain` is where the drains live; `pulumi-svc/client` still exports what it exported
 * in 0.2 (the same objects), so code written for 0.2 keeps working.
 */
import { strict as assert } from "node:assert";
import * as client from "../../../client";
import * as drain from "../../../drain";

/** The drain names `pulumi-svc/client` exported in 0.2 (values; the types follow them). */
const NAMES_OF_0_2 = [
  "DrainError",
  "drainWindows",
  "RateGate",
  "RateGateRegistry",
  "accountRateGates",
  "accountKey",
  "CAUTIOUS_START_RATE",
  "DEFAULT_CONCURRENCY",
  "DEFAULT_MAX_EMPTY_PAGES",
  "MAX_NOT_FOUND_NARROWED",
  "DEFAULT_WINDOW_CONCURRENCY",
  "DEFAULT_HORIZON_MS",
  "DEFAULT_WINDOW_ALLOWANCE",
  "WINDOW_OVERHEAD",
  "DAILY_LIMIT_SHARE",
  "LARGE_DRAIN_CREDIT",
  "SMALL_DRAIN_RUNS",
  "MAX_SAVED_WINDOWS",
  "requestAllowance",
  "windowAllowance",
  "validateWindowState",
] as const;

describe("pulumi-svc/drain and what pulumi-svc/client keeps of 0.2", () => {
  it("pulumi-svc/client exports each drain name of 0.2, the same object as pulumi-svc/drain", () => {
    for (const name of NAMES_OF_0_2) {
      assert.ok(name in drain, `pulumi-svc/drain exports ${name}`);
      assert.equal((client as Record<string, unknown>)[name], (drain as Record<string, unknown>)[name], name);
    }
  });

  it("pulumi-svc/client's SvcClient is the DrainClient: its drains still work", () => {
    assert.equal(client.SvcClient, drain.DrainClient);
    const c = new client.SvcClient({ baseUrl: "http://127.0.0.1:1", token: "t" });
    for (const method of ["drain", "resumeByIds", "drainWindows", "resumeDlq", "getAccount", "close"])
      assert.equal(typeof (c as unknown as Record<string, unknown>)[method], "function", method);
  });
});
