/**
 * Test vectors of the oracles, as data (in the manner of JSON-Schema-Test-Suite): one JSON
 * file per oracle, `oracles/vectors/<oracle id>.json`, each case an exchange (or a PATCH
 * sequence, a pair of answers, or an answer without the representation with the latest that had
 * it) and, for every requirement the oracle must judge on it,
 * whether it holds (`true`) or is violated (`false`). A requirement of the oracle not named in
 * `valid` must not be judged at all. tests/self/oracle-vectors.spec.ts runs them all.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Exchange } from '../../exchange/exchange.ts';
import { responseBody } from '../../exchange/json-body.ts';
import { inInterface, matchRoute } from '../../exchange/route.ts';
import type { RequirementId } from '../../spec/requirements.ts';
import type { Judgement, Oracle } from '../types.ts';

/** An exchange as a vector writes it: only what matters; the rest is filled in. */
export interface VectorExchange {
  request: { method: string; url: string; headers?: Record<string, string>; body?: string; json?: unknown };
  status: number;
  headers?: Record<string, string>;
  /** The body as text, or `json`: a value serialised as the body. */
  text?: string;
  json?: unknown;
  failure?: { kind: string; message: string };
}

export interface VectorCase {
  description: string;
  exchange?: VectorExchange;
  sequence?: {
    before: VectorExchange | null;
    patch: VectorExchange;
    after: VectorExchange | null;
    /** Accepted PATCHes of the same counterparty that overlapped this one in time. */
    concurrent?: VectorExchange[];
  };
  pair?: {
    first: VectorExchange;
    later: VectorExchange;
    /** Accepted PATCHes of other counterparties between the two. */
    others?: VectorExchange[];
  };
  metadata?: { latest: VectorExchange; exchange: VectorExchange };
  /** requirement id → true (judged, holds) or false (judged, violated). */
  valid: Partial<Record<RequirementId, boolean>>;
}

export interface VectorFile {
  oracle: string;
  /** The sentence(s) of the document the cases rest on, for the reader. */
  specification?: string;
  cases: VectorCase[];
}

export const VECTORS_DIR = import.meta.dirname;

export function loadVectors(oracleId: string): VectorFile {
  return JSON.parse(readFileSync(join(VECTORS_DIR, `${oracleId}.json`), 'utf8')) as VectorFile;
}

let nextId = 1;

/** A full exchange from a vector's. */
export function exchangeFrom(v: VectorExchange): Exchange {
  const text = v.text ?? (v.json === undefined ? '' : JSON.stringify(v.json));
  const headers = Object.fromEntries(Object.entries(v.headers ?? {}).map(([k, x]) => [k.toLowerCase(), x]));
  if (v.json !== undefined && headers['content-type'] === undefined)
    headers['content-type'] = 'application/json';
  const body = v.request.body ?? (v.request.json === undefined ? undefined : JSON.stringify(v.request.json));
  return {
    id: nextId++,
    request: {
      method: v.request.method,
      url: v.request.url,
      headers: v.request.headers ?? {},
      ...(body !== undefined ? { body } : {}),
    },
    status: v.status,
    headers,
    text,
    ...responseBody(text),
    ...(v.failure ? { failure: v.failure } : {}),
    startedAt: 0,
    durationMs: 1,
    attempts: 1,
    origin: {},
  };
}

/** What the oracle judges on a case. */
export function judgeCase(oracle: Oracle, c: VectorCase): Judgement[] {
  if (oracle.kind === 'exchange') {
    if (!c.exchange) throw new Error(`${c.description}: an exchange oracle needs "exchange"`);
    const exchange = exchangeFrom(c.exchange);
    return oracle.judge({
      exchange,
      route: matchRoute(exchange.request.method, exchange.request.url),
      inInterface: inInterface(exchange.request.url),
    });
  }
  if (oracle.kind === 'patch') {
    if (!c.sequence) throw new Error(`${c.description}: a patch oracle needs "sequence"`);
    const patch = exchangeFrom(c.sequence.patch);
    const route = matchRoute(patch.request.method, patch.request.url);
    const reference = route?.kind === 'operation' ? (route.params.counterpartyReference ?? '') : '';
    return oracle.judge({
      reference,
      before: c.sequence.before ? exchangeFrom(c.sequence.before) : undefined,
      patch,
      after: c.sequence.after ? exchangeFrom(c.sequence.after) : undefined,
      ...(c.sequence.concurrent ? { concurrent: c.sequence.concurrent.map(exchangeFrom) } : {}),
    });
  }
  if (oracle.kind === 'metadata') {
    if (!c.metadata) throw new Error(`${c.description}: a metadata oracle needs "metadata"`);
    const latest = exchangeFrom(c.metadata.latest);
    const route = matchRoute('GET', latest.request.url);
    const reference = route?.kind === 'operation' ? (route.params.counterpartyReference ?? '') : '';
    return oracle.judge({ reference, latest, exchange: exchangeFrom(c.metadata.exchange) });
  }
  if (!c.pair) throw new Error(`${c.description}: a pair oracle needs "pair"`);
  const first = exchangeFrom(c.pair.first);
  const later = exchangeFrom(c.pair.later);
  const route = matchRoute(first.request.method, first.request.url);
  const reference = route?.kind === 'operation' ? (route.params.counterpartyReference ?? '') : '';
  return oracle.judge({
    reference,
    first,
    later,
    ...(c.pair.others ? { others: c.pair.others.map(exchangeFrom) } : {}),
  });
}

/** The verdict per requirement of a list of judgements: false wins over true. */
export function summarise(judgements: Judgement[]): Partial<Record<RequirementId, boolean>> {
  const out: Partial<Record<RequirementId, boolean>> = {};
  for (const j of judgements) out[j.requirement] = (out[j.requirement] ?? true) && j.held;
  return out;
}
