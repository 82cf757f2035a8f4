/**
 * The validating proxy: a reverse proxy on 127.0.0.1 in front of the target. Every request and
 * response passes through unchanged (status, headers as sent, bodies streamed as they come);
 * beside the stream it keeps up to `maxBodyBytes` of each body for judging, and hands each
 * completed exchange to `onExchange` (a body over the cap goes to `onOverCap`, not judged).
 * Requests go to `upstream` + the path and query the client asked for.
 */
import {
  request as httpRequest,
  Agent as HttpAgent,
  createServer,
  type IncomingMessage,
  type Server,
} from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { parseJsonBody, type Exchange } from '../exchange/exchange.ts';

export interface ProxyOptions {
  upstream: string;
  maxBodyBytes: number;
  onExchange(exchange: Omit<Exchange, 'id'>): void;
  onOverCap(exchange: Omit<Exchange, 'id'>): void;
}

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
  const out: Record<string, string> = {};
  const raw = message.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = lower ? raw[i]!.toLowerCase() : raw[i]!;
    const key = lower ? name : (Object.keys(out).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name);
    out[key] = out[key] === undefined ? raw[i + 1]! : `${out[key]}, ${raw[i + 1]!}`;
  }
  return out;
}

export class ValidatingProxy {
  private server: Server | undefined;
  private readonly target: URL;
  private readonly agent: HttpAgent;
  private count = 0;

  constructor(private readonly options: ProxyOptions) {
    this.target = new URL(options.upstream);
    this.agent =
      this.target.protocol === 'https:'
        ? new HttpsAgent({ keepAlive: true })
        : new HttpAgent({ keepAlive: true });
  }

  /** Listens on 127.0.0.1 (port 0: a free one); resolves the proxy's base URL. */
  async start(port = 0): Promise<string> {
    const server = createServer((req, res) => this.forward(req, res));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    const { port: bound } = server.address() as AddressInfo;
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

  private forward(req: IncomingMessage, res: import('node:http').ServerResponse): void {
    const startedAt = Date.now();
    const t0 = performance.now();
    const id = ++this.count;
    const base = this.target.pathname.replace(/\/+$/, '');
    const url = `${this.target.origin}${base}${req.url ?? '/'}`;
    const requestHeaders = joinHeaders(req, false);
    const reqKept = new Kept(this.options.maxBodyBytes);
    const headers = { ...req.headers, host: this.target.host };
    const send = this.target.protocol === 'https:' ? httpsRequest : httpRequest;
    const upstream = send(url, { method: req.method, headers, agent: this.agent });
    const record = (
      partial: Pick<Exchange, 'status' | 'headers' | 'text' | 'failure'>,
      over: boolean,
    ): void => {
      const text = partial.text;
      const ex: Omit<Exchange, 'id'> = {
        request: {
          method: req.method ?? 'GET',
          url,
          headers: requestHeaders,
          ...(reqKept.text() !== '' ? { body: reqKept.text() } : {}),
        },
        status: partial.status,
        headers: partial.headers,
        text,
        body: parseJsonBody(text),
        ...(partial.failure ? { failure: partial.failure } : {}),
        startedAt,
        durationMs: performance.now() - t0,
        attempts: 1,
        origin: { proxied: id },
      };
      if (over || reqKept.over) this.options.onOverCap(ex);
      else this.options.onExchange(ex);
    };
    upstream.on('response', (up) => {
      res.writeHead(up.statusCode ?? 502, up.statusMessage, up.rawHeaders);
      const kept = new Kept(this.options.maxBodyBytes);
      up.on('data', (chunk: Buffer) => kept.add(chunk));
      up.pipe(res);
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
        res.destroy(error);
        record(
          { status: 0, headers: {}, text: '', failure: { kind: 'connection', message: error.message } },
          false,
        );
      });
    });
    upstream.on('error', (error) => {
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`validating proxy: the target did not answer: ${error.message}\n`);
      } else res.destroy(error);
      record(
        { status: 0, headers: {}, text: '', failure: { kind: 'connection', message: error.message } },
        false,
      );
    });
    req.on('data', (chunk: Buffer) => reqKept.add(chunk));
    req.pipe(upstream);
  }
}
