/**
 * The steps of an exchange attempt (transport/attempt.ts), directly, on a fake clock and a
 * ledger of one process: the one gate a request passes (interrupted, stopped, a pause waited
 * out or past the deadline), the deadline-bound timeout, the request budget and the wait a
 * rate-limited answer asks for.
 */
import { expect, test } from '@playwright/test';
import { EMBEDDED_POLITENESS } from '../../config/config.ts';
import {
  clearToSend,
  countRequest,
  rateLimitedWait,
  TargetUnavailable,
  timeoutWithin,
  type AttemptGround,
} from '../../transport/attempt.ts';
import { MemoryLedger } from '../../transport/ledger.ts';
import type { Interruption } from '../../transport/stop.ts';
import { fakeClock, type FakeClock } from './fake-clock.ts';

function ground(
  clock: FakeClock,
  extra: { deadline?: number; interrupted?: Interruption; maxRequests?: number } = {},
): AttemptGround & { naps: number[] } {
  const naps: number[] = [];
  return {
    politeness: { ...EMBEDDED_POLITENESS, maxRequests: extra.maxRequests ?? 100, timeoutMs: 10_000 },
    ledger: new MemoryLedger(),
    deadline: extra.deadline,
    clock,
    stats: { retries: 0, waitedMs: 0 },
    interruption: () => extra.interrupted,
    nap: async (ms) => {
      naps.push(ms);
      await clock.sleep(ms);
    },
    naps,
  };
}

async function kindOf(promise: Promise<unknown> | (() => unknown)): Promise<string> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    if (error instanceof TargetUnavailable) return error.kind;
    throw error;
  }
  return 'sent';
}

test('the gate: an interrupted run sends only housekeeping; a stopped one sends nothing', async () => {
  const clock = fakeClock();
  const interrupted = ground(clock, { interrupted: { signal: 'SIGINT', reason: 'test' } });
  expect(await kindOf(clearToSend(interrupted, 'GET /x', {}))).toBe('interrupted');
  expect(await kindOf(clearToSend(interrupted, 'GET /x', { housekeeping: true }))).toBe('sent');
  const stopped = ground(clock);
  stopped.ledger.stop('circuit open');
  expect(await kindOf(clearToSend(stopped, 'GET /x', { housekeeping: true }))).toBe('stopped');
});

test('the gate waits out a pause the target asked for, and counts the wait', async () => {
  const clock = fakeClock();
  const g = ground(clock, { deadline: clock.now() + 60_000 });
  g.ledger.pause(clock.now() + 2_000);
  expect(await kindOf(clock.drive(clearToSend(g, 'GET /x', {})))).toBe('sent');
  expect(g.naps).toEqual([2_000]);
  expect(g.stats.waitedMs).toBe(2_000);
  expect(clock.elapsed()).toBe(2_000);
});

test('a pause that ends after the deadline stops the run at once, without waiting', async () => {
  const clock = fakeClock();
  const g = ground(clock, { deadline: clock.now() + 1_000 });
  g.ledger.pause(clock.now() + 5_000);
  expect(await kindOf(clearToSend(g, 'GET /x', {}))).toBe('deadline');
  expect(g.naps).toEqual([]);
  expect(g.ledger.stopped()).toMatch(/pause \(Retry-After\) that ends after the run's time budget/);
});

test('the timeout is bounded by the time left; a spent deadline stops the run', async () => {
  const clock = fakeClock();
  expect(timeoutWithin(ground(clock), 'GET /x')).toEqual({ timeoutMs: 10_000, deadlineBound: false });
  expect(timeoutWithin(ground(clock, { deadline: clock.now() + 3_000 }), 'GET /x')).toEqual({
    timeoutMs: 3_000,
    deadlineBound: true,
  });
  expect(await kindOf(() => timeoutWithin(ground(clock, { deadline: clock.now() }), 'GET /x'))).toBe(
    'deadline',
  );
});

test('the request budget: the request past it is not sent, and the run stops', async () => {
  const g = ground(fakeClock(), { maxRequests: 2 });
  countRequest(g, 'GET /x');
  countRequest(g, 'GET /x');
  expect(await kindOf(() => countRequest(g, 'GET /x'))).toBe('budget');
  expect(g.ledger.stopped()).toMatch(/request budget of 2/);
});

test('a rate-limited answer: its Retry-After, else a doubling wait; one too long ends the sending', async () => {
  const clock = fakeClock();
  const g = ground(clock);
  const answer = (headers: Record<string, string>) => ({ status: 429, headers }) as never;
  expect(rateLimitedWait(g, answer({ 'retry-after': '2' }), 0, 'GET /x', clock.now()).wait).toBe(2_000);
  expect(rateLimitedWait(g, answer({}), 0, 'GET /x', clock.now()).wait).toBe(250);
  expect(rateLimitedWait(g, answer({}), 2, 'GET /x', clock.now()).wait).toBe(1_000);
  const tooLong = String(Math.ceil(g.politeness.maxRetryWaitMs / 1000) + 1);
  expect(
    await kindOf(() => rateLimitedWait(g, answer({ 'retry-after': tooLong }), 0, 'GET /x', clock.now())),
  ).toBe('rate-limited');
  expect(g.ledger.stopped()).toMatch(/the run sends nothing more/);
});
