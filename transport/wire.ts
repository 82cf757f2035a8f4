/**
 * One HTTP exchange on the wire, over undici (a Node.js HTTP/1.1 client with a keep-alive pool).
 * Playwright stays the runner (tests, fixtures, reporters, sharding), but its APIRequestContext
 * is not the wire: it buffers any response body whole, with no limit (a 300 MB body was read into
 * 800 MB of memory here), and it costs about 1.8 ms per request. Three guarantees a conformance
 * tool pointed at a broken or hostile server needs:
 *   - a deadline covering the whole exchange: connecting, the status line, headers and body
 *     (undici's headersTimeout and bodyTimeout bound each wait; a timer aborts the whole);
 *   - a cap on the body read: Content-Length checked first, then undici's maxResponseSize stops
 *     the read as the bytes come; a compressed body is capped after decompression too;
 *   - redirects are never followed (undici's dispatch follows none: only its redirect
 *     interceptor would): a 3xx is returned as the answer it is, so the bearer token is never
 *     sent to the origin a Location names.
 * An exchange that ends without a complete response rejects with a TransportFailure.
 */
import zlib from 'node:zlib';
import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';
import { own } from '../exchange/own.ts';

export type TransportFailureKind = 'timeout' | 'connection' | 'too-large';

export class TransportFailure extends Error {
  override readonly name = 'TransportFailure';
  constructor(
    readonly kind: TransportFailureKind,
    message: string,
    /** Whether the request went out on a kept-alive socket (a stale one may be reset). */
    readonly reusedSocket = false,
  ) {
    super(message);
  }
}

export interface RawResponse {
  status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
}

export interface WireOptions {
  timeoutMs: number;
  maxResponseBytes: number;
  /** The keep-alive pool to send on (see createPool); default: a pool of this exchange alone. */
  pool?: WirePool;
}

/**
 * A keep-alive connection pool (an undici Agent: one pool per origin) with the body cap, and
 * whether an origin has completed an exchange on it, which is how a failed request tells it may
 * have gone out on a kept-alive connection the server had just closed (see transmit).
 */
export interface WirePool {
  dispatcher: Dispatcher;
  answered: Set<string>;
  close(): void;
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

/** The proxy variables of an environment (either case, as curl reads them). */
export interface ProxyEnv {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

/** HTTP_PROXY, HTTPS_PROXY and NO_PROXY (or their lower-case forms) of `env`; an empty one is unset. */
export function proxyEnv(env: Record<string, string | undefined> = process.env): ProxyEnv {
  const get = (name: string): string | undefined =>
    (own(env, name) ?? own(env, name.toLowerCase()))?.trim() || undefined;
  const out: ProxyEnv = {};
  const httpProxy = get('HTTP_PROXY');
  const httpsProxy = get('HTTPS_PROXY');
  const noProxy = get('NO_PROXY');
  if (httpProxy) out.httpProxy = httpProxy;
  if (httpsProxy) out.httpsProxy = httpsProxy;
  if (noProxy) out.noProxy = noProxy;
  return out;
}

/**
 * A pool of at most `connections` connections per origin. Nothing is pipelined: a server that
 * breaks mid-answer costs that request only. Idle connections are closed after 4 s, below the
 * 5 s keep-alive timeout of Node's own servers, so few requests meet a connection the server is
 * closing. With HTTP_PROXY or HTTPS_PROXY set, requests go through that proxy (a CONNECT tunnel,
 * so the proxy never sees the token), but for the hosts NO_PROXY names: undici's
 * EnvHttpProxyAgent; without them, no proxy code is on the path at all.
 */
export function createPool(
  connections: number,
  maxResponseBytes: number,
  proxy: ProxyEnv = proxyEnv(),
): WirePool {
  const options = {
    connections: Math.max(1, connections),
    pipelining: 1,
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 4_000,
    maxResponseSize: maxResponseBytes,
  };
  const dispatcher =
    proxy.httpProxy !== undefined || proxy.httpsProxy !== undefined
      ? new EnvHttpProxyAgent({
          ...options,
          // Unset ones stay unset: EnvHttpProxyAgent would read process.env for them.
          httpProxy: proxy.httpProxy ?? '',
          // An https target with no HTTPS_PROXY goes through HTTP_PROXY (undici's rule).
          httpsProxy: proxy.httpsProxy ?? '',
          noProxy: proxy.noProxy ?? '',
        })
      : new Agent(options);
  return {
    dispatcher,
    answered: new Set(),
    close: () => {
      void dispatcher.destroy().catch(() => undefined);
    },
  };
}

/**
 * Headers Node's HTTP parser keeps the first of when repeated (the rest are dropped); any other
 * repeated header is joined with ", ". The same as the node:http client this transport replaced,
 * so that a verdict on a repeated header does not depend on the transport.
 */
const FIRST_ONLY = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);

/**
 * The raw header lines of an answer, names in lower case. Values are decoded as Latin-1, byte
 * for byte, as Node's parser does: undici's own parsing decodes them as UTF-8, which turns the
 * bytes of a hostile header that are not UTF-8 into U+FFFD and hides what the server sent.
 */
export function flatHeaders(raw: Buffer[]): Record<string, string> {
  // A Map, then defined keys: a field named __proto__ or constructor is a field like any other.
  const out = new Map<string, string>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toString('latin1').toLowerCase();
    const value = raw[i + 1]!.toString('latin1');
    const known = out.get(name);
    if (known === undefined) out.set(name, value);
    else if (!FIRST_ONLY.has(name)) out.set(name, `${known}, ${value}`);
  }
  return Object.fromEntries(out);
}

