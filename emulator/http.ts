/**
 * HTTP plumbing shared by every route: the error type that carries a status code, reading a
 * bounded request body, and writing JSON responses.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

/** An error that maps to an HTTP response `{"error": message}` with the given status. */
export class HttpError extends Error {
  /**
   * @param status - HTTP status code of the response.
   * @param message - the text placed in the `error` field; must never contain credentials.
   * @param headers - extra response headers (e.g. `Allow`, `WWW-Authenticate`).
   */
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = "HttpError";
  }
}

/** Content type of every JSON response. */
export const JSON_CONTENT_TYPE = "application/json";

/**
 * Write a JSON response and end it. Does nothing if the socket is already gone.
 *
 * @param res - the response.
 * @param status - HTTP status code.
 * @param body - any JSON-serialisable value.
 * @param headers - extra headers.
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  sendRaw(res, status, JSON.stringify(body), JSON_CONTENT_TYPE, headers);
}

/**
 * Write a response with an arbitrary body and content type and end it.
 *
 * @param res - the response.
 * @param status - HTTP status code.
 * @param text - the body.
 * @param contentType - value of the `content-type` header.
 * @param headers - extra headers.
 */
export function sendRaw(
  res: ServerResponse,
  status: number,
  text: string,
  contentType: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(status, {
    ...headers,
    "content-type": contentType,
    "content-length": String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/**
 * Read the whole request body as UTF-8 text.
 *
 * @param req - the request.
 * @param maxBytes - largest accepted body; a larger one is rejected with 413.
 * @returns the body text ("" when there is none).
 */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBytes) {
      throw new HttpError(413, `request body is larger than ${maxBytes} bytes`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Parse a JSON request body.
 *
 * @param text - the body text.
 * @returns `undefined` for an empty (or whitespace-only) body, otherwise the parsed value.
 * @throws HttpError 400 naming the body when it is not valid JSON.
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new HttpError(400, `request body is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * Render a value for an error message: strings are quoted, everything else is JSON.
 *
 * @param value - the offending value.
 */
export function show(value: unknown): string {
  if (typeof value === "string")
    return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value);
  if (value === undefined) return "undefined";
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
