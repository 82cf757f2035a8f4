/**
 * An answer that comes before the request's body was read (transport/wire.ts): a server may
 * refuse a large body at once (413, 400) and close the connection, while the client is still
 * sending. The client reads what arrives as it sends, so the answer is judged, not lost to the
 * error of the body's write. The very large bodies of the suite (1 MiB, generators/
 * other-operations.ts) rest on this; these servers end their answer, end it and then destroy the
 * connection, or write it on the socket and reset the connection (RST) without reading anything.
 */
import { Agent, createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { expect, test } from '@playwright/test';
import { LARGE_BODY_BYTES } from '../../generators/other-operations.ts';
import { forward } from '../../servers/forward.ts';
import { REFERENCE_TOKEN, ReferenceServer, WRITABLE_COUNTERPARTY } from '../../servers/reference.ts';
import { createPool, transmit } from '../../transport/wire.ts';

const ANSWER = '{"code":"PAYLOAD_TOO_LARGE"}';

/** How each server answers: at once, reading none of the body. */
const EARLY: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  'ends its answer': (_req, res) => {
    res.writeHead(413, { 'Content-Type': 'application/json' });
    res.end(ANSWER);
  },
  'ends its answer, then destroys the connection': (req, res) => {
    res.writeHead(413, { 'Content-Type': 'application/json', Connection: 'close' });
    res.end(ANSWER, () => req.socket.destroy());
  },
  'writes its answer on the socket, then resets the connection': (req) => {
    const socket = req.socket as Socket & { resetAndDestroy(): void };
    socket.write(
      `HTTP/1.1 413 Payload Too Large\r\nContent-Type: application/json\r\nContent-Length: ${ANSWER.length}\r\nConnection: close\r\n\r\n${ANSWER}`,
      () => socket.resetAndDestroy(),
    );
  },
};

for (const [how, answer] of Object.entries(EARLY)) {
  test(`a server that ${how}, before reading a large body: its answer is read`, async () => {
    const server = createServer(answer);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/bills`);
    try {
      for (const size of [LARGE_BODY_BYTES, 8 * LARGE_BODY_BYTES]) {
        for (let i = 0; i < 5; i++) {
          const r = await transmit(
            url,
            'POST',
            { 'Content-Type': 'application/json' },
            Buffer.alloc(size, 'x'),
            { timeoutMs: 30_000, maxResponseBytes: 1 << 20 },
          );
          expect({ size, status: r.status, body: r.body.toString() }).toEqual({
            size,
            status: 413,
            body: ANSWER,
          });
        }
      }
    } finally {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
  });
}

test("a front before the reference server (servers/forward.ts): an early answer to a large body costs no later request on the client's connections", async () => {
  const inner = new ReferenceServer();
  const innerURL = await inner.start(0);
  const agent = new Agent({ keepAlive: true });
  const front = createServer((req, res) => forward(innerURL, req, res, { agent }));
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  const pool = createPool(8, 1 << 22);
  // The reference answers these before reading their bodies (an unknown bill: 404; a counterparty
  // PATCH that is not JSON: 415); the reads between them go on the same connections.
  const requests: [string, string, Buffer | undefined][] = [];
  for (let i = 0; i < 40; i++) {
    requests.push(['PATCH', '/api/v1/bills/conformance-unknown-bill', Buffer.alloc(LARGE_BODY_BYTES, 'x')]);
    requests.push([
      'POST',
      '/api/v1/bills/conformance-unknown-bill/document',
      Buffer.alloc(LARGE_BODY_BYTES, 'x'),
    ]);
    requests.push([
      'PATCH',
      `/api/v1/counterparties/${WRITABLE_COUNTERPARTY}`,
      Buffer.alloc(LARGE_BODY_BYTES, 'x'),
    ]);
    requests.push(['GET', '/api/v1/bills', undefined]);
  }
  const failures: string[] = [];
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let r = requests[next++]; r; r = requests[next++]) {
          const [method, path, body] = r;
          try {
            await transmit(
              new URL(base + path),
              method,
              { 'Content-Type': 'text/plain', Authorization: `Bearer ${REFERENCE_TOKEN}` },
              body,
              { timeoutMs: 30_000, maxResponseBytes: 1 << 22, pool },
            );
          } catch (error) {
            failures.push(`${method} ${path}: ${(error as Error).message}`);
          }
        }
      }),
    );
  } finally {
    pool.close();
    agent.destroy();
    await new Promise<void>((resolve) => {
      front.close(() => resolve());
      front.closeAllConnections();
    });
    await inner.stop();
  }
  expect(failures).toEqual([]);
});
