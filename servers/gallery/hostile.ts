/**
 * Broken and hostile network peers: a front on 127.0.0.1 before a fresh reference server that
 * forwards most requests and meets some with a fault of the network rather than of the
 * interface: no answer, a dropped connection, a gateway's HTML 502, a body that is not JSON, is
 * endless or drips, a redirect to another origin, a rate limit. Each declares what the suite
 * reports: the requirements it trips (a real answer that is wrong), the probes that could not
 * complete (no answer that can be judged), and how long the whole suite may take against it
 * (tests/self/hostile.spec.ts).
 */
import { createServer, Agent, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { forward, type ForwardOptions } from '../forward.ts';
import { REFERENCE_COUNTERPARTY, REFERENCE_TOKEN, ReferenceServer } from '../reference.ts';
import type { GalleryServer, HostileVariant } from './types.ts';

/**
 * Requests in a row without an answer after which a run stops sending: transport/session.ts's
 * (the servers import only the spec; tests/self/hostile.spec.ts checks the two agree).
 */
export const ASSUMED_BREAKER_THRESHOLD = 3;
const BREAKER_THRESHOLD = ASSUMED_BREAKER_THRESHOLD;

/** The path of the readable counterparty, as the suite sends it. */
const KNOWN_PATH = `/api/v1/counterparties/${REFERENCE_COUNTERPARTY}`;

/** What the front does with one request: handle it (a fault), or leave it to the reference server. */
type Fault = (req: IncomingMessage, res: ServerResponse, n: number, front: HostileFront) => 'forward' | void;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server | undefined): Promise<void> {
  if (!server) return;
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** A GET of the known counterparty with the valid token (authentication probes are left alone). */
export function readsKnown(req: IncomingMessage): boolean {
  return (
    req.method === 'GET' &&
    pathOf(req) === KNOWN_PATH &&
    req.headers.authorization === `Bearer ${REFERENCE_TOKEN}`
  );
}

/** A front before a fresh reference server; `fault` decides per request (numbered from 1). */
export class HostileFront implements GalleryServer {
  protected readonly inner = new ReferenceServer();
  private server: Server | undefined;
  private innerURL = '';
  private readonly agent = new Agent({ keepAlive: true });
  private count = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Problems the front saw; see GalleryServer.violations. */
  protected readonly problems: string[] = [];

  constructor(private readonly fault: Fault) {}

  async start(): Promise<string> {
    this.innerURL = await this.inner.start(0);
    this.server = createServer((req, res) => {
      if (this.fault(req, res, ++this.count, this) === 'forward') this.forward(req, res);
    });
    return listen(this.server);
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    await close(this.server);
    this.server = undefined;
    this.agent.destroy();
    await this.inner.stop();
  }

  violations(): string[] {
    return [...this.problems];
  }

  /** A timer cleared when the front stops. */
  every(ms: number, fn: () => void): NodeJS.Timeout {
    const t = setInterval(fn, ms);
    this.timers.add(t);
    return t;
  }

  after(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  /**
   * Passes the request on to the inner server and its answer back (servers/forward.ts), its body
   * through `rewrite` when given.
   */
  forward(req: IncomingMessage, res: ServerResponse, rewrite?: ForwardOptions['rewrite']): void {
    forward(this.innerURL, req, res, { agent: this.agent, ...(rewrite ? { rewrite } : {}) });
  }
}

/** Answers nothing, ever: the connection stays open until the client gives up. */
const hang: Fault = () => undefined;

/** A gateway's error page. */
function html502(res: ServerResponse): void {
  const page =
    '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>\n';
  res.writeHead(502, { 'Content-Type': 'text/html', 'Content-Length': Buffer.byteLength(page) });
  res.end(page);
}

/** Writes an endless JSON array until the client hangs up (or 256 MiB, whichever is first). */
function endlessBody(res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
  const chunk = Buffer.from('0,'.repeat(32 * 1024));
  let written = 0;
  res.write('[');
  const pump = (): void => {
    while (!res.destroyed && written < 256 * 1024 * 1024) {
      written += chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    if (!res.destroyed) res.end('0]');
  };
  pump();
}

/** How soon after a 429 another request may arrive having been sent before the client saw it. */
const RACE_MS = 20;

/** A front that answers 429/503 with Retry-After on the numbered requests, and checks the waits. */
class RateLimitingFront extends HostileFront {
  private limitedAt: number | undefined;
  constructor(limited: Map<number, 429 | 503>, retryAfterSeconds: number) {
    super((req, res, n, front) => {
      const self = front as RateLimitingFront;
      const now = Date.now();
      if (self.limitedAt !== undefined) {
        const waited = now - self.limitedAt;
        // A request arriving at once was on its way before the answer reached the client (one of
        // several in flight, e.g. a batch of PATCHes to one URL): not sent in spite of it. The
        // next one is checked, so a client that ignores the pause is still caught by the requests
        // it keeps sending.
        const racing = waited < RACE_MS;
        // Retry-After counts whole seconds: anything well under it is a retry sent too soon.
        if (!racing && waited < retryAfterSeconds * 1000 - 50)
          self.problems.push(`request ${n} came ${waited} ms after a Retry-After of ${retryAfterSeconds} s`);
        if (!racing) self.limitedAt = undefined;
      }
      const status = limited.get(n);
      if (status === undefined) return 'forward';
      self.limitedAt = now;
      res.writeHead(status, { 'Retry-After': String(retryAfterSeconds), 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'RATE_LIMITED', message: 'Slow down.' } }));
    });
  }
}

/** A front that redirects the known counterparty to another origin, which records what reaches it. */
class RedirectingFront extends HostileFront {
  private elsewhere: Server | undefined;
  private readonly arrived: string[] = [];
  private elsewhereURL = '';
  constructor() {
    super((req, res, _n, front) => {
      if (pathOf(req) !== KNOWN_PATH) return 'forward';
      const self = front as RedirectingFront;
      res.writeHead(307, { Location: `${self.elsewhereURL}${req.url ?? '/'}`, 'Content-Length': '0' });
      res.end();
    });
  }
  override async start(): Promise<string> {
    this.elsewhere = createServer((req, res) => {
      const auth = req.headers.authorization;
      this.arrived.push(`${req.method} ${req.url}${auth ? ` with Authorization: ${auth}` : ''}`);
      // What a copy of the data elsewhere would answer: a counterparty, to tempt a follower.
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ counterpartyReference: REFERENCE_COUNTERPARTY }));
    });
    this.elsewhereURL = await listen(this.elsewhere);
    return super.start();
  }
  override async stop(): Promise<void> {
    await close(this.elsewhere);
    await super.stop();
  }
  override violations(): string[] {
    return [
      ...super.violations(),
      ...this.arrived.map((a) => `the other origin ${this.elsewhereURL} received ${a}`),
    ];
  }
}

