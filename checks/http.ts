/**
 * The suite's HTTP client: a thin layer over Playwright's APIRequestContext that records every
 * exchange with the bearer token redacted, builds curl commands that reproduce a request, and
 * refuses to send anything but GET in a read-only run.
 */
import type { APIRequestContext } from '@playwright/test';

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
  /** The status, or 0 when no HTTP response arrived (see `error`). */
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
  /** Per-request timeout in milliseconds. */
  timeoutMs?: number;
  /** Called with every exchange, in order. */
  onExchange?: (exchange: Exchange) => void;
}

export class HttpClient {
  private sent = 0;

  constructor(
    private readonly api: APIRequestContext,
    readonly options: HttpClientOptions,
  ) {}

  /** The number of requests sent so far. */
  get requestCount(): number {
    return this.sent;
  }

  url(path: string): string {
    return this.options.baseURL.replace(/\/+$/, '') + path;
  }

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
    const url = this.url(req.path);
    const request: RecordedRequest = {
      method,
      url,
      headers: recordedHeaders,
      ...(body !== undefined ? { body } : {}),
    };
    const started = performance.now();
    this.sent++;
    let exchange: Exchange;
    try {
      const response = await this.api.fetch(url, {
        method,
        headers,
        // A Buffer is sent byte for byte; a string with a JSON Content-Type would be re-encoded
        // by Playwright whenever it does not parse, so malformed JSON would never reach the target.
        ...(body !== undefined ? { data: Buffer.from(body, 'utf8') } : {}),
        failOnStatusCode: false,
        maxRedirects: 0,
        timeout: this.options.timeoutMs ?? 30_000,
      });
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      exchange = {
        request,
        status: response.status(),
        headers: response.headers(),
        text,
        body: parsed,
        durationMs: performance.now() - started,
      };
      await response.dispose();
    } catch (error) {
      const message =
        (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'request failed';
      exchange = {
        request,
        status: 0,
        headers: {},
        text: '',
        body: undefined,
        error: message.split(this.options.token).join(REDACTED_TOKEN),
        durationMs: performance.now() - started,
      };
    }
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
