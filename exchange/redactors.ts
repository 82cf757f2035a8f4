/**
 * The redactors of a run (the rule of exchange/redact.ts, given the run's secrets), each made once
 * per process and set of secrets, since its patterns compile once:
 *   - `runRedactor`, for what the target sends back to the suite's client, before it is judged:
 *     URLs' userinfo left as it is (Redactor's constructor says why);
 *   - `redactorOf` (and `redactText`, `redactValue`), for every text as it leaves the process: the
 *     report files, the console, the attachments and the test errors Playwright writes; URLs'
 *     userinfo replaced too, with no secret given as well.
 */
import { headerSecrets, type ExtraHeader } from './extra-headers.ts';
import { Redactor, tokenForms, type Secret } from './redact.ts';

/** A token (every form of it is redacted), or a secret as it is (a secret header's value). */
export type SecretInput = string | Secret;

/** The secrets of the environment: the bearer token, whatever its length (the rule decides where it is searched for). */
export function secretsFromEnv(env: Record<string, string | undefined>): string[] {
  const token = env.API_TOKEN?.trim();
  return token ? [token] : [];
}

const outputRedactors = new Map<string, Redactor>();

/** The redactor of what leaves the process, for `secrets`, made once per set. */
export function redactorOf(secrets: readonly SecretInput[]): Redactor {
  const key = JSON.stringify(secrets);
  let r = outputRedactors.get(key);
  if (!r) {
    r = new Redactor(secrets.flatMap((s) => (typeof s === 'string' ? tokenForms(s) : [s])));
    outputRedactors.set(key, r);
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

/** One redactor per token and secret headers. */
const answerRedactors = new Map<string, Redactor>();

/**
 * The redaction of what a run's target sends back: every form of the token, and the secret extra
 * headers' values (shown as their variables, searched everywhere), as every process of the run
 * derives it. Shared by the clients of a process: what one registers as it sends it protects them
 * all.
 */
export function runRedactor(token: string, extraHeaders: readonly ExtraHeader[]): Redactor {
  const key = JSON.stringify([token, headerSecrets(extraHeaders)]);
  let redactor = answerRedactors.get(key);
  if (!redactor) {
    redactor = new Redactor([...tokenForms(token), ...headerSecrets(extraHeaders)], { userinfo: false });
    answerRedactors.set(key, redactor);
  }
  return redactor;
}
