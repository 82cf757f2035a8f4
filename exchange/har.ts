/**
 * HAR 1.2 files (http://www.softwareishard.com/blog/har-12-spec/) in and out: the structure is
 * validated with ajv against the published HAR 1.2 JSON schema of the npm package `har-schema`
 * (draft-06, one file per object of the format), and each entry becomes an Exchange, so the
 * oracles judge a recorded file (Playwright's recordHar, a browser's devtools, mitmproxy) as they
 * judge the suite's own traffic. The suite writes its own exchanges as a HAR file the same way.
 *
 * Read from an entry: the request (method, URL, headers, postData.text, base64 bytes when the
 * custom postData._encoding says so, as this module writes bodies that are not text), the response (status,
 * headers, content.text, base64-decoded when content.encoding says so), startedDateTime and time.
 * An entry without an answer (status 0, with the `_error` devtools and Playwright write) is an
 * exchange with status 0 and a failure. Bodies a recorder left out are empty. A body the suite kept
 * only as its head (past its budget of kept bodies, exchange/kept.ts) carries `_truncated` (the
 * whole length, its SHA-256, the bytes kept) and a comment: read back as cut, never as the body.
 */
import { createRequire } from 'node:module';
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { escapeControls } from './escape.ts';
import type { BodyCut, Exchange, ExchangeFailure } from './exchange.ts';
import { cutText } from './kept.ts';
import { requestBodyBytes } from './exchange.ts';
import { responseBody } from './json-body.ts';

// ajv-formats is CommonJS; under ESM its default export may arrive wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

/** The failure kind of an entry recorded without an answer, not judged by request-answered. */
export const RECORDED_WITHOUT_ANSWER = 'recorded-without-answer';

/** A HAR file that cannot be read: `message` is one line saying where and why. */
export class HarError extends Error {}

/**
 * A URL longer than this is not judged (validation counts it and says why): no deployment serves
 * one (servers refuse request lines of a few KiB), and quoting it in each finding would make a
 * report of hundreds of MiB. The suite's own longest request is far below it.
 */
export const LONG_URL_CHARS = 64 * 1024;

/**
 * The text of a HAR file from its bytes. HAR 1.2 files are UTF-8; a UTF-8 byte order mark is
 * dropped, and UTF-16 (with a byte order mark, or recognised by the NUL bytes of its first
 * character, as Windows tools write it) is decoded. UTF-32 is refused, naming it.
 */
export function decodeHar(bytes: Buffer, source: string): string {
  const [a, b, c, d] = [bytes[0], bytes[1], bytes[2], bytes[3]];
  if ((a === 0xff && b === 0xfe && c === 0 && d === 0) || (a === 0 && b === 0 && c === 0xfe && d === 0xff))
    throw new HarError(`${source}: not a HAR file: the text is UTF-32; save it as UTF-8`);
  if (a === 0xef && b === 0xbb && c === 0xbf) return bytes.subarray(3).toString('utf8');
  if (a === 0xff && b === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (a === 0xfe && b === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  if (bytes.length >= 2 && a !== 0 && b === 0) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes.length >= 2 && a === 0 && b !== 0) return new TextDecoder('utf-16be').decode(bytes);
  return bytes.toString('utf8');
}

interface HarHeader {
  name: string;
  value: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    headers: HarHeader[];
    postData?: { mimeType: string; text?: string; [k: string]: unknown };
    [k: string]: unknown;
  };
  response: {
    status: number;
    statusText: string;
    headers: HarHeader[];
    content: {
      size: number;
      mimeType: string;
      text?: string;
      encoding?: string;
      comment?: string;
      /** The suite's own: `text` is only the head of the body (exchange/kept.ts). */
      _truncated?: unknown;
    };
    _error?: string;
    _failureKind?: string;
    [k: string]: unknown;
  };
  _probe?: string;
  _role?: string;
  [k: string]: unknown;
}

export interface Har {
  log: {
    version: string;
    creator: { name: string; version: string };
    /** What the suite's own file did not keep whole (exchange/har-file.ts). */
    comment?: string;
    entries: HarEntry[];
  };
}

const HAR_SCHEMAS = [
  'afterRequest',
  'beforeRequest',
  'browser',
  'cache',
  'content',
  'cookie',
  'creator',
  'entry',
  'har',
  'header',
  'log',
  'page',
  'pageTimings',
  'postData',
  'query',
  'request',
  'response',
  'timings',
] as const;

