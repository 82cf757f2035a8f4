/**
 * Credentials (interface.md §5: every operation is declared with HTTP bearer). Rules: an
 * Authorization header is present; its scheme is Bearer, in any case (RFC 9110 §11.1: the scheme
 * is a case-insensitive token); a token follows; the token is an RFC 6750 b64token, after one or
 * more spaces. White space around the whole value is no part of it (RFC 9110 §5.5).
 *
 * What the model never knows: whether the deployment accepts the token. Every modelled request
 * says so (`credentials.validity: 'unknown'`); no verdict covers it. A token recorded as
 * `$API_TOKEN` (the suite's redaction, exchange/redact.ts; `$API_TOKEN with its last character
 * changed` for the authentication probe's variants) is present, its syntax not judged.
 */
import { REDACTED_TOKEN } from '../exchange/redact.ts';
import { spec } from '../spec/index.ts';
import { Q } from './quotes.ts';
import { sampleOf, SAMPLE_TOKEN, withHeader } from './samples.ts';
import type { Credentials, RequestRule, RuleCase } from './types.ts';
import type { Family, View } from './view.ts';

/** Every operation: the document declares bearer on all of them (the spec's top-level security). */
const OPERATIONS = spec()
  .operations()
  .map((o) => o.operationId);

export const PRESENT: RequestRule = {
  id: 'credentials-present',
  level: 'MUST',
  refusal: 'required',
  where: { in: 'credentials' },
  operations: OPERATIONS,
  statement: 'The request carries an Authorization header with credentials.',
  quotes: [Q.bearer, Q.auth41],
};

export const BEARER_SCHEME: RequestRule = {
  id: 'credentials-bearer-scheme',
  level: 'MUST',
  refusal: 'required',
  where: { in: 'credentials' },
  operations: OPERATIONS,
  statement: 'The credentials are of the Bearer scheme, written in any case (Bearer, bearer, BEARER).',
  quotes: [Q.bearer, Q.schemeCase],
  rationale:
    'Basic, Token or Digest is a scheme the operations are not declared with; bearer in another case is the same scheme.',
};

export const TOKEN_PRESENT: RequestRule = {
  id: 'credentials-bearer-token-present',
  level: 'MUST',
  refusal: 'required',
  where: { in: 'credentials' },
  operations: OPERATIONS,
  statement: 'A token follows the Bearer scheme.',
  quotes: [Q.bearer, Q.bearerCredentials],
};

export const TOKEN_SYNTAX: RequestRule = {
  id: 'credentials-bearer-token-syntax',
  level: 'MUST',
  refusal: 'permitted',
  where: { in: 'credentials' },
  operations: OPERATIONS,
  statement:
    'The token is a b64token (letters, digits, - . _ ~ + /, then = padding), after one or more spaces.',
  quotes: [Q.bearerCredentials, Q.bearerSyntax, Q.tokenNotShown],
  rationale:
    'RFC 6750 writes the grammar; how tokens are issued is not shown, so a deployment whose tokens break it is not required to refuse them.',
};

const SCHEME = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(.*)$/s;
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** What the Authorization header says, and the rules it breaks. */
export function readCredentials(view: View): { credentials: Credentials; breaches: [RequestRule, string][] } {
  const raw = view.headers.get('authorization')?.[0];
  const out = (
    scheme: string | undefined,
    token: Credentials['token'],
    breaches: [RequestRule, string][] = [],
  ) => ({
    credentials: { scheme, token, validity: 'unknown' as const },
    breaches,
  });
  if (raw === undefined || raw === '')
    return out(undefined, 'absent', [
      [PRESENT, raw === undefined ? 'no Authorization header' : 'an empty Authorization header'],
    ]);
  const m = SCHEME.exec(raw);
  if (!m)
    return out(undefined, 'present', [
      [BEARER_SCHEME, `${JSON.stringify(raw.slice(0, 20))} names no scheme`],
    ]);
  const scheme = m[1]!;
  const rest = m[2]!;
  const token = rest.replace(/^[ \t]+/, '');
  const state: Credentials['token'] =
    token === '' ? 'absent' : token.startsWith(REDACTED_TOKEN) ? 'redacted' : 'present';
  if (scheme.toLowerCase() !== 'bearer')
    return out(scheme, state, [[BEARER_SCHEME, `the ${scheme} scheme, not Bearer`]]);
  if (token === '') return out(scheme, state, [[TOKEN_PRESENT, `${scheme} without a token`]]);
  const breaches: [RequestRule, string][] = [];
  if (!/^ +/.test(rest))
    breaches.push([TOKEN_SYNTAX, 'the scheme and the token are not separated by spaces']);
  else if (state === 'present' && !B64TOKEN.test(token))
    breaches.push([TOKEN_SYNTAX, 'the token holds characters outside the b64token syntax']);
  return out(scheme, state, breaches);
}

export const CREDENTIALS: Family = {
  name: 'credentials',
  rules: [PRESENT, BEARER_SCHEME, TOKEN_PRESENT, TOKEN_SYNTAX],
  open: [],
  judge(view, sink) {
    if (view.target.kind !== 'operation' && view.target.kind !== 'slash') return;
    for (const [rule, message] of readCredentials(view).breaches)
      sink.breach(rule, 'header Authorization', message);
  },
  cases(): RuleCase[] {
    const get = sampleOf('counterparty', 'read');
    const auth = (value: string | undefined) => withHeader(get, 'Authorization', value);
    return [
      { rule: PRESENT.id, holds: get, breaks: auth(undefined) },
      {
        rule: BEARER_SCHEME.id,
        holds: auth(`bearer ${SAMPLE_TOKEN}`),
        breaks: auth(`Basic ${SAMPLE_TOKEN}`),
      },
      { rule: TOKEN_PRESENT.id, holds: get, breaks: auth('Bearer') },
      { rule: TOKEN_SYNTAX.id, holds: auth(`Bearer   ${SAMPLE_TOKEN}`), breaks: auth('Bearer tok@en') },
    ];
  },
  openCases: () => [],
};
