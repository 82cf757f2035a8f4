/**
 * Time as the suite's time-dependent logic sees it: the pace and its pauses, Retry-After, the
 * run's deadline, the settle window of a trailing replica, the timestamps of exchanges. It is
 * injected (TargetSession's `clock`), so that the self-tests drive that logic on a fake clock and
 * assert the decisions it takes, never how long a busy machine took to take them.
 *
 * The network's own timeouts (transport/wire.ts: undici's headersTimeout and bodyTimeout, the
 * deadline of one exchange) stay on real time: they bound a real socket.
 */
export interface Clock {
  /** Epoch milliseconds, with a fraction of a millisecond. */
  now(): number;
  /** Resolves once `ms` milliseconds of this clock have passed. */
  sleep(ms: number): Promise<void>;
}

/**
 * The real clock: Node's monotonic high-resolution time from the process's epoch origin, so that
 * the exchanges of a run keep the order they completed in to a fraction of a millisecond.
 */
export const systemClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))),
};
