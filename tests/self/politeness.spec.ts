/**
 * The HTTP layer under the checks (transport/session.ts, transport/wire.ts): rate and concurrency
 * limits, the request budget, Retry-After, the circuit breaker and the run's deadline on a fake
 * clock before a scripted target (the decisions, in fake milliseconds); the body cap, redirects
 * returned as answers and the concurrency cap against small servers on 127.0.0.1; and a ledger
 * shared by processes.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { ACTIVE_WINDOW_MS, FileLedger } from '../../transport/ledger.ts';
import {
  BREAKER_THRESHOLD,
  retryAfterMs,
  TargetSession,
  TargetUnavailable,
} from '../../transport/session.ts';
import { transmit, TransportFailure } from '../../transport/wire.ts';
import { fakeClock, scriptedTarget, type FakeClock, type Script } from './fake-clock.ts';
import {
  EMBEDDED_POLITENESS,
  parseConfig,
  parsePoliteness,
  REMOTE_POLITENESS,
  suiteLimits,
} from '../../config/config.ts';
import { ConfigError } from '../../config/error.ts';
import type { Politeness } from '../../transport/politeness.ts';

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

/**
 * A session on a fake clock before a scripted target (tests/self/fake-clock.ts): what it sent
 * when, and what it gave up, in milliseconds of fake time, whatever the machine is doing.
 */
function onFakeClock(
  script: Script,
  p: Partial<Politeness> = {},
  extra: { deadlineInMs?: number } = {},
): { s: TargetSession; clock: FakeClock; target: ReturnType<typeof scriptedTarget> } {
  const clock = fakeClock();
  const target = scriptedTarget(clock, script);
  const s = new TargetSession({
    politeness: { ...EMBEDDED_POLITENESS, ...p },
    clock,
    transmit: target.transmit,
    ...(extra.deadlineInMs !== undefined ? { deadline: clock.now() + extra.deadlineInMs } : {}),
  });
  return { s, clock, target };
}

const URL_X = 'http://127.0.0.1:9/x';

test('the rate limit spaces requests out: one every 1000/rps ms, one after another or started at once', async () => {
  // Answers take 10 ms; at 20 per second the slots are 50 ms apart, so each request waits its slot.
  const one = onFakeClock(() => ({}), { rps: 20 });
  await one.clock.drive(
    (async () => {
      for (let i = 0; i < 8; i++) expect(await get(one.s, URL_X)).toBe(200);
    })(),
  );
  expect(one.target.sent.map((r) => r.at)).toEqual([0, 50, 100, 150, 200, 250, 300, 350]);
  const many = onFakeClock(() => ({}), { rps: 20, concurrency: 8 });
  await many.clock.drive(Promise.all(Array.from({ length: 8 }, () => get(many.s, URL_X))));
  expect(many.target.sent.map((r) => r.at)).toEqual([0, 50, 100, 150, 200, 250, 300, 350]);
  one.s.close();
  many.s.close();
});

test('a rate cap is shared by the processes of a run: together they never send more than it in a second', async () => {
  // Two processes (two sessions on one fake clock, each told the run has two), 60 requests/s in
  // all: each takes 30, so no second of fake time holds more than 60 (one each at its start).
  const clock = fakeClock();
  const target = scriptedTarget(clock, () => ({}));
  const politeness = { ...EMBEDDED_POLITENESS, rps: 60, concurrency: 2 };
  const sessions = [0, 1].map(
    () => new TargetSession({ politeness, processes: 2, clock, transmit: target.transmit }),
  );
  await clock.drive(
    Promise.all(
      sessions.map(async (s) => {
        for (let i = 0; i < 90; i++) await get(s, URL_X);
      }),
    ),
  );
  const times = target.sent.map((r) => r.at).sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  expect(times).toHaveLength(180);
  expect(most).toBeLessThanOrEqual(60 + 2);
  // Each process a thirtieth of a second between its requests: 3 s for its 90.
  expect(times.at(-1)).toBeGreaterThanOrEqual(89 * (1000 / 30) - 1);
  for (const s of sessions) s.close();
});

test('the concurrency limit holds however many requests the checks start at once', async () => {
  const { s, clock, target } = onFakeClock(() => ({ latencyMs: 30 }), { concurrency: 2 });
  const statuses = await clock.drive(Promise.all(Array.from({ length: 8 }, () => get(s, URL_X))));
  expect(statuses).toEqual(Array(8).fill(200));
  expect(target.maxInFlight()).toBe(2);
  // Two at a time, each pair 30 ms after the last.
  expect(target.sent.map((r) => r.at)).toEqual([0, 0, 30, 30, 60, 60, 90, 90]);
  s.close();
});

