/**
 * Redaction before judging (exchange/redact.ts says why there): an exchange is redacted once, as
 * it enters the run, so that neither the oracles nor anything made of their judgements (a
 * finding, the log, a HAR) ever holds a credential.
 *   - What the target sends back to the suite's client (transport/client.ts): `redactedAnswer`,
 *     the body before it is parsed and what parsing decoded, and every header name and value.
 *   - Traffic the suite did not send (a HAR file, the validating proxy: bin/validate.ts):
 *     `learnCredentials` registers every credential an exchange carries (the headers of
 *     exchange/auth-headers.ts and the userinfo of its URLs), then `redactExchange` replaces them
 *     in its request and its answer.
 */
import {
  authorizationCredentials,
  cookieValues,
  isAuthorizationField,
  isCredentialName,
  replaceAuthorizationCredentials,
  replaceCookieValues,
  setCookieValues,
} from './auth-headers.ts';
import type { Exchange } from './exchange.ts';
import { readJsonBody, responseBody } from './json-body.ts';
import {
  MIN_SEARCHED_LENGTH,
  REDACTED_CREDENTIAL,
  REDACTED_TOKEN,
  type Redactor,
  type Secret,
} from './redact.ts';
import { userinfoCredentials } from './userinfo.ts';

/** An answer as the oracles see it: its text and the value parsed from it, its header fields. */
export interface RedactedAnswer {
  text: string;
  body: unknown;
  /** How deep the body nests, when deeper than the judge reads (exchange/json-body.ts). */
  tooDeep?: number;
  headers: Record<string, string>;
}

/**
 * What the target sent back, redacted by `redactor` (the client's: runRedactor of
 * exchange/redactors.ts) before the body is parsed, and what parsing decoded redacted again, so
 * a credential echoed in any encoding cannot reach a finding, a report, Playwright's own output or
 * a log. Data that merely contains a short token is left alone.
 */
export function redactedAnswer(
  redactor: Redactor,
  received: string,
  headers: Record<string, string>,
): RedactedAnswer {
  // A text with nothing encoded and no secret in it is left as it is, and parses to strings that
  // are parts of it: walking them would find nothing (Redactor.untouched), and nearly every answer
  // is such. Asked once, before: the question costs a pass over the whole text.
  const untouched = redactor.untouched(received);
  let text = untouched ? received : redactor.text(received);
  // A body nested too deep is kept as text, without a value (exchange/json-body.ts).
  const { body: parsed, tooDeep } = responseBody(text);
  const body = untouched ? parsed : redactor.value(parsed);
  // A form only parsing revealed (escaped in a way the text rule does not read): the text is
  // what was parsed, written again.
  if (body !== parsed) text = JSON.stringify(body);
  return {
    text,
    body,
    ...(tooDeep !== undefined ? { tooDeep } : {}),
    headers: Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [redactor.header(name), redactor.header(value)]),
    ),
  };
}

/**
 * A header of validated traffic with its credentials replaced by structure: every credential of
 * an Authorization or Proxy-Authorization value (`Bearer $API_TOKEN, Basic $REDACTED`), every
 * cookie's value, the whole value of a header whose name says it holds a credential (an API key).
 */
function sanitizedHeader(name: string, value: string, request: boolean): string {
  const lower = name.toLowerCase();
  if (request && isAuthorizationField(name))
    return replaceAuthorizationCredentials(value, { bearer: REDACTED_TOKEN, other: REDACTED_CREDENTIAL });
  if ((request && lower === 'cookie') || (!request && lower === 'set-cookie'))
    return replaceCookieValues(value, !request, REDACTED_CREDENTIAL);
  if (request && isCredentialName(name) && lower !== 'cookie') return REDACTED_CREDENTIAL;
  return value;
}

/**
 * The credentials an exchange of validated traffic carries, to be searched wherever the target
 * may echo them: the bearer tokens (every form, exchange/redact.ts; not the suite's own
 * `$API_TOKEN`), and the other credentials (Basic, other schemes and their parameters, cookies,
 * API keys, the user and password of a URL) of MIN_SEARCHED_LENGTH or more.
 * Shorter ones are replaced in their own header only (sanitizedHeader), never searched in data.
 */
export function trafficCredentials(ex: Omit<Exchange, 'id'>): { tokens: string[]; secrets: Secret[] } {
  const tokens: string[] = [];
  const values: string[] = [];
  for (const [name, value] of Object.entries(ex.request.headers)) {
    if (isAuthorizationField(name)) {
      const found = authorizationCredentials(value);
      tokens.push(...found.bearer.filter((t) => t !== REDACTED_TOKEN));
      values.push(...found.other);
    } else if (name.toLowerCase() === 'cookie') values.push(...cookieValues(value, false));
    else if (isCredentialName(name)) values.push(value);
  }
  // The userinfo of the request's URL and of URLs in its headers (a Referer), sent as they are.
  for (const text of [ex.request.url, ...Object.values(ex.request.headers)])
    values.push(...userinfoCredentials(text));
  for (const [name, value] of Object.entries(ex.headers))
    if (name.toLowerCase() === 'set-cookie') values.push(...setCookieValues(value));
  const secrets = values
    .filter((v) => v.length >= MIN_SEARCHED_LENGTH && !v.startsWith('$'))
    .map((value) => ({ value, shownAs: REDACTED_CREDENTIAL, everywhere: true }));
  return { tokens, secrets };
}

/** Registers with `redactor` the credentials an exchange of validated traffic carries (trafficCredentials). */
export function learnCredentials(redactor: Redactor, ex: Omit<Exchange, 'id'>): void {
  const { tokens, secrets } = trafficCredentials(ex);
  for (const t of tokens) redactor.addToken(t);
  for (const s of secrets) redactor.add(s);
}

/**
 * An exchange of validated traffic with its credentials replaced: those of the credential
 * headers by structure, then every secret of `redactor` wherever it stands (exchange/redact.ts),
 * before the body is parsed and again in what parsing decoded.
 */
export function redactExchange<T extends Omit<Exchange, 'id'>>(ex: T, redactor: Redactor): T {
  const headers = (h: Record<string, string>, request: boolean): Record<string, string> =>
    Object.fromEntries(
      Object.entries(h).map(([k, v]) => [
        redactor.header(k),
        redactor.header(sanitizedHeader(k, v, request)),
      ]),
    );
  let responseText = redactor.text(ex.text);
  // Read again once redacted; a body nested too deep has no value either way (exchange/json-body.ts).
  const parsed = responseText === ex.text ? ex.body : parseOr(responseText, ex.body);
  const body = redactor.value(parsed);
  if (body !== parsed) responseText = JSON.stringify(body);
  return {
    ...ex,
    request: {
      ...ex.request,
      url: redactor.text(ex.request.url),
      headers: headers(ex.request.headers, true),
      ...(ex.request.body !== undefined ? { body: redactor.text(ex.request.body) } : {}),
    },
    headers: headers(ex.headers, false),
    text: responseText,
    body,
    ...(ex.failure ? { failure: { ...ex.failure, message: redactor.text(ex.failure.message) } } : {}),
  };
}

function parseOr(text: string, fallback: unknown): unknown {
  if (text === '') return undefined;
  const read = readJsonBody(text);
  return read === undefined ? fallback : read.value;
}
