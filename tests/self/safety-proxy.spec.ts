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
import { createServer as createHttpServer } from 'node:http';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { Exchange } from '../../exchange/exchange.ts';
import type { ConformanceRecord } from '../../reporter/record.ts';
import { ValidatingProxy, type Refusal } from '../../transport/proxy.ts';
import { forward } from '../../servers/forward.ts';
import {
  childEnv,
  collected,
  nodeTs,
  removeTemporaryDirectories,
  temporaryDirectory,
  tsx,
} from './cli-fixtures.ts';

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
    timeoutMs: 10_000,
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
    // The client's credential for a proxy went no further; the proxy's Via token went with each.
    expect(upstream.heads.join('\n')).not.toMatch(/proxy-authorization/i);
    for (const head of upstream.heads)
      expect(head).toMatch(/\r\nvia: 1\.1 payflow-conformance-[0-9a-f]{16}(\r\n|$)/i);
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

/** A port free on 127.0.0.1 a moment ago (the proxy is asked to listen on it). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** A proxy in front of `upstream`, recording what it hands on; `timeoutMs` its bound on each exchange. */
function recordingProxy(upstream: string, timeoutMs = 10_000) {
  const exchanges: Omit<Exchange, 'id'>[] = [];
  const refusals: Refusal[] = [];
  const proxy = new ValidatingProxy({
    upstream,
    maxBodyBytes: 1024 * 1024,
    timeoutMs,
    onExchange: (ex) => exchanges.push(ex),
    onOverCap: (ex) => exchanges.push(ex),
    onRefused: (r) => refusals.push(r),
  });
  return { proxy, exchanges, refusals };
}

/**
 * GET `url`; the status and body, or 'cut' when the connection ended before a whole answer. The
 * 60 s abort guards against a proxy that never answers (the failure tested), not a time bound.
 */
async function get(url: string): Promise<{ status: number; body: string } | 'cut'> {
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout(60_000) });
    return { status: answer.status, body: await answer.text() };
  } catch {
    return 'cut';
  }
}

test('an upstream that does not answer within the timeout: 504, or a cut answer, and the exchange recorded unanswered', async () => {
  // One that never answers, and one that sends its head and never the body it announced.
  const silent = createServer((socket) => socket.on('error', () => {}));
  const stalled = createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', () =>
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a"'),
    );
  });
  const listen = async (server: Server): Promise<string> => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const timeoutMs = 300;
  for (const [name, server, expected] of [
    ['silent', silent, { status: 504 }],
    ['stalled body', stalled, 'cut'],
  ] as const) {
    const upstream = await listen(server);
    const { proxy, exchanges } = recordingProxy(upstream, timeoutMs);
    const url = await proxy.start(0);
    try {
      const answer = await get(`${url}/api/v1/bills`);
      if (expected === 'cut') expect(answer, name).toBe('cut');
      else {
        expect(answer, name).toMatchObject(expected);
        expect((answer as { body: string }).body, name).toContain(
          `no complete answer within ${timeoutMs} ms`,
        );
      }
      expect(
        exchanges.map((e) => ({ status: e.status, failure: e.failure })),
        name,
      ).toEqual([
        {
          status: 0,
          failure: {
            kind: 'timeout',
            message: `no complete answer within ${timeoutMs} ms (CONFORMANCE_TIMEOUT_MS)`,
          },
        },
      ]);
    } finally {
      await proxy.stop();
      server.close();
    }
  }
});