test('the concurrency limit holds on the wire too (undici against a server on 127.0.0.1)', async () => {
  const server = await serve((req, res) => setTimeout(() => ok(req, res), 30));
  const s = session({ concurrency: 2 });
  try {
    const statuses = await Promise.all(Array.from({ length: 8 }, () => get(s, `${server.url}/x`)));
    expect(statuses).toEqual(Array(8).fill(200));
    expect(server.maxInFlight()).toBeLessThanOrEqual(2);
    expect(s.politenessReport().maxInFlight).toBe(2);
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
  const { s, clock, target } = onFakeClock(({ path, n }) => {
    if (path === '/limited' && n === 1) return { status: 429, headers: { 'Retry-After': '1' } };
    if (path === '/down') return { status: 503 };
    return {};
  });
  const { response, attempts } = await clock.drive(
    s.exchange('GET', new URL('http://127.0.0.1:9/limited'), {}, undefined),
  );
  expect(response.status).toBe(200);
  expect(attempts).toBe(2);
  // The 429 came back at 10 ms; the retry went out when its second was over, not before.
  expect(target.sent.map((r) => r.at)).toEqual([0, 1010]);
  expect(s.stats).toEqual({ retries: 1, waitedMs: 1000 });
  expect(await clock.drive(get(s, 'http://127.0.0.1:9/down'))).toBe(503);
  // A 503 without Retry-After is not retried.
  expect(target.sent.map((r) => r.path)).toEqual(['/limited', '/limited', '/down']);
  s.close();
});

test('a rate limit that does not lift is given up after the retries, and holds for the next request', async () => {
  const { s, clock, target } = onFakeClock(() => ({ status: 503, headers: { 'Retry-After': '1' } }), {
    retries: 1,
  });
  const error = await clock.drive(unavailable(get(s, 'http://127.0.0.1:9/x')));
  expect(error.kind).toBe('rate-limited');
  expect(error.message).toMatch(/answered 503 with Retry-After: 1 2 time\(s\); gave up after 1 retries/);
  expect(error.attempts).toBe(2);
  await clock.drive(unavailable(get(s, 'http://127.0.0.1:9/y')));
  // Sent at 0, retried when the pause the first answer asked for ended (10 + 1000), given up at
  // 1020; the next request waited for the pause the last answer asked for (1020 + 1000), and was
  // itself retried a second after its own 429.
  expect(target.sent.map((r) => `${r.path} at ${r.at}`)).toEqual([
    '/x at 0',
    '/x at 1010',
    '/y at 2020',
    '/y at 3030',
  ]);
  s.close();
});

test(`${BREAKER_THRESHOLD} requests in a row without an answer open the circuit: nothing more is sent`, async () => {
  const { s, clock, target } = onFakeClock(() => 'hang', { timeoutMs: 100 });
  for (let i = 0; i < BREAKER_THRESHOLD; i++) {
    const error = await clock.drive(unavailable(get(s, `http://127.0.0.1:9/x${i}`)));
    expect(error.kind).toBe('timeout');
    expect(error.message).toMatch(/no complete answer within 100 ms \(CONFORMANCE_TIMEOUT_MS\)/);
  }
  const before = clock.elapsed();
  const refused = await clock.drive(unavailable(get(s, 'http://127.0.0.1:9/next')));
  expect(refused.kind).toBe('stopped');
  expect(refused.message).toMatch(/target unreachable: 3 requests in a row/);
  // Refused at once: no timeout waited, nothing sent.
  expect(clock.elapsed()).toBe(before);
  expect(target.sent.map((r) => r.at)).toEqual([0, 100, 200]);
  s.close();
});

test('an answer in between resets the count of failures', async () => {
  // Every other request hangs.
  const { s, clock } = onFakeClock(({ n }) => (n % 2 === 1 ? 'hang' : {}), { timeoutMs: 100 });
  for (let i = 0; i < 3; i++) {
    expect((await clock.drive(unavailable(get(s, 'http://127.0.0.1:9/hang')))).kind).toBe('timeout');
    expect(await clock.drive(get(s, 'http://127.0.0.1:9/ok'))).toBe(200);
  }
  expect(s.ledger.stopped()).toBeUndefined();
  s.close();
});

test('the run deadline ends a request in flight and stops the run', async () => {
  const { s, clock, target } = onFakeClock(
    () => 'hang',
    { timeoutMs: 10_000, runTimeoutMs: 300 },
    { deadlineInMs: 300 },
  );
  const error = await clock.drive(unavailable(get(s, 'http://127.0.0.1:9/x')));
  expect(error.kind).toBe('deadline');
  // The exchange was given the time left before the deadline, not CONFORMANCE_TIMEOUT_MS.
  expect(clock.elapsed()).toBe(300);
  expect((await clock.drive(unavailable(get(s, 'http://127.0.0.1:9/y')))).kind).toBe('stopped');
  expect(target.sent).toHaveLength(1);
  s.close();
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
