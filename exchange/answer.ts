/**
 * The answer a finding rests on, as a report shows it beside the validator's message: its status,
 * the header fields a verdict of the interface turns on, and the head of its body. Made from an
 * exchange already redacted as it entered the run (exchange/redact-exchange.ts), so it holds no
 * credential; the header fields are a fixed list that names none (no Authorization, Cookie,
 * Set-Cookie, nor any field a gateway may carry a key in), so a header the target invents can
 * not bring one into a report either.
 */
import type { Exchange } from './exchange.ts';

/** The header fields shown, in this order: those the interface and its RFCs judge. */
export const ANSWER_HEADERS = [
  'content-type',
  'deprecation',
  'sunset',
  'link',
  'location',
  'etag',
  'allow',
  'retry-after',
  'www-authenticate',
] as const;

/** The most characters of a body a finding keeps: enough for an error object, bounded for a 4 MB answer. */
export const ANSWER_EXCERPT_CHARS = 600;

export interface AnswerEvidence {
  /** The status; 0: no complete answer (see `failure`). */
  status: number;
  /** The fields of ANSWER_HEADERS the answer carried, names in lower case, in that order. */
  headers: Record<string, string>;
  /** The head of the body (at most ANSWER_EXCERPT_CHARS characters); absent when it was empty. */
  body?: string;
  /** The whole body's length in characters, when `body` is only its head. */
  bodyChars?: number;
  /** Why no complete answer came (status 0). */
  failure?: string;
}

/** The evidence of `ex`'s answer. */
export function answerOf(ex: Pick<Exchange, 'status' | 'headers' | 'text' | 'failure'>): AnswerEvidence {
  const headers: Record<string, string> = {};
  for (const name of ANSWER_HEADERS) {
    const value = Object.hasOwn(ex.headers, name) ? ex.headers[name] : undefined;
    if (value !== undefined) headers[name] = value;
  }
  const text = ex.text ?? '';
  // Cut on a whole character: a surrogate pair split in two would not survive JSON.
  const cut = [...text.slice(0, ANSWER_EXCERPT_CHARS + 1)].slice(0, ANSWER_EXCERPT_CHARS).join('');
  return {
    status: ex.status,
    headers,
    ...(text !== '' ? { body: cut } : {}),
    ...(cut.length < text.length ? { bodyChars: text.length } : {}),
    ...(ex.failure ? { failure: `${ex.failure.kind}: ${ex.failure.message}` } : {}),
  };
}
