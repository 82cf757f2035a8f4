/**
 * Validators and preconditions as RFC 9110 writes them, for the oracles of HEAD and conditional
 * requests (oracles/conditional-get.ts, oracles/revalidation.ts, oracles/entity-tags.ts,
 * oracles/patch-entity-tags.ts, oracles/patch-preconditions.ts): an entity tag (§8.8.3), a list
 * of them in If-Match or If-None-Match (§13.1.1, §13.1.2), the two comparison functions
 * (§8.8.3.2), and what the request's conditions and the answer's validators say.
 *
 * Written here rather than taken from a library: the packages that read these fields (fresh,
 * etag) decide freshness for a server and accept what the grammar does not (a bare token as a
 * tag, a list holding "*" and tags); an oracle needs the grammar itself, and a value outside it
 * judged not at all. The grammar is two lines of RFC 9110.
 */
import { requestHeader, type Exchange } from '../exchange/exchange.ts';
import { frozenCanonicalJson } from '../exchange/canonical-json.ts';
import { own } from '../exchange/own.ts';
import { parseHttpDate } from './lifecycle-headers.ts';

/** An entity tag: its weakness indicator, and its opaque-tag with the quotes. */
export interface EntityTag {
  weak: boolean;
  opaque: string;
}

/** RFC 9110 §8.8.3: entity-tag = [ weak ] opaque-tag; etagc = %x21 / %x23-7E / obs-text. */
const ENTITY_TAG = /(W\/)?("[\x21\x23-\x7e\x80-\xff]*")/y;

/** An ETag field value: one entity tag, or undefined when absent or outside the grammar. */
export function parseEntityTag(value: string | undefined): EntityTag | undefined {
  if (value === undefined) return undefined;
  const list = parseTagList(value);
  return Array.isArray(list) && list.length === 1 ? list[0] : undefined;
}

/**
 * An If-Match or If-None-Match field value: "*", a list of entity tags (RFC 9110 §5.6.1: empty
 * elements and white space around them allowed), or undefined when outside the grammar.
 */
export function parseTagList(value: string): '*' | EntityTag[] | undefined {
  if (value.trim() === '*') return '*';
  const tags: EntityTag[] = [];
  let at = 0;
  const skip = (): void => {
    while (at < value.length && /[ \t,]/.test(value[at]!)) at++;
  };
  skip();
  while (at < value.length) {
    ENTITY_TAG.lastIndex = at;
    const m = ENTITY_TAG.exec(value);
    if (!m) return undefined;
    tags.push({ weak: m[1] !== undefined, opaque: m[2]! });
    at = ENTITY_TAG.lastIndex;
    const before = at;
    skip();
    if (at < value.length && !value.slice(before, at).includes(',')) return undefined;
  }
  return tags.length > 0 ? tags : undefined;
}

/** RFC 9110 §8.8.3.2: both strong, the same opaque-tag. */
export const strongMatch = (a: EntityTag, b: EntityTag): boolean =>
  !a.weak && !b.weak && a.opaque === b.opaque;

/** RFC 9110 §8.8.3.2: the same opaque-tag, either weak or not. */
export const weakMatch = (a: EntityTag, b: EntityTag): boolean => a.opaque === b.opaque;

export const showTag = (t: EntityTag): string => `${t.weak ? 'W/' : ''}${t.opaque}`;

/** The answer's entity tag (ETag), if it carries one within the grammar. */
export const etagOf = (ex: Exchange): EntityTag | undefined => parseEntityTag(own(ex.headers, 'etag'));

/** The answer's Last-Modified, as epoch ms, if it carries an IMF-fixdate. */
export function lastModifiedOf(ex: Exchange): number | undefined {
  const value = own(ex.headers, 'last-modified');
  return value === undefined ? undefined : parseHttpDate(value.trim());
}

/** The conditions a request carries, as RFC 9110 §13.1 reads them. */
export interface Conditions {
  /** If-Match: "*", the tags listed, or undefined when absent or outside the grammar. */
  ifMatch: '*' | EntityTag[] | undefined;
  /** If-None-Match, the same. */
  ifNoneMatch: '*' | EntityTag[] | undefined;
  /**
   * If-Modified-Since as epoch ms, where a recipient evaluates it: an IMF-fixdate, on a request
   * without If-None-Match (§13.1.3: "A recipient MUST ignore If-Modified-Since if the request
   * contains an If-None-Match header field").
   */
  ifModifiedSince: number | undefined;
}

export function conditionsOf(ex: Exchange): Conditions {
  const list = (name: string): '*' | EntityTag[] | undefined => {
    const value = requestHeader(ex, name);
    return value === undefined ? undefined : parseTagList(value);
  };
  const ifNoneMatch = list('if-none-match');
  const since = requestHeader(ex, 'if-modified-since');
  return {
    ifMatch: list('if-match'),
    ifNoneMatch,
    ifModifiedSince:
      requestHeader(ex, 'if-none-match') === undefined && since !== undefined
        ? parseHttpDate(since.trim())
        : undefined,
  };
}

/** Whether a listed tag matches `tag` by `match`. */
export const listed = (
  list: EntityTag[],
  tag: EntityTag,
  match: (a: EntityTag, b: EntityTag) => boolean,
): boolean => list.some((t) => match(t, tag));

export const showList = (list: '*' | EntityTag[]): string =>
  list === '*' ? '*' : list.map(showTag).join(', ');

/** Whether two answers carry the same representation data (JSON compared as values, else text). */
export function sameRepresentation(a: Exchange, b: Exchange): boolean {
  // An answer's body is never changed once recorded: its text is made once (the reads around a
  // batch of refused PATCHes are compared once per PATCH).
  if (a.body !== undefined && b.body !== undefined)
    return frozenCanonicalJson(a.body) === frozenCanonicalJson(b.body);
  return a.body === undefined && b.body === undefined && a.text === b.text;
}

/** Whether an answer's content can be compared at all: read as JSON, or its text kept whole. */
export const comparableContent = (ex: Exchange): boolean =>
  ex.tooDeep === undefined && (ex.body !== undefined || ex.textCut === undefined);

/** The length of an answer's content in bytes (of the whole, where only its head was kept). */
export const byteLength = (ex: Exchange): number => ex.textCut?.bytes ?? Buffer.byteLength(ex.text, 'utf8');

/** A header field of an answer, by its lower-case name. */
export const field = (ex: Exchange, name: string): string | undefined => own(ex.headers, name);

/** The media type of Content-Type (type/subtype, lower case), or undefined. */
export function mediaTypeOf(ex: Exchange): string | undefined {
  const value = field(ex, 'content-type');
  return value === undefined ? undefined : value.split(';')[0]!.trim().toLowerCase();
}
