/**
 * The HTTP layer under the checks (transport/wire.ts, transport/session.ts) against small servers
 * on 127.0.0.1: rate and concurrency limits, the request budget, Retry-After, the circuit
 * breaker, the body cap, redirects returned as answers, and a ledger shared by processes.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import {
  ACTIVE_WINDOW_MS,
  BREAKER_THRESHOLD,
  FileLedger,
  retryAfterMs,
  TargetSession,
  TargetUnavailable,
} from '../../transport/session.ts';
import { transmit, TransportFailure } from '../../transport/wire.ts';
import {
  ConfigError,
  EMBEDDED_POLITENESS,
  parseConfig,
  parsePoliteness,
  REMOTE_POLITENESS,
  suiteLimits,
  type Politeness,
} from '../../config/config.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A server on 127.0.0.1 that counts requests and the most in flight at once. */
async function serve(handler: Handler): Promise<{
  url: string;
  seen: { at: number; method: string; url: string; authorization?: string }[];
  maxInFlight: () => number;
  close: () => Promise<void>;
}> {
  const seen: { at: number; method: string; url: string; authorization?: string }[] = [];
  let inFlight = 0;
  let max = 0;
  const server: Server = createServer((req, res) => {
    seen.push({
      at: performance.now(),
      method: req.method ?? '',
      url: req.url ?? '',
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
    inFlight++;
    max = Math.max(max, inFlight);
    res.on('close', () => inFlight--);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    maxInFlight: () => max,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const ok: Handler = (_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end('{}');
};

function session(p: Partial<Politeness> = {}, extra: { deadline?: number } = {}): TargetSession {
  return new TargetSession({ politeness: { ...EMBEDDED_POLITENESS, ...p }, ...extra });
}

async function get(s: TargetSession, url: string): Promise<number> {
  const { response } = await s.exchange('GET', new URL(url), {}, undefined);
  return response.status;
}

async function unavailable(promise: Promise<unknown>): Promise<TargetUnavailable> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TargetUnavailable) return error;
    throw error;
  }
  throw new Error('expected TargetUnavailable');
}

test.describe('configuration of the limits', () => {
  test('a deployment gets an adaptive pace within caps by default; the embedded server is not limited', () => {
    expect(parsePoliteness({}, true)).toEqual(REMOTE_POLITENESS);
    expect(REMOTE_POLITENESS.adaptive).toBe(true);
    expect(REMOTE_POLITENESS.rps).toBe(0);
    expect(REMOTE_POLITENESS.concurrency).toBe(64);
    expect(parsePoliteness({}, false)).toEqual(EMBEDDED_POLITENESS);
    expect(EMBEDDED_POLITENESS.adaptive).toBe(false);
    expect(EMBEDDED_POLITENESS.rps).toBe(0);
    const remote = { API_BASE_URL: 'https://x.example', API_TOKEN: 't', COUNTERPARTY_REF: 'abc' };
    expect(parseConfig(remote, { token: 'e', counterpartyRef: 'e' }).politeness).toEqual(REMOTE_POLITENESS);
  });

  test('every limit can be set; the rate may be a decimal', () => {
    const p = parsePoliteness(
      {
        CONFORMANCE_RPS: '0.5',
        CONFORMANCE_CONCURRENCY: '2',
        CONFORMANCE_TIMEOUT_MS: '2500',
        CONFORMANCE_MAX_REQUESTS: '900',
        CONFORMANCE_RETRIES: '0',
        CONFORMANCE_MAX_RETRY_WAIT_MS: '5000',
        CONFORMANCE_MAX_RESPONSE_BYTES: '65536',
        CONFORMANCE_RUN_TIMEOUT_MS: '60000',
      },
      true,
    );
    expect(p).toEqual({
      adaptive: true,
      rps: 0.5,
      concurrency: 2,
      timeoutMs: 2500,
      maxRequests: 900,
      retries: 0,
      maxRetryWaitMs: 5000,
      maxResponseBytes: 65536,
      runTimeoutMs: 60000,
    });
  });

  const bad: [Record<string, string>, RegExp][] = [
    [{ CONFORMANCE_RPS: 'fast' }, /CONFORMANCE_RPS must be a number such as 5 or 0.5, got 'fast'/],
    [{ CONFORMANCE_RPS: '-1' }, /CONFORMANCE_RPS must be a number/],
    [{ CONFORMANCE_CONCURRENCY: '0' }, /CONFORMANCE_CONCURRENCY must be between 1 and/],
    [{ CONFORMANCE_TIMEOUT_MS: '10s' }, /CONFORMANCE_TIMEOUT_MS must be a whole number, got '10s'/],
    [{ CONFORMANCE_MAX_REQUESTS: '0' }, /CONFORMANCE_MAX_REQUESTS must be between 1 and/],
    [{ CONFORMANCE_MAX_RESPONSE_BYTES: '10' }, /CONFORMANCE_MAX_RESPONSE_BYTES must be between 1024/],
  ];
  for (const [env, message] of bad) {
    test(`a bad value is a one-line ConfigError: ${JSON.stringify(env)}`, () => {
      let error: unknown;
      try {
        parseConfig(env, { token: 'e', counterpartyRef: 'e' });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain('\n');
    });
  }

  test('the suite runs at most two workers, never more than the requests in flight, and outlasts the run budget', () => {
    expect(suiteLimits(parsePoliteness({}, false)).workers).toBe(2);
    expect(suiteLimits(parsePoliteness({}, true)).workers).toBe(2);
    expect(suiteLimits(parsePoliteness({ CONFORMANCE_CONCURRENCY: '1' }, true)).workers).toBe(1);
    // Several writable counterparties: a worker per lane and one for the rest, within the cap.
    expect(suiteLimits(parsePoliteness({}, true), 4).workers).toBe(5);
    expect(suiteLimits(parsePoliteness({ CONFORMANCE_CONCURRENCY: '3' }, true), 4).workers).toBe(3);
    expect(suiteLimits(parsePoliteness({}, false), 4).workers).toBe(2);
    const limits = suiteLimits(parsePoliteness({ CONFORMANCE_RUN_TIMEOUT_MS: '90000' }, true));
    expect(limits.testTimeoutMs).toBeGreaterThan(90_000);
  });
});

test('Retry-After is delay-seconds or an HTTP-date', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  expect(retryAfterMs('3', now)).toBe(3000);
  expect(retryAfterMs('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
  expect(retryAfterMs('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
  expect(retryAfterMs('soon', now)).toBeUndefined();
  expect(retryAfterMs(undefined, now)).toBeUndefined();
});

test('the rate limit spaces requests out', async () => {
  const server = await serve(ok);
  const s = session({ rps: 20 });
  try {
    for (let i = 0; i < 8; i++) expect(await get(s, `${server.url}/x`)).toBe(200);
    // 20 per second: 8 requests span at least 7 intervals of 50 ms (less the first one's jitter).
    const span = server.seen.at(-1)!.at - server.seen[0]!.at;
    expect(span).toBeGreaterThanOrEqual(300);
  } finally {
    s.close();
    await server.close();
  }
});

test('the concurrency limit holds however many requests the checks start at once', async () => {
  const server = await serve((req, res) => setTimeout(() => ok(req, res), 30));
  const s = session({ concurrency: 2 });
  try {
    const statuses = await Promise.all(Array.from({ length: 8 }, () => get(s, `${server.url}/x`)));
    expect(statuses).toEqual(Array(8).fill(200));
    expect(server.maxInFlight()).toBe(2);
  } finally {
    s.close();
    await server.close();
  }
});

test('the request budget stops the run and says so', async () => {
  const server = await serve(ok);
  const s = session({ maxRequests: 3 });
  try {
    for (let i = 0; i < 3; i++) await get(s, `${server.url}/x`);
    const error = await unavailable(get(s, `${server.url}/x`));
    expect(error.kind).toBe('budget');
    expect(error.message).toMatch(/request budget of 3 \(CONFORMANCE_MAX_REQUESTS\) is spent/);
    expect((await unavailable(get(s, `${server.url}/y`))).kind).toBe('stopped');
    expect(server.seen).toHaveLength(3);
  } finally {
    s.close();
    await server.close();
  }
});

test('a 429 with Retry-After is waited out and retried; a 503 without it is an answer', async () => {
  let n = 0;
  const server = await serve((req, res) => {
    n++;
    if (req.url === '/limited' && n === 1) {
      res.writeHead(429, { 'Retry-After': '1' });
      res.end();
    } else if (req.url === '/down') {
      res.writeHead(503);
      res.end();
    } else ok(req, res);
  });
  const s = session();
  try {
    const started = performance.now();
    const { response, attempts } = await s.exchange('GET', new URL(`${server.url}/limited`), {}, undefined);
    expect(response.status).toBe(200);
    expect(attempts).toBe(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(s.stats.retries).toBe(1);
    expect(await get(s, `${server.url}/down`)).toBe(503);
  } finally {
    s.close();
    await server.close();
  }
});

test('a rate limit that does not lift is given up after the retries, and holds for the next request', async () => {
  const server = await serve((_req, res) => {
    res.writeHead(503, { 'Retry-After': '1' });
    res.end();
  });
  const s = session({ retries: 1 });
  try {
    const error = await unavailable(get(s, `${server.url}/x`));
    expect(error.kind).toBe('rate-limited');
    expect(error.message).toMatch(/answered 503 with Retry-After: 1 2 time\(s\); gave up after 1 retries/);
    expect(error.attempts).toBe(2);
    const before = performance.now();
    await unavailable(get(s, `${server.url}/y`));
    // The next request waited for the pause the last answer asked for.
    expect(server.seen[2]!.at - server.seen[1]!.at).toBeGreaterThanOrEqual(950);
    expect(performance.now() - before).toBeGreaterThanOrEqual(950);
  } finally {
    s.close();
    await server.close();
  }
});

test(`${BREAKER_THRESHOLD} requests in a row without an answer open the circuit: nothing more is sent`, async () => {
  const server = await serve(() => undefined);
  const s = session({ timeoutMs: 100 });
  try {
    for (let i = 0; i < BREAKER_THRESHOLD; i++) {
      const error = await unavailable(get(s, `${server.url}/x${i}`));
      expect(error.kind).toBe('timeout');
      expect(error.message).toMatch(/no complete answer within 100 ms \(CONFORMANCE_TIMEOUT_MS\)/);
    }
    const started = performance.now();
    const refused = await unavailable(get(s, `${server.url}/next`));
    expect(refused.kind).toBe('stopped');
    expect(refused.message).toMatch(/target unreachable: 3 requests in a row/);
    expect(performance.now() - started).toBeLessThan(50);
    expect(server.seen).toHaveLength(BREAKER_THRESHOLD);
  } finally {
    s.close();
    await server.close();
  }
});

test('an answer in between resets the count of failures', async () => {
  let n = 0;
  const server = await serve((req, res) => {
    if (++n % 2 === 1) return; // every other request hangs
    ok(req, res);
  });
  const s = session({ timeoutMs: 100 });
  try {
    for (let i = 0; i < 3; i++) {
      await unavailable(get(s, `${server.url}/hang`));
      expect(await get(s, `${server.url}/ok`)).toBe(200);
    }
    expect(s.ledger.stopped()).toBeUndefined();
  } finally {
    s.close();
    await server.close();
  }
});

test('the run deadline ends a request in flight and stops the run', async () => {
  const server = await serve(() => undefined);
  const s = session({ timeoutMs: 10_000, runTimeoutMs: 300 }, { deadline: Date.now() + 300 });
  try {
    const started = performance.now();
    const error = await unavailable(get(s, `${server.url}/x`));
    expect(error.kind).toBe('deadline');
    expect(performance.now() - started).toBeLessThan(1000);
    expect((await unavailable(get(s, `${server.url}/y`))).kind).toBe('stopped');
  } finally {
    s.close();
    await server.close();
  }
});

test.describe('the wire', () => {
  const wire = { timeoutMs: 2000, maxResponseBytes: 1024 };

  test('a body over the cap is not read: declared, streamed, or compressed', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/declared') {
        res.writeHead(200, { 'Content-Length': String(10 * 1024 * 1024) });
        res.write('x'); // and never the rest
      } else if (req.url === '/streamed') {
        res.writeHead(200);
        res.end('y'.repeat(5000));
      } else {
        const zipped = gzipSync(Buffer.alloc(100_000, 'z'));
        res.writeHead(200, { 'Content-Encoding': 'gzip', 'Content-Length': zipped.length });
        res.end(zipped);
      }
    });
    try {
      for (const path of ['/declared', '/streamed', '/zipped']) {
        const failure = await transmit(new URL(`${server.url}${path}`), 'GET', {}, undefined, wire).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(failure, path).toBeInstanceOf(TransportFailure);
        expect((failure as TransportFailure).kind, path).toBe('too-large');
        expect((failure as TransportFailure).message, path).toMatch(
          /1 KiB \(CONFORMANCE_MAX_RESPONSE_BYTES\)/,
        );
      }
    } finally {
      await server.close();
    }
  });

  test('a compressed body within the cap is decoded', async () => {
    const server = await serve((_req, res) => {
      const zipped = gzipSync(Buffer.from('{"a":1}'));
      res.writeHead(200, { 'Content-Encoding': 'gzip', 'Content-Type': 'application/json' });
      res.end(zipped);
    });
    try {
      const r = await transmit(new URL(server.url), 'GET', {}, undefined, wire);
      expect(r.body.toString()).toBe('{"a":1}');
    } finally {
      await server.close();
    }
  });

  test('a redirect is an answer: never followed, so the token stays with the target', async () => {
    const elsewhere = await serve(ok);
    const server = await serve((_req, res) => {
      res.writeHead(302, { Location: `${elsewhere.url}/stolen` });
      res.end();
    });
    const s = session();
    try {
      const { response } = await s.exchange(
        'GET',
        new URL(`${server.url}/x`),
        { Authorization: 'Bearer secret' },
        undefined,
      );
      expect(response.status).toBe(302);
      expect(response.headers.location).toBe(`${elsewhere.url}/stolen`);
      expect(elsewhere.seen).toEqual([]);
    } finally {
      s.close();
      await server.close();
      await elsewhere.close();
    }
  });

  test('a connection refused is a connection failure, reported with its code', async () => {
    const server = await serve(ok);
    const url = server.url;
    await server.close();
    const failure = await transmit(new URL(url), 'GET', {}, undefined, wire).then(
      () => undefined,
      (e: unknown) => e as TransportFailure,
    );
    expect(failure?.kind).toBe('connection');
    expect(failure?.message).toMatch(/ECONNREFUSED/);
  });
});

test('a ledger in a directory is shared by the processes of a run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'payflow-ledger-'));
  const a = new FileLedger(dir);
  const b = new FileLedger(dir);
  try {
    expect(a.record()).toBe(1);
    expect(b.record()).toBe(2);
    expect(a.count()).toBe(2);
    expect(FileLedger.count(dir)).toBe(2);
    expect(a.failure()).toBe(1);
    expect(b.failure()).toBe(2);
    a.success();
    expect(b.failure()).toBe(1);
    expect(a.stopped()).toBeUndefined();
    b.stop('first reason');
    a.stop('second reason');
    expect(a.stopped()).toBe('first reason');
    const until = Date.now() + 5000;
    a.pause(until);
    expect(b.pausedUntil()).toBe(until);
  } finally {
    a.close();
    b.close();
  }
});

test('a learned rate is shared among the processes sending now, not every process of the run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'payflow-ledger-'));
  const ledger = new FileLedger(dir);
  const now = Date.now();
  // Alone: the whole rate.
  expect(ledger.active(now)).toBe(1);
  // Another worker that sent a moment ago shares it; one that last sent before the window does not.
  writeFileSync(join(dir, 'active-4000001'), String(now + 500 - 100));
  writeFileSync(join(dir, 'active-4000002'), String(now + 500 - ACTIVE_WINDOW_MS - 1));
  expect(ledger.active(now + 500)).toBe(2);
  // Once that worker stops sending, the rate is this process's again.
  expect(ledger.active(now + 500 + ACTIVE_WINDOW_MS)).toBe(1);
  ledger.close();
});