let validator: ((data: unknown) => boolean) & { errors?: ErrorObject[] | null } = undefined as never;

function validate(data: unknown): ErrorObject[] {
  if (!validator) {
    const require = createRequire(import.meta.url);
    const schemas = require('har-schema') as Record<string, object>;
    const draft06 = require('ajv/dist/refs/json-schema-draft-06.json') as object;
    // The package's schemas carry keywords of their own ("min", "optional"): not strict.
    const ajv = new Ajv({ allErrors: false, strict: false, meta: false, validateSchema: false });
    ajv.addMetaSchema(draft06);
    addFormats(ajv);
    // ajv-formats' uri pattern recurses per character: a URL of 10 MB overflows the stack. Past
    // LONG_URL_CHARS a URL is checked by the WHATWG parser instead, which does not recurse.
    const uri = ajv.formats.uri as unknown;
    const rfc3986 = (s: string): boolean =>
      typeof uri === 'function'
        ? Boolean((uri as (s: string) => unknown)(s))
        : uri instanceof RegExp
          ? uri.test(s)
          : URL.canParse(s);
    ajv.addFormat('uri', (s: string) => (s.length <= LONG_URL_CHARS ? rfc3986(s) : URL.canParse(s)));
    for (const name of HAR_SCHEMAS) ajv.addSchema(schemas[name]!);
    validator = ajv.getSchema('har.json#')! as typeof validator;
  }
  return validator(data) ? [] : (validator.errors ?? []);
}

/** "line 3, column 14" of an offset in `text`. */
function position(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `line ${line}, column ${column}`;
}

/** "log.entries[3].response" from "/log/entries/3/response". */
function pointerText(pointer: string): string {
  if (pointer === '') return 'the top level';
  return pointer
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((out, p) => (/^\d+$/.test(p) ? `${out}[${p}]` : out === '' ? p : `${out}.${p}`), '');
}

/**
 * Chromium's devtools write an IPv6 serverIPAddress in brackets ("[::1]"), which the schema's
 * ipv6 format refuses: the brackets are dropped before validation (the address is not judged).
 */
function unbracketAddresses(data: unknown): void {
  const entries = (data as { log?: { entries?: unknown } } | null)?.log?.entries;
  if (!Array.isArray(entries)) return;
  for (const entry of entries) {
    if (entry === null || typeof entry !== 'object') continue;
    const e = entry as { serverIPAddress?: unknown };
    if (typeof e.serverIPAddress === 'string')
      e.serverIPAddress = e.serverIPAddress.replace(/^\[(.*)\]$/, '$1');
  }
}

/** Parses and validates a HAR file; throws a HarError (one line) when it is not a HAR 1.2 file. */
export function parseHar(text: string, source: string): Har {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const truncated = /end of JSON input/i.test(message);
    const at = truncated ? String(text.length) : /position (\d+)/.exec(message)?.[1];
    const where = at !== undefined ? ` at ${position(text, Number(at))}` : '';
    const why =
      text.trim() === ''
        ? 'the file is empty'
        : truncated
          ? 'truncated: the JSON ends before it is complete'
          : `not JSON (${escapeControls(message.split('\n')[0]!)})`;
    throw new HarError(`${source}${where}: not a HAR file: ${why}`);
  }
  unbracketAddresses(data);
  const errors = validate(data);
  if (errors.length > 0) {
    const e = errors[0]!;
    throw new HarError(
      `${source}: not a HAR 1.2 file: at ${escapeControls(pointerText(e.instancePath))}: ${e.message ?? e.keyword} (the HAR 1.2 schema of har-schema)`,
    );
  }
  return data as Har;
}

function headerRecord(headers: readonly HarHeader[], lower: boolean): Record<string, string> {
  // A Map, then defined keys: a field named __proto__ or constructor is a field like any other.
  const out = new Map<string, string>();
  for (const { name, value } of headers) {
    // HTTP/2 pseudo-headers (:authority, :path, ...) are no header fields.
    if (name.startsWith(':')) continue;
    const key = lower ? name.toLowerCase() : name;
    const existing = lower
      ? out.get(key)
      : [...out.keys()].find((k) => k.toLowerCase() === key.toLowerCase());
    if (lower) out.set(key, existing === undefined ? value : `${existing}, ${value}`);
    else if (existing !== undefined) out.set(existing, `${out.get(existing)}, ${value}`);
    else out.set(key, value);
  }
  return Object.fromEntries(out);
}

