/**
 * Requests that HTTP (RFC 9110, RFC 3986) and JSON (RFC 8259) make one with a given request,
 * written differently: for the generators to send a valid request in every way a client may
 * write it (a refusal of one is a finding, at the rewriting's level), and for the tests to show
 * the model reads them all alike (each rewriting models as its original does).
 *
 * MUST where the RFC defines the two as the same (a field name's case, a media type's case, JSON
 * whitespace, member order and escapes); SHOULD where the project asks a deployment at SHOULD
 * level (a scheme in another case: auth-scheme-case-insensitive; percent-encoded unreserved
 * characters: reference-percent-encoding-equivalent) or where the sameness is the API's reading
 * rather than an RFC's (query parameters in another order; a number written in another form).
 * Framing (Content-Length or chunked) is a transport concern: the request is the same, sent
 * another way, and the rewriting says so.
 */
import { encodePathSegment } from '../exchange/paths.ts';
import { isJson, isJsonSuffix, parameter } from './media-type.ts';
import { readsAsJson } from './payloads.ts';
import type { HttpRequest, Level, ModelOptions } from './types.ts';
import { viewOf, type View } from './view.ts';
import { own, ownOf } from '../exchange/own.ts';

export interface Rewriting {
  /** header-name-case, json-key-order, path-percent-encoding, ... */
  kind: string;
  /** One line: what was rewritten. */
  description: string;
  /** Where the sameness is defined: 'RFC 9110 §5.1'. */
  basis: string;
  level: Level;
  /** The requirement of the catalogue that asks a deployment to treat it alike, where one does. */
  requirement?: string;
  request: HttpRequest;
  /** Set when the record is unchanged and the difference is how it is framed on the wire. */
  framing?: 'chunked';
}

type Lines = [string, string][];

function lines(headers: HttpRequest['headers']): Lines {
  return (Array.isArray(headers) ? headers : Object.entries(headers)).map(
    ([n, v]) => [n, v] as [string, string],
  );
}

const isContentType = (name: string): boolean => name.toLowerCase() === 'content-type';
const isAuthorization = (name: string): boolean => name.toLowerCase() === 'authorization';

/** JSON text of a value, written as asked: indentation, member order, escapes, number forms. */
export function writeJson(
  value: unknown,
  how: { indent?: string; newline?: string; reverse?: boolean; escapeAll?: boolean; numbers?: boolean } = {},
): string {
  const nl = how.newline ?? '\n';
  const str = (s: string): string =>
    how.escapeAll
      ? `"${Array.from({ length: s.length }, (_, i) =>
          s[i] === '/' ? '\\/' : `\\u${s.charCodeAt(i).toString(16).padStart(4, '0')}`,
        ).join('')}"`
      : JSON.stringify(s);
  const num = (n: number): string =>
    how.numbers ? (Number.isInteger(n) ? `${n}.0` : n.toExponential().replace('e+', 'E')) : JSON.stringify(n);
  const write = (v: unknown, depth: number): string => {
    const pad = how.indent === undefined ? '' : nl + how.indent.repeat(depth + 1);
    const end = how.indent === undefined ? '' : nl + how.indent.repeat(depth);
    if (v === null || typeof v === 'boolean') return String(v);
    if (typeof v === 'number') return num(v);
    if (typeof v === 'string') return str(v);
    if (Array.isArray(v))
      return v.length === 0 ? '[]' : `[${v.map((x) => pad + write(x, depth + 1)).join(',')}${end}]`;
    const keys = Object.keys(v as object);
    if (how.reverse) keys.reverse();
    if (keys.length === 0) return '{}';
    const colon = how.indent === undefined ? ':' : ' : ';
    return `{${keys.map((k) => `${pad}${str(k)}${colon}${write(ownOf(v, k), depth + 1)}`).join(',')}${end}}`;
  };
  return write(value, 0);
}

/** Every unreserved character percent-encoded too (%41 for A); the rest as the suite encodes it. */
export function encodeEveryCharacter(value: string): string {
  return [...value]
    .map((c) =>
      /^[A-Za-z0-9\-._~]$/.test(c)
        ? `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`
        : encodePathSegment(c),
    )
    .join('');
}

/** `url` with its path's segments rewritten; undefined when the path is not written as parsed. */
function withPath(url: string, rewrite: (segments: string[]) => string[]): string | undefined {
  const pathname = new URL(url, 'http://relative.invalid').pathname;
  const at = url.indexOf(pathname);
  if (at < 0) return undefined;
  return url.slice(0, at) + rewrite(pathname.split('/')).join('/') + url.slice(at + pathname.length);
}

