/**
 * The adaptive pace (transport/limiter.ts) on a fake clock, the RateLimit headers in every form
 * (transport/ratelimit-headers.ts), and the session obeying them against small servers on
 * 127.0.0.1: caps, a 429's rate cut, a quota, a pause when none is left, and the ledger sharing
 * what was learned between processes.
 */
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { REMOTE_POLITENESS, type Politeness } from '../../config/config.ts';
import {
  AdaptiveLimiter,
  INITIAL_IN_FLIGHT,
  RATE_DECREASE,
  rateAt,
  SLOW_START_UNTIL,
} from '../../transport/limiter.ts';
import { parseRateLimitHeaders } from '../../transport/ratelimit-headers.ts';
import { FileLedger, TargetSession } from '../../transport/session.ts';

/** A limiter of one process, and a fake clock (epoch ms) to drive it. */
function limiter(maxConcurrency = 32, adaptive = true): { l: AdaptiveLimiter; clock: { now: number } } {
  return { l: new AdaptiveLimiter({ adaptive, maxConcurrency, processes: 1 }), clock: { now: 1_000_000 } };
}

/** `n` answers of `latencyMs`, each sent with the window used up, 1 ms apart. */
function answers(l: AdaptiveLimiter, clock: { now: number }, n: number, latencyMs: number): void {
  for (let i = 0; i < n; i++) {
    clock.now += 1;
    l.sent(clock.now - latencyMs);
    l.done(clock.now);
    l.answered(latencyMs, clock.now - latencyMs, true, clock.now);
  }
}

test.describe('the limiter', () => {
  test('starts with a few in flight and grows while latency holds: doubling, then one per window', () => {
    const { l, clock } = limiter();
    expect(l.concurrency()).toBe(INITIAL_IN_FLIGHT);
    answers(l, clock, INITIAL_IN_FLIGHT, 10);
    expect(l.concurrency()).toBe(2 * INITIAL_IN_FLIGHT);
    answers(l, clock, 100, 10);
    // Slow start ended at 16; 100 answers add about 100/16 more, one per window.
    expect(l.concurrency()).toBeGreaterThan(SLOW_START_UNTIL);
    expect(l.concurrency()).toBeLessThan(SLOW_START_UNTIL + 8);
    expect(l.report().backoffs).toEqual([]);
  });

  test('does not grow while the window is not used up', () => {
    const { l, clock } = limiter();
    for (let i = 0; i < 50; i++) {
      clock.now += 1;
      l.answered(10, clock.now - 10, false, clock.now);
    }
    expect(l.concurrency()).toBe(INITIAL_IN_FLIGHT);
  });

  test('halves on a 429, once per burst: answers to requests sent before the decrease do not count', () => {
    const { l, clock } = limiter();
    answers(l, clock, 12, 10);
    expect(l.concurrency()).toBe(16);
    const burstSentAt = clock.now - 5;
    const first = l.overloaded('429', 'answered 429', burstSentAt, clock.now, 20);
    expect(first).toMatchObject({ reason: '429', concurrency: 8, rps: 20 });
    clock.now += 2;
    expect(l.overloaded('429', 'answered 429', burstSentAt, clock.now, 20)).toBeUndefined();
    expect(l.concurrency()).toBe(8);
    // A request sent after the decrease that is refused again halves again.
    expect(l.overloaded('503', 'answered 503', clock.now, clock.now + 1, undefined)?.concurrency).toBe(4);
    expect(l.report().backoffs.map((b) => b.reason)).toEqual(['429', '503']);
  });

  test('shrinks when latency rises clearly above the baseline, not on one slow answer', () => {
    const { l, clock } = limiter();
    answers(l, clock, 12, 10);
    answers(l, clock, 1, 200);
    expect(l.report().backoffs).toEqual([]);
    answers(l, clock, 20, 120);
    const [backoff] = l.report().backoffs;
    expect(backoff?.reason).toBe('latency');
    expect(backoff?.detail).toMatch(/latency rose to \d+ ms \(baseline 10 ms\)/);
    expect(backoff?.concurrency).toBeLessThan(16);
  });

  test('never exceeds the cap (CONFORMANCE_CONCURRENCY), and keeps it fixed when not adaptive', () => {
    const { l, clock } = limiter(6);
    answers(l, clock, 200, 10);
    expect(l.concurrency()).toBe(6);
    const fixed = limiter(2, false);
    expect(fixed.l.concurrency()).toBe(2);
    answers(fixed.l, fixed.clock, 20, 500);
    expect(fixed.l.overloaded('429', 'x', fixed.clock.now, fixed.clock.now, undefined)).toBeUndefined();
    expect(fixed.l.concurrency()).toBe(2);
    expect(fixed.l.report().backoffs).toEqual([]);
  });

  test('a rate found by backing off grows by an eighth of it per second; an announced one stays', () => {
    expect(rateAt({ rps: 20, at: 0, grows: true, source: '429' }, 1000)).toBe(22.5);
    expect(rateAt({ rps: 4, at: 0, grows: true, source: '429' }, 2000)).toBe(6);
    expect(rateAt({ rps: 40, at: 0, grows: false, source: 'ratelimit-header' }, 60_000)).toBe(40);
  });

  test('the report: effective rate over the time it was sending, the most in flight', () => {
    const { l } = limiter();
    l.sent(0);
    l.sent(0);
    l.done(500);
    l.sent(600);
    l.done(900);
    l.done(1000);
    expect(l.report()).toMatchObject({
      requests: 3,
      effectiveRps: 3,
      maxInFlight: 2,
      firstSentAt: 0,
      lastDoneAt: 1000,
    });
  });
});

