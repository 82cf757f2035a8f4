/**
 * Whether the validating proxy's upstream is the proxy itself (transport/proxy.ts): `validate
 * --proxy --port 8080 --base-url http://localhost:8080` forwarded each request to itself, and
 * again, until the process ran out of descriptors (10,063 exchanges from one request).
 *
 * Told at start-up by where a connection to the upstream actually lands, not by a list of names:
 * "localhost" may resolve to ::1 first, where another server on the same port is a legitimate
 * upstream, and 127.0.0.2 or the machine's other addresses do not reach a socket bound to
 * 127.0.0.1. So only when the upstream's port is the proxy's and one of its addresses is this
 * machine's (loopback, unspecified, an interface's) does the proxy open a TCP connection to it, as
 * forwarding would, and look at the far end: the proxy's own address and port is a loop. Nothing
 * is sent on it, and no connection goes to another machine. A loop this cannot see (a front that
 * forwards back to the proxy) is caught per request by the proxy's Via token.
 */
import { lookup } from 'node:dns/promises';
import { connect, isIPv4 } from 'node:net';
import { networkInterfaces } from 'node:os';

/** An address as a socket reports it, IPv4-mapped IPv6 written as IPv4. */
function plain(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address.toLowerCase();
}

/** Whether `address` is one of this machine's: loopback, unspecified, or an interface's. */
export function isLocalAddress(address: string): boolean {
  const a = plain(address);
  if (isIPv4(a) && (a.startsWith('127.') || a === '0.0.0.0')) return true;
  if (a === '::1' || a === '::') return true;
  return Object.values(networkInterfaces()).some((list) => (list ?? []).some((i) => plain(i.address) === a));
}

/** The port a URL connects to. */
function portOf(url: URL): number {
  return url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** Where a TCP connection to host:port lands (its far end), or undefined when it does not connect. */
function farEnd(
  host: string,
  port: number,
  timeoutMs: number,
): Promise<{ address: string; port: number } | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (end: { address: string; port: number } | undefined): void => {
      clearTimeout(timer);
      // Closed without a byte sent: the proxy's server sees a connection end, nothing more.
      socket.end();
      socket.destroy();
      resolve(end);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    socket.once('connect', () =>
      done(
        socket.remoteAddress !== undefined && socket.remotePort !== undefined
          ? { address: plain(socket.remoteAddress), port: socket.remotePort }
          : undefined,
      ),
    );
    socket.once('error', () => done(undefined));
  });
}

/**
 * Whether `upstream` leads to the proxy listening on `listening` (its address and port): see
 * above. `timeoutMs` bounds the look-up and the connection.
 */
export async function leadsToItself(
  upstream: URL,
  listening: { address: string; port: number },
  timeoutMs: number,
): Promise<boolean> {
  const port = portOf(upstream);
  if (port !== listening.port) return false;
  const host = upstream.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string }[];
  let timer: NodeJS.Timeout | undefined;
  try {
    addresses = await Promise.race([
      lookup(host, { all: true }),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), timeoutMs))),
    ]);
  } catch {
    return false; // Not resolvable: the proxy answers 502 to each request, and says why.
  } finally {
    clearTimeout(timer);
  }
  if (!addresses.some((a) => isLocalAddress(a.address))) return false;
  const end = await farEnd(host, port, timeoutMs);
  return end !== undefined && end.address === plain(listening.address) && end.port === listening.port;
}
