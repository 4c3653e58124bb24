/**
 * Secret scans: every e2e scenario searches what it produced (exported state, the
 * serialized provider inside it, everything the CLI printed, logs) for each secret value.
 */
import * as assert from "node:assert/strict";

/** The forms a set of credentials can leak in: each value, `user:password` and its base64. */
export function secretForms(c: { token?: string; username?: string; password?: string }): string[] {
  const forms: string[] = [];
  if (c.token) forms.push(c.token);
  if (c.password) forms.push(c.password);
  if (c.username && c.password) {
    const pair = `${c.username}:${c.password}`;
    forms.push(pair, Buffer.from(pair).toString("base64"));
  }
  return forms;
}

/** Fails naming the place and the secret's position (never printing the secret) when any text contains any secret. */
export function assertNoSecrets(places: Record<string, string>, secrets: string[]): void {
  for (const [place, text] of Object.entries(places)) {
    secrets.forEach((secret, i) => {
      assert.ok(secret.length >= 8, `secret #${i} is too short to search for meaningfully`);
      const at = text.indexOf(secret);
      assert.equal(at, -1, `secret #${i} appears in plaintext in ${place} at offset ${at}`);
    });
  }
}
