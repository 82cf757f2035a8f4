/**
 * An answer judged against the credentials its request carried. Requirements:
 * auth-missing-rejected, auth-wrong-token-rejected, auth-unauthenticated-401.
 *
 * Rests on interface.md §5 "Scheme: HTTP bearer. Every operation above is declared with it; the
 * client sends `Authorization: Bearer <ACCESS_TOKEN>`.", RFC 6750 §3.1 (a missing or invalid
 * token: 401; a malformed request: 400, invalid_request) and RFC 9110 §15.5.2.
 *
 * Applies to every answered request of a documented operation whose credentials the request
 * model (requests/credentials.ts) shows cannot be the valid ones, whoever sent it:
 * - no Authorization header, an empty one, or the Bearer scheme with no token
 *   (credentials-present, credentials-bearer-token-present): auth-missing-rejected;
 * - another scheme (Basic, Token, ...: credentials-bearer-scheme), which the operations are not
 *   declared with: auth-wrong-token-rejected.
 * Such a request is not answered 2xx (MUST), and should be answered 401, or 400 where an
 * Authorization header was sent malformed (SHOULD). A 429 and a 5xx say nothing of
 * authentication (no-server-error judges the 5xx). 400 is accepted only for an Authorization
 * header that is malformed (no scheme, or Bearer with no token), as the authentication probe does.
 *
 * What it leaves to the authentication probe: a well-formed Bearer token that is wrong. Whether
 * the deployment accepts a token is never shown by the request (credentials.validity is
 * 'unknown' on every modelled request); only the probe, which knows the valid token and sends
 * near misses of it, can judge those.
 */
import { describeRequest, describeResponse } from '../exchange/describe.ts';
import { is2xx, requestHeader } from '../exchange/exchange.ts';
import type { RequirementId } from '../spec/requirements.ts';
import { breaches, brokenInWords, modelled } from './modelled.ts';
import { held, violated, type ExchangeOracle, type Judgement } from './types.ts';

/** The credential rules whose breach means no bearer credentials at all. */
const MISSING = new Set(['credentials-present', 'credentials-bearer-token-present']);
/** The credential rule whose breach means credentials of another scheme. */
const OTHER_SCHEME = new Set(['credentials-bearer-scheme']);

export const REQUEST_CREDENTIALS_ORACLE: ExchangeOracle = {
  id: 'request-credentials',
  kind: 'exchange',
  requirements: ['auth-missing-rejected', 'auth-wrong-token-rejected', 'auth-unauthenticated-401'],
  unexercised: {
    'auth-missing-rejected': 'no request without bearer credentials was answered',
    'auth-wrong-token-rejected': 'no request with credentials of another scheme than Bearer was answered',
    'auth-unauthenticated-401': 'no request without bearer credentials was answered',
  },
  judge(routed): Judgement[] {
    const ex = routed.exchange;
    if (ex.status === 0 || routed.route?.kind !== 'operation') return [];
    const m = modelled(routed);
    const missing = breaches(m, MISSING);
    const other = breaches(m, OTHER_SCHEME);
    const broken = missing.length > 0 ? missing : other;
    if (broken.length === 0) return [];
    const requirement: RequirementId =
      missing.length > 0 ? 'auth-missing-rejected' : 'auth-wrong-token-rejected';
    const out: Judgement[] = [];
    const request = `${describeRequest(ex)} (${routed.route.operation.operationId})`;
    if (is2xx(ex.status)) {
      out.push(
        violated({
          requirement,
          exchange: ex,
          message: `${request} succeeded without bearer credentials: ${brokenInWords(broken)}`,
          expected: 'a refusal (not 2xx): every operation is declared with HTTP bearer (interface.md §5)',
          received: describeResponse(ex),
        }),
      );
    } else out.push(held(requirement));
    if (ex.status === 429 || ex.status >= 500) return out;
    // Malformed: an Authorization header with no scheme, or Bearer with no token (RFC 6750 §3.1
    // lets that be answered 400); another scheme is well-formed credentials, to be answered 401.
    const malformed =
      requestHeader(ex, 'authorization') !== undefined &&
      (missing.length > 0 || m.credentials.scheme === undefined);
    if (ex.status === 401 || (malformed && ex.status === 400)) out.push(held('auth-unauthenticated-401'));
    else
      out.push(
        violated({
          requirement: 'auth-unauthenticated-401',
          exchange: ex,
          message: `${request} without bearer credentials was answered ${ex.status}, not 401: ${brokenInWords(broken)}`,
          expected: malformed
            ? '401, or 400 (RFC 6750 §3.1: a malformed request, invalid_request)'
            : '401 (RFC 6750 §3.1: a missing or invalid token)',
          received: describeResponse(ex),
        }),
      );
    return out;
  },
};
