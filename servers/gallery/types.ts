/** The shape of a faulty variant of the reference server, and of a hostile one. */
import type { RequirementId } from '../../spec/requirements.ts';
import type { ReferenceOptions, ReferenceServer } from '../reference.ts';

export interface Variant {
  /** kebab-case, unique in the gallery. */
  id: string;
  /** One sentence: what is wrong. */
  fault: string;
  /** Exactly the requirements the suite reports failed (MUST) or warned (SHOULD) for this variant. */
  trips: RequirementId[];
  /**
   * The probes whose traffic alone shows the fault, where none that its requirements select (as
   * `--requirement` selects) sends such traffic: a fault on answers no probe aims at, such as the
   * headers of a 401. The gallery runs them besides the selection.
   */
  shownBy?: string[];
  /** The settle window (CONFORMANCE_SETTLE_MS) of the run against it; default 0: none. */
  settleMs?: number;
  /**
   * `options.now`: the clock of the run judging it, for a variant whose fault is a matter of time
   * (a replica that trails); the others ignore it, and the gallery gives their servers the run's
   * clock after (ReferenceServer.useClock).
   */
  create(options?: Pick<ReferenceOptions, 'now'>): ReferenceServer;
}

/** A server of the gallery: anything that listens on 127.0.0.1 and stops. */
export interface GalleryServer {
  /** Listens on 127.0.0.1 (port 0: a free port); resolves the base URL. */
  start(port?: number): Promise<string>;
  stop(): Promise<void>;
  /**
   * What the server saw that a safe client must never cause (a request, or a bearer token, sent to
   * the origin a redirect named; a retry sent before Retry-After elapsed); empty: nothing.
   */
  violations?(): string[];
}

/** The limits a run against a hostile variant keeps (see config/config.ts, Politeness). */
export interface HostileLimits {
  concurrency?: number;
  timeoutMs?: number;
  retries?: number;
  maxRetryWaitMs?: number;
  maxResponseBytes?: number;
  runTimeoutMs?: number;
}

/**
 * A server that is broken or hostile as a network peer (hangs, drops connections, rate-limits,
 * sends huge, endless or slow bodies, redirects elsewhere) rather than wrong about the interface.
 * The suite must stay right about what it could judge, report what it could not, and finish in
 * bounded time.
 */
export interface HostileVariant {
  id: string;
  fault: string;
  /** Exactly the requirements reported failed or warned (often none: nothing could be judged). */
  trips: RequirementId[];
  /** Exactly the checks reported as unable to complete: these, every check, or all but these. */
  incomplete: string[] | 'all' | { allBut: string[] };
  /** What the reason of every incomplete check says. */
  reason?: RegExp;
  /** Limits other than the embedded server's for the run against it (short timeouts). */
  limits?: HostileLimits;
  /**
   * The most requests the run may send against it, where the point is that it stops sending (the
   * circuit opens, a pause is refused, the budget ends): counted, so no machine's load moves it.
   */
  maxRequests?: number;
  /**
   * A backstop of the wall time of the whole suite against it: ten times and more what it takes on
   * a quiet machine, against a run that waits out a timeout per request or a pause it should refuse.
   */
  maxDurationMs: number;
  /**
   * The probes the run against it selects (default: every one), where the whole suite would cost
   * the self-tests minutes and prove no more than a few probes of each kind do.
   */
  probes?: readonly string[];
  create(): GalleryServer;
}
