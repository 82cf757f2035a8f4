/**
 * The judge hands an answer that carries no representation of a counterparty (a HEAD, a 304 to a
 * conditional GET) to the metadata oracles, with the latest answer that carried it: a successful
 * read or an accepted PATCH's answer; not while a replica may still trail that PATCH (within the
 * settle window), and not after a PATCH that went unanswered. Neither counts as a read of the
 * PATCH sequences and read pairs.
 */
import { expect, test } from '@playwright/test';
import { Judge } from '../../engine/judge.ts';
import type { Exchange } from '../../exchange/exchange.ts';
import type { AnswerPair, MetadataAnswer, Oracle, PatchSequence } from '../../oracles/types.ts';
import { exchangeFrom, type VectorExchange } from '../../oracles/vectors/format.ts';

const URL = 'http://h/api/v1/counterparties/ACME-1';
const cp = { counterpartyReference: 'ACME-1' };
const get = (status = 200, headers: Record<string, string> = {}): VectorExchange => ({
  request: { method: 'GET', url: URL, headers },
  status,
  ...(status === 200 ? { json: cp } : {}),
});
const head = (status = 200): VectorExchange => ({ request: { method: 'HEAD', url: URL }, status });
const patch = (status = 200): VectorExchange => ({
  request: { method: 'PATCH', url: URL, json: { counterpartyDetails: { remarks: 'x' } } },
  status,
  ...(status === 200 ? { json: cp } : {}),
});

function recorders() {
  const answers: MetadataAnswer[] = [];
  const sequences: PatchSequence[] = [];
  const pairs: AnswerPair[] = [];
  const base = { requirements: [], unexercised: {} };
  const oracles: Oracle[] = [
    { ...base, id: 'm', kind: 'metadata', judge: (a) => (answers.push(a), []) },
    { ...base, id: 's', kind: 'patch', judge: (s) => (sequences.push(s), []) },
    { ...base, id: 'p', kind: 'pair', judge: (p) => (pairs.push(p), []) },
  ];
  return { oracles, answers, sequences, pairs };
}

/** Exchanges at these start times (ms), each answered 1 ms later. */
function at(times: number[], log: VectorExchange[]): Exchange[] {
  return log.map((v, i) => ({ ...exchangeFrom(v), startedAt: times[i]! }));
}

test('a HEAD and a 304 go with the latest answer that carried the counterparty, and are no reads', () => {
  const { oracles, answers, sequences, pairs } = recorders();
  const judge = new Judge(oracles);
  const log = [get(), head(), patch(), get(304, { 'If-None-Match': '"x"' }), head(405), get()].map(
    exchangeFrom,
  );
  for (const ex of log) judge.judge(ex);
  judge.flush();
  const rel = (ex: Exchange | undefined): number | null => (ex ? ex.id - log[0]!.id : null);
  expect(answers.map((a) => [rel(a.latest), rel(a.exchange)])).toEqual([
    [0, 1],
    [2, 3],
    [2, 4],
  ]);
  // The PATCH is judged with the GET before it and the last GET, not the HEAD or the 304.
  expect(sequences.map((s) => [rel(s.before), rel(s.patch), rel(s.after)])).toEqual([[0, 2, 5]]);
  expect(pairs).toEqual([]);
});

test('not within the settle window of an accepted PATCH, nor after one that went unanswered', () => {
  const { oracles, answers } = recorders();
  const judge = new Judge(oracles, '', 1000);
  const log = at([0, 10, 500, 2000, 3000, 3100], [get(), patch(), head(), head(), patch(0), head()]);
  for (const ex of log) judge.judge(ex);
  expect(answers.map((a) => [a.latest.id - log[0]!.id, a.exchange.id - log[0]!.id])).toEqual([[1, 3]]);
});
