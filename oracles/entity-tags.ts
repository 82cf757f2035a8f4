/**
 * A strong entity tag changes with the counterparty, between two reads. Requirement:
 * strong-etag-changes (MUST; oracles/patch-entity-tags.ts judges it around a PATCH).
 *
 * Rests on RFC 9110 §8.8.1: "A strong validator is representation metadata that changes value
 * whenever a change occurs to the representation data that would be observable in the content of
 * a 200 (OK) response to GET." and §8.8.3: an entity tag whose generation "does not satisfy all of
 * the characteristics of a strong validator" MUST be marked weak.
 *
 * Applies to two successful reads of one counterparty with no PATCH of it between
 * (engine/judge.ts), each carrying a strong ETag: where the tags are the same, the two answers
 * carry the same JSON value (member order and white space are not representation data a client
 * acts on, so they are not compared). Weak tags (W/"...") are not judged: a server may keep one
 * across changes it considers equivalent (§8.8.1).
 */
import { is2xx, type Exchange } from '../exchange/exchange.ts';
import { comparableContent, etagOf, sameRepresentation, showTag } from './entity-tag.ts';
import { held, violated, type Judgement, type PairOracle } from './types.ts';

const ID = 'strong-etag-changes';

/**
 * Two answers carrying the counterparty: violated where they carry the same strong tag and
 * different content, held where their strong tags differ or their content is the same, undefined
 * where there is nothing to judge (not both 2xx with a strong tag, or content that cannot be
 * compared).
 */
export function judgeStrongTags(a: Exchange, b: Exchange): Judgement | undefined {
  if (!is2xx(a.status) || !is2xx(b.status) || !comparableContent(a) || !comparableContent(b))
    return undefined;
  const ta = etagOf(a);
  const tb = etagOf(b);
  if (ta === undefined || tb === undefined || ta.weak || tb.weak) return undefined;
  if (ta.opaque !== tb.opaque || sameRepresentation(a, b)) return held(ID);
  return violated({
    requirement: ID,
    exchange: b,
    message: `two answers about the counterparty carry the same strong ETag ${showTag(tb)} and different content`,
    expected: `a new strong ETag for the changed representation (RFC 9110 §8.8.1), or a weak one (W/${tb.opaque}) if the tag cannot follow every change (§8.8.3)`,
    received: `ETag: ${showTag(tb)} on both ${a.request.method} (${a.status}) and ${b.request.method} (${b.status}), with different content`,
    context: [a],
  });
}

export const ENTITY_TAGS_ORACLE: PairOracle = {
  id: 'entity-tags',
  kind: 'pair',
  requirements: [ID],
  unexercised: { [ID]: 'no counterparty was answered twice with a strong entity tag' },
  judge({ first, later }) {
    const judgement = judgeStrongTags(first, later);
    return judgement ? [judgement] : [];
  },
};
