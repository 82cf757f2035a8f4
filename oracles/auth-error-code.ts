/**
 * Oracle 'auth-error-code': the Bearer challenge of a 401 says why a token was refused, and says
 * nothing of the kind when no credentials were sent.
 *
 * Requirement: auth-401-error-code (SHOULD).
 *
 * Rests on:
 * - RFC 6750 §3: "If the protected resource request included an access token and failed
 *   authentication, the resource server SHOULD include the "error" attribute to provide the
 *   client with the reason why the access request was declined."
 * - RFC 6750 §3.1: "If the request lacks any authentication information (e.g., the client was
 *   unaware that authentication is necessary or attempted using an unsupported authentication
 *   method), the resource server SHOULD NOT include an error code or other error information."
 * - interface.md §5: "Scheme: HTTP bearer."
 *
 * Applies to: every 401 of an operation of the interface whose WWW-Authenticate holds a Bearer
 * challenge (its absence is auth-401-bearer-challenge's business), when the request carried no
 * Authorization header (the challenge must carry no `error`) or a Bearer credential with a token
 * (the challenge must carry an `error`; its value is not judged: invalid_token is the usual one,
 * invalid_request fits a malformed token). Other schemes, and "Bearer" with no token, are left
 * alone: the RFC lets a server read them either way.
 */
import type { RequirementId } from '../spec/requirements.ts';
import { parseChallenges } from './auth-challenge.ts';
import { held, violated, type ExchangeOracle, type Judgement } from './types.ts';

const REQUIREMENT: RequirementId = 'auth-401-error-code';

function header(headers: Record<string, string>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}

/** What the request's credentials were: none, a Bearer token, or something the rule leaves alone. */
function credentialsOf(headers: Record<string, string>): 'none' | 'bearer-token' | 'other' {
  const value = header(headers, 'authorization');
  if (value === undefined) return 'none';
  // The suite records a near miss as "Bearer $API_TOKEN with its first character changed".
  return /^bearer +\S/i.test(value) ? 'bearer-token' : 'other';
}

export const AUTH_ERROR_CODE_ORACLE: ExchangeOracle = {
  id: 'auth-error-code',
  kind: 'exchange',
  requirements: [REQUIREMENT],
  unexercised: {
    [REQUIREMENT]:
      'no 401 with a Bearer challenge answered a request without credentials or with a bearer token',
  },
  judge({ exchange, route }): Judgement[] {
    if (route === undefined || exchange.status !== 401) return [];
    const credentials = credentialsOf(exchange.request.headers);
    if (credentials === 'other') return [];
    const value = header(exchange.headers, 'www-authenticate');
    if (value === undefined) return [];
    const parsed = parseChallenges(value);
    if (!parsed.ok) return [];
    const bearer = parsed.challenges.find((c) => c.scheme.toLowerCase() === 'bearer');
    if (!bearer) return [];
    const where = `${route.operation.method} ${route.operation.path} (401)`;
    const hasError = Object.hasOwn(bearer.params, 'error');
    if (credentials === 'none' && hasError) {
      return [
        violated({
          requirement: REQUIREMENT,
          exchange,
          message: `${where}: a request without credentials was answered with an error code in the Bearer challenge`,
          expected:
            'a Bearer challenge without an error attribute, as the request carried no credentials (RFC 6750 §3.1: SHOULD NOT include an error code)',
          received: `WWW-Authenticate: ${value}`,
        }),
      ];
    }
    if (credentials === 'bearer-token' && !hasError) {
      return [
        violated({
          requirement: REQUIREMENT,
          exchange,
          message: `${where}: a bearer token was refused without an error attribute saying why`,
          expected:
            'a Bearer challenge with an error attribute, e.g. error="invalid_token" (RFC 6750 §3: SHOULD include the "error" attribute)',
          received: `WWW-Authenticate: ${value}`,
        }),
      ];
    }
    return [held(REQUIREMENT)];
  },
};