function hasNumbers(v: unknown): boolean {
  if (typeof v === 'number') return true;
  if (v !== null && typeof v === 'object') return Object.values(v).some(hasNumbers);
  return false;
}

/** Where the families put their rewritings, in the order `equivalents` returns them. */
interface Rewritings {
  readonly request: HttpRequest;
  readonly view: View;
  readonly headers: Lines;
  /** A rewriting of the record: kept unless it changes nothing. */
  readonly add: (r: Omit<Rewriting, 'request'>, change: Partial<HttpRequest>) => void;
  /** The record unchanged, sent another way. */
  readonly keep: (r: Rewriting) => void;
}

/**
 * The rewritings of `request` that HTTP, URIs and JSON make equivalent to it: its field names and
 * values, its media type, its scheme, its JSON text and framing, its path and its query, in that
 * order.
 */
export function equivalents(request: HttpRequest, options: ModelOptions = {}): Rewriting[] {
  const out: Rewriting[] = [];
  const into: Rewritings = {
    request,
    view: viewOf(request, options),
    headers: lines(request.headers),
    add: (r, change) => {
      const rewritten = { ...request, ...change };
      // A rewriting that changes nothing (one member to reorder, no space to add) is none.
      if (JSON.stringify(rewritten) !== JSON.stringify(request)) out.push({ ...r, request: rewritten });
    },
    keep: (r) => void out.push(r),
  };
  for (const family of [
    fieldRewritings,
    mediaTypeRewritings,
    schemeRewritings,
    bodyRewritings,
    pathRewritings,
    queryRewritings,
  ])
    family(into);
  return out;
}

/** Field names in another case, white space around field values (RFC 9110 §5). */
function fieldRewritings({ headers: hs, add }: Rewritings): void {
  if (hs.length === 0) return;
  const mapHeaders = (f: (line: [string, string]) => [string, string]): Lines => hs.map((l) => f([...l]));
  add(
    {
      kind: 'header-name-case',
      description: 'every field name in lower case',
      basis: 'RFC 9110 §5.1',
      level: 'MUST',
    },
    { headers: mapHeaders(([n, v]) => [n.toLowerCase(), v]) },
  );
  add(
    {
      kind: 'header-name-case',
      description: 'every field name in upper case',
      basis: 'RFC 9110 §5.1',
      level: 'MUST',
    },
    { headers: mapHeaders(([n, v]) => [n.toUpperCase(), v]) },
  );
  add(
    {
      kind: 'header-value-whitespace',
      description: 'spaces and a tab around every field value',
      basis: 'RFC 9110 §5.5',
      level: 'MUST',
    },
    { headers: mapHeaders(([n, v]) => [n, ` ${v}\t`]) },
  );
}

/** The media type in another case; a JSON type's charset written out, and its parameters' spacing. */
function mediaTypeRewritings({ view, headers: hs, add }: Rewritings): void {
  const type = view.mediaType;
  if (!type || type.problem !== undefined) return;
  const setType = (value: string): Lines => hs.map(([n, v]) => [n, isContentType(n) ? value : v]);
  const raw = hs.find(([n]) => isContentType(n))![1].trim();
  const head = raw.slice(0, type.essence.length);
  add(
    {
      kind: 'media-type-case',
      description: 'type and subtype in upper case',
      basis: 'RFC 9110 §8.3.1',
      level: 'MUST',
    },
    { headers: setType(head.toUpperCase() + raw.slice(head.length)) },
  );
  if (!(isJson(type) || isJsonSuffix(type)) || parameter(type, 'charset') !== undefined) return;
  add(
    {
      kind: 'media-type-charset',
      description: 'a charset=utf-8 parameter',
      basis: 'RFC 8259 §11',
      level: 'MUST',
    },
    { headers: setType(`${raw}; charset=utf-8`) },
  );
  add(
    {
      kind: 'media-type-parameters',
      description: 'a quoted charset in upper case, white space around ";"',
      basis: 'RFC 9110 §5.6.6',
      level: 'MUST',
    },
    { headers: setType(`${raw} ;\tCharset="UTF-8"`) },
  );
}

/** The Bearer scheme in another case, and more spaces after it. */
function schemeRewritings({ headers: hs, add }: Rewritings): void {
  const auth = hs.find(([n]) => isAuthorization(n))?.[1].trim();
  const m = auth === undefined ? null : /^bearer +(.+)$/i.exec(auth);
  if (!m) return;
  const setAuth = (value: string): Lines => hs.map(([n, v]) => [n, isAuthorization(n) ? value : v]);
  for (const scheme of ['bearer', 'BEARER'])
    add(
      {
        kind: 'scheme-case',
        description: `the scheme written ${scheme}`,
        basis: 'RFC 9110 §11.1',
        level: 'SHOULD',
        requirement: 'auth-scheme-case-insensitive',
      },
      { headers: setAuth(`${scheme} ${m[1]!}`) },
    );
  add(
    {
      kind: 'bearer-spaces',
      description: 'three spaces after Bearer',
      basis: 'RFC 6750 §2.1',
      level: 'MUST',
    },
    { headers: setAuth(`Bearer   ${m[1]!}`) },
  );
}

