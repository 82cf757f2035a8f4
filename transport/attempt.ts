/**
 * The steps of one attempt of an exchange (transport/session.ts TargetSession.exchange), each
 * against the run's shared state (the ledger, transport/ledger.ts) and limits:
 *
 *   - clearToSend: the one gate a request passes before it waits for a slot and again once it
 *     holds one (another check or worker may have stopped the run, been interrupted or been asked
 *     for a pause meanwhile): not interrupted (housekeeping aside), not stopped, and any pause
 *     the target asked for (Retry-After) waited out, unless it ends after the run's deadline;
 *   - timeoutWithin: how long the exchange may take, bounded by the time left to the deadline;
 *   - countRequest: the run's request budget;
 *   - rateLimitedWait: how long a 429 (or a 503 with Retry-After) asks the run to wait, or the
 *     end of the run's sending when that is longer than it may wait;
 *   - failed and halt: a request given up, counted toward the circuit breaker, or the run's
 *     sending stopped for a reason.
 *
 * What cannot be judged is a TargetUnavailable, never a verdict.
 */
import type { RecordedRequest } from '../exchange/exchange.ts';
import type { Clock } from './clock.ts';
import type { Ledger } from './ledger.ts';
import type { Politeness } from './politeness.ts';
import type { Interruption } from './stop.ts';
import type { RawResponse, TransportFailureKind } from './wire.ts';

/** Requests in a row without a judgeable answer after which the run stops sending. */
export const BREAKER_THRESHOLD = 3;

export type UnavailableKind =
  TransportFailureKind | 'rate-limited' | 'stopped' | 'budget' | 'deadline' | 'interrupted';

/** A request could not be judged: the target is unreachable, rate-limited, or the run stopped. */
export class TargetUnavailable extends Error {
  override readonly name = 'TargetUnavailable';
  /** Filled in by the HTTP client: the request, for a curl command. */
  request: RecordedRequest | undefined;
  /** How many times the request went out before it was given up (retries included). */
  attempts = 0;
  constructor(
    readonly kind: UnavailableKind,
    message: string,
  ) {
    super(message);
  }
}

/** What a request is for, beyond what it carries. */
export interface ExchangeOptions {
  /**
   * Housekeeping: putting back what the run changed (the restore of the writable counterparty's
   * details). It is still sent after the run was interrupted.
   */
  housekeeping?: boolean;
}

/** Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, in milliseconds from now. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The first wait after a 429 that names none (then twice as long each time). */
const NO_RETRY_AFTER_WAIT_MS = 250;

export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** What the steps of an attempt read and change: the session's limits, ledger, clock and waits. */
export interface AttemptGround {
  readonly politeness: Politeness;
  readonly ledger: Ledger;
  readonly deadline: number | undefined;
  readonly clock: Clock;
  /** Retries after a 429/503 and the time waited for them, for the checks' notes. */
  readonly stats: { retries: number; waitedMs: number };
  /** Whether the run was interrupted, and why. */
  interruption(): Interruption | undefined;
  /** Sleeps `ms`, waking early when the run is interrupted (housekeeping sleeps it out). */
  nap(ms: number, options: ExchangeOptions): Promise<void>;
}

/** Stops the run's sending and returns the error of this request. */
export function halt(g: AttemptGround, kind: UnavailableKind, reason: string): TargetUnavailable {
  g.ledger.stop(reason);
  return new TargetUnavailable(kind, reason);
}

/** A request got no judgeable answer: counts it, and opens the circuit after too many in a row. */
export function failed(g: AttemptGround, kind: UnavailableKind, message: string): TargetUnavailable {
  const inARow = g.ledger.failure();
  if (inARow >= BREAKER_THRESHOLD) {
    g.ledger.stop(
      `target unreachable: ${inARow} requests in a row got no judgeable answer (the last: ${message}); the run sends nothing more`,
    );
  }
  return new TargetUnavailable(kind, message);
}

