/**
 * The last line of defence against a leaked credential: every string a report is built from, and
 * every report file as written, passes through the rule of exchange/redact.ts (the same one the
 * HTTP client applies to what the target sends), with every form of the token and the values of
 * the secret extra headers, and the userinfo of every URL, with no secret given too.
 */
import { headerSecrets } from '../exchange/extra-headers.ts';
import { Redactor, tokenForms, type Secret } from '../exchange/redact.ts';
import { RedactingStream } from '../exchange/redact-stream.ts';

export { headerSecrets, RedactingStream };

/** A token (every form of it is redacted), or a secret as it is (a secret header's value). */
export type SecretInput = string | Secret;

/** The secrets of the environment: the bearer token, whatever its length (the rule decides where it is searched for). */
export function secretsFromEnv(env: Record<string, string | undefined>): string[] {
  const token = env.API_TOKEN?.trim();
  return token ? [token] : [];
}

const redactors = new Map<string, Redactor>();

/** The redactor of `secrets`, made once per set. */
export function redactorOf(secrets: readonly SecretInput[]): Redactor {
  const key = JSON.stringify(secrets);
  let r = redactors.get(key);
  if (!r) {
    r = new Redactor(secrets.flatMap((s) => (typeof s === 'string' ? tokenForms(s) : [s])));
    redactors.set(key, r);
  }
  return r;
}

/** Replaces every secret in `text`, in every form, and every URL's userinfo (with no secret too), where it is found. */
export function redactText(text: string, secrets: readonly SecretInput[]): string {
  return redactorOf(secrets).text(text);
}

/** A JSON value with every string (keys too) redacted. */
export function redactValue<T>(value: T, secrets: readonly SecretInput[]): T {
  return redactorOf(secrets).value(value);
}
