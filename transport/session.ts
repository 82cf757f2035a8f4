/**
 * What the suite owes the target it calls, and what it does when the target cannot be judged.
 * One session serves every check of a run in a process; a ledger shared by the processes of a
 * run (the Playwright workers; transport/ledger.ts) counts the run's requests, the run of
 * consecutive failures, and why the run stopped sending, if it did.
 *
 *   - Politeness: at most `rps` requests per second and `concurrency` in flight across the run
 *     (each of `processes` processes takes its share; of the in-flight cap, each of those that
 *     may still send: Ledger.sending), at most `maxRequests` requests in all.
 *     Within those caps an adaptive run learns its pace from the answers (transport/limiter.ts):
 *     a few requests in flight at first, more while latency holds, fewer on a 429 or 503 or a
 *     rise in latency; a rate cut on a 429, or the quota RateLimit headers announce. The rate
 *     and the pauses are the run's (in the ledger): every process obeys them.
 *   - A 429, or a 503 with Retry-After, is waited out (Retry-After, or 0.25, 0.5, 1 s without
 *     one) and retried up to `retries` times; then the request is given up as rate-limited. The
 *     wait holds for every request of the run, not only the retry; a wait longer than
 *     `maxRetryWaitMs` stops the run's sending. A 503 without Retry-After is an answer (a server
 *     error), not a rate limit, though an adaptive run sends fewer at once after it. RateLimit
 *     headers saying no request is left pause the run until the quota resets.
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
import pLimit, { type LimitFunction } from 'p-limit';
import type { Politeness } from './politeness.ts';
import { FileLedger, MemoryLedger, type Ledger } from './ledger.ts';
import {
  AdaptiveLimiter,
  RATE_DECREASE,
  rateAt,
  type Backoff,
  type BackoffReason,
  type PolitenessReport,
} from './limiter.ts';
import { systemClock, type Clock } from './clock.ts';
import { hasRateLimitHeaders, parseRateLimitHeaders } from './ratelimit-headers.ts';
import { processAlive, type Interruption } from './stop.ts';
import {
  clearToSend,
  countRequest,
  failed,
  halt,
  rateLimitedWait,
  seconds,
  TargetUnavailable,
  timeoutWithin,
  type AttemptGround,
  type ExchangeOptions,
} from './attempt.ts';
import { transmitReadingHead } from './head.ts';
import { createPool, TransportFailure, type RawResponse, type WireOptions, type WirePool } from './wire.ts';

/**
 * One exchange on the wire (transport/head.ts's transmitReadingHead: transport/wire.ts's transmit,
 * and a HEAD read to its end; a scripted target in the self-tests).
 */
export type Transmit = (
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  options: WireOptions,
) => Promise<RawResponse>;

export {
  BREAKER_THRESHOLD,
  retryAfterMs,
  TargetUnavailable,
  type ExchangeOptions,
  type UnavailableKind,
} from './attempt.ts';

export { PACE_ENV } from './ledger.ts';

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
  /**
   * The clock the pace, the pauses, the deadline and the exchanges' timestamps are read from
   * (default: the real one); the self-tests drive a fake one.
   */
  clock?: Clock;
  /** The wire (default: transport/wire.ts over undici); the self-tests script a target instead. */
  transmit?: Transmit;
}

/** How often a wait looks whether the run was interrupted meanwhile. */
const INTERRUPT_POLL_MS = 100;

/** The outcome of one request: the response and how many requests it took (retries included). */
export interface SessionResponse {
  response: RawResponse;
  attempts: number;
}

/** Numbers the sessions of a process, for the key of their reports in a shared ledger. */
let sessions = 0;

/** How often a session keeps its politeness report in the ledger while the run goes on. */
const REPORT_EVERY_MS = 1000;

/** The least rate a 429 cuts the run to (requests/s); CONFORMANCE_RPS may set less. */
const MIN_LEARNED_RPS = 0.5;