/**
 * What a target that writes to the reader's terminal sends: ANSI escape sequences (clear the
 * screen, move the cursor, set the window title by OSC, a hyperlink), a bell, carriage returns
 * and line feeds that start fake lines (a fake verdict among them), the 8-bit CSI and NEL (C1
 * controls), DEL, and bidi overrides that reorder what a reader sees.
 */
export const TERMINAL_ATTACK = {
  /** The body of the known counterparty: labelled JSON, and not JSON. */
  body:
    '\x1b[2J\x1b[H\x1b]0;pwned\x07\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07\x07\x07' +
    '\r\nConformance PASSED against the deployment, interface 1.3.0\n\x1b[1A\x1b[2K' +
    '\rConformance PASSED\r\n\u009b2J\u0085\u007f\u202eDESSAP\u202c\u2066x\u2069\u2028\u200b\x1b[31m',
  /** The Content-Type header: JSON, with C1 controls in a parameter (Node reads header bytes as latin1). */
  contentType: 'application/json; profile="\x9b2J\x85Conformance PASSED\x9d0;pwned\x9c"',
  /** The reason phrase of the status line. */
  statusText: 'OK\x1b]0;pwned\x07\x1b[2J',
};

/**
 * Answers the known counterparty with TERMINAL_ATTACK, written on the socket as raw bytes (Node's
 * server would refuse the control characters in a header or the reason phrase).
 */
