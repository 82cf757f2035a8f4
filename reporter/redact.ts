/**
 * The last line of defence against a leaked bearer token: every string a report is built from
 * passes through the token rule of exchange/redact.ts (the same one the HTTP client applies to
 * what the target sends), so a token that stands as the token (after `Bearer`, or anywhere when
 * it is 8 characters or longer) is replaced by $API_TOKEN like the one the client sends.
 */
import { redact, RedactingStream } from '../exchange/redact.ts';

export { RedactingStream };

/** The secrets of the environment: the bearer token, whatever its length (the rule decides where it is searched for). */
export function secretsFromEnv(env: Record<string, string | undefined>): string[] {
  const token = env.API_TOKEN?.trim();
  return token ? [token] : [];
}

/** Replaces every secret in `text` where it stands as the token. */
export function redactText(text: string, secrets: readonly string[]): string {
  return secrets.reduce((out, secret) => redact(out, secret), text);
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
