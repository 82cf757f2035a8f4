/**
 * A HEAD on the wire, read to the end of its connection. An HTTP/1.1 client reads the answer to a
 * HEAD as ending with its header section (RFC 9112 §6.3), so content a server sends after it is
 * never seen: undici's parser drops it with the connection. RFC 9110 §9.3.2 says "the server MUST
 * NOT send content in the response", and the oracles judge it on the answer's content
 * (oracles/head-method.ts); so a HEAD goes on a connection of its own, asking the server to close
 * it (RFC 9112 §9.6), through node:http, whose parser reads the status and the header fields, while
 * the socket's bytes are kept: what follows the header section, until the server closes, is the
 * content. The wait for the close after the header section is bounded (HEAD_CLOSE_WAIT_MS): bytes
 * that come later are missed, never counted.
 *
 * Through an egress proxy (HTTP_PROXY, HTTPS_PROXY) a HEAD goes the way of every request
 * (transport/wire.ts), and content after its header section is not seen.
 */
import http from 'node:http';
import https from 'node:https';
import {
  flatHeaders,
  proxyEnv,
  transmit,
  TransportFailure,
  type RawResponse,
  type WireOptions,
} from './wire.ts';

/** How long the server has to close the connection once the header section came. */
export const HEAD_CLOSE_WAIT_MS = 1_000;

/**
 * Where the final header section of an answer ends in its raw bytes (after any 1xx answers), or
 * undefined when it did not come whole.
 */
export function headerSectionEnd(raw: Buffer): number | undefined {
  const text = raw.toString('latin1');
  let at = 0;
  for (;;) {
    const end = /\r?\n\r?\n/.exec(text.slice(at));
    if (!end) return undefined;
    const next = at + end.index + end[0].length;
    if (!/^HTTP\/\d(?:\.\d)? 1\d\d/.test(text.slice(at))) return next;
    at = next;
  }
}

/**
 * The content of an answer to HEAD: the bytes after its header section, but for a lone last chunk
 * of a chunked framing, which carries no content.
 */
export function headContent(raw: Buffer, headers: Record<string, string>): Buffer {
  const end = headerSectionEnd(raw);
  if (end === undefined) return Buffer.alloc(0);
  const after = raw.subarray(end);
  const chunked = /(?:^|,)\s*chunked\s*$/i.test(headers['transfer-encoding'] ?? '');
  return chunked && /^0\r?\n(?:\r?\n)?$/.test(after.toString('latin1')) ? Buffer.alloc(0) : after;
}

/** Sends a HEAD on a connection of its own and reads it until the server closes it. */
export function transmitHead(
  url: URL,
  headers: Record<string, string>,
  options: WireOptions,
): Promise<RawResponse> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<RawResponse>((resolve, reject) => {
    const raw: Buffer[] = [];
    let answer: { status: number; headers: Record<string, string> } | undefined;
    let settled = false;
    let grace: NodeJS.Timeout | undefined;
    const finish = (error?: TransportFailure): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(grace);
      req.destroy();
      if (error || answer === undefined) {
        reject(
          error ?? new TransportFailure('connection', 'the connection closed before the header section came'),
        );
        return;
      }
      resolve({ ...answer, body: headContent(Buffer.concat(raw), answer.headers) });
    };
    const deadline = setTimeout(() => {
      finish(
        answer
          ? undefined
          : new TransportFailure(
              'timeout',
              `no complete answer within ${options.timeoutMs} ms (CONFORMANCE_TIMEOUT_MS)`,
            ),
      );
    }, options.timeoutMs);
    const req = client.request(url, {
      method: 'HEAD',
      headers: { ...headers, Connection: 'close' },
      agent: false,
    });
    req.on('socket', (socket) => {
      socket.on('data', (chunk: Buffer) => {
        raw.push(chunk);
        if (raw.reduce((n, c) => n + c.length, 0) > options.maxResponseBytes) finish();
      });
      socket.on('close', () => finish());
    });
    req.on('response', (res) => {
      answer = {
        status: res.statusCode ?? 0,
        headers: flatHeaders(res.rawHeaders.map((h) => Buffer.from(h, 'latin1'))),
      };
      res.resume();
      grace = setTimeout(() => finish(), Math.min(HEAD_CLOSE_WAIT_MS, options.timeoutMs));
    });
    // Content after the header section is a parse error to node's client: that is the evidence,
    // not a failure, once the answer came.
    req.on('error', (error) => {
      if (answer === undefined)
        finish(new TransportFailure('connection', `the connection failed (${error.message})`));
    });
    req.end();
  });
}

/**
 * One exchange on the wire: a HEAD read to the end of its connection (above), unless an egress
 * proxy carries the requests; any other method through transport/wire.ts's pool.
 */
export function transmitReadingHead(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  options: WireOptions,
): Promise<RawResponse> {
  const proxy = proxyEnv();
  if (method.toUpperCase() === 'HEAD' && proxy.httpProxy === undefined && proxy.httpsProxy === undefined)
    return transmitHead(url, headers, options);
  return transmit(url, method, headers, body, options);
}
