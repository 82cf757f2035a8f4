/**
 * Adaptive politeness: how many requests this process keeps in flight, and how fast it sends,
 * learned from the target's answers rather than fixed in advance.
 *
 *   - Requests in flight (a congestion window, as TCP's): it starts at INITIAL_IN_FLIGHT (the
 *     run's, shared by its processes), doubles per window of answers while latency holds (slow
 *     start, up to SLOW_START_UNTIL), then grows by one per window (additive increase); it
 *     halves on a 429 or 503 (multiplicative decrease), and shrinks by a quarter when the
 *     answers' latency rises clearly above the baseline (twice the least latency of the last
 *     10 s, and LATENCY_SLACK_MS more). It grows only on answers whose latency held, and only
 *     while it is used up, so that it never runs ahead of what was tried.
 *   - The rate: none at first. A 429 cuts the rate the run was sending at (measured over the
 *     last second) to RATE_DECREASE of it, which then grows again by an eighth of it per second
 *     (a sawtooth between 0.7 and 1 of the target's limit: about 85 % of it); a quota announced in
 *     RateLimit headers is the rate, as announced. This rate is the run's: it is kept in the
 *     ledger, so every process of the run obeys it (each its share).
 *   - CONFORMANCE_CONCURRENCY and CONFORMANCE_RPS are hard caps: never exceeded.
 * Only the signals caused by requests sent after the last decrease count, so that one burst of
 * 429s answering one burst of requests halves once, not once per answer.
 *
 * Hand-written: no well-kept library adapts a concurrency limit to latency and 429s across
 * processes (bottleneck and p-limit take a limit, they do not learn one; the Netflix
 * concurrency-limits algorithms have no maintained JavaScript port). The queue itself is
 * p-limit's (transport/session.ts), whose concurrency can be changed while it runs.
 */

/** Requests in flight at the start of an adaptive run (the run's, shared by its processes). */
export const INITIAL_IN_FLIGHT = 4;

/** Latency this far above twice the baseline, and more, is a rise (not the noise of a fast server). */
export const LATENCY_SLACK_MS = 20;

/**
 * Slow start (doubling) ends at this many in flight, or at the first back-off; growth is by one
 * per window after it. 32 is a process's share of the default cap against a deployment (64 in
 * flight, two processes), reached in three round trips. At 16, with 32 reached some 16 round trips
 * later, the refused PATCHes of a one-counterparty write run, sent in batches with one read each,
 * went out 22 to 28 at a time: three round trips a batch where two do.
 */
export const SLOW_START_UNTIL = 32;

/**
 * The weight of each answer in the smoothed latency: a rise shows after some ten answers, a
 * single slow one (a pause of the collector, a busy machine) does not count as a rise.
 */
export const SMOOTHING = 0.1;

/** How long the least latency seen stays the baseline (as BBR's min-RTT filter). */
export const BASELINE_WINDOW_MS = 10_000;

/** What a 429 cuts the run's rate to (as CUBIC's 0.7: a smaller sawtooth than halving). */
export const RATE_DECREASE = 0.7;

/** Why the run slowed down. */
export type BackoffReason = '429' | '503' | 'retry-after' | 'ratelimit-header' | 'latency';

/** One slow-down of the run: when, why, and the limits after it. */
export interface Backoff {
  /** Epoch milliseconds. */
  at: number;
  reason: BackoffReason;
  /** One line: what the target did. */
  detail: string;
  /** Requests in flight this process allows after it. */
  concurrency: number;
  /** The run's rate after it (requests/s); undefined: no rate limit. */
  rps: number | undefined;
  /** Until when (epoch ms) the run sends nothing, for a pause (Retry-After, a quota spent). */
  pausedUntil?: number;
}

/**
 * The run's rate, learned from the target and kept in the ledger: `rps` at `at` (epoch ms),
 * growing by `rps / 8` per second after it when `grows` (a rate found by backing off), fixed
 * when announced (a RateLimit quota).
 */
export interface LearnedRate {
  rps: number;
  at: number;
  grows: boolean;
  source: BackoffReason;
}

/** The learned rate at `now` (epoch ms). */
export function rateAt(learned: LearnedRate, now: number): number {
  if (!learned.grows) return learned.rps;
  return learned.rps + (Math.max(1, learned.rps / 8) * Math.max(0, now - learned.at)) / 1000;
}

export interface LimiterOptions {
  /** Learn the limits (a deployment), or keep the caps as they are (the embedded server). */
  adaptive: boolean;
  /** This process's cap on requests in flight at first (its share of CONFORMANCE_CONCURRENCY; reshare). */
  maxConcurrency: number;
  /** Processes of the run sharing the limits. */
  processes: number;
}