export class TargetSession {
  readonly politeness: Politeness;
  readonly ledger: Ledger;
  readonly deadline: number | undefined;
  readonly supervisorPid: number | undefined;
  /** What the session reads the time from, and sleeps on; its exchanges are timed on it too. */
  readonly clock: Clock;
  /** Retries after a 429/503 and the time waited for them, for the checks' notes. */
  readonly stats = { retries: 0, waitedMs: 0 };
  private readonly processes: number;
  /** This process's share of the run's cap on requests in flight (CONFORMANCE_CONCURRENCY). */
  private share: number;
  private readonly limiter: AdaptiveLimiter;
  /** The queue of requests waiting for a slot: p-limit, whose concurrency the limiter sets. */
  private readonly slots: LimitFunction;
  private readonly pool: WirePool;
  private readonly transmit: Transmit;
  private nextSlot = 0;
  /** Exchanges started and not yet settled (quiet). */
  private pending = 0;
  private readonly whenQuiet: (() => void)[] = [];
  private readonly reportKey = `${process.pid}-${++sessions}`;
  private reportKeptAt = 0;
  /** What the steps of an attempt (transport/attempt.ts) read and change of this session. */
  private readonly ground: AttemptGround;

  constructor(options: SessionOptions) {
    const p = options.politeness;
    const processes = Math.max(1, options.processes ?? 1);
    this.politeness = p;
    this.processes = processes;
    this.ledger = options.ledger ?? new MemoryLedger();
    this.deadline = options.deadline;
    this.supervisorPid = options.supervisorPid;
    this.clock = options.clock ?? systemClock;
    this.transmit = options.transmit ?? transmitReadingHead;
    this.share = Math.max(1, Math.floor(p.concurrency / processes));
    this.limiter = new AdaptiveLimiter({ adaptive: p.adaptive, maxConcurrency: this.share, processes });
    this.slots = pLimit(this.limiter.concurrency());
    // Connections are opened as requests need them, one per request in flight: sized for the
    // whole of the run's cap, which this process's share grows to once it is left alone (reshare).
    this.pool = createPool(p.concurrency, p.maxResponseBytes);
    this.ground = {
      politeness: p,
      ledger: this.ledger,
      deadline: this.deadline,
      clock: this.clock,
      stats: this.stats,
      interruption: () => this.interruption(),
      nap: (ms, options) => this.nap(ms, options),
    };
    // A Playwright worker's session is never closed: its last report is kept as the process ends.
    if (this.ledger instanceof FileLedger) process.once('exit', this.keepReportAtExit);
  }

  private readonly keepReportAtExit = (): void => {
    this.ledger.keepReport(this.reportKey, this.limiter.report());
  };

