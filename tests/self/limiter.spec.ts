/**
 * The adaptive pace (transport/limiter.ts) on a fake clock, the RateLimit headers in every form
 * (transport/ratelimit-headers.ts), and the session obeying them on a fake clock before a scripted
 * target (when each request went out, in fake milliseconds): caps, a 429's rate cut, a quota, a
 * pause when none is left, and the ledger sharing what was learned between processes; the
 * concurrency cap also against a server on 127.0.0.1.
 */
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { REMOTE_POLITENESS } from '../../config/config.ts';
import type { Politeness } from '../../transport/politeness.ts';
import {
  AdaptiveLimiter,
  INITIAL_IN_FLIGHT,
  RATE_DECREASE,
  rateAt,
  SLOW_START_UNTIL,
} from '../../transport/limiter.ts';
import { parseRateLimitHeaders } from '../../transport/ratelimit-headers.ts';
import { FileLedger } from '../../transport/ledger.ts';
import { TargetSession } from '../../transport/session.ts';
import { FAKE_EPOCH, fakeClock, scriptedTarget, type Script } from './fake-clock.ts';

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
    // A cap above where slow start ends, so that the growth after it shows.
    const { l, clock } = limiter(2 * SLOW_START_UNTIL);
    expect(l.concurrency()).toBe(INITIAL_IN_FLIGHT);
    answers(l, clock, INITIAL_IN_FLIGHT, 10);
    expect(l.concurrency()).toBe(2 * INITIAL_IN_FLIGHT);
    answers(l, clock, 100, 10);
    // Slow start ended at 32; the rest of the 100 answers add a few more, one per window.
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

  test('a share that grows takes over the slots the others had: the run keeps what it had in flight', () => {
    // Two processes' share of 64 each; this one sent one at a time (its window never grew), the
    // other had reached 32: left alone, it goes on at the run's 34, and slow start goes on to 64.
    const { l, clock } = limiter(SLOW_START_UNTIL);
    answers(l, clock, 0, 10);
    expect(l.concurrency()).toBe(INITIAL_IN_FLIGHT);
    l.reshare(2 * SLOW_START_UNTIL, INITIAL_IN_FLIGHT + SLOW_START_UNTIL);
    expect(l.concurrency()).toBe(INITIAL_IN_FLIGHT + SLOW_START_UNTIL);
    answers(l, clock, 40, 10);
    expect(l.concurrency()).toBe(2 * SLOW_START_UNTIL);
    // At least in proportion to the cap, when nothing is known of the others' windows.
    const alone = limiter(8);
    alone.l.reshare(16, 0);
    expect(alone.l.concurrency()).toBe(2 * INITIAL_IN_FLIGHT);
    // Never above the new cap, and a share never shrinks.
    alone.l.reshare(24, 1000);
    expect(alone.l.concurrency()).toBe(24);
    alone.l.reshare(8, 0);
    expect(alone.l.concurrency()).toBe(24);
    // Not adaptive: the cap is the window.
    const fixed = limiter(1, false);
    fixed.l.reshare(2, 0);
    expect(fixed.l.concurrency()).toBe(2);
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

function adaptive(p: Partial<Politeness> = {}): TargetSession {
  return new TargetSession({ politeness: { ...REMOTE_POLITENESS, ...p } });
}

/** An adaptive session on a fake clock before a scripted target (tests/self/fake-clock.ts). */
function onFakeClock(script: Script, p: Partial<Politeness> = {}) {
  const clock = fakeClock();
  const target = scriptedTarget(clock, script);
  const s = new TargetSession({
    politeness: { ...REMOTE_POLITENESS, ...p },
    clock,
    transmit: target.transmit,
  });
  return { s, clock, target };
}

const URL_X = 'http://127.0.0.1:9/x';

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
    const quota =
      (q: number): Script =>
      () => ({ headers: { 'RateLimit-Policy': `"p";q=${q};w=1` } });
    const capped = onFakeClock(quota(100), { rps: 20 });
    await capped.clock.drive(
      (async () => {
        for (let i = 0; i < 6; i++) await capped.s.exchange('GET', new URL(URL_X), {}, undefined);
      })(),
    );
    // 20 per second: 50 ms apart, though the target announces 100.
    expect(capped.target.sent.map((r) => r.at)).toEqual([0, 50, 100, 150, 200, 250]);
    capped.s.close();
    const paced = onFakeClock(quota(10));
    await paced.clock.drive(
      (async () => {
        for (let i = 0; i < 4; i++) await paced.s.exchange('GET', new URL(URL_X), {}, undefined);
      })(),
    );
    // The first answer (at 10 ms) told the quota: from then on, 100 ms apart.
    expect(paced.target.sent.map((r) => r.at)).toEqual([0, 10, 110, 210]);
    expect(paced.s.politenessReport().backoffs).toMatchObject([
      { reason: 'ratelimit-header', rps: 10, at: FAKE_EPOCH + 10 },
    ]);
    paced.s.close();
  });

  test('a bare 429 cuts the run’s rate and is retried; Retry-After is waited out', async () => {
    const { s, clock, target } = onFakeClock(({ n }) => {
      if (n === 20) return { status: 429 };
      if (n === 30) return { status: 429, headers: { 'Retry-After': '1' } };
      return {};
    });
    // 28 exchanges are 29 requests: the 20th is refused and retried.
    await clock.drive(
      (async () => {
        for (let i = 0; i < 28; i++) await s.exchange('GET', new URL(URL_X), {}, undefined);
      })(),
    );
    const learned = s.ledger.learnedRate();
    expect(learned).toMatchObject({ grows: true, source: '429' });
    const cuts = s.politenessReport().backoffs.filter((x) => x.reason === '429');
    expect(cuts, JSON.stringify(s.politenessReport().backoffs)).toHaveLength(1);
    expect(cuts[0]!.rps).toBeCloseTo(learned!.rps, 1);
    // The run had sent 20 requests/s (one every 10 ms, the refused one the 20th): cut to 0.7 of it.
    expect(learned!.rps).toBeCloseTo(20 * RATE_DECREASE, 5);
    // The bare 429 was waited out 250 ms (no Retry-After) before its retry.
    const [refused, retried] = [target.sent[19]!, target.sent[20]!];
    expect(retried.at - refused.at).toBe(10 + 250);
    const { attempts } = await clock.drive(s.exchange('GET', new URL(URL_X), {}, undefined));
    expect(attempts).toBe(2);
    // The Retry-After: 1 answer came 10 ms after its request; the retry went out a second later.
    const [limited, again] = target.sent.slice(-2);
    expect(again!.at - limited!.at).toBe(10 + 1000);
    expect(s.politenessReport().backoffs.at(-1)).toMatchObject({ reason: 'retry-after' });
    s.close();
  });

  test('RateLimit saying none is left pauses the run until the reset', async () => {
    const { s, clock, target } = onFakeClock(({ n }) =>
      n === 1 ? { headers: { RateLimit: '"p";r=0;t=1' } } : {},
    );
    await clock.drive(getAll(s, URL_X, 1));
    await clock.drive(getAll(s, URL_X, 1));
    // The first answer came at 10 ms: nothing went out until the reset, a second later.
    expect(target.sent.map((r) => r.at)).toEqual([0, 1010]);
    expect(s.politenessReport().backoffs).toMatchObject([
      { reason: 'ratelimit-header', pausedUntil: FAKE_EPOCH + 1010 },
    ]);
    s.close();
  });

  test("a process left alone (the others' checks all ended) takes the whole of the run's cap in flight", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payflow-limiter-'));
    const clock = fakeClock();
    const target = scriptedTarget(clock, () => ({ latencyMs: 150 }));
    const ledger = new FileLedger(dir);
    const other = new FileLedger(dir);
    const s = new TargetSession({
      politeness: REMOTE_POLITENESS,
      ledger,
      processes: 2,
      clock,
      transmit: target.transmit,
    });
    const burst = (): Promise<number[]> => clock.drive(getAll(s, URL_X, 4 * REMOTE_POLITENESS.concurrency));
    try {
      // The other process of the run had grown to its share, and said so in its report.
      other.keepReport('other-1', {
        ...s.politenessReport(),
        maxInFlight: REMOTE_POLITENESS.concurrency / 2,
        finalConcurrency: REMOTE_POLITENESS.concurrency / 2,
      });
      await burst();
      // Its share: half the cap, reached by slow start.
      expect(target.maxInFlight()).toBe(REMOTE_POLITENESS.concurrency / 2);
      // Both processes may still send: nothing changes.
      FileLedger.keepSending(dir, 2);
      await clock.tick(1000);
      await burst();
      expect(target.maxInFlight()).toBe(REMOTE_POLITENESS.concurrency / 2);
      // The runner says one process is left: the whole cap, at once (the other's slots), never more.
      FileLedger.keepSending(dir, 1);
      await clock.tick(1000);
      const start = target.sent.length;
      await burst();
      expect(target.maxInFlight()).toBe(REMOTE_POLITENESS.concurrency);
      // 256 requests at 64 in flight: four round trips of 150 ms.
      expect(target.sent.at(-1)!.at - target.sent[start]!.at).toBeLessThan(4 * 150);
      // A count read later that says more may send is not taken: a share never shrinks.
      FileLedger.keepSending(dir, 2);
      expect(ledger.sending(clock.now() + 1000)).toBe(1);
      // The run's report: this process's 64 and the other's 32 came at different moments; what
      // the report says of the run's most in flight stays within the cap it never exceeded.
      s.close();
      const run = FileLedger.politenessReport(dir, REMOTE_POLITENESS.concurrency)!;
      expect(run.maxInFlight).toBe(REMOTE_POLITENESS.concurrency);
      expect(run.finalConcurrency).toBe(REMOTE_POLITENESS.concurrency);
    } finally {
      s.close();
      ledger.close();
      other.close();
    }
  });

  test('quiet: a probe that stopped at one failed request of a batch ends once the rest of it has', async () => {
    const { s, clock } = onFakeClock(({ n }) => (n === 1 ? 'drop' : { latencyMs: 500 }));
    await s.quiet();
    const batch = Promise.all(
      Array.from({ length: 4 }, () => s.exchange('GET', new URL(URL_X), {}, undefined)),
    ).then(
      () => 'answered',
      (error: unknown) => String(error),
    );
    // The first request failed (the batch with it) while the other three were on the wire.
    expect(await clock.drive(batch)).toMatch(/ECONNRESET/);
    const startedAt = clock.elapsed();
    let quietAt: number | undefined;
    await clock.drive(s.quiet().then(() => (quietAt = clock.elapsed())));
    expect(quietAt).toBeGreaterThan(startedAt);
    expect(quietAt).toBeGreaterThanOrEqual(500);
    s.close();
  });

  test('the processes of a run share the learned rate through the ledger, and their reports add up', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payflow-limiter-'));
    const clock = fakeClock();
    const target = scriptedTarget(clock, () => ({ headers: { 'RateLimit-Policy': '"p";q=30;w=1' } }));
    const on = { clock, transmit: target.transmit };
    const a = new TargetSession({ politeness: REMOTE_POLITENESS, ledger: new FileLedger(dir), ...on });
    const b = new TargetSession({ politeness: REMOTE_POLITENESS, ledger: new FileLedger(dir), ...on });
    try {
      await clock.drive(a.exchange('GET', new URL(URL_X), {}, undefined));
      // b has not heard from the target, and still paces to what a learned.
      expect(b.ledger.learnedRate()).toMatchObject({ rps: 30, source: 'ratelimit-header' });
      await clock.drive(
        (async () => {
          for (let i = 0; i < 4; i++) await b.exchange('GET', new URL(URL_X), {}, undefined);
        })(),
      );
      // 30 per second: b's requests a thirtieth of a second apart (each at the whole millisecond
      // its slot falls in).
      const times = target.sent.slice(1).map((r) => r.at);
      for (let i = 1; i < times.length; i++)
        expect(Math.abs(times[i]! - times[i - 1]! - 1000 / 30)).toBeLessThan(1);
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
    }
  });
});