/** What a run did about politeness, for the report: a plain data object. */
export interface PolitenessReport {
  adaptive: boolean;
  /** Requests sent (retries included). */
  requests: number;
  /** Epoch ms of the first request sent, and of the last answer or failure; 0: none. */
  firstSentAt: number;
  lastDoneAt: number;
  /** requests over the time it was sending (first sent to last done); 0 when nothing was sent. */
  effectiveRps: number;
  /** The most requests in flight at once. */
  maxInFlight: number;
  /** Requests in flight allowed at the end. */
  finalConcurrency: number;
  /** Every slow-down, in order. */
  backoffs: Backoff[];
}

/**
 * Sums the reports of the processes of a run: rate over the run's sending time, in flight added
 * up within the run's cap (`cap`, CONFORMANCE_CONCURRENCY). Each process's most in flight came at
 * its own moment, and a process left alone took the others' slots (transport/session.ts reshare):
 * the sum bounds the run's most in flight at once, and so does the cap it never exceeded.
 */
export function mergePolitenessReports(reports: PolitenessReport[], cap = Infinity): PolitenessReport {
  const sent = reports.filter((r) => r.requests > 0);
  const firstSentAt = sent.length ? Math.min(...sent.map((r) => r.firstSentAt)) : 0;
  const lastDoneAt = sent.length ? Math.max(...sent.map((r) => r.lastDoneAt)) : 0;
  const requests = reports.reduce((n, r) => n + r.requests, 0);
  return {
    adaptive: reports.some((r) => r.adaptive),
    requests,
    firstSentAt,
    lastDoneAt,
    effectiveRps: effectiveRate(requests, firstSentAt, lastDoneAt),
    maxInFlight: Math.min(
      cap,
      reports.reduce((n, r) => n + r.maxInFlight, 0),
    ),
    finalConcurrency: Math.min(
      cap,
      reports.reduce((n, r) => n + r.finalConcurrency, 0),
    ),
    backoffs: reports.flatMap((r) => r.backoffs).sort((a, b) => a.at - b.at),
  };
}

function effectiveRate(requests: number, first: number, last: number): number {
  if (requests === 0) return 0;
  const seconds = Math.max(0.001, (last - first) / 1000);
  return Math.round((requests / seconds) * 10) / 10;
}

/** The window of send times the current rate is measured over. */
const RATE_WINDOW_MS = 1000;

export class AdaptiveLimiter {
  /** The congestion window: requests in flight allowed (fractional while growing). */
  private window: number;
  private threshold = SLOW_START_UNTIL;
  /** This process's cap on requests in flight: its share of the run's (LimiterOptions.maxConcurrency at first). */
  private cap: number;
  private lastDecreaseAt = -Infinity;
  private baselineMs: number | undefined;
  private baselineAt = 0;
  private smoothedMs: number | undefined;
  /** Answers in the smoothed latency since the start or the last decrease. */
  private samples = 0;
  private inFlight = 0;
  private readonly sends: number[] = [];
  private readonly backoffList: Backoff[] = [];
  private requests = 0;
  private firstSentAt = 0;
  private lastDoneAt = 0;
  private maxInFlight = 0;

  constructor(private readonly options: LimiterOptions) {
    const cap = Math.max(1, options.maxConcurrency);
    this.cap = cap;
    this.window = options.adaptive
      ? Math.min(cap, Math.max(1, Math.ceil(INITIAL_IN_FLIGHT / Math.max(1, options.processes))))
      : cap;
  }

  /** Requests in flight allowed now. */
  concurrency(): number {
    return Math.max(1, Math.min(this.cap, Math.floor(this.window)));
  }

  /**
   * This process's share of the run's cap grew to `cap`: fewer of the run's processes are left to
   * send (the others' checks all ended). The slots the others had, at the pace they had grown to
   * on the same target, are this process's now, so that the run keeps as many in flight as it had:
   * the window grows to its share of the run's (`runWindow`: every process's window added up),
   * and at least in proportion to the cap, slow start's threshold with it. A share never shrinks.
   */
  reshare(cap: number, runWindow: number): void {
    if (cap <= this.cap) return;
    const grown = cap / this.cap;
    this.cap = cap;
    if (!this.options.adaptive) {
      this.window = cap;
      return;
    }
    this.window = Math.min(cap, Math.max(this.window * grown, runWindow));
    this.threshold = Math.min(cap, Math.max(this.threshold * grown, this.window));
  }

  /** A request goes out at `now` (epoch ms); returns whether the window was used up. */
  sent(now: number): boolean {
    this.requests++;
    if (this.requests === 1) this.firstSentAt = now;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    if (this.options.adaptive) {
      this.sends.push(now);
      while (this.sends.length > 0 && this.sends[0]! < now - RATE_WINDOW_MS) this.sends.shift();
    }
    return this.inFlight >= this.concurrency();
  }

  /** The request sent at `sentAt` ended at `now` without an answer. */
  done(now: number): void {
    this.inFlight--;
    this.lastDoneAt = Math.max(this.lastDoneAt, now);
  }

