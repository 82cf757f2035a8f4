/**
 * The reference server's validators and preconditions (RFC 9110 §8.8.3, §13): a strong entity tag
 * of a representation's exact text, and If-Match and If-None-Match evaluated in the order of
 * §13.2.2. There is no Last-Modified: updatedAt has a resolution of one second, which two PATCHes
 * in one second would share, so the date conditions are ignored, as §13.1.3 and §13.1.4 say of a
 * resource that "does not have a modification date available".
 */
import { createHash } from 'node:crypto';

/**
 * A strong entity tag (§8.8.3) of a representation's exact text: a digest of the bytes sent, so it
 * changes whenever they do, and two representations share it only when they are the same bytes.
 */
export function strongTag(text: string): string {
  return `"${createHash('sha256').update(text, 'utf8').digest('base64url').slice(0, 27)}"`;
}

/** An If-Match or If-None-Match value: "*", the entity tags it lists, or undefined outside the grammar. */
export function tagList(value: string): '*' | string[] | undefined {
  if (value.trim() === '*') return '*';
  const tags = value.match(/(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"/g) ?? [];
  const rest = value.replace(/(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"/g, '');
  return tags.length > 0 && /^[\s,]*$/.test(rest) ? tags : undefined;
}

const opaque = (tag: string): string => tag.replace(/^W\//, '');

/**
 * The outcome of the preconditions of a request on an existing representation whose tag is
 * `current` (§13.2.2): 412 when If-Match names no tag that matches it strongly (an If-Match
 * outside the grammar lists none), 304 (GET, HEAD) or 412 (other methods) when If-None-Match is
 * "*" or names it (weak comparison), undefined when the method may be performed.
 */
export function preconditionOutcome(
  method: string,
  ifMatch: string | undefined,
  ifNoneMatch: string | undefined,
  current: string,
): 304 | 412 | undefined {
  if (ifMatch !== undefined) {
    const tags = tagList(ifMatch);
    const strong = !current.startsWith('W/');
    if (tags !== '*' && !(strong && (tags ?? []).includes(current))) return 412;
  }
  if (ifNoneMatch !== undefined) {
    const tags = tagList(ifNoneMatch);
    if (tags === '*' || (tags ?? []).some((t) => opaque(t) === opaque(current)))
      return method === 'GET' || method === 'HEAD' ? 304 : 412;
  }
  return undefined;
}
