/**
 * The one record of an HTTP exchange that every layer shares: the suite's own client makes one
 * per request, which the run appends to its log and judges (engine/run.ts RunContext.record), and
 * a recorded HAR file or a proxy yields the same shape.
 * Oracles judge exchanges without knowing how they were produced; `origin` says who sent one
 * (which probe, in which role) only so that a report can point back to it.
 */
import { readJsonBody } from './json-body.ts';

/** A request as it went out, the bearer token replaced by $API_TOKEN. */
export interface RecordedRequest {
  method: string;
  url: string;
  /** Header names as sent. */
  headers: Record<string, string>;
  /** The body as text, or, with `bodyEncoding` 'base64', its bytes in base64 (an image, say). */
  body?: string;
  /** 'base64': the body is bytes that are not text, written in base64. */
  bodyEncoding?: 'base64';
  /** Set when `body` is only the head of the body sent, kept within a budget (exchange/kept.ts). */
  bodyCut?: BodyCut;
}

/**
 * What stands for a body kept in part (exchange/kept.ts): the whole body's length and SHA-256, and
 * how many of its first bytes are kept.
 */
export interface BodyCut {
  /** The length of the whole body's text, in bytes (UTF-8; of its base64 text for bytes). */
  bytes: number;
  /** The SHA-256 of that text, in hex. */
  sha256: string;
  /** How many of its first bytes the kept text holds (0: none). */
  kept: number;
}

/** The bytes of a request's body (undefined: none). */
export function requestBodyBytes(req: RecordedRequest): Buffer | undefined {
  if (req.body === undefined) return undefined;
  return Buffer.from(req.body, req.bodyEncoding === 'base64' ? 'base64' : 'utf8');
}

/** Why a request got no complete answer (status 0). */
export interface ExchangeFailure {
  /** timeout, connection, too-large (the body cap), rate-limited, ... */
  kind: string;
  message: string;
}

/** Who sent an exchange, for the report: a probe of the suite, a HAR entry, the proxy. */
export interface ExchangeOrigin {
  /** The probe that sent it. */
  probe?: string;
  /** What the request was for in its probe: 'read before PATCH', 'PATCH', 'read after PATCH', 'restore', ... */
  role?: string;
  /** The index of the entry in a HAR file. */
  harEntry?: number;
  /** The number of the exchange in a proxy session, from 1. */
  proxied?: number;
}

export interface Exchange {
  /** Position in its log, from 1. */
  id: number;
  request: RecordedRequest;
  /** The status; 0 when no complete answer came (see `failure`). */
  status: number;
  /** Response headers, names in lower case, repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The response body as text (UTF-8). */
  text: string;
  /**
   * The parsed JSON body, or undefined when the body is empty, not JSON, or JSON nested too deep
   * to be read as a value (`tooDeep`).
   */
  body: unknown;
  /**
   * Set when the body is JSON nested deeper than MAX_JSON_DEPTH (exchange/json-body.ts): how deep.
   * Its text is kept; it has no `body`, and what needs its value calls it too deep to judge.
   */
  tooDeep?: number;
  /**
   * Set when `text` is only the head of the body received, once the exchange was judged
   * (exchange/kept.ts): in a record past its budget, where `body` is undefined too; or in a case's
   * result once the case is done, where `body` stays for the sequences still to be judged.
   */
  textCut?: BodyCut;
  /** Set when status is 0. */
  failure?: ExchangeFailure;
  /** When the request went out (epoch ms, may have a fraction) and how long the exchange took. */
  startedAt: number;
  durationMs: number;
  /** Requests it took, retries of a 429/503 included (1 for a recorded exchange). */
  attempts: number;
  origin: ExchangeOrigin;
}

export function isAnswered(ex: Exchange): boolean {
  return ex.status > 0;
}

export function is2xx(status: number): boolean {
  return status >= 200 && status <= 299;
}

/**
 * Parses a body as JSON: undefined when empty, not JSON, or nested deeper than MAX_JSON_DEPTH
 * (exchange/json-body.ts), so that no value handed on is too deep to walk.
 */
export function parseJsonBody(text: string): unknown {
  return readJsonBody(text)?.value;
}

/** The request body as JSON, or undefined. */
export function requestJson(ex: Exchange): unknown {
  return ex.request.body === undefined || ex.request.bodyEncoding !== undefined
    ? undefined
    : parseJsonBody(ex.request.body);
}

/** A request header, by name in any case. */
export function requestHeader(ex: Exchange, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(ex.request.headers)) if (k.toLowerCase() === lower) return v;
  return undefined;
}