  /**
   * What the run did about politeness in this process: requests, effective rate, the most in
   * flight, every back-off. A run of several processes sums theirs with FileLedger.politenessReport.
   */
  politenessReport(): PolitenessReport {
    return this.limiter.report();
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

  /** Sleeps `ms`, waking early when the run is interrupted (housekeeping sleeps it out). */
  private async nap(ms: number, options: ExchangeOptions): Promise<void> {
    const until = this.clock.now() + ms;
    for (;;) {
      const left = until - this.clock.now();
      if (left <= 0) return;
      if (!options.housekeeping && this.interruption() !== undefined) return;
      await this.clock.sleep(Math.min(left, INTERRUPT_POLL_MS));
    }
  }

  /** Closes kept-alive connections, and keeps the politeness report in the ledger. */
  close(): void {
    this.pool.close();
    process.off('exit', this.keepReportAtExit);
    this.keepReportAtExit();
  }

  /** The run's rate now (requests/s): the least of CONFORMANCE_RPS and a learned rate; 0: none. */
  private runRate(now: number): number {
    let rps = this.politeness.rps > 0 ? this.politeness.rps : Infinity;
    if (this.politeness.adaptive) {
      const learned = this.ledger.learnedRate();
      if (learned) rps = Math.min(rps, rateAt(learned, now));
    }
    return rps === Infinity ? 0 : rps;
  }

  /** Waits for this process's share of the run's rate; false: the turn comes after the deadline. */
  private async paced(options: ExchangeOptions): Promise<boolean> {
    // A hard cap (CONFORMANCE_RPS) is shared among every process of the run, so that together they
    // never exceed it; a learned rate among the processes sending now, so that a worker left
    // alone at the end of a run (the write lane, say) keeps the whole of it.
    const cap = this.politeness.rps > 0 ? this.politeness.rps / this.processes : Infinity;
    const learned = this.politeness.adaptive ? this.ledger.learnedRate() : undefined;
    const share = learned
      ? rateAt(learned, this.clock.now()) / Math.min(this.processes, this.ledger.active(this.clock.now()))
      : Infinity;
    const perProcess = Math.min(cap, share);
    if (perProcess === Infinity || perProcess <= 0) return true;
    const intervalMs = 1000 / perProcess;
    const now = this.clock.now();
    const at = Math.max(now, this.nextSlot);
    if (this.deadline !== undefined && at >= this.deadline) return false;
    this.nextSlot = at + intervalMs;
    if (at > now) await this.nap(at - now, options);
    return true;
  }

  /**
   * This process's share of the run's cap on requests in flight: the cap over the processes that
   * may still send (Ledger.sending). A process left alone at the end of a run (the write lane,
   * once every other check ended) takes the whole of it: the others will send nothing more.
   */
  private reshare(now: number): void {
    const sending = this.ledger.sending(now);
    if (sending === undefined || sending >= this.processes) return;
    const share = Math.max(1, Math.floor(this.politeness.concurrency / sending));
    if (share <= this.share) return;
    this.share = share;
    const window = this.limiter.concurrency() + this.ledger.othersInFlight(this.reportKey);
    this.limiter.reshare(share, window / sending);
    this.slots.concurrency = this.limiter.concurrency();
  }

  /** Puts a back-off in the report, and the report in the ledger for the other processes. */
  private backedOff(backoff: Backoff | undefined): void {
    const concurrency = this.limiter.concurrency();
    if (this.slots.concurrency !== concurrency) this.slots.concurrency = concurrency;
    const now = this.clock.now();
    if (backoff !== undefined || now - this.reportKeptAt >= REPORT_EVERY_MS) {
      this.reportKeptAt = now;
      this.ledger.keepReport(this.reportKey, this.limiter.report());
    }
  }

  /** Learns from the RateLimit headers of an answer: the quota to pace to, a pause when none is left. */
  private heedRateLimitHeaders(response: RawResponse, now: number): void {
    if (!this.politeness.adaptive || !hasRateLimitHeaders(response.headers)) return;
    const info = parseRateLimitHeaders(response.headers, now);
    if (info.quota) {
      const rps = info.quota.limit / info.quota.windowSeconds;
      const learned = this.ledger.learnedRate();
      const change =
        learned === undefined || (learned.grows ? rateAt(learned, now) > rps : learned.rps !== rps);
      if (change && rps > 0) {
        this.ledger.learnRate({ rps, at: now, grows: false, source: 'ratelimit-header' });
        this.backedOff(
          this.limiter.note(
            'ratelimit-header',
            `the target announces a quota of ${info.quota.limit} requests per ${info.quota.windowSeconds} s`,
            now,
            rps,
          ),
        );
      }
    }
    if (info.remaining === 0 && info.resetSeconds !== undefined && info.resetSeconds > 0) {
      const until = now + Math.min(info.resetSeconds * 1000, this.politeness.maxRetryWaitMs);
      if (until > this.ledger.pausedUntil()) {
        this.ledger.pause(until);
        this.backedOff(
          this.limiter.note(
            'ratelimit-header',
            `the target says no request is left for ${info.resetSeconds} s`,
            now,
            this.runRate(now) || undefined,
            until,
          ),
        );
      }
    }
  }

  /**
   * A 429, or a 503 (with Retry-After: a rate limit; without: an overload): fewer in flight, and
   * after a 429 a lower rate (RATE_DECREASE of what the run was sending at), for every process.
   */
  private overloaded(
    status: number,
    retryAfter: string | undefined,
    sentAt: number,
    now: number,
    pausedUntil: number,
  ): void {
    let rps = this.runRate(now) || undefined;
    if (status === 429 && this.politeness.adaptive && this.limiter.fresh(sentAt)) {
      const learned = this.ledger.learnedRate();
      const sending = learned ? rateAt(learned, now) : this.limiter.measuredRate(now) * this.processes;
      if (sending > 0 && (learned === undefined || learned.at <= sentAt)) {
        rps = Math.max(MIN_LEARNED_RPS, sending * RATE_DECREASE);
        if (this.politeness.rps > 0) rps = Math.min(rps, this.politeness.rps);
        this.ledger.learnRate({ rps, at: now, grows: true, source: '429' });
      }
    }
    const reason: BackoffReason = retryAfter !== undefined ? 'retry-after' : status === 429 ? '429' : '503';
    const detail = `answered ${status}${retryAfter !== undefined ? ` with Retry-After: ${retryAfter}` : ''}`;
    this.backedOff(
      this.limiter.overloaded(
        reason,
        detail,
        sentAt,
        now,
        rps,
        retryAfter !== undefined ? pausedUntil : undefined,
      ),
    );
  }

  /**
   * Resolves once no exchange of this session is waiting, in flight or being retried: a check
   * whose probe stopped at one failed request of a batch may leave the rest of it going. A check
   * ends only then (suite/define.ts), so that once the runner counts it ended and another process
   * takes the slots this one had (Ledger.sending), this one holds none.
   */
  quiet(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.whenQuiet.push(resolve));
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
    this.pending++;
    try {
      return {
        response: await this.attempt(method, url, headers, body, sent, options),
        attempts: sent.attempts,
      };
    } catch (error) {
      if (error instanceof TargetUnavailable) error.attempts = sent.attempts;
      throw error;
    } finally {
      if (--this.pending === 0) for (const resolve of this.whenQuiet.splice(0)) resolve();
    }
  }

