/**
 * An answer to HEAD carries no content. Requirement: head-no-content (MUST).
 *
 * Rests on RFC 9110 §9.3.2: "The HEAD method is identical to GET except that the server MUST NOT
 * send content in the response." and §6.4.1: "Responses to the HEAD request method (Section
 * 9.3.2) never include content".
 *
 * Applies to every answered HEAD below the interface's prefix, whatever its status (a 405 and a
 * 404 carry no content either). Its content is what followed the header section on the wire: the
 * suite's client reads a HEAD's connection to its end (transport/head.ts), and a HAR records it
 * as the entry's content. Whether a deployment answers HEAD at all is left open.
 */
import { byteLength } from './entity-tag.ts';
import { held, violated, type ExchangeOracle } from './types.ts';

export const HEAD_METHOD_ORACLE: ExchangeOracle = {
  id: 'head-method',
  kind: 'exchange',
  requirements: ['head-no-content'],
  unexercised: { 'head-no-content': 'no HEAD was sent to the interface' },
  judge({ exchange, inInterface }) {
    if (!inInterface || exchange.status === 0 || exchange.request.method.toUpperCase() !== 'HEAD') return [];
    const bytes = byteLength(exchange);
    if (bytes === 0) return [held('head-no-content')];
    const head = exchange.text.slice(0, 80);
    return [
      violated({
        requirement: 'head-no-content',
        exchange,
        message: `HEAD ${exchange.request.url} was answered ${exchange.status} with ${bytes} bytes of content`,
        expected: 'no content after the header section (RFC 9110 §9.3.2: "the server MUST NOT send content")',
        received: `${bytes} bytes: ${JSON.stringify(head)}${exchange.text.length > head.length ? '…' : ''}`,
      }),
    ];
  },
};
