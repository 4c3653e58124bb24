/**
 * Keeps credentials out of error messages, error causes and response excerpts.
 *
 * @packageDocumentation
 */

/** Placeholder written where a secret or a secret field's value would have been. */
export const REDACTED = "(redacted)";

/** Removes known secret strings (and their common encodings) from text. */
export class Redactor {
  private readonly secrets: string[];

  /**
   * @param secrets - values that must never appear in output; empty and very short values are
   * ignored (replacing a 1-character "secret" everywhere would garble every message)
   */
  constructor(secrets: ReadonlyArray<string | undefined>) {
    const variants = new Set<string>();
    for (const s of secrets) {
      if (typeof s !== "string" || s.length < 4) continue;
      variants.add(s);
      variants.add(encodeURIComponent(s));
      variants.add(JSON.stringify(s).slice(1, -1));
    }
    // Longest first, so a secret containing another secret is replaced whole.
    this.secrets = [...variants].filter((v) => v.length >= 4).sort((a, b) => b.length - a.length);
  }

  /** Returns `text` with every secret replaced by {@link REDACTED}. */
  scrub(text: string): string {
    let out = text;
    for (const s of this.secrets) {
      if (out.includes(s)) out = out.split(s).join(REDACTED);
    }
    return out;
  }

  /**
   * A credential-free copy of an error to keep as `cause`: name, code, message and stack are
   * scrubbed; nothing else (request options, sockets, headers) is carried over.
   */
  sanitizeError(error: unknown): Error {
    if (!(error instanceof Error)) return new Error(this.scrub(String(error)));
    const copy = new Error(this.scrub(error.message));
    copy.name = error.name;
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string") (copy as Error & { code?: string }).code = code;
    if (error.stack !== undefined) copy.stack = this.scrub(error.stack);
    return copy;
  }
}

/**
 * A short, single-line, printable excerpt of a response body (tags stripped, whitespace
 * collapsed, at most `max` characters), for error messages about unexpected bodies.
 */
export function bodyExcerpt(body: string, redactor: Redactor, max = 120): string {
  const text = body
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/[^\x20-\x7e]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  const clean = redactor.scrub(text);
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}
