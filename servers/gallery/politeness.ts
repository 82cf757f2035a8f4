/**
 * Clean servers that are hard to be polite to: the reference server behind a rate limit of 40
 * requests/s (announced in RateLimit headers, or not announced at all), and behind a front whose
 * latency rises with the requests in flight. They are right about the interface, so a run with
 * the default (adaptive) pace must report nothing against them, complete every probe, and take
 * about the time the limit allows (tests/self/politeness-gallery.spec.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HostileFront } from './hostile.ts';
import type { GalleryServer } from './types.ts';

/** What a politeness front saw: answers of each status, the most requests in flight at once. */
export interface FrontStats {
  requests: number;
  limited: number;
  maxInFlight: number;
}

export interface PolitenessServer extends GalleryServer {
  stats(): FrontStats;
}

export interface PolitenessVariant {
  id: string;
  /** One sentence: what the server does (nothing wrong: it is clean). */
  behaviour: string;
  /** The requests per second it sustains; undefined: no rate limit. */
  limitRps?: number;
  create(): PolitenessServer;
}

/**
 * A token bucket: `rate` tokens a second, at most `capacity` held, full at the start. `now` is
 * injectable, for a test with a fake clock.
 */
export class TokenBucket {
  private tokens: number;
  private at: number;
  constructor(
    readonly rate: number,
    readonly capacity: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = capacity;
    this.at = now();
  }
  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((t - this.at) * this.rate) / 1000);
    this.at = t;
  }
  /** Takes a token if there is one. */
  take(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
  /** Whole tokens left. */
  left(): number {
    this.refill();
    return Math.floor(this.tokens);
  }
  /** Whole seconds (at least 1) until the bucket is full again. */
  secondsToFull(): number {
    this.refill();
    return Math.max(1, Math.ceil((this.capacity - this.tokens) / this.rate));
  }
}

/** A front before a fresh reference server that counts what it sees. */
class CountingFront extends HostileFront implements PolitenessServer {
  protected readonly counts: FrontStats = { requests: 0, limited: 0, maxInFlight: 0 };
  private inFlight = 0;
  constructor(handle: (req: IncomingMessage, res: ServerResponse, front: CountingFront) => 'forward' | void) {
    super((req, res, _n, front) => {
      const self = front as CountingFront;
      self.counts.requests++;
      self.inFlight++;
      self.counts.maxInFlight = Math.max(self.counts.maxInFlight, self.inFlight);
      res.on('close', () => self.inFlight--);
      return handle(req, res, self);
    });
  }
  stats(): FrontStats {
    return { ...this.counts };
  }
  /** Requests in flight now, this one included. */
  current(): number {
    return this.inFlight;
  }
  limitedOnce(): void {
    this.counts.limited++;
  }
}

/** The rate limit of the variants: requests/s, and the burst a full bucket allows. */
export const LIMIT_RPS = 40;

function tooMany(res: ServerResponse, headers: Record<string, string>): void {
  res.writeHead(429, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ error: { code: 'RATE_LIMITED', message: 'Too many requests.' } }));
}

/** What a rate limit does with one request: lets it through, or refuses it (429), with these headers. */
export interface LimitDecision {
  allowed: boolean;
  headers: Record<string, string>;
}

/**
 * The announced limit's decision: 40 requests/s (a bucket of 40), announced on every answer in the
 * current draft's Structured Fields; beyond it, 429 with Retry-After and the same headers. The
 * front below and the fake-clock simulation of tests/self/politeness-gallery.spec.ts share it.
 */
export function announcedDecision(bucket: TokenBucket): LimitDecision {
  const allowed = bucket.take();
  const headers: Record<string, string> = {
    'RateLimit-Policy': `"default";q=${LIMIT_RPS};w=1`,
    RateLimit: `"default";r=${bucket.left()};t=${bucket.secondsToFull()}`,
  };
  return { allowed, headers: allowed ? headers : { ...headers, 'Retry-After': '1' } };
}

/** The silent limit's decision: a bare 429 beyond 40 requests/s, no header saying so. */
export function silentDecision(bucket: TokenBucket): LimitDecision {
  return { allowed: bucket.take(), headers: {} };
}

/** 40 requests/s (a bucket of 40), announced; beyond it, 429 with Retry-After (announcedDecision). */
function announcedLimit(): PolitenessServer {
  const bucket = new TokenBucket(LIMIT_RPS, LIMIT_RPS);
  return new CountingFront((_req, res, front) => {
    const { allowed, headers } = announcedDecision(bucket);
    if (!allowed) {
      front.limitedOnce();
      tooMany(res, headers);
      return;
    }
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    return 'forward';
  });
}

/** 40 requests/s (a bucket of 40); beyond it a bare 429: no Retry-After, no RateLimit header. */
function silentLimit(): PolitenessServer {
  const bucket = new TokenBucket(LIMIT_RPS, LIMIT_RPS);
  return new CountingFront((_req, res, front) => {
    if (silentDecision(bucket).allowed) return 'forward';
    front.limitedOnce();
    tooMany(res, {});
  });
}

/** Requests in flight the latency front serves without delay. */
export const CAPACITY_IN_FLIGHT = 6;
/** The delay each request in flight beyond that capacity adds to every answer. */
export const DELAY_PER_EXCESS_MS = 25;

/** The delay the latency front adds to an answer with `inFlight` requests in flight (this one included). */
export function delayUnderLoad(inFlight: number): number {
  return DELAY_PER_EXCESS_MS * Math.max(0, inFlight - CAPACITY_IN_FLIGHT);
}

/** Answers after a delay that rises with the requests in flight beyond CAPACITY_IN_FLIGHT. */
function slowsUnderLoad(): PolitenessServer {
  return new CountingFront((req, res, front) => {
    const delay = delayUnderLoad(front.current());
    if (delay === 0) return 'forward';
    front.after(delay, () => front.forward(req, res));
  });
}

export const POLITENESS_VARIANTS: PolitenessVariant[] = [
  {
    id: 'rate-limited-announced',
    behaviour:
      'Allows 40 requests/s (a token bucket), announced in RateLimit-Policy and RateLimit on every answer; beyond it, 429 with Retry-After.',
    limitRps: LIMIT_RPS,
    create: announcedLimit,
  },
  {
    id: 'rate-limited-silent',
    behaviour: 'Allows 40 requests/s (a token bucket); beyond it, a bare 429 with no header saying so.',
    limitRps: LIMIT_RPS,
    create: silentLimit,
  },
  {
    id: 'slows-under-load',
    behaviour: `Answers at once up to ${CAPACITY_IN_FLIGHT} requests in flight, and ${DELAY_PER_EXCESS_MS} ms later for each one beyond.`,
    create: slowsUnderLoad,
  },
];
