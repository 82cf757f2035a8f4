/**
 * How the independent implementation puts a response on the wire: JSON text, media types,
 * content coding, framing and conditional requests. Plain node: APIs, nothing of the project.
 *
 * - JSON is pretty-printed, object keys sorted (so the order differs from any insertion order),
 *   every non-ASCII character escaped as \uXXXX (RFC 8259 §7), and the text ends with a newline
 *   (insignificant whitespace, RFC 8259 §2). Never a byte order mark (RFC 8259 §8.1).
 * - A body is gzip-coded when the request's Accept-Encoding accepts gzip (RFC 9110 §12.5.3) and
 *   the body is worth it; otherwise it goes as is.
 * - A body of CHUNKED_FROM bytes or more is sent without Content-Length, in several writes, so
 *   HTTP/1.1 frames it with chunked transfer coding (RFC 9112 §7.1); a smaller one carries
 *   Content-Length.
 * - Entity tags are weak (W/"..."): the representation carries a request id that differs on every
 *   response, so two responses are semantically equivalent, never byte-identical (RFC 9110 §8.8.1).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';

/** The JSON media types this implementation labels its bodies with. */
export const MEDIA = {
  /** GET of a counterparty. */
  jsonSpaced: 'application/json; charset=utf-8',
  /** PATCH of a counterparty. */
  jsonTight: 'application/json;charset=UTF-8',
  /** Everything else that succeeds. */
  json: 'application/json',
  /** RFC 9457 problem details. */
  problem: 'application/problem+json; charset=utf-8',
} as const;

/** Bodies at least this long (after coding) are sent chunked, without Content-Length. */
export const CHUNKED_FROM = 1024;
/** Size of each write of a chunked body. */
const CHUNK_SIZE = 512;
/** Bodies shorter than this are not worth compressing. */
const GZIP_FROM = 256;

/** A copy of `value` whose objects have their keys in code-unit order, recursively. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    // Defined keys (Object.fromEntries): a member named __proto__ stays a member.
    const entries: [string, unknown][] = [];
    for (const key of Object.keys(value).sort())
      entries.push([key, sortKeys((value as Record<string, unknown>)[key])]);
    return Object.fromEntries(entries);
  }
  return value;
}

/**
 * JSON text of `value`: keys sorted, indented, non-ASCII escaped, a final newline. Non-ASCII
 * characters only ever occur inside strings, so escaping them in the whole text is safe; a
 * character outside the BMP becomes its two escaped surrogates, as RFC 8259 §7 prescribes.
 */
export function formatJson(value: unknown, indent: string | number = 2): string {
  const text = JSON.stringify(sortKeys(value), null, indent);
  return (
    text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) + '\n'
  );
}

/** A weak entity tag derived from the given stable content. */
export function weakEtag(content: unknown): string {
  const digest = createHash('sha256')
    .update(JSON.stringify(sortKeys(content)))
    .digest('base64url');
  return `W/"${digest.slice(0, 22)}"`;
}

/** Whether an Accept-Encoding value accepts gzip (RFC 9110 §12.5.3: q=0 means "not acceptable"). */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  let gzip: number | undefined;
  let star: number | undefined;
  for (const item of header.split(',')) {
    const [coding, ...params] = item.split(';').map((s) => s.trim().toLowerCase());
    if (!coding) continue;
    let q = 1;
    for (const p of params) {
      const m = /^q\s*=\s*([01](?:\.\d{0,3})?)$/.exec(p);
      if (m) q = Number(m[1]);
    }
    if (coding === 'gzip' || coding === 'x-gzip') gzip = q;
    else if (coding === '*') star = q;
  }
  return (gzip ?? star ?? 0) > 0;
}

/** The entity tags of an If-Match / If-None-Match value, or '*'. */
function entityTags(value: string): '*' | string[] {
  if (value.trim() === '*') return '*';
  return value.match(/(?:W\/)?"[^"]*"/g) ?? [];
}

const opaque = (tag: string): string => tag.replace(/^W\//, '');

/**
 * Evaluates If-Match and If-None-Match against the current weak tag of an existing resource
 * (RFC 9110 §13.1.1, §13.1.2, §13.2.2): 412 or 304 when a condition fails, undefined when the
 * request may proceed. If-Match compares strongly, so a weak tag never satisfies it; only "*"
 * does. If-None-Match compares weakly. Without Last-Modified, the date conditions are ignored.
 */
export function evaluatePreconditions(req: IncomingMessage, currentTag: string): 304 | 412 | undefined {
  const method = (req.method ?? 'GET').toUpperCase();
  const ifMatch = req.headers['if-match'];
  if (ifMatch !== undefined) {
    const tags = entityTags(ifMatch);
    const strong = !currentTag.startsWith('W/');
    if (tags !== '*' && !(strong && tags.includes(currentTag))) return 412;
  }
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch !== undefined) {
    const tags = entityTags(ifNoneMatch);
    const matches = tags === '*' || tags.some((t) => opaque(t) === opaque(currentTag));
    if (matches) return method === 'GET' || method === 'HEAD' ? 304 : 412;
  }
  return undefined;
}

export interface Outgoing {
  status: number;
  /** A JSON value, or undefined for no content. */
  body?: unknown;
  mediaType?: string;
  /** Indentation of the JSON text. */
  indent?: string | number;
  headers?: Record<string, string | string[]>;
}

/** Writes a response: the headers given, then the body, coded and framed as described above. */
export function writeResponse(req: IncomingMessage, res: ServerResponse, out: Outgoing): void {
  res.statusCode = out.status;
  for (const [name, value] of Object.entries(out.headers ?? {})) res.setHeader(name, value);
  if (out.body === undefined) {
    if (out.status !== 204 && out.status !== 304) res.setHeader('Content-Length', 0);
    res.end();
    return;
  }
  let bytes = Buffer.from(formatJson(out.body, out.indent), 'utf8');
  res.setHeader('Content-Type', out.mediaType ?? MEDIA.json);
  if (bytes.length >= GZIP_FROM && acceptsGzip(req.headers['accept-encoding'])) {
    bytes = gzipSync(bytes);
    res.setHeader('Content-Encoding', 'gzip');
  }
  if (bytes.length < CHUNKED_FROM) {
    res.setHeader('Content-Length', bytes.length);
    res.end(bytes);
    return;
  }
  res.removeHeader('Content-Length');
  for (let at = 0; at < bytes.length; at += CHUNK_SIZE) res.write(bytes.subarray(at, at + CHUNK_SIZE));
  res.end();
}