  /**
   * The requests this process sent over the last second, as requests/s. Early in a run (less
   * than a second of sending) this is less than the pace it sent at: after a burst a server's
   * bucket allowed, the lower figure is the nearer to what it sustains.
   */
  measuredRate(now: number): number {
    let n = 0;
    for (let i = this.sends.length - 1; i >= 0 && this.sends[i]! >= now - RATE_WINDOW_MS; i--) n++;
    return (n * 1000) / RATE_WINDOW_MS;
  }

  /**
   * An answer that was not an overload came `latencyMs` after it was sent at `sentAt`; the
   * window was used up when it went out (`saturated`). Returns a back-off when latency rose.
   */
  answered(latencyMs: number, sentAt: number, saturated: boolean, now: number): Backoff | undefined {
    if (!this.options.adaptive) return undefined;
    // The baseline is the least latency seen in the last BASELINE_WINDOW_MS, so that a target
    // whose latency settles higher for good is not backed off from forever.
    if (
      this.baselineMs === undefined ||
      latencyMs <= this.baselineMs ||
      now - this.baselineAt > BASELINE_WINDOW_MS
    ) {
      this.baselineMs = latencyMs;
      this.baselineAt = now;
    }
    if (sentAt < this.lastDecreaseAt) return undefined;
    const limit = 2 * this.baselineMs + LATENCY_SLACK_MS;
    this.smoothedMs =
      this.smoothedMs === undefined ? latencyMs : (1 - SMOOTHING) * this.smoothedMs + SMOOTHING * latencyMs;
    this.samples++;
    // Judged once the smoothed latency holds some ten answers: the first ones (a new connection,
    // code not yet compiled) are slow for reasons other than load.
    if (this.samples * SMOOTHING >= 1 && this.smoothedMs > limit && this.window > 1) {
      const detail = `latency rose to ${Math.round(this.smoothedMs)} ms (baseline ${Math.round(this.baselineMs)} ms)`;
      return this.decrease(0.75, 'latency', detail, now, undefined);
    }
    // Only an answer whose own latency held counts for growth.
    if (latencyMs > limit) return undefined;
    if (!saturated) return undefined;
    if (this.window < this.threshold) this.window += 1;
    else this.window += 1 / this.window;
    this.window = Math.min(this.window, this.cap);
    return undefined;
  }

  /**
   * The target said it is overloaded (a 429 or 503) in answer to a request sent at `sentAt`.
   * Halves the window, unless a decrease already answered the load this request was part of.
   */
  overloaded(
    reason: BackoffReason,
    detail: string,
    sentAt: number,
    now: number,
    rps: number | undefined,
    pausedUntil?: number,
  ): Backoff | undefined {
    if (!this.options.adaptive) {
      // The limits are fixed; a pause is still a back-off the report states.
      return pausedUntil !== undefined ? this.note(reason, detail, now, rps, pausedUntil) : undefined;
    }
    if (sentAt < this.lastDecreaseAt) {
      return pausedUntil !== undefined ? this.note(reason, detail, now, rps, pausedUntil) : undefined;
    }
    return this.decrease(0.5, reason, detail, now, rps, pausedUntil);
  }

  /** Records a slow-down that changes no window (a pause, a quota learned). */
  note(
    reason: BackoffReason,
    detail: string,
    now: number,
    rps: number | undefined,
    pausedUntil?: number,
  ): Backoff {
    const backoff: Backoff = {
      at: now,
      reason,
      detail,
      concurrency: this.concurrency(),
      rps: rps === undefined ? undefined : Math.round(rps * 10) / 10,
      ...(pausedUntil !== undefined ? { pausedUntil } : {}),
    };
    this.backoffList.push(backoff);
    return backoff;
  }

  /** Whether a signal about a request sent at `sentAt` comes after the last decrease. */
  fresh(sentAt: number): boolean {
    return sentAt >= this.lastDecreaseAt;
  }

  private decrease(
    factor: number,
    reason: BackoffReason,
    detail: string,
    now: number,
    rps: number | undefined,
    pausedUntil?: number,
  ): Backoff {
    this.window = Math.max(1, Math.floor(this.window * factor));
    this.threshold = this.window;
    this.lastDecreaseAt = now;
    this.smoothedMs = undefined;
    this.samples = 0;
    return this.note(reason, detail, now, rps, pausedUntil);
  }

  /** What this process did, for the report. */
  report(): PolitenessReport {
    return {
      adaptive: this.options.adaptive,
      requests: this.requests,
      firstSentAt: this.firstSentAt,
      lastDoneAt: this.lastDoneAt,
      effectiveRps: effectiveRate(this.requests, this.firstSentAt, this.lastDoneAt),
      maxInFlight: this.maxInFlight,
      finalConcurrency: this.concurrency(),
      backoffs: [...this.backoffList],
    };
  }
}
