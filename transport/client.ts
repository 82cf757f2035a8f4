/**
 * The suite's HTTP client: records every exchange with the bearer token redacted, builds curl
 * commands that reproduce a request, and refuses to send anything but GET in a read-only run.
 * Requests go through the run's TargetSession (transport/session.ts: rate, concurrency, budget,
 * retries of 429/503, circuit breaker) onto the wire (transport/wire.ts: a deadline per
 * exchange, a cap on the body, no redirects followed).
 */
import { TargetUnavailable, type SessionResponse, type TargetSession } from './session.ts';

export { TargetUnavailable } from './session.ts';

export const REDACTED_TOKEN = '$API_TOKEN';

/** How a request authenticates: the configured token, none, or a given Authorization value. */
export type Auth = 'token' | 'none' | { authorization: string };

export interface HttpRequest {
  method: string;
  /** Path below the base URL, already percent-encoded, e.g. /api/v1/counterparties/abc. */
  path: string;
  auth?: Auth;
  headers?: Record<string, string>;
  /** A JSON body (serialised with JSON.stringify). */
  json?: unknown;
  /** A raw body, sent as is (for malformed JSON). */
  rawBody?: string;
}

export interface RecordedRequest {
  method: string;
  url: string;
  /** Headers as sent, the configured token replaced by $API_TOKEN. */
  headers: Record<string, string>;
  body?: string;
}

export interface Exchange {
  request: RecordedRequest;
  /**
   * The status. Always a real one: a request without a complete answer throws TargetUnavailable
   * instead. (0 with `error` is kept for exchanges built by hand.)
   */
  status: number;
  /** Response headers, names in lower case. */
  headers: Record<string, string>;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: unknown;
  error?: string;
  durationMs: number;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export class ReadOnlyViolation extends Error {
  override readonly name = 'ReadOnlyViolation';
}

/** `text` with the token replaced by $API_TOKEN. */
export function redact(text: string, token: string): string {
  return token === '' ? text : text.split(token).join(REDACTED_TOKEN);
}

/** Percent-encodes one path segment: everything but RFC 3986 unreserved characters. */
export function encodePathSegment(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** Quotes a string for a POSIX shell. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A curl command reproducing a recorded request; the token is read from $API_TOKEN. */
export function curlCommand(req: RecordedRequest): string {
  const parts = ['curl', '-sS', '-i', '--path-as-is', '-g', '-X', req.method, shellQuote(req.url)];
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.toLowerCase() === 'authorization' && value.includes(REDACTED_TOKEN)) {
      // Double quotes so that the shell expands $API_TOKEN.
      parts.push('-H', `"${name}: ${value.replace(/["\\`]/g, '\\$&')}"`);
    } else {
      parts.push('-H', shellQuote(`${name}: ${value}`));
    }
  }
  if (req.body !== undefined) parts.push('--data-binary', shellQuote(req.body));
  return parts.join(' ');
}

export interface HttpClientOptions {
  baseURL: string;
  token: string;
  allowWrites: boolean;
  /** Called with every exchange, in order. */
  onExchange?: (exchange: Exchange) => void;
}

const USER_AGENT = 'payflow-conformance';

export class HttpClient {
  private sent = 0;

  constructor(
    private readonly session: TargetSession,
    readonly options: HttpClientOptions,
  ) {}

  /** The number of requests sent so far, retries included. */
  get requestCount(): number {
    return this.sent;
  }

  url(path: string): string {
    return this.options.baseURL.replace(/\/+$/, '') + path;
  }

  /**
   * Sends a request and returns the complete answer, whatever its status (a 3xx is an answer:
   * redirects are never followed). Throws TargetUnavailable when no answer can be judged (see
   * transport/session.ts), with the request filled in.
   */
  async send(req: HttpRequest): Promise<Exchange> {
    const method = req.method.toUpperCase();
    if (!SAFE_METHODS.has(method) && !this.options.allowWrites) {
      throw new ReadOnlyViolation(`read-only run: refusing to send ${method} ${req.path}`);
    }
    const headers: Record<string, string> = { Accept: 'application/json', ...req.headers };
    const recordedHeaders: Record<string, string> = { ...headers };
    const auth = req.auth ?? 'token';
    if (auth === 'token') {
      headers.Authorization = `Bearer ${this.options.token}`;
      recordedHeaders.Authorization = `Bearer ${REDACTED_TOKEN}`;
    } else if (auth !== 'none') {
      headers.Authorization = auth.authorization;
      recordedHeaders.Authorization = auth.authorization.split(this.options.token).join(REDACTED_TOKEN);
    }
    let body: string | undefined;
    if (req.json !== undefined) {
      body = JSON.stringify(req.json);
      headers['Content-Type'] ??= 'application/json';
      recordedHeaders['Content-Type'] ??= 'application/json';
    } else if (req.rawBody !== undefined) {
      body = req.rawBody;
      headers['Content-Type'] ??= 'application/json';
      recordedHeaders['Content-Type'] ??= 'application/json';
    }
    headers['User-Agent'] ??= USER_AGENT;
    const url = this.url(req.path);
    const request: RecordedRequest = {
      method,
      url,
      headers: recordedHeaders,
      ...(body !== undefined ? { body } : {}),
    };
    const started = performance.now();
    let answer: SessionResponse;
    try {
      // The body goes byte for byte, so malformed JSON reaches the target as written.
      answer = await this.session.exchange(
        method,
        new URL(url),
        headers,
        body !== undefined ? Buffer.from(body, 'utf8') : undefined,
      );
    } catch (error) {
      if (error instanceof TargetUnavailable) {
        this.sent += error.attempts;
        error.request = request;
        error.message = redact(error.message, this.options.token);
      }
      throw error;
    }
    this.sent += answer.attempts;
    const { response } = answer;
    // A server may echo the token (in an error message, a header): it is redacted on arrival, so
    // it cannot reach a finding, a report, Playwright's own output or a log.
    const token = this.options.token;
    const text = redact(response.body.toString('utf8'), token);
    const responseHeaders = Object.fromEntries(
      Object.entries(response.headers).map(([name, value]) => [name, redact(value, token)]),
    );
    let parsed: unknown;
    if (text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    const exchange: Exchange = {
      request,
      status: response.status,
      headers: responseHeaders,
      text,
      body: parsed,
      durationMs: performance.now() - started,
    };
    this.options.onExchange?.(exchange);
    return exchange;
  }
}

/** One line describing what came back, for a finding's `received`. */
export function describeResponse(ex: Exchange): string {
  if (ex.status === 0) return `no response (${ex.error ?? 'unknown error'})`;
  const type = ex.headers['content-type'];
  const snippet = ex.text.length > 300 ? `${ex.text.slice(0, 300)}…` : ex.text;
  return `${ex.status}${type ? ` (${type})` : ''}${snippet ? `: ${snippet}` : ''}`;
}
