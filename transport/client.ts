/**
 * The suite's HTTP client: sends a probe's requests through the run's TargetSession
 * (transport/session.ts: rate, concurrency, budget, retries of 429/503, circuit breaker) onto the
 * wire (transport/wire.ts: a deadline per exchange, a cap on the body, no redirects followed),
 * and hands every exchange, labelled with the probe that sent it, to `record` (in a run,
 * RunContext.record of engine/run.ts, which appends it to the log and judges it). What the records
 * show of a request is written with the token as $API_TOKEN; what the target sends back is
 * redacted on arrival, before anything parses it (exchange/redact-exchange.ts redactedAnswer). A
 * request that goes out and gets no complete answer (a timeout, a dropped connection) is recorded
 * too, with status 0, so that the oracles judge it. It refuses to send anything but GET in a
 * read-only run.
 */
import { sentCredential } from '../exchange/auth-headers.ts';
import type { Exchange, RecordedRequest } from '../exchange/exchange.ts';
import type { ExtraHeader } from '../exchange/extra-headers.ts';
import { MIN_SEARCHED_LENGTH, REDACTED_TOKEN, REDACTED_VARIANT, type Redactor } from '../exchange/redact.ts';
import { redactedAnswer } from '../exchange/redact-exchange.ts';
import { runRedactor } from '../exchange/redactors.ts';
import { TargetUnavailable, type SessionResponse, type TargetSession } from './session.ts';
import type { Clock } from './clock.ts';
import type { Interruption } from './stop.ts';

export { TargetUnavailable } from './session.ts';

/**
 * How a request authenticates: the configured token, none, or a given Authorization value, with
 * what the records show of it where it is derived from the token (a near miss of the token would
 * otherwise show all of it but one character): `recorded`, redacted as well.
 */
export type Auth = 'token' | 'none' | { authorization: string; recorded?: string };

export interface HttpRequest {
  method: string;
  /** Path below the base URL, already percent-encoded, e.g. /api/v1/counterparties/abc. */
  path: string;
  auth?: Auth;
  headers?: Record<string, string>;
  /** A JSON body (serialised with JSON.stringify). */
  json?: unknown;
  /** A raw body, sent as is: text (malformed JSON, a multipart body), or bytes (an image). */
  rawBody?: string | Uint8Array;
  /** Send `rawBody` with no Content-Type field at all (a body a client forgot to label). */
  unlabelled?: boolean;
  /** What the request is for in its probe ('read before PATCH', 'restore', ...), for the report. */
  role?: string;
  /**
   * Housekeeping: it puts back what the run changed, so it is still sent after the run was
   * interrupted (transport/session.ts).
   */
  housekeeping?: boolean;
}

/**
 * How the requests sent with the configured token were answered: how many got a complete answer,
 * how many of those succeeded (2xx), and how many were 401 and 403. None succeeding and most
 * refused says the token is wrong, not the deployment (reporter/hints.ts).
 */
export interface TokenAnswers {
  answered: number;
  succeeded: number;
  unauthorized: number;
  forbidden: number;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Transport failures that mean a request went out and got no complete answer. */
const UNANSWERED = new Set(['timeout', 'connection']);

export class ReadOnlyViolation extends Error {
  override readonly name = 'ReadOnlyViolation';
}

export interface HttpClientOptions {
  baseURL: string;
  token: string;
  allowWrites: boolean;
  /**
   * What becomes of every exchange as it completes: in a run, RunContext.record (engine/run.ts)
   * appends it to the log and judges it; a client of its own hands it to an ExchangeLog's append.
   * Returns it with its id.
   */
  record: (exchange: Omit<Exchange, 'id'>) => Exchange;
  /** The probe whose requests these are. */
  probe?: string;
  /** Sent on every request, under the probe's own headers (config/headers.ts). */
  extraHeaders?: readonly ExtraHeader[];
}

const USER_AGENT = 'payflow-conformance';

export class HttpClient {
  private sent = 0;
  private readonly withToken: TokenAnswers = { answered: 0, succeeded: 0, unauthorized: 0, forbidden: 0 };
  /**
   * Every credential this client knows it puts on the wire, in every form a target may echo it
   * (exchange/redact.ts): the token and what the suite derives from it, the secret extra headers'
   * values (the deployment's credentials, not data: replaced wherever they occur), and each
   * credential a request carries, registered as it is sent.
   */
  private readonly redactor: Redactor;

  constructor(
    private readonly session: TargetSession,
    readonly options: HttpClientOptions,
  ) {
    this.redactor = runRedactor(options.token, options.extraHeaders ?? []);
  }

  /** The number of requests sent so far, retries included. */
  get requestCount(): number {
    return this.sent;
  }

  /** How the requests sent with the configured token were answered so far. */
  get tokenAnswers(): TokenAnswers {
    return { ...this.withToken };
  }

  /** The run's clock: the exchanges are timed on it, and a probe waits on it (a settle window). */
  get clock(): Clock {
    return this.session.clock;
  }

  /** Whether the run was interrupted: then only housekeeping requests are sent. */
  interruption(): Interruption | undefined {
    return this.session.interruption();
  }

  url(path: string): string {
    return this.options.baseURL.replace(/\/+$/, '') + path;
  }

