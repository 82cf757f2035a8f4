/**
 * A forward proxy on 127.0.0.1 for the tests of HTTP_PROXY / HTTPS_PROXY: it tunnels CONNECT to
 * 127.0.0.1 only (never elsewhere), and records every request line and header it saw, so a test
 * can tell that a request went through it and that it never saw the token.
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

/** Listens on a free port of 127.0.0.1: its host:port. */
export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes a server and the sockets it holds. */
export async function close(server: Server, sockets: Set<Socket> = new Set()): Promise<void> {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** A forward proxy that tunnels CONNECT to 127.0.0.1 only, and records every request line and header it saw. */
export async function forwardProxy(): Promise<{ url: string; seen: string[]; close: () => Promise<void> }> {
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    // Only tunnels are served: a plain proxied request would show the proxy the token.
    seen.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)}`);
    res.writeHead(405);
    res.end();
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    seen.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)}`);
    const [host, port] = (req.url ?? '').split(':');
    if (host !== '127.0.0.1') {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
  });
  const address = await listen(server);
  return { url: `http://${address}`, seen, close: () => close(server, sockets) };
}
