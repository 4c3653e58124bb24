import { strict as assert } from "node:assert";
import { Progress, dailyLow } from "../../../../provider/dlqRecovery/progress";

describe("DlqRecovery progress: the account's daily limit", () => {
  it("says how many daily requests are left once fewer than 10 % remain", () => {
    assert.equal(dailyLow(undefined), "");
    assert.equal(dailyLow({ remaining: 5 }), "", "no limit known");
    assert.equal(dailyLow({ limit: 1000, remaining: 100 }), "");
    assert.equal(dailyLow({ limit: 1000, remaining: 99 }), ", 99 of 1000 daily requests left");
    const lines: string[] = [];
    let now = 0;
    const p = new Progress("r", 0, { resumed: 0, requests: 0 }, () => now, {
      final: (l) => lines.push(l),
      progress: (l) => lines.push(l),
    });
    now = 2_000;
    p.page({ resumed: 500, requests: 10, daily: { limit: 1000, remaining: 40 } });
    assert.match(lines[0], /, 40 of 1000 daily requests left$/);
    now = 4_000;
    p.page({ resumed: 600, requests: 12, daily: { limit: 1000, remaining: 900 } });
    assert.doesNotMatch(lines[1], /daily/);
  });
});
