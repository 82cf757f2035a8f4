/**
 * One HTTP exchange on the wire, over node:http or node:https. Playwright stays the runner (tests,
 * fixtures, reporters, sharding), but its APIRequestContext is not the wire: it buffers any
 * response body whole, with no limit (a 300 MB body was read into 800 MB of memory here), and it
 * costs about 1.8 ms per request against 0.4 ms for this module, which decides whether the gallery
 * fits the test budget. Three guarantees a conformance tool pointed at a broken or hostile server
 * needs:
 *   - a deadline covering the whole exchange: connecting, the status line, headers and body;
 *   - a cap on the body read (Content-Length checked first, then the bytes counted as they come;
 *     a compressed body is capped after decompression too);
 *   - redirects are never followed: a 3xx is returned as the answer it is, so the bearer token is
 *     never sent to the origin a Location names.
 * An exchange that ends without a complete response rejects with a TransportFailure.
 */
import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';

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
  agents?: { http: http.Agent; https: https.Agent };
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

function flatHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
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

/** Sends one request and reads its complete response, or rejects with a TransportFailure. */
export function transmit(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  options: WireOptions,
): Promise<RawResponse> {
  const secure = url.protocol === 'https:';
  const max = options.maxResponseBytes;
  return new Promise<RawResponse>((resolve, reject) => {
    let settled = false;
    // Fires after the promise executor returns, by which time `req` exists.
    const timer = setTimeout(() => {
      finish(
        new TransportFailure(
          'timeout',
          `no complete answer within ${options.timeoutMs} ms (CONFORMANCE_TIMEOUT_MS)`,
          req.reusedSocket,
        ),
      );
    }, options.timeoutMs);
    const finish = (error: TransportFailure | undefined, response?: RawResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        req.destroy();
        reject(error);
      } else resolve(response!);
    };
    const sendHeaders: Record<string, string> = { ...headers };
    if (body !== undefined) sendHeaders['Content-Length'] = String(body.length);
    const requestOptions: http.RequestOptions = { method, headers: sendHeaders };
    if (options.agents) requestOptions.agent = secure ? options.agents.https : options.agents.http;
    const req = (secure ? https : http).request(url, requestOptions, (res) => {
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > max) {
        res.destroy();
        finish(
          new TransportFailure(
            'too-large',
            `the response declares a ${declared}-byte body, more than ${formatBytes(max)} (CONFORMANCE_MAX_RESPONSE_BYTES); not read`,
          ),
        );
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > max) {
          res.destroy();
          finish(
            new TransportFailure(
              'too-large',
              `the response body exceeds ${formatBytes(max)} (CONFORMANCE_MAX_RESPONSE_BYTES); reading stopped`,
            ),
          );
        } else chunks.push(chunk);
      });
      res.on('end', () => {
        try {
          const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
          const decoded = decode(res.headers['content-encoding'], raw, max);
          finish(undefined, {
            status: res.statusCode ?? 0,
            headers: flatHeaders(res.headers),
            body: decoded,
          });
        } catch (error) {
          finish(error as TransportFailure);
        }
      });
      res.on('close', () => {
        if (!res.complete)
          finish(
            new TransportFailure(
              'connection',
              `the connection closed after the status line (${res.statusCode}), before the body was complete`,
            ),
          );
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      const what = error.code ? `${error.code}: ${error.message}` : error.message;
      finish(new TransportFailure('connection', `the connection failed (${what})`, req.reusedSocket));
    });
    req.end(body);
  });
}
