/**
 * The status rules of the counterparty reference in the URL. Requirements:
 * reference-valid-not-400, reference-invalid-400, reference-slash-404,
 * reference-encoded-slash-not-success.
 *
 * Rests on interface.md §4.1 "Path parameter `counterpartyReference`: required string, length 3
 * to 90, pattern `^[-_a-zA-Z0-9]+$`." and "A reference containing a forward slash is treated as
 * a path separator, so the request fails as a routing error with status 404, not as a pattern
 * violation with status 400.", and the table of §7.
 *
 * Applies to every answered GET and PATCH of /api/v1/counterparties/..., whoever sent it; the
 * reference is read from the URL (decoded). Where the document is silent it asserts nothing:
 * a valid reference of a PATCH (whose body may be refused with 400), and answers 401, 403 and
 * 429 to an invalid reference (authentication or a rate limit may come before routing and
 * validation; the suite's probes, which know their token is valid, judge those themselves).
 * For a PATCH, an invalid reference must give 400 only when the body itself is valid, since a
 * body error may be reported first.
 */
import { describeResponse } from '../exchange/describe.ts';
import { is2xx, requestHeader, requestJson, type Exchange } from '../exchange/exchange.ts';
import { spec } from '../spec/index.ts';
import { held, violated, type ExchangeOracle, type Judgement } from './types.ts';
import { registered } from '../spec/operations.ts';

/** Statuses that may come before routing and validation: the rule is not judged on them. */
export const PRE_ROUTING_STATUSES = new Set([401, 403, 429]);

/**
 * Whether the request carried an Authorization header that is not `Bearer` followed by
 * credentials (empty bearer credentials): RFC 6750 §3.1 lets the resource server refuse such a
 * malformed request with 400 (invalid_request) before it looks at the reference.
 */
export function malformedCredentials(ex: Exchange): boolean {
  const auth = requestHeader(ex, 'authorization');
  return auth !== undefined && !/^bearer[ \t]+\S/i.test(auth.trim());
}

export function isValidReference(reference: string): boolean {
  return spec().errors('CounterpartyReference', reference).length === 0;
}

/** Why a reference breaks the rules, in a few words. */
function whyInvalid(reference: string): string {
  const errors = spec().errors('CounterpartyReference', reference);
  return errors.map((e) => `${e.keyword} ${e.message ?? ''}`.trim()).join('; ');
}

const quote = (s: string): string => JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}…` : s);

function bodyIsValidPatch(ex: Exchange): boolean {
  const body = requestJson(ex);
  return body !== undefined && spec().errors('PatchCounterpartyRequest', body).length === 0;
}

export const REFERENCE_STATUS_ORACLE: ExchangeOracle = {
  id: 'reference-status',
  kind: 'exchange',
  requirements: [
    'reference-valid-not-400',
    'reference-invalid-400',
    'reference-slash-404',
    'reference-encoded-slash-not-success',
  ],
  unexercised: {
    'reference-valid-not-400': 'no counterparty was read with a valid reference',
    'reference-invalid-400': 'no counterparty was read with an invalid reference',
    'reference-slash-404': 'no counterparty reference holding a raw "/" was sent',
    'reference-encoded-slash-not-success': 'no counterparty reference holding "%2F" was sent',
  },
  judge({ exchange: ex, route }): Judgement[] {
    if (ex.status === 0 || route === undefined) return [];
    const method = ex.request.method.toUpperCase();
    if (route.kind === 'slash') {
      if (PRE_ROUTING_STATUSES.has(ex.status)) return [];
      return [
        ex.status === 404
          ? held('reference-slash-404')
          : violated({
              requirement: 'reference-slash-404',
              exchange: ex,
              message: `${method} of the reference ${quote(route.reference)} with a raw slash was answered ${ex.status}, not 404`,
              expected: '404 (interface.md §4.1, §7: the slash is a path separator, a routing failure)',
              received: describeResponse(ex),
            }),
      ];
    }
    if (registered(route.operation.operationId)?.resource !== 'counterparty') return [];
    const reference = route.params.counterpartyReference ?? '';
    if (reference.includes('/')) {
      return [
        is2xx(ex.status)
          ? violated({
              requirement: 'reference-encoded-slash-not-success',
              exchange: ex,
              message: `${method} of the reference ${quote(reference)}, its slash sent as %2F, was answered ${ex.status}`,
              expected:
                'not 2xx: a reference holding a slash matches no counterparty (400 or 404 are both open)',
              received: describeResponse(ex),
            })
          : held('reference-encoded-slash-not-success'),
      ];
    }
    if (isValidReference(reference)) {
      if (method !== 'GET') return [];
      if (ex.status === 400 && malformedCredentials(ex)) return [];
      return [
        ex.status === 400
          ? violated({
              requirement: 'reference-valid-not-400',
              exchange: ex,
              message: `GET of the valid reference ${quote(reference)} was answered 400`,
              expected:
                'any status but 400 (the reference keeps length and pattern; whether it exists is open)',
              received: describeResponse(ex),
            })
          : held('reference-valid-not-400'),
      ];
    }
    if (PRE_ROUTING_STATUSES.has(ex.status)) return [];
    // A URL of kilobytes may be refused before routing, by the service or a server in front of it.
    if (ex.status === 414 && ex.request.url.length > 2048) return [];
    if (method === 'PATCH' && !bodyIsValidPatch(ex)) return [];
    if (method !== 'GET' && method !== 'PATCH') return [];
    return [
      ex.status === 400
        ? held('reference-invalid-400')
        : violated({
            requirement: 'reference-invalid-400',
            exchange: ex,
            message: `${method} of the invalid reference ${quote(reference)} (${whyInvalid(reference)}) was answered ${ex.status}, not 400`,
            expected: '400 (interface.md §7: a reference violating length or pattern without a slash)',
            received: describeResponse(ex),
          }),
    ];
  },
};
