/**
 * The validating proxy: a reverse proxy on 127.0.0.1 in front of the target. Every request and
 * response passes through unchanged (status, headers as sent, bodies streamed as they come);
 * beside the stream it keeps up to `maxBodyBytes` of each body for judging, and hands each
 * completed exchange to `onExchange` (a body over the cap goes to `onOverCap`, not judged).
 * Requests go to `upstream` + the path and query the client asked for.
 *
 * It never dies on a request. The request target may be origin-form (`/api/v1/...`), or
 * absolute-form (`http://host/api/v1/...`, what a client using the proxy as HTTP_PROXY sends):
 * naming the upstream's host (its path is the upstream's) or the proxy's (its path is below the
 * upstream's base path, as an origin-form one). Anything else (asterisk-form `OPTIONS *`, another
 * host, a request line Node cannot parse) is answered by the proxy (400, or 502 for another
 * host) and handed to `onRefused`, never sent. An answer Node cannot pass on (a control byte in
 * the upstream's reason phrase) is answered 502 to the client and recorded as the upstream sent
 * it. Proxy-Authorization, the client's credential for a proxy, is not forwarded. An error in
 * one exchange (a throwing callback included) is contained there.
 *
 * Bounded: an upstream that does not answer completely within `timeoutMs` (CONFORMANCE_TIMEOUT_MS,
 * from the connect to the last byte, as the suite's own requests) is cut; the client gets 504
 * (or, its answer begun, a cut connection), and the exchange is recorded unanswered (status 0,
 * failure 'timeout'), as the suite's client records one. And never its own upstream: start()
 * refuses an upstream that leads back to the proxy's own socket (transport/proxy-self.ts), and
 * every forwarded request carries a Via token of this proxy (RFC 9110 §7.6.3): a request that
 * comes back with it was forwarded to the proxy again, and is answered 508 Loop Detected,
 * recorded as refused, never sent.
 */
import {
  request as httpRequest,
  Agent as HttpAgent,
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Exchange } from '../exchange/exchange.ts';
import { responseBody } from '../exchange/json-body.ts';
import { leadsToItself } from './proxy-self.ts';

export interface ProxyOptions {
  upstream: string;
  maxBodyBytes: number;
  /** The most one exchange with the upstream may take, from the connect to the last byte. */
  timeoutMs: number;
  onExchange(exchange: Omit<Exchange, 'id'>): void;
  onOverCap(exchange: Omit<Exchange, 'id'>): void;
  /** A request the proxy answered itself, without sending it: why, in one line. */
  onRefused?(refusal: Refusal): void;
  /** An error contained in one exchange (a callback that threw, a stream that failed). */
  onError?(error: Error): void;
}

/** A request the proxy did not forward, and what it answered. */
export interface Refusal {
  /** The request line as far as it was read ("OPTIONS *", or the start of what could not be parsed). */
  request: string;
  status: number;
  reason: string;
}

/** The upstream is the proxy itself: start() refuses it. */
export class ProxyLoopError extends Error {
  override readonly name = 'ProxyLoopError';
}

/** Headers meant for the proxy itself: never forwarded (RFC 9110 §7.6.1, §11.7.2). */
const FOR_THE_PROXY = new Set(['proxy-authorization', 'proxy-connection']);

/** Collects the first `cap` bytes of a stream's chunks; says whether more came. */
class Kept {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  over = false;

  constructor(private readonly cap: number) {}