  /**
   * Sends a request and returns the complete answer, whatever its status (a 3xx is an answer:
   * redirects are never followed), as recorded. Throws TargetUnavailable when no answer can be
   * judged (see transport/session.ts), with the request filled in.
   */
  async send(req: HttpRequest): Promise<Exchange> {
    const method = req.method.toUpperCase();
    if (!SAFE_METHODS.has(method) && !this.options.allowWrites) {
      throw new ReadOnlyViolation(`read-only run: refusing to send ${method} ${req.path}`);
    }
    const auth = req.auth ?? 'token';
    const { headers, recorded } = this.headersOf(req, auth);
    const body = bodyOf(req, headers, recorded);
    headers['User-Agent'] ??= USER_AGENT;
    const url = this.url(req.path);
    const request = recordedRequest(method, url, recorded, body);
    const origin = {
      ...(this.options.probe !== undefined ? { probe: this.options.probe } : {}),
      ...(req.role !== undefined ? { role: req.role } : {}),
    };
    // On the session's clock (transport/clock.ts), sub-millisecond, as the duration: the start plus
    // the duration orders the exchanges of a run as they completed, in its exchanges.har too.
    const clock = this.session.clock;
    const startedAt = clock.now();
    let answer: SessionResponse;
    try {
      // The body goes byte for byte, so malformed JSON reaches the target as written.
      answer = await this.session.exchange(
        method,
        new URL(url),
        headers,
        body === undefined
          ? undefined
          : typeof body === 'string'
            ? Buffer.from(body, 'utf8')
            : Buffer.from(body),
        { housekeeping: req.housekeeping === true },
      );
    } catch (error) {
      if (error instanceof TargetUnavailable) this.unanswered(error, request, origin, startedAt);
      throw error;
    }
    this.sent += answer.attempts;
    const { response } = answer;
    if (auth === 'token') this.countTokenAnswer(response.status);
    const seen = redactedAnswer(this.redactor, response.body.toString('utf8'), response.headers);
    return this.options.record({
      request,
      status: response.status,
      headers: seen.headers,
      text: seen.text,
      body: seen.body,
      ...(seen.tooDeep !== undefined ? { tooDeep: seen.tooDeep } : {}),
      startedAt,
      durationMs: clock.now() - startedAt,
      attempts: answer.attempts,
      origin,
    });
  }

  /**
   * The header fields of a request (Accept, the extra headers, the probe's own, the credentials),
   * and as the records show them: a secret extra header as its variable, the token as $API_TOKEN,
   * another credential as the redactor shows it once it is registered.
   */
  private headersOf(
    req: HttpRequest,
    auth: Auth,
  ): { headers: Record<string, string>; recorded: Record<string, string> } {
    const extra = this.options.extraHeaders ?? [];
    // Spread and Object.fromEntries define keys: a field named __proto__ is a field like any other.
    const headers: Record<string, string> = {
      Accept: 'application/json',
      ...Object.fromEntries(extra.map((h) => [h.name, h.value])),
      ...req.headers,
    };
    const recorded: Record<string, string> = {
      Accept: 'application/json',
      // A secret is recorded as the variable it is read from, as the token is ($API_TOKEN).
      ...Object.fromEntries(extra.map((h) => [h.name, h.secret ? `$${h.variable}` : h.value])),
      ...req.headers,
    };
    if (auth === 'token') {
      headers.Authorization = `Bearer ${this.options.token}`;
      recorded.Authorization = `Bearer ${REDACTED_TOKEN}`;
    } else if (auth !== 'none') {
      headers.Authorization = auth.authorization;
      // By construction: what goes on the wire is known, whatever form the target echoes it in.
      const credential = sentCredential(auth.authorization);
      if (credential !== undefined && credential !== this.options.token) {
        const everywhere = this.options.token.length >= MIN_SEARCHED_LENGTH;
        this.redactor.add({ value: credential, shownAs: REDACTED_VARIANT, everywhere });
      }
      recorded.Authorization = this.redactor.header(auth.recorded ?? auth.authorization);
    }
    return { headers, recorded };
  }

  /**
   * A request the session could not have answered: its attempts counted, the request and the
   * redacted message set on the error, and, where it went out and got no complete answer, an
   * exchange with status 0 recorded for the oracles.
   */
  private unanswered(
    error: TargetUnavailable,
    request: RecordedRequest,
    origin: Exchange['origin'],
    startedAt: number,
  ): void {
    this.sent += error.attempts;
    error.request = request;
    error.message = this.redactor.text(error.message);
    if (error.attempts === 0 || !UNANSWERED.has(error.kind)) return;
    this.options.record({
      request,
      status: 0,
      headers: {},
      text: '',
      body: undefined,
      failure: { kind: error.kind, message: error.message },
      startedAt,
      durationMs: this.session.clock.now() - startedAt,
      attempts: error.attempts,
      origin,
    });
  }

  private countTokenAnswer(status: number): void {
    this.withToken.answered++;
    if (status >= 200 && status <= 299) this.withToken.succeeded++;
    if (status === 401) this.withToken.unauthorized++;
    if (status === 403) this.withToken.forbidden++;
  }
}

/**
 * The body of a request (JSON serialised, or raw text or bytes as given), with its Content-Type
 * set in both the fields sent and the fields recorded, unless it goes unlabelled.
 */
function bodyOf(
  req: HttpRequest,
  headers: Record<string, string>,
  recorded: Record<string, string>,
): string | Uint8Array | undefined {
  const json = req.json !== undefined;
  const body = json ? JSON.stringify(req.json) : req.rawBody;
  if (json || (req.rawBody !== undefined && !req.unlabelled)) {
    headers['Content-Type'] ??= 'application/json';
    recorded['Content-Type'] ??= 'application/json';
  }
  return body;
}

/** The request as the records show it: bytes in base64, so the log, the HAR and the curl line carry them unchanged. */
function recordedRequest(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
): RecordedRequest {
  return {
    method,
    url,
    headers,
    ...(typeof body === 'string' ? { body } : {}),
    ...(body instanceof Uint8Array
      ? { body: Buffer.from(body).toString('base64'), bodyEncoding: 'base64' as const }
      : {}),
  };
}