/** Decompresses a body the server chose to encode, within the cap; any other body as it came. */
function decode(encoding: string | undefined, body: Buffer, max: number): Buffer {
  const options = { maxOutputLength: max };
  try {
    switch (encoding?.trim().toLowerCase()) {
      case 'gzip':
      case 'x-gzip':
        return zlib.gunzipSync(body, options);
      case 'deflate':
        return zlib.inflateSync(body, options);
      case 'br':
        return zlib.brotliDecompressSync(body, options);
      default:
        return body;
    }
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new TransportFailure(
        'too-large',
        `the decompressed response body exceeds ${formatBytes(max)} (CONFORMANCE_MAX_RESPONSE_BYTES)`,
      );
    }
    // Not what it claims to be: judged as the bytes that came.
    return body;
  }
}

/** The code of an error undici or the socket gave, if any. */
function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

const tooLargeWhileReading = (max: number): TransportFailure =>
  new TransportFailure(
    'too-large',
    `the response body exceeds ${formatBytes(max)} (CONFORMANCE_MAX_RESPONSE_BYTES); reading stopped`,
  );

const timedOut = (timeoutMs: number): TransportFailure =>
  new TransportFailure('timeout', `no complete answer within ${timeoutMs} ms (CONFORMANCE_TIMEOUT_MS)`);

/** One exchange while it is read: whether it is over, how to abort it, and the answer so far. */
interface Reading {
  settled: boolean;
  abort: ((error?: Error) => void) | undefined;
  status: number | undefined;
  headers: Record<string, string>;
  chunks: Buffer[];
  size: number;
}

/** What the reading of one exchange needs to know of it. */
interface ReadingOf {
  origin: string;
  pool: WirePool;
  max: number;
  timeoutMs: number;
}

/**
 * Sends one request and reads its complete response, or rejects with a TransportFailure. It uses
 * undici's dispatch (the handler API under its request()), which hands over the raw header
 * lines (see flatHeaders) and costs no stream per answer.
 */