/** The response body of an entry as text: base64-decoded when content.encoding says so. */
export function entryText(entry: HarEntry, index: number, source: string): string {
  const content = entry.response.content;
  const text = content.text ?? '';
  if (content.encoding === undefined || content.encoding === '') return text;
  if (content.encoding.toLowerCase() !== 'base64')
    throw new HarError(
      `${source}: entry ${index} (log.entries[${index}].response.content): unknown encoding '${content.encoding}' (HAR 1.2 knows base64)`,
    );
  if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(text))
    throw new HarError(
      `${source}: entry ${index} (log.entries[${index}].response.content.text): not base64, though content.encoding says so`,
    );
  return Buffer.from(text, 'base64').toString('utf8');
}

/**
 * Whether the entry is a conditional request the server answered 304 Not Modified, which a
 * browser recorded as the cached 200 (Chromium does: the 304's headers, the cached body): HAR 1.2
 * sets response.bodySize to 0 "in case of responses coming from the cache (304)". What went over
 * the wire is a 304 with no body, and that is what is judged.
 */
function fromCacheAfter304(entry: HarEntry): boolean {
  const conditional = entry.request.headers.some((h) => /^if-(none-match|modified-since)$/i.test(h.name));
  const bodySize = entry.response.bodySize;
  return (
    conditional &&
    entry.response.status >= 200 &&
    entry.response.status <= 299 &&
    bodySize === 0 &&
    entry.response.content.size > 0
  );
}

/** The exchange of entry `index` (from 0): origin.harEntry is that index. */
export function exchangeOfEntry(entry: HarEntry, index: number, source: string): Omit<Exchange, 'id'> {
  const startedAt = parseDateTime(entry.startedDateTime);
  if (Number.isNaN(startedAt))
    throw new HarError(
      `${source}: entry ${index} (log.entries[${index}].startedDateTime): not a date: '${entry.startedDateTime}'`,
    );
  const answered = entry.response.status > 0 && entry.response._error === undefined;
  const revalidated = answered && fromCacheAfter304(entry);
  const text = answered && !revalidated ? entryText(entry, index, source) : '';
  const failure: ExchangeFailure | undefined = answered
    ? undefined
    : {
        // A recorder's status 0 (a request the browser cancelled or blocked, CORS) says nothing
        // about the deployment: only the suite's own HAR names a timeout or a connection failure.
        kind: entry.response._failureKind ?? RECORDED_WITHOUT_ANSWER,
        message: entry.response._error ?? 'no response was recorded',
      };
  const body = entry.request.postData?.text;
  const bodyCut = cutOf(entry.request.postData?._truncated);
  const textCut = answered && !revalidated ? cutOf(entry.response.content._truncated) : undefined;
  return {
    request: {
      method: entry.request.method.toUpperCase(),
      url: entry.request.url,
      headers: headerRecord(entry.request.headers, false),
      ...(body !== undefined && (body !== '' || bodyCut) ? { body } : {}),
      ...(body !== undefined && body !== '' && entry.request.postData?._encoding === 'base64'
        ? { bodyEncoding: 'base64' as const }
        : {}),
      ...(bodyCut ? { bodyCut } : {}),
    },
    status: revalidated ? 304 : answered ? entry.response.status : 0,
    headers: answered ? headerRecord(entry.response.headers, true) : {},
    text,
    // A head is not the body: it is not read as JSON.
    ...(textCut ? { body: undefined, textCut } : responseBody(text)),
    ...(failure ? { failure } : {}),
    startedAt,
    durationMs: Math.max(0, entry.time),
    attempts: 1,
    origin: { harEntry: index },
  };
}

/**
 * The cut a body of the suite's own HAR carries (`_truncated`, exchange/kept.ts), when it is one:
 * what a writer left of a body past its budget, never judged as the body.
 */
function cutOf(value: unknown): BodyCut | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const { bytes, sha256, kept } = value as Partial<Record<keyof BodyCut, unknown>>;
  if (typeof bytes !== 'number' || typeof sha256 !== 'string' || typeof kept !== 'number') return undefined;
  return { bytes, sha256, kept };
}