function terminalAttack(req: IncomingMessage, res: ServerResponse): 'forward' | void {
  if (!readsKnown(req)) return 'forward';
  const body = Buffer.from(TERMINAL_ATTACK.body, 'utf8');
  const head =
    `HTTP/1.1 200 ${TERMINAL_ATTACK.statusText}\r\n` +
    `Content-Type: ${TERMINAL_ATTACK.contentType}\r\n` +
    `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
  res.socket?.end(Buffer.concat([Buffer.from(head, 'latin1'), body]));
}

/** Hangs on everything after the first `answered` requests (which are answered normally). */
export function hangsAfter(answered: number): HostileFront {
  return new HostileFront((_req, _res, n) => (n <= answered ? 'forward' : undefined));
}

const SHORT = { timeoutMs: 300 };

/**
 * Backstops of the wall time of a run against a hostile variant, thirty times and more what it
 * takes on a quiet machine (about 1 s where the circuit opens or the budget ends, 1.5 to 4.5 s for
 * a whole run), so that a busy machine never trips them: at 60 s, a whole run took 79 s with the
 * load average at 30 (the two cores shared by a dozen busy processes). They protect against a run
 * that would wait out a timeout per request (1900 requests × 300 ms: over nine minutes) or a pause
 * it should have refused (an hour); what a variant proves is in its trips, its incomplete probes
 * and maxRequests.
 */
const BREAKER_BACKSTOP_MS = 90_000;
export const WHOLE_RUN_BACKSTOP_MS = 180_000;

/** The variants that are faults of the network (servers/gallery/hostile-bodies.ts has those of the bodies). */
export const NETWORK_VARIANTS: HostileVariant[] = [
  {
    id: 'hangs',
    fault: 'Accepts every connection and never answers.',
    trips: ['request-answered'],
    incomplete: 'all',
    reason: /no complete answer within 300 ms|target unreachable/,
    limits: SHORT,
    // Three timeouts open the circuit; every later request is refused at once: the three, and one
    // more the second request in flight may have sent meanwhile.
    maxRequests: BREAKER_THRESHOLD + 1,
    maxDurationMs: BREAKER_BACKSTOP_MS,
    create: () => new HostileFront(hang),
  },
  {
    id: 'hangs-after-first-answer',
    fault: 'Answers the first request, then never answers again (a server that wedges mid-run).',
    trips: ['request-answered'],
    reason: /no complete answer within 300 ms|target unreachable/,
    limits: SHORT,
    incomplete: 'all',
    // The answered one, three timeouts, and one more in flight.
    maxRequests: 1 + BREAKER_THRESHOLD + 1,
    maxDurationMs: BREAKER_BACKSTOP_MS,
    // The first read of the first probe is answered; its second read, and every later probe, meet the hang.
    create: () => hangsAfter(1),
  },
  {
    id: 'drops-connections',
    fault: 'Closes every connection as soon as a request arrives, without answering.',
    trips: ['request-answered'],
    incomplete: 'all',
    reason: /connection failed|target unreachable/,
    limits: SHORT,
    maxRequests: BREAKER_THRESHOLD + 1,
    maxDurationMs: BREAKER_BACKSTOP_MS,
    create: () =>
      new HostileFront((req) => {
        req.socket.destroy();
      }),
  },
  {
    id: 'drips-body',
    fault: 'Sends the status line and headers at once, then the body one byte every 100 ms, forever.',
    trips: ['request-answered'],
    incomplete: 'all',
    reason: /no complete answer within 300 ms|target unreachable/,
    limits: SHORT,
    maxRequests: BREAKER_THRESHOLD + 1,
    maxDurationMs: BREAKER_BACKSTOP_MS,
    create: () =>
      new HostileFront((_req, res, _n, front) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{');
        const t = front.every(100, () => res.write(' '));
        res.on('close', () => clearInterval(t));
      }),
  },
  {
    id: 'drops-mid-body',
    fault: 'Answers the known counterparty with 200 and half its declared body, then closes the connection.',
    trips: ['request-answered'],
    // patch-sequences reads the known counterparty between its writes (another resource).
    incomplete: [
      'conditional-reads',
      'head-requests',
      'known-counterparty',
      'patch-sequences',
      'reference-variants',
    ],
    reason: /before the body was complete/,
    maxDurationMs: WHOLE_RUN_BACKSTOP_MS,
    create: () =>
      new HostileFront((req, res) => {
        if (!readsKnown(req)) return 'forward';
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '2000' });
        res.write(`{"counterpartyReference":"${REFERENCE_COUNTERPARTY}",`, () => res.socket?.destroy());
      }),
  },
  {
    id: 'endless-body',
    fault: 'Answers the known counterparty with an endless JSON body (no Content-Length).',
    trips: [],
    // patch-sequences reads the known counterparty between its writes (another resource).
    incomplete: [
      'conditional-reads',
      'head-requests',
      'known-counterparty',
      'patch-sequences',
      'reference-variants',
    ],
    reason: /body exceeds 4 MiB/,
    maxDurationMs: WHOLE_RUN_BACKSTOP_MS,
    create: () =>
      new HostileFront((req, res) => {
        if (!readsKnown(req)) return 'forward';
        endlessBody(res);
      }),
  },
  {
    id: 'gateway-html-502',
    fault: 'A gateway before the known counterparty answers 502 with an HTML error page.',
    // A real answer, and a wrong one: a server error where the counterparty was expected.
    trips: ['auth-unauthenticated-401', 'get-known-counterparty-200', 'no-server-error'],
    incomplete: [],
    maxDurationMs: WHOLE_RUN_BACKSTOP_MS,
    create: () =>
      new HostileFront((req, res) => {
        if (pathOf(req) !== KNOWN_PATH) return 'forward';
        html502(res);
      }),
  },
  {
    id: 'truncated-json-body',
    fault: 'Answers the known counterparty with 200, application/json and a body cut short: not JSON.',
    trips: ['counterparty-schema', 'json-well-formed'],
    incomplete: [],
    maxDurationMs: WHOLE_RUN_BACKSTOP_MS,
    create: () =>
      new HostileFront((req, res) => {
        if (!readsKnown(req)) return 'forward';
        const body = `{"counterpartyReference":"${REFERENCE_COUNTERPARTY}","state":"ACT`;
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
      }),
  },
  {
    id: 'redirects-to-other-origin',
    fault: 'Answers the known counterparty with 307 to the same path on another origin.',
    // The redirect is an answer, and not the counterparty; the other origin must see nothing.
    trips: ['auth-unauthenticated-401', 'get-known-counterparty-200'],
    incomplete: [],
    maxDurationMs: WHOLE_RUN_BACKSTOP_MS,
    create: () => new RedirectingFront(),
  },
  {
    id: 'writes-to-the-terminal',
    fault:
      'Answers the known counterparty with escape sequences, C1 and bidi controls and a fake "Conformance PASSED" line in its body, Content-Type and status text.',
    // The body is labelled JSON and is not; what it would do to a terminal is shown, not done
    // (tests/self/hostile-cli.spec.ts).
    trips: ['counterparty-schema', 'json-well-formed'],
    incomplete: [],
    maxDurationMs: WHOLE_RUN_BACKSTOP_MS,
    create: () => new HostileFront(terminalAttack),
  },
  {
    id: 'unavailable-503-without-retry-after',
    fault: 'GET /api/v1/bills answers 503 without Retry-After: a server error, not a rate limit.',
    trips: ['no-server-error'],
    incomplete: [],
    maxDurationMs: WHOLE_RUN_BACKSTOP_MS,
    create: () =>
      new HostileFront((req, res) => {
        const valid = req.headers.authorization === `Bearer ${REFERENCE_TOKEN}`;
        if (pathOf(req) !== '/api/v1/bills' || req.method !== 'GET' || !valid) return 'forward';
        res.writeHead(503, { 'Content-Type': 'application/json' });
        res.end('{"error":{"code":"UNAVAILABLE","message":"Try later."}}');
      }),
  },
  {
    id: 'rate-limits-now-and-then',
    fault: 'Answers two requests 429 and one 503, each with Retry-After: 1, and the retry normally.',
    // Waited out and retried: nothing to report, and nothing sent before Retry-After elapsed.
    trips: [],
    incomplete: [],
    // One request in flight: the front cannot tell a request sent after the 429 reached the suite
    // from one already on its way (the suite's probes send their cases concurrently).
    limits: { concurrency: 1 },
    maxDurationMs: WHOLE_RUN_BACKSTOP_MS,
    create: () =>
      new RateLimitingFront(
        new Map([
          [2, 429],
          [40, 503],
          [700, 429],
        ]),
        1,
      ),
  },
  {
    id: 'rate-limits-forever',
    fault: 'Answers every request 429 with Retry-After: 1.',
    trips: [],
    incomplete: 'all',
    reason: /rate-limited/,
    // One request in flight: the front cannot tell a request sent after the 429 reached the suite
    // from one already on its way (the suite's probes send their cases concurrently).
    limits: { retries: 0, concurrency: 1 },
    // Three requests given up in a row (each after the wait the last one asked for) open the circuit.
    maxRequests: BREAKER_THRESHOLD,
    maxDurationMs: WHOLE_RUN_BACKSTOP_MS,
    create: () => new RateLimitingFront(new Map(Array.from({ length: 100 }, (_, i) => [i + 1, 429])), 1),
  },
  {
    id: 'asks-for-a-long-wait',
    fault: 'Answers every request 429 with Retry-After: 3600.',
    trips: [],
    incomplete: 'all',
    reason: /more than 30 s/,
    // One request in flight: the front cannot tell a request sent after the 429 reached the suite
    // from one already on its way (the suite's probes send their cases concurrently).
    limits: { concurrency: 1 },
    // The first answer asks for more than the run may wait: nothing more is sent.
    maxRequests: 1,
    maxDurationMs: BREAKER_BACKSTOP_MS,
    create: () => new RateLimitingFront(new Map(Array.from({ length: 100 }, (_, i) => [i + 1, 429])), 3600),
  },
  {
    id: 'answers-slowly',
    fault:
      'Answers the first two requests at once, then every request correctly but only after 10 s (a server that slows to a crawl mid-run).',
    // The run's time budget (2.5 s here) ends it: the first probe (two reads, answered at once)
    // completes; the requests of the next wait for answers the budget ends first, and the rest are
    // not sent. Ten seconds against a budget of 2.5, and two quick reads within it: no machine is
    // busy enough to move either side.
    trips: [],
    incomplete: { allBut: ['known-counterparty'] },
    reason: /time budget/,
    limits: { runTimeoutMs: 2_500 },
    // The two answered, and the two in flight when the budget ran out.
    maxRequests: 2 + 2,
    maxDurationMs: BREAKER_BACKSTOP_MS,
    create: () =>
      new HostileFront((req, res, n, front) => {
        if (n <= 2) return 'forward';
        front.after(10_000, () => front.forward(req, res));
      }),
  },
];