  add(chunk: Buffer): void {
    if (this.over) return;
    if (this.size + chunk.length > this.cap) {
      this.over = true;
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  text(): string {
    return Buffer.concat(this.chunks, this.size).toString('utf8');
  }
}

function joinHeaders(message: IncomingMessage, lower: boolean): Record<string, string> {
  // A Map, then defined keys: a field named __proto__ or constructor is a field like any other.
  const out = new Map<string, string>();
  const raw = message.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = lower ? raw[i]!.toLowerCase() : raw[i]!;
    const key = lower ? name : ([...out.keys()].find((k) => k.toLowerCase() === name.toLowerCase()) ?? name);
    const known = out.get(key);
    out.set(key, known === undefined ? raw[i + 1]! : `${known}, ${raw[i + 1]!}`);
  }
  return Object.fromEntries(out);
}

/**
 * The field lines as sent (rawHeaders: Node's req.headers drops one named __proto__), but the
 * proxy's own, Host, which names the upstream, and Via, which gains this proxy's token.
 */
function upstreamHeaders(req: IncomingMessage, host: string, via: string): string[] {
  const headers: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!.toLowerCase();
    if (name !== 'host' && name !== 'via' && !FOR_THE_PROXY.has(name))
      headers.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  headers.push('host', host, 'via', via);
  return headers;
}

/** What the proxy records of one request: the request as the client sent it, the answer as the target gave it. */
function proxiedExchange(
  request: Exchange['request'],
  answer: Pick<Exchange, 'status' | 'headers' | 'text' | 'failure'>,
  timing: Pick<Exchange, 'startedAt' | 'durationMs'>,
  id: number,
): Omit<Exchange, 'id'> {
  return {
    request,
    status: answer.status,
    headers: answer.headers,
    text: answer.text,
    ...responseBody(answer.text),
    ...(answer.failure ? { failure: answer.failure } : {}),
    ...timing,
    attempts: 1,
    origin: { proxied: id },
  };
}

/**
 * Writes the target's answer head to the client; false where Node refuses to write what the
 * upstream sent (a control byte in its reason phrase or a header): the client then gets a 502
 * saying so, and the exchange is recorded as the upstream sent it.
 */
function passHead(up: IncomingMessage, res: ServerResponse): boolean {
  try {
    res.writeHead(up.statusCode ?? 502, up.statusMessage, up.rawHeaders);
    return true;
  } catch (error) {
    const reason = `the target's answer cannot be passed on: ${(error as Error).message}`;
    if (!res.headersSent) {
      // Its own reason phrase: the failed writeHead left the upstream's on the response.
      res.writeHead(502, 'Bad Gateway', { 'content-type': 'text/plain', connection: 'close' });
      res.end(`validating proxy: ${reason}\n`);
    } else res.destroy();
    return false;
  }
}

export class ValidatingProxy {
  private server: Server | undefined;
  /** The proxy's own host:port, once it listens. */
  private self = '';
  private readonly target: URL;
  private readonly agent: HttpAgent;
  private count = 0;
  /**
   * This proxy's entry in the Via header of what it forwards (RFC 9110 §7.6.3: protocol and a
   * pseudonym): unique to this proxy, so a request carrying it has been through it already.
   */
  private readonly via = `1.1 payflow-conformance-${randomBytes(8).toString('hex')}`;

  constructor(private readonly options: ProxyOptions) {
    this.target = new URL(options.upstream);
    this.agent =
      this.target.protocol === 'https:'
        ? new HttpsAgent({ keepAlive: true })
        : new HttpAgent({ keepAlive: true });
  }