  /**
   * One request, retried after a rate-limited answer: through the gate of the run
   * (transport/attempt.ts clearToSend) before it waits for a slot and again once it holds one,
   * at its share of the run's rate, within the deadline and the request budget.
   */
  private async attempt(
    method: string,
    url: URL,
    headers: Record<string, string>,
    body: Buffer | undefined,
    sent: { attempts: number },
    options: ExchangeOptions,
  ): Promise<RawResponse> {
    const p = this.politeness;
    const g = this.ground;
    const what = `${method} ${url.pathname.length > 100 ? `${url.pathname.slice(0, 100)}…` : url.pathname}`;
    const idempotent = method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
    let resetRetried = false;
    for (let retry = 0; ; retry++) {
      await clearToSend(g, what, options);
      this.reshare(this.clock.now());
      const step = { deadlineBound: false, sentAt: 0, saturated: false };
      let response: RawResponse;
      try {
        response = await this.slots(async () => {
          if (!(await this.paced(options))) {
            throw halt(
              g,
              'deadline',
              `the run's time budget of ${seconds(p.runTimeoutMs)} (CONFORMANCE_RUN_TIMEOUT_MS) ends before the rate limit lets ${what} go`,
            );
          }
          // Another request may have been answered 429, or another check (or worker) may have
          // stopped the run, while this one waited for its slot: the same gate, holding the slot.
          await clearToSend(g, what, options);
          const within = timeoutWithin(g, what);
          step.deadlineBound = within.deadlineBound;
          countRequest(g, what);
          sent.attempts++;
          step.sentAt = this.clock.now();
          step.saturated = this.limiter.sent(step.sentAt);
          try {
            return await this.transmit(url, method, headers, body, {
              timeoutMs: within.timeoutMs,
              maxResponseBytes: p.maxResponseBytes,
              pool: this.pool,
            });
          } finally {
            this.limiter.done(this.clock.now());
          }
        });
      } catch (error) {
        if (!(error instanceof TransportFailure)) throw error;
        // A kept-alive connection the server had just closed: a read is safe to send again, once.
        if (error.kind === 'connection' && error.reusedSocket && idempotent && !resetRetried) {
          resetRetried = true;
          retry--;
          continue;
        }
        if (error.kind === 'timeout' && step.deadlineBound) {
          throw halt(
            g,
            'deadline',
            `the run's time budget of ${seconds(p.runTimeoutMs)} (CONFORMANCE_RUN_TIMEOUT_MS) ran out during ${what}`,
          );
        }
        throw failed(g, error.kind, `${what}: ${error.message}`);
      }
      const now = this.clock.now();
      this.heedRateLimitHeaders(response, now);
      const limited =
        response.status === 429 || (response.status === 503 && 'retry-after' in response.headers);
      if (!limited) {
        if (response.status === 503) this.overloaded(503, undefined, step.sentAt, now, now);
        else this.backedOff(this.limiter.answered(now - step.sentAt, step.sentAt, step.saturated, now));
        this.ledger.success();
        return response;
      }
      const { wait, asked, header, answered } = rateLimitedWait(g, response, retry, what, now);
      // Whether retried or given up, the next request of the run waits it out.
      this.ledger.pause(now + wait);
      this.overloaded(
        response.status,
        asked !== undefined ? header : undefined,
        step.sentAt,
        now,
        now + wait,
      );
      if (retry >= p.retries) {
        throw failed(
          g,
          'rate-limited',
          `rate-limited: ${answered} ${sent.attempts} time(s); gave up after ${p.retries} retries (CONFORMANCE_RETRIES)`,
        );
      }
      this.stats.retries++;
    }
  }
}
