/**
 * What the suite owes the target it calls, and what it does when the target cannot be judged.
 * One session serves every check of a run in a process; a ledger shared by the processes of a
 * run (the Playwright workers) counts the run's requests, the run of consecutive failures, and
 * why the run stopped sending, if it did.
 *
 *   - Politeness: at most `rps` requests per second and `concurrency` in flight across the run
 *     (each of `processes` processes takes its share), at most `maxRequests` requests in all.
 *   - A 429, or a 503 with Retry-After, is waited out (Retry-After, or 1, 2, 4 s without one) and
 *     retried up to `retries` times; then the request is given up as rate-limited. The wait holds
 *     for every request of the run, not only the retry; a wait longer than `maxRetryWaitMs` stops
 *     the run's sending. A 503 without Retry-After is an answer (a server error), not a rate limit.
 *   - A request that gets no complete answer (timeout, connection error, a body over the cap) or
 *     stays rate-limited throws TargetUnavailable: the check that sent it could not complete,
 *     which is never a verdict on what the check verifies. After BREAKER_THRESHOLD of those in a
 *     row, the run stops sending (circuit open), so a hanging server costs a few timeouts, not
 *     one per request. Past the run's deadline or request budget it stops sending too.
 *   - An interrupted run (SIGINT or SIGTERM to the CLI, a signal to a worker, the CLI gone: see
 *     transport/stop.ts) sends nothing more but housekeeping (the restore of the writable
 *     counterparty's details). A request already on the wire is let finish, so that nothing the
 *     run sent lands after the restore; waits (the rate, a Retry-After pause) end early.
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readFileSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { join } from 'node:path';
import type { Politeness } from '../config/config.ts';
import type { RecordedRequest } from '../exchange/exchange.ts';
import { processAlive, readStop, requestStop, type Interruption } from './stop.ts';
import { transmit, TransportFailure, type RawResponse, type TransportFailureKind } from './wire.ts';

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

/** The run-wide counts. `record` and `failure` return the count including the one just added. */
export interface Ledger {
  record(): number;
  count(): number;
  failure(): number;
  success(): void;
  /** Why the run stopped sending, once it did (the first reason wins). */
  stopped(): string | undefined;
  stop(reason: string): void;
  /** Until when (epoch ms) the target asked the run to send nothing (Retry-After); 0: no pause. */
  pausedUntil(): number;
  pause(until: number): void;
  /** Whether the run was interrupted, and why (the first interruption wins). */
  interrupted(): Interruption | undefined;
  interrupt(interruption: Interruption): void;
}

/** A ledger for one process (the gallery, the benchmark). */
export class MemoryLedger implements Ledger {
  private requests = 0;
  private failures = 0;
  private reason: string | undefined;
  private until = 0;
  private interruption: Interruption | undefined;
  record(): number {
    return ++this.requests;
  }
  interrupted(): Interruption | undefined {
    return this.interruption;
  }
  interrupt(interruption: Interruption): void {
    this.interruption ??= interruption;
  }
  pausedUntil(): number {
    return this.until;
  }
  pause(until: number): void {
    this.until = Math.max(this.until, until);
  }
  count(): number {
    return this.requests;
  }
  failure(): number {
    return ++this.failures;
  }
  success(): void {
    this.failures = 0;
  }
  stopped(): string | undefined {
    return this.reason;
  }
  stop(reason: string): void {
    this.reason ??= reason;
  }
}

/**
 * A ledger in a directory shared by the processes of a run. Counts are file sizes: one byte is
 * appended (O_APPEND, atomic) per request or failure, so no lock is needed; the stop reason is a
 * file created once. It survives a Playwright worker being replaced after a failed test.
 */
export class FileLedger implements Ledger {
  private readonly requestsFd: number;
  private readonly failuresFd: number;
  private readonly stopFile: string;
  private readonly pauseFile: string;
  private reason: string | undefined;
  private interruption: Interruption | undefined;

  constructor(readonly dir: string) {
    this.requestsFd = openSync(join(dir, 'requests'), 'a');
    this.failuresFd = openSync(join(dir, 'failures'), 'a');
    this.stopFile = join(dir, 'stopped');
    this.pauseFile = join(dir, 'paused-until');
  }

