/**
 * Fake time for the self-tests of the suite's time-dependent logic (transport/clock.ts), and a
 * scripted target that answers on it, so that a test asserts the decisions the session takes
 * (when each request went out, what it waited for, what it gave up) and never how long a busy
 * machine took to take them.
 *
 * The clock is @sinonjs/fake-timers' `createClock()`, not node:test's `mock.timers`: mock.timers
 * replaces the process's global timers (which Playwright's runner uses for its own timeouts in
 * the same worker) and belongs to node:test's context; a sinon clock made with createClock() is a
 * standalone object that only the code handed it sees, and its runAllAsync() lets the promise
 * callbacks run between timers, which the session's awaits need.
 *
 * The gallery's whole-suite runs use VirtualClock instead (below): there, real sockets carry the
 * requests, so nobody could say when to tick a fake clock.
 */
import FakeTimers from '@sinonjs/fake-timers';
import type { Clock } from '../../transport/clock.ts';
import type { Transmit } from '../../transport/session.ts';
import { TransportFailure, type RawResponse } from '../../transport/wire.ts';

/** The epoch the fake clocks start at: 2026-01-01T00:00:00Z. */
export const FAKE_EPOCH = Date.parse('2026-01-01T00:00:00Z');

export interface FakeClock extends Clock {
  /** Milliseconds of fake time since the clock started. */
  elapsed(): number;
  /** Advances fake time by `ms`, running the timers due and the promise callbacks between them. */
  tick(ms: number): Promise<void>;
  /**
   * Runs timers (advancing fake time to each) until `promise` settles; returns its value or
   * throws its error. Fails when it would take more than `limitMs` of fake time.
   */
  drive<T>(promise: Promise<T>, limitMs?: number): Promise<T>;
}

export function fakeClock(start = FAKE_EPOCH): FakeClock {
  const clock = FakeTimers.createClock(start);
  return {
    now: () => clock.now,
    // Whole milliseconds, rounded up (the clock counts whole ones): a wait ends at or after its time.
    sleep: (ms) =>
      new Promise<void>((resolve) => clock.setTimeout(() => resolve(), Math.max(0, Math.ceil(ms)))),
    elapsed: () => clock.now - start,
    async tick(ms) {
      await clock.tickAsync(ms);
    },
    async drive<T>(promise: Promise<T>, limitMs = 3_600_000): Promise<T> {
      let settled = false;
      const watched = promise.finally(() => (settled = true));
      // Let the code under test start (and set its first timers) before time moves.
      await clock.tickAsync(0);
      while (!settled) {
        if (clock.countTimers() === 0) {
          // No timer pending: the code is waiting on a promise only; let it run.
          await new Promise((resolve) => setImmediate(resolve));
          if (!settled && clock.countTimers() === 0) {
            throw new Error('drive: the promise is pending and no timer is set: it would never settle');
          }
          continue;
        }
        await clock.nextAsync();
        if (clock.now - start > limitMs) throw new Error(`drive: more than ${limitMs} ms of fake time`);
      }
      return watched;
    },
  };
}

/**
 * Time that passes only as far as someone waits: `sleep(ms)` resolves on the next turn of the
 * event loop and moves the clock at least `ms` on from when it was called; each reading is a
 * little later than the one before (10 µs), so that the exchanges of a run keep their order.
 * A whole-suite run in the gallery uses it: a trailing replica, a settle window and the run's
 * reads are judged on it, so a busy machine moves nothing, and waits cost no real time.
 */
export class VirtualClock implements Clock {
  private t: number;
  /** Starts at the real time (default), so that a server's timestamps taken on it stay plausible. */
  constructor(start = Date.now()) {
    this.t = start;
  }
  now(): number {
    this.t += 0.01;
    return this.t;
  }
  async sleep(ms: number): Promise<void> {
    const until = this.t + Math.max(0, ms);
    await new Promise((resolve) => setImmediate(resolve));
    this.t = Math.max(this.t, until);
  }
}

/** One answer of a scripted target, after `latencyMs` of fake time (default 10). */
export interface ScriptedAnswer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  latencyMs?: number;
}

/** What a scripted target does with request `n` (from 1): answer, never answer, or drop it. */
export type Script = (req: {
  method: string;
  path: string;
  /** The request's number, from 1. */
  n: number;
  /** Requests in flight at the target as this one arrives, this one included. */
  inFlight: number;
}) => ScriptedAnswer | 'hang' | 'drop';

export interface ScriptedTarget {
  transmit: Transmit;
  /** Every request as it went out: when (ms of fake time since the clock started), method, path. */
  sent: { at: number; method: string; path: string }[];
  /** The most requests in flight at once. */
  maxInFlight(): number;
}

/**
 * A target on the fake clock, in place of the wire: each request is answered as `script` says,
 * after its latency; one that hangs fails as the wire fails it, once the exchange's timeout has
 * passed (on the fake clock: the session's own deadline logic decides it).
 */
export function scriptedTarget(clock: FakeClock, script: Script): ScriptedTarget {
  const sent: ScriptedTarget['sent'] = [];
  let inFlight = 0;
  let max = 0;
  const transmit: Transmit = async (url, method, _headers, _body, options) => {
    sent.push({ at: clock.elapsed(), method, path: url.pathname });
    inFlight++;
    max = Math.max(max, inFlight);
    try {
      const answer = script({ method, path: url.pathname, n: sent.length, inFlight });
      if (answer === 'hang') {
        await clock.sleep(options.timeoutMs);
        throw new TransportFailure(
          'timeout',
          `no complete answer within ${options.timeoutMs} ms (CONFORMANCE_TIMEOUT_MS)`,
        );
      }
      if (answer === 'drop') {
        await clock.sleep(1);
        throw new TransportFailure('connection', 'the connection failed (ECONNRESET)');
      }
      await clock.sleep(answer.latencyMs ?? 10);
      const response: RawResponse = {
        status: answer.status ?? 200,
        headers: Object.fromEntries(
          Object.entries(answer.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
        ),
        body: Buffer.from(answer.body ?? '{}'),
      };
      return response;
    } finally {
      inFlight--;
    }
  };
  return { transmit, sent, maxInFlight: () => max };
}