/**
 * The exchanges of a HAR file in the order they completed (startedDateTime + time; the file's
 * order breaks ties), which is the order the judge takes them in.
 */
export function exchangesOfHar(har: Har, source: string): Omit<Exchange, 'id'>[] {
  const exchanges = har.log.entries.map((e, i) => exchangeOfEntry(e, i, source));
  return exchanges
    .map((ex, i) => ({ ex, i }))
    .sort((a, b) => a.ex.startedAt + a.ex.durationMs - (b.ex.startedAt + b.ex.durationMs) || a.i - b.i)
    .map(({ ex }) => ex);
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** An ISO 8601 date-time with microseconds, from epoch milliseconds with a fraction. */
export function isoMicroseconds(ms: number): string {
  const whole = Math.floor(ms);
  const micro = Math.floor((ms - whole) * 1000);
  return new Date(whole).toISOString().replace(/Z$/, `${String(micro).padStart(3, '0')}Z`);
}

/** Epoch milliseconds of a HAR date-time, with the fraction of a millisecond it gives (NaN: not a date). */
export function parseDateTime(text: string): number {
  const ms = Date.parse(text);
  const fraction = /\.\d{3}(\d+)(?:Z|[+-]\d\d:?\d\d)$/.exec(text)?.[1];
  return fraction === undefined ? ms : ms + Number(`0.${fraction}`);
}

function harHeaders(headers: Record<string, string>): HarHeader[] {
  return Object.entries(headers).map(([name, value]) => ({ name, value }));
}

/** The HAR entry of an exchange (its probe and role as the custom fields _probe and _role). */
export function entryOfExchange(ex: Exchange): HarEntry {
  let query: { name: string; value: string }[] = [];
  try {
    query = [...new URL(ex.request.url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    query = [];
  }
  const contentType = ex.headers['content-type'] ?? '';
  const requestType =
    Object.entries(ex.request.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
  const bodySize = ex.textCut?.bytes ?? Buffer.byteLength(ex.text);
  const requestCut = ex.request.bodyCut;
  const entry: HarEntry = {
    startedDateTime: isoMicroseconds(ex.startedAt),
    time: ex.durationMs,
    request: {
      method: ex.request.method,
      url: ex.request.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: harHeaders(ex.request.headers),
      queryString: query,
      // HAR 1.2 gives postData no encoding: bytes that are not text go in base64, said by the
      // custom field _encoding (as content.encoding says it of a response).
      ...(ex.request.body !== undefined
        ? {
            postData: {
              mimeType: requestType,
              text: ex.request.body,
              params: [],
              ...(ex.request.bodyEncoding ? { _encoding: ex.request.bodyEncoding } : {}),
              // Only the head of the body was kept (exchange/kept.ts): said to a reader, and to validate.
              ...(requestCut ? { comment: cutText(requestCut), _truncated: requestCut } : {}),
            },
          }
        : {}),
      headersSize: -1,
      bodySize: requestCut ? requestCut.bytes : (requestBodyBytes(ex.request)?.length ?? 0),
    },
    response: {
      status: ex.status,
      statusText: STATUS_TEXT[ex.status] ?? '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: harHeaders(ex.headers),
      content: {
        size: bodySize,
        mimeType: contentType,
        text: ex.text,
        ...(ex.textCut ? { comment: cutText(ex.textCut), _truncated: ex.textCut } : {}),
      },
      redirectURL: ex.headers.location ?? '',
      headersSize: -1,
      bodySize: ex.status > 0 ? bodySize : -1,
      ...(ex.failure ? { _error: ex.failure.message, _failureKind: ex.failure.kind } : {}),
    },
    cache: {},
    timings: { send: 0, wait: ex.durationMs, receive: 0 },
    ...(ex.origin.probe !== undefined ? { _probe: ex.origin.probe } : {}),
    ...(ex.origin.role !== undefined ? { _role: ex.origin.role } : {}),
  };
  return entry;
}

/** A HAR 1.2 file of exchanges, in the order given. */
export function harOfExchanges(exchanges: readonly Exchange[], creatorVersion: string): Har {
  return {
    log: {
      version: '1.2',
      creator: { name: 'payflow-conformance', version: creatorVersion },
      entries: exchanges.map(entryOfExchange),
    },
  };
}
