/**
 * Authentication of the `/v2` endpoints: bearer token for resume, HTTP Basic for the account.
 *
 * Secrets are compared in constant time over SHA-256 digests (equal length, so neither the
 * content nor the length of the secret leaks through timing). Error messages never contain the
 * presented or the expected credentials.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { HttpError } from "./http";

/**
 * Compare two secrets in constant time.
 *
 * @param presented - what the client sent.
 * @param expected - the configured secret.
 */
export function secretsEqual(presented: string, expected: string): boolean {
  const a = createHash("sha256").update(presented, "utf8").digest();
  const b = createHash("sha256").update(expected, "utf8").digest();
  return timingSafeEqual(a, b);
}

/**
 * The single Authorization header, split into scheme and credentials.
 *
 * @param req - the request.
 * @param scheme - expected scheme, "Bearer" or "Basic" (compared case-insensitively).
 * @throws HttpError 401 when missing, repeated or of another scheme.
 */
function credentialsOf(req: IncomingMessage, scheme: "Bearer" | "Basic"): string {
  const challenge = { "www-authenticate": `${scheme} realm="svc"` };
  const values = req.headersDistinct.authorization;
  if (values === undefined) throw new HttpError(401, "missing Authorization header", challenge);
  if (values.length !== 1) throw new HttpError(401, "Authorization header must be sent once", challenge);
  const match = /^([A-Za-z]+) +(\S+) *$/.exec(values[0]);
  if (match === null) {
    throw new HttpError(401, `malformed Authorization header; expected "${scheme} <credentials>"`, challenge);
  }
  if (match[1].toLowerCase() !== scheme.toLowerCase()) {
    throw new HttpError(
      401,
      `Authorization header uses the ${JSON.stringify(match[1].slice(0, 20))} scheme; this endpoint needs ${scheme}`,
      challenge,
    );
  }
  return match[2];
}

/**
 * Check `Authorization: Bearer <token>`.
 *
 * @param req - the request.
 * @param token - the expected token.
 * @throws HttpError 401 when missing, malformed or wrong.
 */
export function requireBearer(req: IncomingMessage, token: string): void {
  const presented = credentialsOf(req, "Bearer");
  if (!secretsEqual(presented, token)) {
    throw new HttpError(401, "invalid bearer token", {
      "www-authenticate": 'Bearer realm="svc", error="invalid_token"',
    });
  }
}

/**
 * Check `Authorization: Basic base64(username:password)`.
 *
 * @param req - the request.
 * @param username - the expected username.
 * @param password - the expected password.
 * @throws HttpError 401 when missing, malformed or wrong.
 */
export function requireBasic(req: IncomingMessage, username: string, password: string): void {
  const challenge = { "www-authenticate": 'Basic realm="svc"' };
  const encoded = credentialsOf(req, "Basic");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) {
    throw new HttpError(401, "malformed Basic credentials: not base64", challenge);
  }
  const decoded = Buffer.from(encoded, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0)
    throw new HttpError(401, 'malformed Basic credentials: expected "username:password"', challenge);
  // Evaluate both comparisons so the time does not reveal which part was wrong.
  const userOk = secretsEqual(decoded.slice(0, colon), username);
  const passwordOk = secretsEqual(decoded.slice(colon + 1), password);
  if (!(userOk && passwordOk)) throw new HttpError(401, "invalid username or password", challenge);
}
