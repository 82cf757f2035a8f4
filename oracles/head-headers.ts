/**
 * A HEAD of a counterparty answered with success carries the header fields GET does.
 * Requirement: head-headers-as-get (SHOULD).
 *
 * Rests on RFC 9110 §9.3.2: "The server SHOULD send the same header fields in response to a HEAD
 * request as it would have sent if the request method had been GET. However, a server MAY omit
 * header fields for which a value is determined only while generating the content."
 *
 * Applies to a HEAD of a counterparty answered 2xx, with the latest successful GET of it before
 * (engine/judge.ts: no PATCH between). Compared: the media type of Content-Type, whether ETag and
 * Last-Modified are there, and whether Deprecation and Sunset are. Not compared: the fields a
 * server may determine while generating the content (Content-Length, Content-Encoding,
 * Transfer-Encoding, Vary), and the values of the validators, which another client's write
 * between the two requests may change. A HEAD answered 405 or 501 (the deployment does not
 * answer HEAD) is not judged here.
 */
import { is2xx, type Exchange } from '../exchange/exchange.ts';
import { field, mediaTypeOf } from './entity-tag.ts';
import { held, violated, type MetadataOracle } from './types.ts';

/** What is compared: a name, and what an answer says of it. */
const COMPARED: readonly { name: string; of: (ex: Exchange) => string | undefined }[] = [
  { name: 'Content-Type', of: mediaTypeOf },
  ...['ETag', 'Last-Modified', 'Deprecation', 'Sunset'].map((name) => ({
    name,
    of: (ex: Exchange) => (field(ex, name.toLowerCase()) === undefined ? undefined : 'present'),
  })),
];

const shown = (ex: Exchange, names: string[]): string =>
  names.map((n) => `${n}: ${field(ex, n.toLowerCase()) ?? '(absent)'}`).join(', ');

export const HEAD_HEADERS_ORACLE: MetadataOracle = {
  id: 'head-headers',
  kind: 'metadata',
  requirements: ['head-headers-as-get'],
  unexercised: {
    'head-headers-as-get': 'no HEAD of a counterparty was answered with success after a GET of it',
  },
  judge({ latest, exchange }) {
    if (exchange.request.method.toUpperCase() !== 'HEAD' || !is2xx(exchange.status)) return [];
    if (latest.request.method.toUpperCase() !== 'GET' || !is2xx(latest.status)) return [];
    const differing = COMPARED.filter(
      (c) => c.of(latest) !== undefined && c.of(latest) !== c.of(exchange),
    ).map((c) => c.name);
    if (differing.length === 0) return [held('head-headers-as-get')];
    return [
      violated({
        requirement: 'head-headers-as-get',
        exchange,
        message: `HEAD of the counterparty answered without the ${differing.join(', ')} GET answers with`,
        expected: `the header fields of GET (RFC 9110 §9.3.2): ${shown(latest, differing)}`,
        received: shown(exchange, differing),
        context: [latest],
      }),
    ];
  },
};