test.describe('RateLimit headers', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  test('the current draft: Structured Fields, the tightest policy and the fewest left', () => {
    expect(
      parseRateLimitHeaders(
        { 'ratelimit-policy': '"burst";q=100;w=60, "daily";q=1000;w=86400', ratelimit: '"burst";r=3;t=1' },
        now,
      ),
    ).toEqual({ quota: { limit: 1000, windowSeconds: 86400 }, remaining: 3, resetSeconds: 1 });
    expect(
      parseRateLimitHeaders({ 'ratelimit-policy': '"p";q=40;w=1', ratelimit: '"p";r=0;t=2' }, now),
    ).toEqual({
      quota: { limit: 40, windowSeconds: 1 },
      remaining: 0,
      resetSeconds: 2,
    });
  });

  test('the earlier drafts: RateLimit-Limit/-Remaining/-Reset, a numeric policy, the combined field', () => {
    expect(
      parseRateLimitHeaders(
        {
          'ratelimit-limit': '10',
          'ratelimit-remaining': '0',
          'ratelimit-reset': '7',
          'ratelimit-policy': '10;w=1, 50;w=60',
        },
        now,
      ),
    ).toEqual({ quota: { limit: 50, windowSeconds: 60 }, remaining: 0, resetSeconds: 7 });
    expect(
      parseRateLimitHeaders({ 'ratelimit-limit': '100, 100;w=10', 'ratelimit-remaining': '5' }, now),
    ).toEqual({
      quota: { limit: 100, windowSeconds: 10 },
      remaining: 5,
    });
    expect(parseRateLimitHeaders({ ratelimit: 'limit=100, remaining=0, reset=30' }, now)).toEqual({
      remaining: 0,
      resetSeconds: 30,
    });
  });

  test('X-RateLimit-*, with a reset in seconds or as an epoch time', () => {
    expect(
      parseRateLimitHeaders(
        { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '12' },
        now,
      ),
    ).toEqual({ remaining: 0, resetSeconds: 12 });
    const epoch = String(now / 1000 + 30);
    expect(parseRateLimitHeaders({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': epoch }, now)).toEqual({
      remaining: 0,
      resetSeconds: 30,
    });
  });

  test('what does not parse is ignored, never guessed at', () => {
    expect(
      parseRateLimitHeaders({ 'ratelimit-policy': '"p";q=ten;w=1', ratelimit: '"p";r=;t' }, now),
    ).toEqual({});
    expect(
      parseRateLimitHeaders({ 'ratelimit-policy': '"p";q=40', 'x-ratelimit-remaining': 'many' }, now),
    ).toEqual({});
    expect(parseRateLimitHeaders({}, now)).toEqual({});
  });
});

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;

async function serve(handler: Handler): Promise<{
  url: string;
  at: number[];
  maxInFlight: () => number;
  close: () => Promise<void>;
}> {
  const at: number[] = [];
  let inFlight = 0;
  let max = 0;
  const server: Server = createServer((req, res) => {
    at.push(performance.now());
    inFlight++;
    max = Math.max(max, inFlight);
    res.on('close', () => inFlight--);
    handler(req, res, at.length);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    at,
    maxInFlight: () => max,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function adaptive(p: Partial<Politeness> = {}, ledger?: FileLedger): TargetSession {
  return new TargetSession({ politeness: { ...REMOTE_POLITENESS, ...p }, ...(ledger ? { ledger } : {}) });
}

async function getAll(s: TargetSession, url: string, n: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: n }, () =>
      s.exchange('GET', new URL(url), {}, undefined).then((r) => r.response.status),
    ),
  );
}