  /** The requests a run recorded in `dir` (for the end of the run). */
  static count(dir: string): number {
    try {
      return readFileSync(join(dir, 'requests')).length;
    } catch {
      return 0;
    }
  }

  record(): number {
    writeSync(this.requestsFd, '.');
    return fstatSync(this.requestsFd).size;
  }
  count(): number {
    return fstatSync(this.requestsFd).size;
  }
  failure(): number {
    writeSync(this.failuresFd, '.');
    return fstatSync(this.failuresFd).size;
  }
  success(): void {
    if (fstatSync(this.failuresFd).size > 0) ftruncateSync(this.failuresFd, 0);
  }
  stopped(): string | undefined {
    if (this.reason === undefined && existsSync(this.stopFile))
      this.reason = readFileSync(this.stopFile, 'utf8');
    return this.reason;
  }
  stop(reason: string): void {
    try {
      writeFileSync(this.stopFile, reason, { flag: 'wx' });
    } catch {
      // Another process stopped the run first; its reason stands.
    }
  }
  pausedUntil(): number {
    if (!existsSync(this.pauseFile)) return 0;
    try {
      return Number(readFileSync(this.pauseFile, 'utf8')) || 0;
    } catch {
      return 0;
    }
  }
  pause(until: number): void {
    if (until > this.pausedUntil()) writeFileSync(this.pauseFile, String(until));
  }
  interrupted(): Interruption | undefined {
    this.interruption ??= readStop(this.dir);
    return this.interruption;
  }
  interrupt(interruption: Interruption): void {
    requestStop(this.dir, interruption);
    this.interruption ??= readStop(this.dir) ?? interruption;
  }
  close(): void {
    closeSync(this.requestsFd);
    closeSync(this.failuresFd);
  }
}

export interface SessionOptions {
  politeness: Politeness;
  /** Default: a MemoryLedger of this session alone. */
  ledger?: Ledger;
  /** Processes sharing the ledger and the limits (Playwright workers); each takes its share. */
  processes?: number;
  /** Epoch milliseconds after which nothing is sent (the run's time budget). */
  deadline?: number;
  /**
   * The process that started the run (the CLI): once it is gone, the run is interrupted, so that
   * a CLI killed outright does not leave its workers sending.
   */
  supervisorPid?: number;
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

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** How often a wait looks whether the run was interrupted meanwhile. */
const INTERRUPT_POLL_MS = 100;

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** The outcome of one request: the response and how many requests it took (retries included). */
export interface SessionResponse {
  response: RawResponse;
  attempts: number;
}

export class TargetSession {
  readonly politeness: Politeness;
  readonly ledger: Ledger;
  readonly deadline: number | undefined;
  readonly supervisorPid: number | undefined;
  /** Retries after a 429/503 and the time waited for them, for the checks' notes. */
  readonly stats = { retries: 0, waitedMs: 0 };
  private readonly intervalMs: number;
  private readonly maxInFlight: number;
  private readonly agents: { http: http.Agent; https: https.Agent };
  private nextSlot = 0;
  private inFlight = 0;
  private readonly queue: (() => void)[] = [];

  constructor(options: SessionOptions) {
    const p = options.politeness;
    const processes = Math.max(1, options.processes ?? 1);
    this.politeness = p;
    this.ledger = options.ledger ?? new MemoryLedger();
    this.deadline = options.deadline;
    this.supervisorPid = options.supervisorPid;
    this.intervalMs = p.rps > 0 ? (1000 * processes) / p.rps : 0;
    this.maxInFlight = Math.max(1, Math.floor(p.concurrency / processes));
    const agentOptions = { keepAlive: true, maxSockets: this.maxInFlight };
    this.agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  }

  /**
   * Whether the run was interrupted (by a signal, or because the CLI that started it is gone),
   * and why. Every process of the run sees it.
   */
  interruption(): Interruption | undefined {
    const known = this.ledger.interrupted();
    if (known !== undefined || this.supervisorPid === undefined) return known;
    if (processAlive(this.supervisorPid)) return undefined;
    this.ledger.interrupt({
      signal: null,
      reason: `the CLI that started the run (pid ${this.supervisorPid}) is gone`,
    });
    return this.ledger.interrupted();
  }

