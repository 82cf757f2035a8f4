/**
 * Passes a request on to a server on 127.0.0.1 and its answer back: the fronts and proxies the
 * self-tests put before a reference server (hostile fronts, recording proxies).
 *
 * The client's whole body is read before the request goes on (as nginx does by default,
 * proxy_request_buffering). Piped through instead, an upstream server's early answer (a 404
 * before a 1 MiB body was read) reached the client while the front still held unread bytes of
 * that body; the client, which had handed its whole body to the kernel, reused the connection,
 * and its next request was reset: a fault of the front, not of the suite or the server behind it.
 */
import { request, type Agent, type IncomingMessage, type ServerResponse } from 'node:http';

export interface ForwardOptions {
  /** The keep-alive agent to the upstream server (default: Node's global agent). */
  agent?: Agent;
  /** Headers added to the answer. */
  extra?: Record<string, string>;
  /**
   * Rewrites the answer's body, read whole first (a hostile front's fault); Content-Length is set
   * to what it returns.
   */
  rewrite?: (body: Buffer, answer: IncomingMessage) => Buffer;
}

/** Passes `answer` back, its body rewritten by `rewrite`. */
function rewritten(
  answer: IncomingMessage,
  res: ServerResponse,
  rewrite: (body: Buffer, answer: IncomingMessage) => Buffer,
  extra: Record<string, string> | undefined,
): void {
  const chunks: Buffer[] = [];
  answer.on('data', (chunk: Buffer) => chunks.push(chunk));
  answer.on('end', () => {
    const body = rewrite(Buffer.concat(chunks), answer);
    const headers = { ...answer.headers, ...extra, 'content-length': String(body.length) };
    delete headers['transfer-encoding'];
    res.writeHead(answer.statusCode ?? 502, headers);
    res.end(body);
  });
}

export function forward(
  target: string,
  req: IncomingMessage,
  res: ServerResponse,
  options: ForwardOptions = {},
): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const upstream = request(
      `${target}${req.url ?? '/'}`,
      { method: req.method, headers: req.headers, ...(options.agent ? { agent: options.agent } : {}) },
      (answer) => {
        if (options.rewrite) return rewritten(answer, res, options.rewrite, options.extra);
        res.writeHead(answer.statusCode ?? 502, { ...answer.headers, ...options.extra });
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.destroy();
    });
    upstream.end(Buffer.concat(chunks));
  });
}
