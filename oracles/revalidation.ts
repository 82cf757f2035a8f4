/**
 * A 304 about a counterparty, against the latest answer that carried it. Requirement:
 * not-modified-condition-false (MUST; oracles/conditional-get.ts judges what the 304 alone shows).
 *
 * Rests on RFC 9110:
 * - §15.4.5: "The server generating a 304 response MUST generate any of the following header
 *   fields that would have been sent in a 200 (OK) response to the same request:" (ETag among
 *   them).
 * - §8.8.1: "A strong validator is unique across all versions of all representations associated
 *   with a particular resource over time."
 * - §13.1.2: the condition of If-None-Match is false only "if one of the listed tags matches the
 *   entity tag of the selected representation".
 *
 * Applies to a 304 to a GET or HEAD of a counterparty, with the latest successful read or accepted
 * PATCH of it (engine/judge.ts), where that answer carried an ETag:
 * - the 304 carries an ETag too (a 200 would have);
 * - where that ETag was strong: the 304 does not say that another tag the request lists is
 *   current. A strong tag is never current again once the counterparty changed, so such a 304
 *   tells the client that a representation it holds is current when the latest answer showed a
 *   newer one: it serves stale data. A weak tag may return to an earlier value and is not judged
 *   so.
 */
import { conditionsOf, etagOf, listed, showTag, weakMatch } from './entity-tag.ts';
import { held, violated, type MetadataOracle } from './types.ts';

const ID = 'not-modified-condition-false';

export const REVALIDATION_ORACLE: MetadataOracle = {
  id: 'revalidation',
  kind: 'metadata',
  requirements: [ID],
  unexercised: {
    [ID]: 'no counterparty was answered 304 after an answer that carried its entity tag',
  },
  judge({ latest, exchange }) {
    if (exchange.status !== 304) return [];
    const current = etagOf(latest);
    if (current === undefined) return [];
    const where = `${exchange.request.method} ${exchange.request.url}`;
    const tag = etagOf(exchange);
    const latestShown = `${latest.request.method} answered ${latest.status} with ETag: ${showTag(current)}`;
    if (tag === undefined) {
      return [
        violated({
          requirement: ID,
          exchange,
          message: `${where}: a 304 without the ETag a 200 carries`,
          expected: `ETag: ${showTag(current)} or the current tag (RFC 9110 §15.4.5: a 304 carries the ETag a 200 would)`,
          received: '304 (Not Modified) without ETag',
          context: [latest],
        }),
      ];
    }
    const { ifNoneMatch } = conditionsOf(exchange);
    if (
      current.weak ||
      !Array.isArray(ifNoneMatch) ||
      weakMatch(tag, current) ||
      !listed(ifNoneMatch, tag, weakMatch)
    )
      return [held(ID)];
    return [
      violated({
        requirement: ID,
        exchange,
        message: `${where}: a 304 names ${showTag(tag)} current, a tag the counterparty had before the latest answer (${showTag(current)})`,
        expected: `200 with the current representation: ${latestShown}, and a strong tag is never current again once replaced (RFC 9110 §8.8.1, §13.1.2)`,
        received: `304 (Not Modified), ETag: ${showTag(tag)}`,
        context: [latest],
      }),
    ];
  },
};
