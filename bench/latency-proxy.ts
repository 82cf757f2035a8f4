/**
 * A remote deployment on loopback: a reverse proxy on 127.0.0.1 that holds every request for a
 * fixed latency before forwarding it to a server on 127.0.0.1, and streams the answer back. The
 * benchmark's remote case points the suite at it, so the figures show what a run costs when each
 * request takes what it takes over a real network (150 ms), not what loopback allows.
 *
 * The latency is added once per request, before forwarding: the answer itself comes back at
 * loopback speed. Connections are kept alive both ways, so no connect time hides in the figure.
 */
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DelayingProxy {
  url: string;
  /** Requests forwarded so far. */
  forwarded(): number;
  /** The most requests that were held or forwarded at once. */
  peakInFlight(): number;
  close(): Promise<void>;
}

export async function startDelayingProxy(target: string, latencyMs: number): Promise<DelayingProxy> {
  const upstream = new URL(target);
  if (upstream.hostname !== '127.0.0.1') throw new Error('the delaying proxy forwards to 127.0.0.1 only');
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  let forwarded = 0;
  let inFlight = 0;
  let peak = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    res.on('close', () => inFlight--);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      setTimeout(() => {
        forwarded++;
        const out = request(
          {
            host: upstream.hostname,
            port: upstream.port,
            method: req.method,
            path: req.url,
            headers: req.headers,
            agent,
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        out.on('error', () => res.destroy());
        out.end(Buffer.concat(chunks));
      }, latencyMs);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    forwarded: () => forwarded,
    peakInFlight: () => peak,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        agent.destroy();
      }),
  };
}