export function transmit(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  options: WireOptions,
): Promise<RawResponse> {
  const max = options.maxResponseBytes;
  const pool = options.pool ?? createPool(1, max);
  const of: ReadingOf = { origin: url.origin, pool, max, timeoutMs: options.timeoutMs };
  return new Promise<RawResponse>((resolve, reject) => {
    const reading: Reading = {
      settled: false,
      abort: undefined,
      status: undefined,
      headers: {},
      chunks: [],
      size: 0,
    };
    const finish = (error: TransportFailure | undefined, response?: RawResponse): void => {
      if (reading.settled) return;
      reading.settled = true;
      clearTimeout(timer);
      if (error) {
        reading.abort?.(error);
        reject(error);
      } else resolve(response!);
      if (options.pool === undefined) pool.close();
    };
    // The deadline of the whole exchange; undici's headersTimeout and bodyTimeout bound each wait within it.
    const timer = setTimeout(() => finish(timedOut(options.timeoutMs)), options.timeoutMs);
    const sendHeaders: Record<string, string> = { ...headers };
    if (body !== undefined) sendHeaders['Content-Length'] = String(body.length);
    pool.dispatcher.dispatch(
      {
        origin: of.origin,
        path: `${url.pathname}${url.search}`,
        method: method as Dispatcher.HttpMethod,
        headers: sendHeaders,
        body: body ?? null,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      },
      answerReader(reading, of, finish),
    );
  });
}

/** The handler that reads the answer of one exchange into `reading`, and ends it with `finish`. */
function answerReader(
  reading: Reading,
  of: ReadingOf,
  finish: (error: TransportFailure | undefined, response?: RawResponse) => void,
): Dispatcher.DispatchHandlers {
  const { max } = of;
  return {
    onConnect(abortRequest) {
      reading.abort = abortRequest;
      if (reading.settled) abortRequest();
    },
    onHeaders(statusCode, rawHeaders) {
      // An informational answer (1xx) is followed by the final one.
      if (statusCode < 200) return true;
      reading.status = statusCode;
      reading.headers = flatHeaders(rawHeaders);
      const declared = Number(reading.headers['content-length']);
      if (Number.isFinite(declared) && declared > max) {
        finish(
          new TransportFailure(
            'too-large',
            `the response declares a ${declared}-byte body, more than ${formatBytes(max)} (CONFORMANCE_MAX_RESPONSE_BYTES); not read`,
          ),
        );
        return false;
      }
      return true;
    },
    onData(chunk) {
      reading.size += chunk.length;
      // undici's maxResponseSize stops the read on a pool created with this cap; a pool
      // shared with another cap is held to this one here.
      if (reading.size > max) {
        finish(tooLargeWhileReading(max));
        return false;
      }
      reading.chunks.push(chunk);
      return true;
    },
    onComplete() {
      of.pool.answered.add(of.origin);
      try {
        const { chunks, size } = reading;
        const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
        finish(undefined, {
          status: reading.status ?? 0,
          headers: reading.headers,
          body: decode(reading.headers['content-encoding'], raw, max),
        });
      } catch (error) {
        finish(error as TransportFailure);
      }
    },
    onError(error) {
      if (reading.settled) return;
      finish(failureOf(error, reading.status, of));
    },
  };
}

/** What an error undici or the socket gave means for the exchange, `status` the answer's if it came. */
function failureOf(error: Error, status: number | undefined, of: ReadingOf): TransportFailure {
  const code = codeOf(error);
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return timedOut(of.timeoutMs);
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') return tooLargeWhileReading(of.max);
  if (status !== undefined)
    return new TransportFailure(
      'connection',
      `the connection closed after the status line (${status}), before the body was complete`,
    );
  // undici does not say whether a request went out on a kept-alive connection. Its socket error
  // carries the bytes the connection had read: with no answer to this request yet, those were
  // answers to earlier requests. A failure with no such detail (a reset) counts as on a
  // kept-alive connection when this origin has answered on the pool before.
  const socket = (error as { socket?: { bytesRead?: number } }).socket;
  const reused = socket?.bytesRead !== undefined ? socket.bytesRead > 0 : of.pool.answered.has(of.origin);
  const what = code && code !== 'UND_ERR_SOCKET' ? `${code}: ${error.message}` : error.message;
  return new TransportFailure('connection', `the connection failed (${what})`, reused);
}