test.describe('the session with the adaptive pace', () => {
  test('CONFORMANCE_CONCURRENCY caps the requests in flight however many are started', async () => {
    const server = await serve((_req, res) => setTimeout(() => res.end('{}'), 20));
    const s = adaptive({ concurrency: 3 });
    try {
      expect(await getAll(s, server.url, 40)).toEqual(Array(40).fill(200));
      expect(server.maxInFlight()).toBeLessThanOrEqual(3);
      expect(s.politenessReport().maxInFlight).toBe(3);
    } finally {
      s.close();
      await server.close();
    }
  });

  test('a quota announced above CONFORMANCE_RPS is paced to the cap; one below it, to the quota', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'RateLimit-Policy': '"p";q=100;w=1' });
      res.end('{}');
    });
    const capped = adaptive({ rps: 20 });
    try {
      for (let i = 0; i < 6; i++) await capped.exchange('GET', new URL(server.url), {}, undefined);
      // 20 per second: the last 5 requests span 4 intervals of 50 ms (less the jitter of delivery
      // on a busy machine); at the announced 100 per second they would span 40 ms.
      expect(server.at.at(-1)! - server.at[1]!).toBeGreaterThanOrEqual(160);
    } finally {
      capped.close();
      await server.close();
    }
    const slow = await serve((_req, res) => {
      res.writeHead(200, { 'RateLimit-Policy': '"p";q=10;w=1' });
      res.end('{}');
    });
    const paced = adaptive();
    try {
      for (let i = 0; i < 4; i++) await paced.exchange('GET', new URL(slow.url), {}, undefined);
      // The first answer told the quota: the next three are 100 ms apart (less the jitter).
      expect(slow.at.at(-1)! - slow.at[1]!).toBeGreaterThanOrEqual(160);
      expect(paced.politenessReport().backoffs).toMatchObject([{ reason: 'ratelimit-header', rps: 10 }]);
    } finally {
      paced.close();
      await slow.close();
    }
  });

  test('a bare 429 cuts the run’s rate and is retried; Retry-After is waited out', async () => {
    const server = await serve((_req, res, n) => {
      if (n === 20) {
        res.writeHead(429);
        res.end();
      } else if (n === 30) {
        res.writeHead(429, { 'Retry-After': '1' });
        res.end();
      } else res.end('{}');
    });
    const s = adaptive();
    try {
      // 28 exchanges are 29 requests: the 20th is refused and retried.
      for (let i = 0; i < 28; i++) await s.exchange('GET', new URL(server.url), {}, undefined);
      const learned = s.ledger.learnedRate();
      expect(learned).toMatchObject({ grows: true, source: '429' });
      const cuts = s.politenessReport().backoffs.filter((x) => x.reason === '429');
      expect(cuts, JSON.stringify(s.politenessReport().backoffs)).toHaveLength(1);
      expect(cuts[0]!.rps).toBeCloseTo(learned!.rps, 1);
      // The rate the run was sending at over the last second, cut to 0.7 of it.
      expect(learned!.rps).toBeLessThanOrEqual(20 * RATE_DECREASE + 0.01);
      const before = performance.now();
      const { attempts } = await s.exchange('GET', new URL(server.url), {}, undefined);
      expect(attempts).toBe(2);
      expect(performance.now() - before).toBeGreaterThanOrEqual(950);
      expect(s.politenessReport().backoffs.at(-1)).toMatchObject({ reason: 'retry-after' });
    } finally {
      s.close();
      await server.close();
    }
  });

  test('RateLimit saying none is left pauses the run until the reset', async () => {
    const server = await serve((_req, res, n) => {
      res.writeHead(200, n === 1 ? { RateLimit: '"p";r=0;t=1' } : {});
      res.end('{}');
    });
    const s = adaptive();
    try {
      await getAll(s, server.url, 1);
      await getAll(s, server.url, 1);
      expect(server.at[1]! - server.at[0]!).toBeGreaterThanOrEqual(950);
      expect(s.politenessReport().backoffs).toMatchObject([{ reason: 'ratelimit-header' }]);
    } finally {
      s.close();
      await server.close();
    }
  });

  test('the processes of a run share the learned rate through the ledger, and their reports add up', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payflow-limiter-'));
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'RateLimit-Policy': '"p";q=30;w=1' });
      res.end('{}');
    });
    const a = adaptive({}, new FileLedger(dir));
    const b = adaptive({}, new FileLedger(dir));
    try {
      await a.exchange('GET', new URL(server.url), {}, undefined);
      // b has not heard from the target, and still paces to what a learned.
      expect(b.ledger.learnedRate()).toMatchObject({ rps: 30, source: 'ratelimit-header' });
      const started = server.at.length;
      for (let i = 0; i < 4; i++) await b.exchange('GET', new URL(server.url), {}, undefined);
      expect(server.at.at(-1)! - server.at[started]!).toBeGreaterThanOrEqual(3 * 33 - 5);
      a.close();
      b.close();
      const sum = FileLedger.politenessReport(dir)!;
      expect(sum.requests).toBe(5);
      // Learned once, by a; b had nothing new to learn.
      expect(sum.backoffs.map((x) => x.reason)).toEqual(['ratelimit-header']);
      expect(sum.effectiveRps).toBeGreaterThan(0);
    } finally {
      (a.ledger as FileLedger).close();
      (b.ledger as FileLedger).close();
      await server.close();
    }
  });
});
