/**
 * What one exchange shows of conditional requests. Requirements: not-modified-condition-false
 * (MUST, as far as the exchange alone shows it; oracles/revalidation.ts judges it against the
 * latest answer about the counterparty) and if-none-match-current-not-modified (MUST).
 *
 * Rests on RFC 9110:
 * - §15.4.5: a 304 "indicates that a conditional GET or HEAD request has been received and would
 *   have resulted in a 200 (OK) response if it were not for the fact that the condition evaluated
 *   to false".
 * - §13.1.2: If-None-Match is compared weakly; "the condition is false if one of the listed tags
 *   matches the entity tag of the selected representation"; an origin server that evaluates it
 *   "MUST respond with either a) the 304 (Not Modified) status code if the request method is GET
 *   or HEAD or b) the 412 (Precondition Failed) status code for all other request methods", and
 *   "MUST evaluate the If-None-Match condition" of a request that selects a representation.
 * - §13.1.3: If-Modified-Since is ignored with If-None-Match, and its condition is false when the
 *   last modification date "is earlier or equal to the date provided in the field value".
 *
 * Applies to every answered exchange below the interface's prefix:
 * - a 304 must answer a GET or HEAD carrying If-None-Match or If-Modified-Since; the ETag it
 *   carries must match (weakly) a tag If-None-Match lists, and with If-Modified-Since alone, the
 *   Last-Modified it carries must not be later than that date. A condition outside the grammar
 *   (a date that is not an IMF-fixdate, a list that is not entity tags) is not judged.
 * - a GET or HEAD answered 2xx whose If-None-Match is "*" or lists (weakly) the ETag the answer
 *   itself carries should have been 304: the deployment says the tag is current. An answer
 *   without an ETag is not judged: a deployment that sends none is not asked to revalidate.
 */
import { is2xx, requestHeader, type Exchange } from '../exchange/exchange.ts';
import {
  conditionsOf,
  etagOf,
  field,
  lastModifiedOf,
  listed,
  showList,
  showTag,
  weakMatch,
} from './entity-tag.ts';
import { held, violated, type ExchangeOracle, type Judgement } from './types.ts';

const SAFE = new Set(['GET', 'HEAD']);

const shownRequest = (ex: Exchange): string => `${ex.request.method} ${ex.request.url}`;

/** A 304: what the request's conditions and the answer's validators say of it. */
function judgeNotModified(exchange: Exchange): Judgement[] {
  const id = 'not-modified-condition-false';
  const method = exchange.request.method.toUpperCase();
  const c = conditionsOf(exchange);
  const fail = (message: string, expected: string, received: string): Judgement[] => [
    violated({
      requirement: id,
      exchange,
      message: `${shownRequest(exchange)}: ${message}`,
      expected,
      received,
    }),
  ];
  if (!SAFE.has(method)) {
    return fail(
      `a ${method} was answered 304`,
      'a 304 only for GET or HEAD; a failed If-None-Match on another method is 412 (RFC 9110 §13.1.2)',
      '304 (Not Modified)',
    );
  }
  const hasNoneMatch = requestHeader(exchange, 'if-none-match') !== undefined;
  const hasSince = requestHeader(exchange, 'if-modified-since') !== undefined;
  if (!hasNoneMatch && !hasSince) {
    return fail(
      'a request with no condition was answered 304',
      'a 304 only to a conditional request whose condition evaluated to false (RFC 9110 §15.4.5)',
      '304 (Not Modified) to a request without If-None-Match or If-Modified-Since',
    );
  }
  const tag = etagOf(exchange);
  if (Array.isArray(c.ifNoneMatch) && tag !== undefined && !listed(c.ifNoneMatch, tag, weakMatch)) {
    return fail(
      `a 304 whose ETag ${showTag(tag)} is not among the tags If-None-Match lists`,
      `200 with the current representation: If-None-Match: ${showList(c.ifNoneMatch)} names no current tag, so its condition is true (RFC 9110 §13.1.2)`,
      `304 (Not Modified), ETag: ${showTag(tag)}`,
    );
  }
  const modified = lastModifiedOf(exchange);
  if (c.ifModifiedSince !== undefined && modified !== undefined && modified > c.ifModifiedSince) {
    return fail(
      'a 304 whose Last-Modified is later than If-Modified-Since',
      `200 with the current representation: it was modified after ${requestHeader(exchange, 'if-modified-since')} (RFC 9110 §13.1.3)`,
      `304 (Not Modified), Last-Modified: ${field(exchange, 'last-modified') ?? ''}`,
    );
  }
  if (hasNoneMatch && c.ifNoneMatch === undefined) return [];
  if (!hasNoneMatch && c.ifModifiedSince === undefined) return [];
  return [held(id)];
}

/** A GET or HEAD answered with success although If-None-Match names the tag it carries. */
function judgeCurrentTag(exchange: Exchange): Judgement[] {
  const id = 'if-none-match-current-not-modified';
  const { ifNoneMatch } = conditionsOf(exchange);
  const tag = etagOf(exchange);
  if (ifNoneMatch === undefined || tag === undefined) return [];
  if (ifNoneMatch !== '*' && !listed(ifNoneMatch, tag, weakMatch)) return [held(id)];
  return [
    violated({
      requirement: id,
      exchange,
      message: `${shownRequest(exchange)}: If-None-Match names the current entity tag ${showTag(tag)}, and the answer was ${exchange.status}, not 304`,
      expected: `304 (Not Modified): If-None-Match: ${showList(ifNoneMatch)} matches the current tag, so its condition is false (RFC 9110 §13.1.2)`,
      received: `${exchange.status} with the representation, ETag: ${showTag(tag)}`,
    }),
  ];
}

export const CONDITIONAL_GET_ORACLE: ExchangeOracle = {
  id: 'conditional-get',
  kind: 'exchange',
  requirements: ['not-modified-condition-false', 'if-none-match-current-not-modified'],
  unexercised: {
    'not-modified-condition-false': 'no request of the interface was answered 304',
    'if-none-match-current-not-modified':
      'no GET or HEAD carrying If-None-Match was answered with success and an ETag',
  },
  judge({ exchange, inInterface }) {
    if (!inInterface || exchange.status === 0) return [];
    if (exchange.status === 304) return judgeNotModified(exchange);
    if (is2xx(exchange.status) && SAFE.has(exchange.request.method.toUpperCase()))
      return judgeCurrentTag(exchange);
    return [];
  },
};