  /** Interrupts the run: from now on, only housekeeping is sent, by any process of the run. */
  interrupt(interruption: Interruption): void {
    this.ledger.interrupt(interruption);
  }

  /** Throws when the run was interrupted, unless the request is housekeeping. */
  private checkInterrupted(what: string, options: ExchangeOptions): void {
    if (options.housekeeping) return;
    const interruption = this.interruption();
    if (interruption === undefined) return;
    throw this.unavailable(
      'interrupted',
      `${what} not sent: the run was interrupted${interruption.signal ? ` (${interruption.signal})` : ''}: ${interruption.reason}`,
    );
  }

  /** Sleeps `ms`, waking early when the run is interrupted (housekeeping sleeps it out). */
  private async nap(ms: number, options: ExchangeOptions): Promise<void> {
    const until = performance.now() + ms;
    for (;;) {
      const left = until - performance.now();
      if (left <= 0) return;
      if (!options.housekeeping && this.interruption() !== undefined) return;
      await sleep(Math.min(left, INTERRUPT_POLL_MS));
    }
  }

  /** Closes kept-alive connections. */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private unavailable(kind: UnavailableKind, message: string): TargetUnavailable {
    return new TargetUnavailable(kind, message);
  }

  /** Stops the run's sending and returns the error of this request. */
  private halt(kind: UnavailableKind, reason: string): TargetUnavailable {
    this.ledger.stop(reason);
    return this.unavailable(kind, reason);
  }

  /** A request got no judgeable answer: counts it, and opens the circuit after too many in a row. */
  private failed(kind: UnavailableKind, message: string): TargetUnavailable {
    const inARow = this.ledger.failure();
    if (inARow >= BREAKER_THRESHOLD) {
      this.ledger.stop(
        `target unreachable: ${inARow} requests in a row got no judgeable answer (the last: ${message}); the run sends nothing more`,
      );
    }
    return this.unavailable(kind, message);
  }

  /** Waits for a slot (concurrency) and for the rate; false: the slot comes after the deadline. */
  private async acquire(options: ExchangeOptions): Promise<boolean> {
    while (this.inFlight >= this.maxInFlight) await new Promise<void>((resolve) => this.queue.push(resolve));
    this.inFlight++;
    if (this.intervalMs > 0) {
      const now = performance.now();
      const at = Math.max(now, this.nextSlot);
      if (this.deadline !== undefined && Date.now() + (at - now) >= this.deadline) return false;
      this.nextSlot = at + this.intervalMs;
      if (at > now) await this.nap(at - now, options);
    }
    return true;
  }

  private release(): void {
    this.inFlight--;
    this.queue.shift()?.();
  }

  /** Sends one request politely; throws TargetUnavailable when it cannot be judged. */
  async exchange(
    method: string,
    url: URL,
    headers: Record<string, string>,
    body: Buffer | undefined,
    options: ExchangeOptions = {},
  ): Promise<SessionResponse> {
    const sent = { attempts: 0 };
    try {
      return {
        response: await this.attempt(method, url, headers, body, sent, options),
        attempts: sent.attempts,
      };
    } catch (error) {
      if (error instanceof TargetUnavailable) error.attempts = sent.attempts;
      throw error;
    }
  }