test("a target that is the proxy's own address is refused at start-up; one on another port, or another socket on that port, is not", async () => {
  const port = await freePort();
  for (const self of [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://0.0.0.0:${port}/api`]) {
    const { proxy } = recordingProxy(self);
    await expect(proxy.start(port), self).rejects.toThrow(
      new RegExp(`is this proxy's own address \\(it listens on 127\\.0\\.0\\.1:${port}\\)`),
    );
    // Refused and closed: the port is free again.
    await proxy.stop();
  }
  expect(await freePort()).toBeGreaterThan(0);
  // A legitimate upstream on the same port at another address of this machine (IPv6 loopback,
  // where there is one): a different socket, which the proxy forwards to.
  const v6 = createHttpServer((_req, res) => res.end('from ::1'));
  const onV6 = await new Promise<boolean>((resolve) => {
    v6.once('error', () => resolve(false));
    v6.listen(port, '::1', () => resolve(true));
  });
  if (onV6) {
    const { proxy, refusals } = recordingProxy(`http://[::1]:${port}`);
    try {
      const url = await proxy.start(port);
      expect(await get(`${url}/api/v1/bills`)).toEqual({ status: 200, body: 'from ::1' });
      expect(refusals).toEqual([]);
    } finally {
      await proxy.stop();
      v6.close();
    }
  }
});

test('a request that comes back to the proxy (a front forwarding to it) is answered 508 Loop Detected, once, never sent again', async () => {
  // A front that forwards everything to the proxy; past 20 requests it answers 500 itself, so
  // that a proxy without loop detection ends too.
  let through = 0;
  let proxyURL = '';
  const front = createHttpServer((req, res) => {
    if (++through > 20) {
      req.resume();
      res.writeHead(500).end();
      return;
    }
    forward(proxyURL, req, res);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const { proxy, exchanges, refusals } = recordingProxy(
    `http://127.0.0.1:${(front.address() as AddressInfo).port}`,
  );
  proxyURL = await proxy.start(0);
  try {
    const answer = await get(`${proxyURL}/api/v1/bills`);
    expect(answer).toMatchObject({ status: 508 });
    expect(through).toBe(1);
    expect(refusals.map((r) => `${r.status} ${r.request}`)).toEqual(['508 GET /api/v1/bills']);
    expect(refusals[0]!.reason).toContain('came back to this proxy');
    // The first pass is recorded as the front answered it.
    expect(exchanges.map((e) => e.status)).toEqual([508]);
  } finally {
    await proxy.stop();
    front.closeAllConnections();
    front.close();
  }
});

test('validate --proxy whose target is its own address: exit 2 at start-up, one line, nothing served', async () => {
  const port = await freePort();
  const work = temporaryDirectory('payflow-proxy-self-');
  const child = spawn(
    process.execPath,
    nodeTs('bin/validate.ts', '--proxy', '--port', String(port), '--base-url', `http://localhost:${port}`),
    { cwd: work, env: childEnv({ API_TOKEN: 'proxy-test-token-0001' }) },
  );
  // A guard against a proxy that starts and serves (the failure tested), not a time bound.
  const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const run = await collected(child);
  clearTimeout(guard);
  expect(run.code, run.stdout + run.stderr).toBe(2);
  expect(run.stderr).toMatch(
    new RegExp(
      `^validate: the target http://localhost:${port} is this proxy's own address \\(it listens on 127\\.0\\.0\\.1:${port}\\): it would forward every request to itself; .*\\n$`,
    ),
  );
  expect(existsSync(join(work, 'reports', 'conformance.json'))).toBe(false);
});

test("fields named as Object.prototype's properties are forwarded and recorded as fields, both ways", async () => {
  // Answers with such fields, and echoes the field lines it got.
  const upstream = createHttpServer((req, res) => {
    res.writeHead(200, [
      ['Content-Type', 'application/json'],
      ['constructor', 'answered constructor'],
      ['__proto__', 'answered __proto__'],
      ['toString', 'answered toString'],
    ]);
    res.end(JSON.stringify(req.rawHeaders));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const exchanges: Omit<Exchange, 'id'>[] = [];
  const errors: string[] = [];
  const proxy = new ValidatingProxy({
    upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    maxBodyBytes: 1024 * 1024,
    timeoutMs: 10_000,
    onExchange: (ex) => exchanges.push(ex),
    onOverCap: (ex) => exchanges.push(ex),
    onRefused: () => {},
    onError: (e) => errors.push(e.message),
  });
  const port = Number(new URL(await proxy.start(0)).port);
  try {
    const head =
      'GET /api/v1/bills HTTP/1.1\r\nHost: x\r\nconstructor: sent constructor\r\n__proto__: sent __proto__\r\nConnection: close\r\n\r\n';
    expect(await raw(port, head)).toMatch(/^HTTP\/1\.1 200 /);
    await expect.poll(() => exchanges.length).toBe(1);
    const ex = exchanges[0]!;
    expect(ex.body).toEqual(
      expect.arrayContaining(['constructor', 'sent constructor', '__proto__', 'sent __proto__']),
    );
    for (const name of ['constructor', '__proto__'])
      expect(Object.hasOwn(ex.request.headers, name) && ex.request.headers[name], name).toBe(`sent ${name}`);
    for (const name of ['constructor', '__proto__', 'toString'])
      expect(Object.hasOwn(ex.headers, name.toLowerCase()) && ex.headers[name.toLowerCase()], name).toBe(
        `answered ${name}`,
      );
    expect(errors).toEqual([]);
  } finally {
    await proxy.stop();
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
  }
});