/** Throws when the run was interrupted (unless the request is housekeeping) or stopped sending. */
function checkRun(g: AttemptGround, what: string, options: ExchangeOptions): void {
  if (!options.housekeeping) {
    const interruption = g.interruption();
    if (interruption !== undefined)
      throw new TargetUnavailable(
        'interrupted',
        `${what} not sent: the run was interrupted${interruption.signal ? ` (${interruption.signal})` : ''}: ${interruption.reason}`,
      );
  }
  const stopped = g.ledger.stopped();
  if (stopped !== undefined) throw new TargetUnavailable('stopped', `${what} not sent: ${stopped}`);
}

/**
 * The gate of a request, passed before it waits for a slot and again once it holds one: the run
 * is neither interrupted nor stopped, and a pause the target asked for (Retry-After) is waited
 * out, from any check, unless it ends after the run's deadline.
 */
export async function clearToSend(g: AttemptGround, what: string, options: ExchangeOptions): Promise<void> {
  checkRun(g, what, options);
  const pause = g.ledger.pausedUntil() - g.clock.now();
  if (pause <= 0) return;
  if (g.deadline !== undefined && g.clock.now() + pause >= g.deadline) {
    throw halt(
      g,
      'deadline',
      `the target asked for a pause (Retry-After) that ends after the run's time budget (CONFORMANCE_RUN_TIMEOUT_MS); ${what} and the rest are not sent`,
    );
  }
  g.stats.waitedMs += pause;
  await g.nap(pause, options);
  checkRun(g, what, options);
}

/**
 * How long the exchange may take: the per-request timeout, or the time left before the deadline
 * when that is shorter (`deadlineBound`: a timeout then means the run's time ran out).
 */
export function timeoutWithin(g: AttemptGround, what: string): { timeoutMs: number; deadlineBound: boolean } {
  const p = g.politeness;
  if (g.deadline === undefined) return { timeoutMs: p.timeoutMs, deadlineBound: false };
  const left = g.deadline - g.clock.now();
  if (left <= 0) {
    throw halt(
      g,
      'deadline',
      `the run's time budget of ${seconds(p.runTimeoutMs)} (CONFORMANCE_RUN_TIMEOUT_MS) is spent; ${what} and the rest are not sent`,
    );
  }
  return left < p.timeoutMs
    ? { timeoutMs: left, deadlineBound: true }
    : { timeoutMs: p.timeoutMs, deadlineBound: false };
}

/** Counts the request in the run's ledger; throws once the run's request budget is spent. */
export function countRequest(g: AttemptGround, what: string): void {
  const p = g.politeness;
  if (g.ledger.record() > p.maxRequests) {
    throw halt(
      g,
      'budget',
      `the run's request budget of ${p.maxRequests} (CONFORMANCE_MAX_REQUESTS) is spent; ${what} and the rest are not sent`,
    );
  }
}

/**
 * The wait a rate-limited answer (429, or 503 with Retry-After) asks for: its Retry-After, or
 * NO_RETRY_AFTER_WAIT_MS doubled per retry without one. A wait longer than the run may wait
 * (CONFORMANCE_MAX_RETRY_WAIT_MS) ends the run's sending: honouring it means sending nothing more.
 */
export function rateLimitedWait(
  g: AttemptGround,
  response: RawResponse,
  retry: number,
  what: string,
  now: number,
): { wait: number; asked: number | undefined; header: string | undefined; answered: string } {
  const header = response.headers['retry-after'];
  const asked = retryAfterMs(header, now);
  const wait = asked ?? NO_RETRY_AFTER_WAIT_MS * 2 ** retry;
  const answered = `${what} was answered ${response.status}${header !== undefined ? ` with Retry-After: ${header}` : ''}`;
  const p = g.politeness;
  if (wait > p.maxRetryWaitMs) {
    g.ledger.failure();
    throw halt(
      g,
      'rate-limited',
      `rate-limited: ${answered}, a wait of ${seconds(wait)}, more than ${seconds(p.maxRetryWaitMs)} (CONFORMANCE_MAX_RETRY_WAIT_MS); the run sends nothing more`,
    );
  }
  return { wait, asked, header, answered };
}
