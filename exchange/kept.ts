/**
 * What a run keeps of the bodies it saw, once they are judged. Judging sees every body whole (the
 * oracles need it); what is kept afterwards (the log of a process, the attachments a check hands
 * the reporter, exchanges.har, the proxy's record) is bounded: bodies are kept whole while they
 * fit in a budget of KEPT_WHOLE_BYTES, and past it as their first KEPT_HEAD_BYTES with the whole
 * body's length and SHA-256, while a second budget of KEPT_HEADS_BYTES lasts, and then as the
 * length and SHA-256 alone. So a run whose every answer is 4 MB keeps some hundred MiB at most,
 * and its exchanges.har is one `validate` reads (exchange/har.ts). A run of a conforming
 * deployment keeps a few MiB of bodies and never reaches the budget: its record is whole.
 *
 * The budgets count the bytes of the bodies' text (UTF-8; base64 text for bytes), in the order the
 * exchanges are kept.
 */
import { createHash } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import type { BodyCut, Exchange, RecordedRequest } from './exchange.ts';

export type { BodyCut } from './exchange.ts';

const MiB = 1024 * 1024;

/** Bodies kept whole, in all (docs/reports-and-gate.md). */
export const KEPT_WHOLE_BYTES = 32 * MiB;
/** Past the whole budget: the head of a body kept, at most. */
export const KEPT_HEAD_BYTES = 16 * 1024;
/** Past the whole budget: heads kept, in all; past this, a body is kept as its length and hash. */
export const KEPT_HEADS_BYTES = 16 * MiB;

/** "the first 16384 of 4000000 bytes kept; SHA-256 ab12…": what a cut body says of itself. */
export function cutText(cut: BodyCut): string {
  const kept =
    cut.kept > 0 ? `the first ${cut.kept} of ${cut.bytes} bytes kept` : `none of ${cut.bytes} bytes kept`;
  return `${kept} (the run's budget of kept bodies); SHA-256 ${cut.sha256}`;
}

/** The first `max` bytes of `text`'s UTF-8, ending on a whole character. */
function head(text: string, max: number): string {
  if (max <= 0) return '';
  // Far fewer characters than bytes are needed: a character takes at most 3 bytes per UTF-16 unit.
  const bytes = Buffer.from(text.slice(0, max), 'utf8');
  // The decoder holds back a character whose bytes the cut split.
  return new StringDecoder('utf8').write(bytes.subarray(0, max));
}

/** The cut a record made of a live exchange's text, for releaseText: a 4 MB text is hashed once. */
const cutsOfLive = new WeakMap<object, BodyCut>();

/** A budget of kept bodies (one per record: a process's log, a report's exchanges.har, a proxy's session). */
export class BodyBudget {
  private whole: number;
  private heads: number;
  /** Bodies kept in part so far. */
  cut = 0;

  constructor(
    /** The share of the run's budgets this record keeps (a worker of N: 1/N). */
    share = 1,
  ) {
    this.whole = Math.floor(KEPT_WHOLE_BYTES * share);
    this.heads = Math.floor(KEPT_HEADS_BYTES * share);
  }

  /** `text` as kept: whole while it fits, else its head (base64: on a 4-character boundary) and a cut. */
  keep(text: string, base64 = false): { text: string; cut?: BodyCut } {
    // Every character takes a byte at least: a text this short fits whatever its characters.
    const bytes = text.length <= this.whole ? Buffer.byteLength(text, 'utf8') : Infinity;
    if (bytes <= this.whole) {
      this.whole -= bytes;
      return { text };
    }
    const total = Buffer.byteLength(text, 'utf8');
    let kept = head(text, Math.min(KEPT_HEAD_BYTES, this.heads));
    if (base64) kept = kept.slice(0, kept.length - (kept.length % 4));
    const keptBytes = Buffer.byteLength(kept, 'utf8');
    if (keptBytes === total) {
      this.heads -= keptBytes;
      return { text };
    }
    this.heads -= keptBytes;
    this.cut++;
    return {
      text: kept,
      cut: { bytes: total, sha256: createHash('sha256').update(text, 'utf8').digest('hex'), kept: keptBytes },
    };
  }
}

/** The request as kept: its body whole, or its head with `bodyCut`. */
function keptRequest(request: RecordedRequest, budget: BodyBudget): RecordedRequest {
  if (request.body === undefined || request.bodyCut !== undefined) return request;
  const kept = budget.keep(request.body, request.bodyEncoding === 'base64');
  return kept.cut ? { ...request, body: kept.text, bodyCut: kept.cut } : request;
}

/**
 * An exchange as a record keeps it: itself when its bodies fit, else a copy with the bodies cut
 * (the response's parsed value dropped with its text: the head is not the body). A body cut
 * already stays as it is.
 */
export function keptExchange<T extends Omit<Exchange, 'id'>>(ex: T, budget: BodyBudget): T {
  const request = keptRequest(ex.request, budget);
  const response = ex.textCut === undefined ? budget.keep(ex.text) : { text: ex.text };
  // A long text kept whole is kept in a copy of its own: releaseText may cut the sender's.
  if (request === ex.request && response.cut === undefined)
    return ex.text.length > KEPT_HEAD_BYTES ? { ...ex } : ex;
  if (response.cut) cutsOfLive.set(ex, response.cut);
  return {
    ...ex,
    request,
    ...(response.cut ? { text: response.text, body: undefined, textCut: response.cut } : {}),
  };
}

/**
 * Cuts the text of a live exchange to its head, in place, once it is judged and the case that sent
 * it is done with it: a case's result keeps its exchanges (by identity) for as long as its property
 * runs, and a round of a hundred answers of 4 MB would otherwise be held whole. Its parsed value
 * stays, for the sequences and pairs still to be judged; a record holds a copy of its own
 * (keptExchange). A text of KEPT_HEAD_BYTES or less stays as it is.
 */
export function releaseText(ex: Exchange): void {
  if (ex.text.length <= KEPT_HEAD_BYTES || ex.textCut !== undefined) return;
  const text = head(ex.text, KEPT_HEAD_BYTES);
  const cut = cutsOfLive.get(ex);
  ex.textCut = {
    bytes: cut?.bytes ?? Buffer.byteLength(ex.text),
    sha256: cut?.sha256 ?? createHash('sha256').update(ex.text, 'utf8').digest('hex'),
    kept: Buffer.byteLength(text),
  };
  ex.text = text;
}

/** A cut that keeps none of the body: its length and hash alone. */
function nothingKept(text: string, cut: BodyCut | undefined): BodyCut {
  return cut
    ? { ...cut, kept: 0 }
    : {
        bytes: Buffer.byteLength(text),
        sha256: createHash('sha256').update(text, 'utf8').digest('hex'),
        kept: 0,
      };
}

/** An exchange with no body kept at all, each one's length and hash standing for it. */
export function withoutBodies<T extends Omit<Exchange, 'id'>>(ex: T): T {
  const { request } = ex;
  return {
    ...ex,
    request:
      request.body === undefined || request.body === ''
        ? request
        : { ...request, body: '', bodyCut: nothingKept(request.body, request.bodyCut) },
    ...(ex.text === '' ? {} : { text: '', body: undefined, textCut: nothingKept(ex.text, ex.textCut) }),
  };
}

/** Whether an exchange holds a body kept in part: what it shows of it is not the body. */
export function isCut(ex: Pick<Exchange, 'request' | 'textCut'>): boolean {
  return ex.textCut !== undefined || ex.request.bodyCut !== undefined;
}