  private async attempt(
    method: string,
    url: URL,
    headers: Record<string, string>,
    body: Buffer | undefined,
    sent: { attempts: number },
    options: ExchangeOptions,
  ): Promise<RawResponse> {
    const p = this.politeness;
    const what = `${method} ${url.pathname.length > 100 ? `${url.pathname.slice(0, 100)}…` : url.pathname}`;
    const idempotent = method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
    let resetRetried = false;
    for (let retry = 0; ; retry++) {
      this.checkInterrupted(what, options);
      const stopped = this.ledger.stopped();
      if (stopped !== undefined) throw this.unavailable('stopped', `${what} not sent: ${stopped}`);
      // The target asked for a pause (Retry-After): nothing goes out before it ends, from any check.
      const pause = this.ledger.pausedUntil() - Date.now();
      if (pause > 0) {
        if (this.deadline !== undefined && Date.now() + pause >= this.deadline) {
          throw this.halt(
            'deadline',
            `the target asked for a pause (Retry-After) that ends after the run's time budget (CONFORMANCE_RUN_TIMEOUT_MS); ${what} and the rest are not sent`,
          );
        }
        this.stats.waitedMs += pause;
        await this.nap(pause, options);
        this.checkInterrupted(what, options);
      }
      const slot = await this.acquire(options);
      let response: RawResponse;
      let deadlineBound = false;
      try {
        // A request that waited for its slot may get it from one just answered 429/503 with
        // Retry-After: the pause that answer asked for holds for it too (the slot is let go).
        if (slot && this.ledger.pausedUntil() > Date.now()) {
          retry--;
          continue;
        }
        if (!slot) {
          throw this.halt(
            'deadline',
            `the run's time budget of ${seconds(p.runTimeoutMs)} (CONFORMANCE_RUN_TIMEOUT_MS) ends before the rate limit lets ${what} go`,
          );
        }
        // Another check (or worker) may have stopped the run while this one waited for its slot.
        this.checkInterrupted(what, options);
        const stoppedMeanwhile = this.ledger.stopped();
        if (stoppedMeanwhile !== undefined) {
          throw this.unavailable('stopped', `${what} not sent: ${stoppedMeanwhile}`);
        }
        // The exchange may take the time left before the deadline, no more.
        let timeoutMs = p.timeoutMs;
        if (this.deadline !== undefined) {
          const left = this.deadline - Date.now();
          if (left <= 0) {
            throw this.halt(
              'deadline',
              `the run's time budget of ${seconds(p.runTimeoutMs)} (CONFORMANCE_RUN_TIMEOUT_MS) is spent; ${what} and the rest are not sent`,
            );
          }
          if (left < timeoutMs) {
            timeoutMs = left;
            deadlineBound = true;
          }
        }
        const n = this.ledger.record();
        if (n > p.maxRequests) {
          throw this.halt(
            'budget',
            `the run's request budget of ${p.maxRequests} (CONFORMANCE_MAX_REQUESTS) is spent; ${what} and the rest are not sent`,
          );
        }
        sent.attempts++;
        response = await transmit(url, method, headers, body, {
          timeoutMs,
          maxResponseBytes: p.maxResponseBytes,
          agents: this.agents,
        });
      } catch (error) {
        if (!(error instanceof TransportFailure)) throw error;
        // A kept-alive socket the server had just closed: a read is safe to send again, once.
        if (error.kind === 'connection' && error.reusedSocket && idempotent && !resetRetried) {
          resetRetried = true;
          retry--;
          continue;
        }
        if (error.kind === 'timeout' && deadlineBound) {
          throw this.halt(
            'deadline',
            `the run's time budget of ${seconds(p.runTimeoutMs)} (CONFORMANCE_RUN_TIMEOUT_MS) ran out during ${what}`,
          );
        }
        throw this.failed(error.kind, `${what}: ${error.message}`);
      } finally {
        this.release();
      }
      const limited =
        response.status === 429 || (response.status === 503 && 'retry-after' in response.headers);
      if (!limited) {
        this.ledger.success();
        return response;
      }
      const header = response.headers['retry-after'];
      const asked = retryAfterMs(header);
      const wait = asked ?? 1000 * 2 ** retry;
      const answered = `${what} was answered ${response.status}${header !== undefined ? ` with Retry-After: ${header}` : ''}`;
      if (wait > p.maxRetryWaitMs) {
        // Honouring the wait means sending nothing more in this run.
        this.ledger.failure();
        throw this.halt(
          'rate-limited',
          `rate-limited: ${answered}, a wait of ${seconds(wait)}, more than ${seconds(p.maxRetryWaitMs)} (CONFORMANCE_MAX_RETRY_WAIT_MS); the run sends nothing more`,
        );
      }
      // Whether retried or given up, the next request of the run waits it out.
      this.ledger.pause(Date.now() + wait);
      if (retry >= p.retries) {
        throw this.failed(
          'rate-limited',
          `rate-limited: ${answered} ${sent.attempts} time(s); gave up after ${p.retries} retries (CONFORMANCE_RETRIES)`,
        );
      }
      this.stats.retries++;
    }
  }
}
