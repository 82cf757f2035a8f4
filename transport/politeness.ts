/**
 * The limits a session keeps with its target (transport/session.ts). The type belongs to the
 * transport that keeps them; the configuration (config/config.ts) fills them in: the defaults of
 * a deployment and of the embedded server, and CONFORMANCE_RPS, CONFORMANCE_CONCURRENCY, ...
 */

/**
 * How gently a run treats its target (rate, concurrency, request budget) and how long it waits
 * for it (per request, per Retry-After, per run). See transport/session.ts for what each one does.
 */
export interface Politeness {
  /**
   * Learn the pace from the target's answers (a deployment): start with a few requests in flight,
   * grow while latency holds, back off on 429/503, rising latency and RateLimit headers, within
   * the caps below (transport/limiter.ts). false: the caps are the limits (the embedded server).
   */
  adaptive: boolean;
  /** The most requests per second across the run (CONFORMANCE_RPS); 0: no cap. */
  rps: number;
  /** The most requests in flight at once across the run (CONFORMANCE_CONCURRENCY). */
  concurrency: number;
  /** The most one exchange may take, from connecting to the last byte (CONFORMANCE_TIMEOUT_MS). */
  timeoutMs: number;
  /** The most requests a run sends, retries included (CONFORMANCE_MAX_REQUESTS). */
  maxRequests: number;
  /** Retries of a 429, or a 503 with Retry-After, before the request counts as rate-limited (CONFORMANCE_RETRIES). */
  retries: number;
  /** The longest Retry-After the run waits out (CONFORMANCE_MAX_RETRY_WAIT_MS). */
  maxRetryWaitMs: number;
  /** The largest response body read (CONFORMANCE_MAX_RESPONSE_BYTES). */
  maxResponseBytes: number;
  /** The whole run's time budget (CONFORMANCE_RUN_TIMEOUT_MS). */
  runTimeoutMs: number;
}
