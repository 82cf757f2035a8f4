/**
 * The header fields that carry a client's credentials, read in one place: Authorization and
 * Proxy-Authorization (RFC 9110 §11.4: a scheme and its token68, or auth-params, several joined
 * by commas), Cookie and Set-Cookie (RFC 6265 §4), and a field whose name says it holds one (an
 * API key, a session, a signature). What the redaction of recorded traffic learns and replaces
 * (exchange/redact-exchange.ts), what the client registers of a credential it sends
 * (transport/client.ts) and which extra headers are secret (config/headers.ts) all read them here.
 */

/** The request fields whose every value is a credential. */
const AUTHORIZATION_FIELDS = new Set(['authorization', 'proxy-authorization']);

/** A scheme and its token68 credentials, or an auth-param, in an Authorization value (RFC 9110 §11.4). */
const AUTH_PART =
  /([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)([ \t]+)([A-Za-z0-9\-._~+/]+=*)(?=[ \t]*(?:,|$))|([A-Za-z0-9!#$%&'*+.^_`|~-]+)([ \t]*=[ \t]*)("(?:[^"\\]|\\.)*"|[^,\s]*)/g;

const isBearer = (scheme: string): boolean => /^bearer$/i.test(scheme);

/** Whether a request field is Authorization or Proxy-Authorization (any case). */
export function isAuthorizationField(name: string): boolean {
  return AUTHORIZATION_FIELDS.has(name.toLowerCase());
}

/**
 * Whether a header's name says it carries a credential (an API key, a session cookie, a
 * signature): such a header is secret however it was given (config/headers.ts), and its value is
 * redacted in validated traffic (exchange/redact-exchange.ts).
 */
export function isCredentialName(name: string): boolean {
  return /key|token|secret|auth|passw|cookie|session|signature|credential/i.test(name);
}

/**
 * The credential of an Authorization value as a client writes one: all after the scheme and
 * the white space that follows it; undefined when there is no credential ("Bearer", "Bearer ").
 */
export function sentCredential(authorization: string): string | undefined {
  return /^\S+[ \t]+(\S.*)$/.exec(authorization)?.[1];
}

/**
 * The credentials of one Authorization (or Proxy-Authorization) value, duplicates joined by
 * commas included: the bearer tokens, and the others (the token68 of another scheme; of Basic,
 * also the decoded `user:password` and the password alone; the value of every auth-param).
 */
export function authorizationCredentials(value: string): { bearer: string[]; other: string[] } {
  const bearer: string[] = [];
  const other: string[] = [];
  for (const m of value.matchAll(AUTH_PART)) {
    if (m[3] !== undefined) {
      if (isBearer(m[1]!)) bearer.push(m[3]);
      else {
        other.push(m[3]);
        // Basic: base64 of user:password; the password alone is a credential too.
        const decoded = /^basic$/i.test(m[1]!) ? Buffer.from(m[3], 'base64').toString('utf8') : '';
        if (decoded.includes(':')) other.push(decoded, decoded.slice(decoded.indexOf(':') + 1));
      }
    } else if (m[6] !== undefined) other.push(m[6].replace(/^"|"$/g, ''));
  }
  return { bearer, other };
}

/**
 * An Authorization value with each credential replaced, its structure kept: a token68 by
 * `shown.bearer` after the Bearer scheme and by `shown.other` after another, an auth-param's
 * value by `shown.other` (`Bearer $API_TOKEN, Basic $REDACTED, realm=$REDACTED`).
 */
export function replaceAuthorizationCredentials(
  value: string,
  shown: { bearer: string; other: string },
): string {
  return value.replace(AUTH_PART, (all, scheme, space, token68, param, equals, paramValue) =>
    token68 !== undefined
      ? `${scheme}${space}${isBearer(scheme) ? shown.bearer : shown.other}`
      : paramValue !== undefined
        ? `${param}${equals}${shown.other}`
        : all,
  );
}

/** The values of a Cookie field, or of one cookie of a Set-Cookie field (`set`: its attributes are not values). */
export function cookieValues(value: string, set: boolean): string[] {
  const pairs = set ? [value.split(';')[0]!] : value.split(';');
  return pairs.map((p) => p.slice(p.indexOf('=') + 1).trim()).filter((v) => v !== '');
}

/** The values of the cookies of a Set-Cookie field, several joined by commas included. */
export function setCookieValues(value: string): string[] {
  return value.split(/,(?=[^;,]*=)/).flatMap((v) => cookieValues(v, true));
}

/**
 * A Cookie field (or a Set-Cookie field, `set`) with every cookie's value replaced by `shown`,
 * names and attributes kept (`session=$REDACTED; Path=/`).
 */
export function replaceCookieValues(value: string, set: boolean, shown: string): string {
  return value
    .split(';')
    .map((part, i) =>
      (!set || i === 0) && part.includes('=') ? `${part.slice(0, part.indexOf('=') + 1)}${shown}` : part,
    )
    .join(';');
}