  /** Listens on 127.0.0.1 (port 0: a free one); resolves the proxy's base URL. */
  async start(port = 0): Promise<string> {
    const server = createServer((req, res) => {
      try {
        this.forward(req, res);
      } catch (error) {
        this.contain(error);
        this.refuse(
          req,
          res,
          502,
          `the validating proxy could not forward the request: ${String((error as Error).message)}`,
        );
      }
    });
    // A request line or header Node cannot parse: answered 400 here, recorded as refused.
    server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => {
      if (error.code === 'ECONNRESET' || !socket.writable) return;
      const head = (error.rawPacket ?? Buffer.alloc(0)).toString('latin1').split(/\r?\n/)[0]!.slice(0, 200);
      this.report({
        request: head,
        status: 400,
        reason: `not an HTTP request the proxy can read (${error.code ?? error.message})`,
      });
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    });
    // A tunnel (a client using the proxy as HTTPS_PROXY): nothing in it could be judged.
    server.on('connect', (req: IncomingMessage, socket: Duplex) => {
      this.report({
        request: `CONNECT ${req.url ?? ''}`.slice(0, 200),
        status: 502,
        reason: 'a tunnel (CONNECT) is not opened: give the client the proxy as its base URL',
      });
      socket.on('error', (error) => this.contain(error));
      socket.end('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    const { port: bound } = server.address() as AddressInfo;
    this.self = `127.0.0.1:${bound}`;
    if (await leadsToItself(this.target, { address: '127.0.0.1', port: bound }, this.options.timeoutMs)) {
      await this.stop();
      throw new ProxyLoopError(
        `the target ${this.target.origin} is this proxy's own address (it listens on 127.0.0.1:${bound}): it would forward every request to itself; give the target's URL (--base-url, API_BASE_URL), or another --port`,
      );
    }
    return `http://127.0.0.1:${bound}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    this.agent.destroy();
  }

  /** Hands a contained error on, never throwing. */
  private contain(error: unknown): void {
    try {
      this.options.onError?.(error instanceof Error ? error : new Error(String(error)));
    } catch {
      // Nothing more to do with it.
    }
  }

  private report(refusal: Refusal): void {
    try {
      this.options.onRefused?.(refusal);
    } catch (error) {
      this.contain(error);
    }
  }

  /** Answers a request the proxy does not forward, and reports it. */
  private refuse(req: IncomingMessage, res: ServerResponse, status: number, reason: string): void {
    this.report({ request: `${req.method ?? '?'} ${req.url ?? ''}`.slice(0, 200), status, reason });
    req.resume();
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.writeHead(status, { 'content-type': 'text/plain', connection: 'close' });
    res.end(`validating proxy: ${reason}\n`);
  }

  /**
   * Where the request goes: the upstream URL for its target, or why it is not forwarded
   * (asterisk-form, authority-form, another host's absolute URL, not a URL at all).
   */
  private destination(target: string): { url: string } | { status: number; reason: string } {
    const base = this.target.pathname.replace(/\/+$/, '');
    if (target.startsWith('/')) return { url: `${this.target.origin}${base}${target}` };
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
      let absolute: URL;
      try {
        absolute = new URL(target);
      } catch {
        return { status: 400, reason: 'the request target is not a URL' };
      }
      const path = `${absolute.pathname}${absolute.search}`;
      if (absolute.host === this.target.host) return { url: `${this.target.origin}${path}` };
      if (absolute.host === this.self) return { url: `${this.target.origin}${base}${path}` };
      return {
        status: 502,
        reason: `this proxy forwards to ${this.target.host} only, not to ${absolute.host}`,
      };
    }
    return {
      status: 400,
      reason:
        target === '*'
          ? 'an asterisk-form request (about the server as a whole) is not forwarded: the interface has no such operation'
          : 'the request target is neither a path nor an absolute URL',
    };
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    const startedAt = Date.now();
    const t0 = performance.now();
    const id = ++this.count;
    const where = this.destination(req.url ?? '');
    if (!('url' in where)) {
      this.refuse(req, res, where.status, where.reason);
      return;
    }
    const { url } = where;
    const came = req.headers.via;
    if (came !== undefined && came.includes(this.via)) {
      this.refuse(
        req,
        res,
        508,
        'the request came back to this proxy (its Via token): the target forwards to the proxy, a loop; check API_BASE_URL (--base-url)',
      );
      return;
    }
    const requestHeaders = joinHeaders(req, false);
    const reqKept = new Kept(this.options.maxBodyBytes);
    const via = came !== undefined ? `${came}, ${this.via}` : this.via;
    const headers = upstreamHeaders(req, this.target.host, via);
    const send = this.target.protocol === 'https:' ? httpsRequest : httpRequest;
    let recorded = false;
    let timedOut = false;
    const record = (
      partial: Pick<Exchange, 'status' | 'headers' | 'text' | 'failure'>,
      over: boolean,
    ): void => {
      clearTimeout(timer);
      if (recorded) return;
      recorded = true;
      const request: Exchange['request'] = {
        method: req.method ?? 'GET',
        url,
        headers: requestHeaders,
        ...(reqKept.text() !== '' ? { body: reqKept.text() } : {}),
      };
      const ex = proxiedExchange(request, partial, { startedAt, durationMs: performance.now() - t0 }, id);
      try {
        if (over || reqKept.over) this.options.onOverCap(ex);
        else this.options.onExchange(ex);
      } catch (error) {
        this.contain(error);
      }
    };
    const failed = (error: Error): void =>
      record(
        { status: 0, headers: {}, text: '', failure: { kind: 'connection', message: error.message } },
        false,
      );
    const upstream = send(url, { method: req.method, headers, agent: this.agent });
    // From the connect to the last byte of the answer, as the suite's own requests (transport/wire.ts).
    const { timeoutMs } = this.options;
    const timer = setTimeout(() => {
      timedOut = true;
      const message = `no complete answer within ${timeoutMs} ms (CONFORMANCE_TIMEOUT_MS)`;
      record({ status: 0, headers: {}, text: '', failure: { kind: 'timeout', message } }, false);
      if (!res.headersSent) {
        res.writeHead(504, { 'content-type': 'text/plain', connection: 'close' });
        res.end(`validating proxy: the target gave ${message}\n`);
      } else res.destroy();
      upstream.destroy();
    }, timeoutMs);
    upstream.on('response', (up) => {
      const kept = new Kept(this.options.maxBodyBytes);
      up.on('data', (chunk: Buffer) => kept.add(chunk));
      up.on('end', () =>
        record(
          {
            status: up.statusCode ?? 0,
            headers: joinHeaders(up, true),
            text: kept.text(),
            failure: undefined,
          },
          kept.over,
        ),
      );
      up.on('error', (error) => {
        if (timedOut) return;
        res.destroy(error);
        failed(error);
      });
      if (passHead(up, res)) up.pipe(res);
      else up.resume();
    });
    upstream.on('error', (error) => {
      // Cut by the timeout, which answered the client.
      if (timedOut) return;
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`validating proxy: the target did not answer: ${error.message}\n`);
      } else res.destroy(error);
      failed(error);
    });
    res.on('error', (error) => this.contain(error));
    req.on('error', (error) => {
      upstream.destroy(error);
      this.contain(error);
    });
    req.on('data', (chunk: Buffer) => reqKept.add(chunk));
    req.pipe(upstream);
  }
}
