/**
 * Every request is answered. Requirement: request-answered.
 *
 * Rests on HTTP (RFC 9110 §15: a server answers a request with a response) and on every
 * operation of interface.md §4 having a result: a deployment that accepts a connection and then
 * never answers, or drops it before the answer is complete, fails its clients.
 *
 * Applies to every exchange below the interface's prefix that went out: answered (held), or
 * ended by a timeout or a dropped connection (violated). An answer the client chose not to read
 * (over its body cap) or a rate limit that did not lift is not judged: neither is the
 * deployment's failure to answer.
 */
import { describeRequest } from '../exchange/describe.ts';
import { held, violated, type ExchangeOracle } from './types.ts';

/** The failures that mean the deployment did not answer. */
export const UNANSWERED_KINDS = new Set(['timeout', 'connection']);

export const REQUEST_ANSWERED_ORACLE: ExchangeOracle = {
  id: 'request-answered',
  kind: 'exchange',
  requirements: ['request-answered'],
  unexercised: { 'request-answered': 'no request of the interface was sent' },
  judge({ exchange: ex, inInterface }) {
    if (!inInterface) return [];
    if (ex.status > 0) return [held('request-answered')];
    if (!ex.failure || !UNANSWERED_KINDS.has(ex.failure.kind)) return [];
    return [
      violated({
        requirement: 'request-answered',
        exchange: ex,
        message: `${describeRequest(ex)} got no complete answer: ${ex.failure.message}`,
        expected: 'a complete HTTP response',
        received: `no response (${ex.failure.kind}: ${ex.failure.message})`,
      }),
    ];
  },
};
