/**
 * The validating proxy never dies on a request (transport/proxy.ts): absolute-form targets (what
 * every client using it as HTTP_PROXY sends), asterisk-form (`OPTIONS *`), another host, a
 * request line Node cannot parse, a tunnel, and a control byte in the upstream's reason phrase
 * are each answered (forwarded, or 400/502) and recorded; an error in one exchange (a callback
 * that throws) loses no other exchange; the client's Proxy-Authorization goes no further.
 * Then `validate --proxy` end to end: the same requests, Ctrl-C, and the reports hold them all.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { Exchange } from '../../exchange/exchange.ts';
import type { ConformanceRecord } from '../../reporter/summary.ts';
import { ValidatingProxy, type Refusal } from '../../transport/proxy.ts';
import { removeTemporaryDirectories, temporaryDirectory, tsx } from './cli-fixtures.ts';

test.afterAll(removeTemporaryDirectories);

/**
 * An upstream on 127.0.0.1 that writes its answers by hand, so that it can send what Node's own
 * server refuses to: a control byte in the reason phrase of /api/v1/bills?bad-reason. Every other
 * request gets 200 with a JSON body. It keeps the head of every request it got.
 */
async function rawUpstream(): Promise<{ port: number; heads: string[]; close: () => Promise<void> }> {
  const heads: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      let end: number;
      while ((end = buffered.indexOf('\r\n\r\n')) >= 0) {
        const head = buffered.slice(0, end);
        buffered = buffered.slice(end + 4);
        heads.push(head);
        const reason = head.startsWith('GET /api/v1/bills?bad-reason ') ? 'O\x01K' : 'OK';
        socket.write(
          `HTTP/1.1 200 ${reason}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n[]`,
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    heads,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Sends `head` (and nothing else) on a fresh connection; resolves with the status line of the answer. */
function raw(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d: Buffer) => {
      answer += d.toString('latin1');
      // One answer is enough: a proxy keeping the connection open is not what is tested here.
      if (/\r\n\r\n/.test(answer)) socket.destroy();
    });
    socket.on('close', () => resolve(answer.split('\r\n')[0] ?? ''));
    socket.on('error', reject);
    socket.write(head);
  });
}

/** The hostile requests, with the status line each must get from the proxy. */
function hostile(upstreamPort: number, proxyPort: number): [string, string, RegExp][] {
  return [
    [
      'absolute-form naming the upstream',
      `GET http://127.0.0.1:${upstreamPort}/api/v1/bills HTTP/1.1\r\nHost: 127.0.0.1:${upstreamPort}\r\nProxy-Authorization: Basic cHJveHk6c2VjcmV0\r\nConnection: close\r\n\r\n`,
      /^HTTP\/1\.1 200 /,
    ],
    [
      'absolute-form naming the proxy',
      `GET http://127.0.0.1:${proxyPort}/api/v1/mandates HTTP/1.1\r\nHost: 127.0.0.1:${proxyPort}\r\nConnection: close\r\n\r\n`,
      /^HTTP\/1\.1 200 /,
    ],
    [
      'absolute-form naming another host',
      'GET http://elsewhere.invalid/api/v1/bills HTTP/1.1\r\nHost: elsewhere.invalid\r\nConnection: close\r\n\r\n',
      /^HTTP\/1\.1 502 /,
    ],
    ['asterisk-form', 'OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', /^HTTP\/1\.1 400 /],
    ['a malformed request line', 'GET\x00 /api HTTP/9\r\n\r\n', /^HTTP\/1\.1 400 /],
    ['a tunnel', 'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n', /^HTTP\/1\.1 502 /],
    [
      "a control byte in the upstream's reason phrase",
      'GET /api/v1/bills?bad-reason HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      /^HTTP\/1\.1 502 /,
    ],
    [
      'an ordinary request after all that',
      'GET /api/v1/direct-debit HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      /^HTTP\/1\.1 200 /,
    ],
  ];
}

test('every kind of request is answered and recorded; an error in one exchange loses no other', async () => {
  const upstream = await rawUpstream();
  const exchanges: Omit<Exchange, 'id'>[] = [];
  const refusals: Refusal[] = [];
  const errors: string[] = [];
  let calls = 0;
  const proxy = new ValidatingProxy({
    upstream: `http://127.0.0.1:${upstream.port}`,
    maxBodyBytes: 1024 * 1024,
    onExchange: (ex) => {
      // A judge that fails on one exchange: the others are still recorded.
      if (++calls === 2) throw new Error('a bug in judging this exchange');
      exchanges.push(ex);
    },
    onOverCap: (ex) => exchanges.push(ex),
    onRefused: (r) => refusals.push(r),
    onError: (e) => errors.push(e.message),
  });
  const url = await proxy.start(0);
  const proxyPort = Number(new URL(url).port);
  try {
    for (const [name, head, status] of hostile(upstream.port, proxyPort))
      expect(await raw(proxyPort, head), name).toMatch(status);
    // The second exchange's callback threw: it is the only one missing.
    expect(exchanges.map((e) => `${e.status} ${e.request.method} ${e.request.url}`)).toEqual([
      `200 GET http://127.0.0.1:${upstream.port}/api/v1/bills`,
      `200 GET http://127.0.0.1:${upstream.port}/api/v1/bills?bad-reason`,
      `200 GET http://127.0.0.1:${upstream.port}/api/v1/direct-debit`,
    ]);
    expect(errors).toEqual(['a bug in judging this exchange']);
    expect(refusals.map((r) => `${r.status} ${r.request}`)).toEqual([
      '502 GET http://elsewhere.invalid/api/v1/bills',
      '400 OPTIONS *',
      '400 GET\x00 /api HTTP/9',
      '502 CONNECT 127.0.0.1:443',
    ]);
    // The client's credential for a proxy went no further.
    expect(upstream.heads.join('\n')).not.toMatch(/proxy-authorization/i);
    expect(upstream.heads.some((h) => h.startsWith('GET /api/v1/mandates '))).toBe(true);
  } finally {
    await proxy.stop();
    await upstream.close();
  }
});

test('validate --proxy: the same requests, then Ctrl-C: the reports are written with every exchange and refusal', async () => {
  test.setTimeout(120_000);
  const upstream = await rawUpstream();
  const work = temporaryDirectory('payflow-proxy-cli-');
  const child = spawn(process.execPath, tsx('bin/validate.ts', '--proxy', '--port', '0'), {
    cwd: work,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? work,
      API_BASE_URL: `http://127.0.0.1:${upstream.port}`,
      API_TOKEN: 'proxy-test-token-0001',
    },
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  try {
    const listening = await new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        const m = /proxy listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout);
        if (m) resolve(Number(m[1]));
      });
      void exited.then(() => reject(new Error(`exited before listening: ${stdout}${stderr}`)));
    });
    for (const [name, head, status] of hostile(upstream.port, listening))
      expect(await raw(listening, head), name).toMatch(status);
    child.kill('SIGINT');
    const code = await exited;
    expect([0, 1], stdout + stderr).toContain(code);
    const file = join(work, 'reports', 'conformance.json');
    expect(existsSync(file), stdout + stderr).toBe(true);
    const record = JSON.parse(readFileSync(file, 'utf8')) as ConformanceRecord;
    expect(record.traffic?.exchanges).toBe(4);
    expect(record.traffic?.refused?.count).toBe(4);
    expect(stderr).not.toMatch(/^\s+at /m);
  } finally {
    child.kill('SIGKILL');
    await upstream.close();
  }
});