/** The JSON text written otherwise (white space, member order, escapes, numbers); the content chunked. */
function bodyRewritings({ request, view, add, keep }: Rewritings): void {
  const chunked = (description: string): void =>
    keep({
      kind: 'framing',
      description,
      basis: 'RFC 9112 §6.1',
      level: 'MUST',
      request,
      framing: 'chunked',
    });
  const json = view.hasContent && readsAsJson(view) ? view.json() : undefined;
  // A text with a byte order mark or a repeated name is not what its value would write again.
  if (json?.state !== 'json' || json.byteOrderMark || json.repeatedNames.length > 0) {
    if (view.hasContent) chunked('the same content sent chunked');
    return;
  }
  const value = json.value;
  const write = (kind: string, description: string, basis: string, text: string, level: Level = 'MUST') =>
    add({ kind, description, basis, level }, { body: text });
  write(
    'json-whitespace',
    'indented, CRLF line breaks',
    'RFC 8259 §2',
    writeJson(value, { indent: '\t', newline: '\r\n' }),
  );
  write(
    'json-key-order',
    'every object in reverse member order',
    'RFC 8259 §4',
    writeJson(value, { reverse: true }),
  );
  write(
    'json-escapes',
    'every character of every string escaped (\\u0041 for A)',
    'RFC 8259 §7',
    writeJson(value, { escapeAll: true }),
  );
  if (hasNumbers(value))
    write(
      'json-number-form',
      'integers with a fraction, others with an exponent',
      'RFC 8259 §6',
      writeJson(value, { numbers: true }),
      'SHOULD',
    );
  chunked('the same content sent chunked instead of with Content-Length');
}

/** The path parameters percent-encoded throughout, and their percent-encodings in lower-case hex. */
function pathRewritings({ request, view, add }: Rewritings): void {
  const t = view.target;
  if (t.kind !== 'operation' || Object.keys(t.rawParams).length === 0) return;
  const template = t.operation.path.split('/');
  const encode = (segments: string[], how: (raw: string, name: string) => string): string[] => {
    const offset = segments.length - template.length;
    return segments.map((s, i) => {
      const name = /^\{(.+)\}$/.exec(template[i - offset] ?? '')?.[1];
      return name !== undefined && i >= offset ? how(s, name) : s;
    });
  };
  const encoded = withPath(request.url, (segs) =>
    encode(segs, (_raw, name) => encodeEveryCharacter(own(t.params, name)!)),
  );
  const lowered = withPath(request.url, (segs) =>
    encode(segs, (raw) => raw.replace(/%[0-9A-F]{2}/g, (x) => x.toLowerCase())),
  );
  if (encoded !== undefined)
    add(
      {
        kind: 'path-percent-encoding',
        description: 'every character of the path parameters percent-encoded (%41 for A)',
        basis: 'RFC 3986 §2.3',
        level: 'SHOULD',
        requirement: 'reference-percent-encoding-equivalent',
      },
      { url: encoded },
    );
  if (lowered !== undefined && lowered !== request.url)
    add(
      {
        kind: 'percent-hex-case',
        description: 'percent-encodings in lower-case hex',
        basis: 'RFC 3986 §6.2.2.1',
        level: 'MUST',
      },
      { url: lowered },
    );
}

/** The query's values percent-encoded throughout, and its parameters in another order. */
function queryRewritings({ request, view, add }: Rewritings): void {
  if (view.query.length === 0) return;
  const base = request.url.split('?')[0]!;
  const q = (
    pairs: readonly (readonly [string, string])[],
    enc: (v: string) => string = encodeURIComponent,
  ): string => `${base}?${pairs.map(([n, v]) => `${encodeURIComponent(n)}=${enc(v)}`).join('&')}`;
  add(
    {
      kind: 'query-percent-encoding',
      description: 'every character of the query values percent-encoded',
      basis: 'RFC 3986 §2.3',
      level: 'SHOULD',
    },
    { url: q(view.query, encodeEveryCharacter) },
  );
  if (new Set(view.query.map(([n]) => n)).size > 1)
    add(
      {
        kind: 'query-order',
        description: 'the query parameters in reverse order',
        basis: 'OpenAPI 3.1 §4.8.12 (parameters are named, not placed)',
        level: 'SHOULD',
      },
      { url: q([...view.query].reverse()) },
    );
}
