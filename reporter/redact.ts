/**
 * The last line of defence against a leaked bearer token: every string a report is built from
 * passes through here, so a token that a server echoed back (in a body, a header or an error
 * message) is replaced by $API_TOKEN like the one the HTTP client sends.
 */
import { REDACTED_TOKEN } from '../exchange/redact.ts';

/**
 * Tokens shorter than this are not searched for: replacing a one- or two-letter "token" would
 * mangle every report, and no real bearer token is that short.
 */
export const MIN_SECRET_LENGTH = 8;

/** The secrets of the environment: the bearer token, where it is long enough to search for. */
export function secretsFromEnv(env: Record<string, string | undefined>): string[] {
  const token = env.API_TOKEN?.trim();
  return token !== undefined && token.length >= MIN_SECRET_LENGTH ? [token] : [];
}

/** Replaces every secret in `text` by $API_TOKEN. */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_LENGTH) out = out.split(secret).join(REDACTED_TOKEN);
  }
  return out;
}

/** A deep copy of a JSON value with every string (keys too) redacted. */
export function redactValue<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redactText(v, secrets);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [redactText(k, secrets), walk(x)]));
    }
    return v;
  };
  return walk(value) as T;
}

/**
 * Redacts a stream of text chunks (a child process's output) without missing a secret split
 * across two chunks: a tail that could be the start of a secret is held back until the next
 * chunk or the end.
 */
export class RedactingStream {
  private held = '';

  constructor(
    private readonly secrets: readonly string[],
    private readonly write: (text: string) => void,
  ) {}

  push(chunk: string): void {
    const text = redactText(this.held + chunk, this.secrets);
    const cut = text.length - this.partialSecretAtEnd(text);
    this.held = text.slice(cut);
    if (cut > 0) this.write(text.slice(0, cut));
  }

  end(): void {
    if (this.held) this.write(redactText(this.held, this.secrets));
    this.held = '';
  }

  /** The length of the longest tail of `text` that is a proper prefix of a secret. */
  private partialSecretAtEnd(text: string): number {
    let longest = 0;
    for (const secret of this.secrets) {
      if (secret.length < MIN_SECRET_LENGTH) continue;
      for (let k = Math.min(secret.length - 1, text.length); k > longest; k--) {
        if (text.endsWith(secret.slice(0, k))) {
          longest = k;
          break;
        }
      }
    }
    return longest;
  }
}
