/**
 * Extra request headers a deployment needs besides the bearer token: an API key of its gateway, a
 * tenant header. They go on every request the suite sends to the target (and on nothing else),
 * the credential cases of the authentication probes included: those test the bearer token, not
 * the gateway's key.
 *
 *   CONFORMANCE_HEADER_<NAME>=value         a header; the records and reports show it as sent
 *   CONFORMANCE_SECRET_HEADER_<NAME>=value  a secret header: every record, report, curl command
 *                                           and console line shows $CONFORMANCE_SECRET_HEADER_<NAME>
 *                                           instead of the value, as the token shows $API_TOKEN
 *   --header 'Name: value'                  a header, on the command line (wins over the
 *                                           environment); never for a secret, which would land in
 *                                           shell history and the process list
 *
 * <NAME> is the header's name with `-` written as `_` (X_API_KEY is X-Api-Key; HTTP header names
 * are case-insensitive). A header whose name says it carries a credential (key, token, secret,
 * auth, password, cookie, session, signature, credential) is treated as secret however it was
 * given, so its value never reaches a report.
 */
import { isCredentialName } from '../exchange/auth-headers.ts';
import type { ExtraHeader } from '../exchange/extra-headers.ts';
import { ConfigError, type Env } from './error.ts';

export const HEADER_PREFIX = 'CONFORMANCE_HEADER_';
export const SECRET_HEADER_PREFIX = 'CONFORMANCE_SECRET_HEADER_';

/** Headers the suite sets itself, or that would change what a request means. */
const RESERVED = new Set([
  'authorization',
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'expect',
  'upgrade',
  'te',
  'trailer',
  'keep-alive',
  'proxy-authorization',
]);

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Field values: visible ASCII, space and tab, and obs-text; no CR, LF or NUL (RFC 9110 §5.5). */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

function nameOf(suffix: string): string {
  return suffix
    .toLowerCase()
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('-');
}

/** The variable a header name is given in. */
export function headerVariable(name: string, secret: boolean): string {
  return (secret ? SECRET_HEADER_PREFIX : HEADER_PREFIX) + name.toUpperCase().replace(/-/g, '_');
}

function checked(name: string, value: string, origin: string): void {
  if (!TOKEN.test(name) || name.includes('_'))
    throw new ConfigError(
      `${origin}: '${name}' is not a header name this setting can give (letters, digits and -; write - as _ in a variable name)`,
    );
  if (RESERVED.has(name.toLowerCase()))
    throw new ConfigError(
      `${origin}: the suite sets ${name} itself${name.toLowerCase() === 'authorization' ? ' (give the bearer token in API_TOKEN)' : ''}; it cannot be an extra header`,
    );
  if (!FIELD_VALUE.test(value) || value !== value.trim())
    throw new ConfigError(
      `${origin}: the value of ${name} cannot be sent in an HTTP header (a line break, a control character, or leading or trailing white space)`,
    );
}

/**
 * The extra headers of a run: `--header` flags over CONFORMANCE_HEADER_* and
 * CONFORMANCE_SECRET_HEADER_* variables of `env`. An empty variable gives no header.
 */
export function parseExtraHeaders(env: Env, flags: readonly string[] = []): ExtraHeader[] {
  const byName = new Map<string, ExtraHeader>();
  const add = (name: string, value: string, secret: boolean, variable: string | undefined): void => {
    const origin = variable ?? `--header ${name}`;
    checked(name, value, origin);
    const isSecret = secret || isCredentialName(name);
    const key = name.toLowerCase();
    const earlier = byName.get(key);
    if (earlier && variable !== undefined)
      throw new ConfigError(`${name} is given twice (${earlier.variable} and ${variable}); give it once`);
    byName.set(key, { name, value, secret: isSecret, variable: variable ?? headerVariable(name, isSecret) });
  };
  for (const [variable, value] of Object.entries(env).sort(([a], [b]) => a.localeCompare(b))) {
    if (value === undefined || value === '') continue;
    if (variable.startsWith(SECRET_HEADER_PREFIX))
      add(nameOf(variable.slice(SECRET_HEADER_PREFIX.length)), value, true, variable);
    else if (variable.startsWith(HEADER_PREFIX))
      add(nameOf(variable.slice(HEADER_PREFIX.length)), value, false, variable);
  }
  for (const flag of flags) {
    const colon = flag.indexOf(':');
    if (colon <= 0) throw new ConfigError(`--header '${flag.slice(0, 40)}': give it as 'Name: value'`);
    add(flag.slice(0, colon).trim(), flag.slice(colon + 1).trim(), false, undefined);
  }
  return [...byName.values()];
}
