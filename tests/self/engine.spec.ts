/**
 * The engine, tested directly: the run records an exchange and judges it in one call; the judge
 * assembles PATCH sequences and read pairs from a log in order; verdicts pass only what was judged and explain what was not; the property runner shrinks
 * on an oracle's verdict and reports who judged, who sent, the input and the seed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { EMBEDDED_POLITENESS } from '../../config/config.ts';
import { Judge } from '../../engine/judge.ts';
import { runProperty } from '../../engine/property.ts';
import { emptyOutcome, KNOWN_READ_MS, RunContext, runProbe } from '../../engine/run.ts';
import type { Probe, ProbeOutcome } from '../../engine/types.ts';
import { verdicts } from '../../engine/verdicts.ts';
import type { Exchange } from '../../exchange/exchange.ts';
import { counterpartyPath } from '../../exchange/paths.ts';
import { validReference } from '../../generators/counterparty-reference.ts';
import { ORACLES } from '../../oracles/index.ts';
import { PATCH_REJECTED_ORACLE } from '../../oracles/patch-rejected.ts';
import { SERVER_ERROR_ORACLE } from '../../oracles/server-error.ts';
import type { AnswerPair, Oracle, PatchSequence } from '../../oracles/types.ts';
import { exchangeFrom, type VectorExchange } from '../../oracles/vectors/format.ts';
import { TargetSession } from '../../transport/session.ts';

const URL = 'http://h/api/v1/counterparties/ACME-1';
const cp = { counterpartyReference: 'ACME-1' };
const get = (status = 200): VectorExchange => ({ request: { method: 'GET', url: URL }, status, json: cp });
const patch = (status = 200): VectorExchange => ({
  request: { method: 'PATCH', url: URL, json: { counterpartyDetails: { remarks: 'x' } } },
  status,
  json: cp,
});

test('a write probe starts from the last read only when nothing but reads came after it, a 200 object of that path, and recent', () => {
  const session = new TargetSession({ politeness: EMBEDDED_POLITENESS });
  try {
    const run = new RunContext(session, 'http://h');
    const record = (v: VectorExchange, at = 0): Exchange => {
      const { id: _id, ...ex } = exchangeFrom(v);
      return run.record({ ...ex, startedAt: at }).exchange;
    };
    expect(run.knownRead(URL, 0)).toBeUndefined();
    const read = record(get(), 100);
    expect(run.knownRead(URL, 200)).toBe(read);
    // Too old: another client may have written since.
    expect(run.knownRead(URL, 101 + KNOWN_READ_MS + 1)).toBeUndefined();
    // Another path, or a write after it (a PATCH of anything, answered or not): read again.
    expect(run.knownRead('http://h/api/v1/counterparties/ACME-2', 200)).toBeUndefined();
    record(patch(400), 150);
    expect(run.knownRead(URL, 200)).toBeUndefined();
    // A read that did not answer 200 with an object is no state.
    record(get(404), 160);
    expect(run.knownRead(URL, 200)).toBeUndefined();
    record({ request: { method: 'GET', url: URL }, status: 200, json: [cp] }, 170);
    expect(run.knownRead(URL, 200)).toBeUndefined();
    const again = record(get(), 180);
    expect(run.knownRead(URL, 200)).toBe(again);
    // Reads of another resource after it (GET, HEAD) change nothing: it is still the state.
    record({ request: { method: 'GET', url: 'http://h/api/v1/bills' }, status: 200, json: {} }, 190);
    record({ request: { method: 'HEAD', url: URL }, status: 200 }, 192);
    expect(run.knownRead(URL, 200)).toBe(again);
    // A write of another resource may change this one too (shared state): read again.
    record({ request: { method: 'POST', url: 'http://h/api/v1/bills' }, status: 400, json: {} }, 195);
    expect(run.knownRead(URL, 200)).toBeUndefined();
  } finally {
    session.close();
  }
});

/** Oracles that record what the judge hands them. */
function recorders(): { oracles: Oracle[]; sequences: PatchSequence[]; pairs: AnswerPair[] } {
  const sequences: PatchSequence[] = [];
  const pairs: AnswerPair[] = [];
  const base = { requirements: [], unexercised: {} };
  return {
    sequences,
    pairs,
    oracles: [
      { ...base, id: 's', kind: 'patch', judge: (s) => (sequences.push(s), []) },
      { ...base, id: 'p', kind: 'pair', judge: (p) => (pairs.push(p), []) },
    ],
  };
}

test('the run records an exchange where it judges it: appended to the log, numbered, its judgements returned', () => {
  const session = new TargetSession({ politeness: EMBEDDED_POLITENESS });
  try {
    const run = new RunContext(session, 'http://h');
    const record = (v: VectorExchange) => {
      const { id: _id, ...ex } = exchangeFrom(v);
      return run.record(ex);
    };
    const failed = record(get(500));
    expect(failed.exchange.id).toBe(1);
    expect(run.log.all).toEqual([failed.exchange]);
    expect(failed.judgements).toContainEqual({
      oracle: SERVER_ERROR_ORACLE.id,
      judgement: expect.objectContaining({ requirement: 'no-server-error', held: false }),
    });
    // A read, a PATCH, a read: the sequence is judged when the read after it is recorded, and
    // its judgements come back with that read's.
    record(get());
    const patched = record(patch());
    const after = record(get());
    const sequenceOracles = new Set(ORACLES.filter((o) => o.kind === 'patch').map((o) => o.id));
    expect(patched.judgements.filter((j) => sequenceOracles.has(j.oracle))).toEqual([]);
    expect(after.judgements.some((j) => sequenceOracles.has(j.oracle))).toBe(true);
    expect(run.log.all.map((ex) => ex.id)).toEqual([1, 2, 3, 4]);
  } finally {
    session.close();
  }
});

test('the judge: a PATCH with the read before and after; two reads with no PATCH between are a pair', () => {
  const { oracles, sequences, pairs } = recorders();
  const judge = new Judge(oracles);
  const log = [get(), get(), patch(), get(), patch(400), patch(), get(404), get()].map(exchangeFrom);
  for (const ex of log) judge.judge(ex);
  judge.flush();
  const ids = (s: PatchSequence) =>
    [s.before?.id, s.patch.id, s.after?.id].map((x) => (x ? x - log[0]!.id : null));
  // read 0, read 1, PATCH 2, read 3, PATCH 4 (refused), PATCH 5, a 404 read 6 (not a read of it), read 7.
  expect(sequences.map(ids)).toEqual([
    [1, 2, 3],
    [3, 4, null],
    [null, 5, 7],
  ]);
  expect(pairs.map((p) => [p.first.id - log[0]!.id, p.later.id - log[0]!.id])).toEqual([[0, 1]]);
});

test('the judge: a PATCH still waiting at the end is judged without a read after; other references are apart', () => {
  const { oracles, sequences } = recorders();
  const judge = new Judge(oracles);
  const other: VectorExchange = {
    ...get(),
    request: { method: 'GET', url: 'http://h/api/v1/counterparties/B-2' },
  };
  for (const ex of [get(), patch(), other].map(exchangeFrom)) judge.judge(ex);
  expect(sequences).toHaveLength(0);
  judge.flush();
  expect(sequences).toHaveLength(1);
  expect(sequences[0]!.after).toBeUndefined();
  expect(sequences[0]!.reference).toBe('ACME-1');
});

test('the judge: refused PATCHes between the same two reads are a batch, each judged with both reads', () => {
  const { oracles, sequences } = recorders();
  const judge = new Judge(oracles);
  const log = [get(), patch(400), patch(422), patch(400), get(), patch(400), patch(), get()].map(
    exchangeFrom,
  );
  for (const ex of log) judge.judge(ex);
  judge.flush();
  const rel = (x: number | undefined): number | null => (x ? x - log[0]!.id : null);
  const ids = (s: PatchSequence) => [rel(s.before?.id), rel(s.patch.id), rel(s.after?.id)];
  // read 0, refused 1-3, read 4, refused 5 then accepted 6 (an accepted PATCH ends a batch), read 7.
  expect(sequences.map(ids)).toEqual([
    [0, 1, 4],
    [0, 2, 4],
    [0, 3, 4],
    [4, 5, null],
    [null, 6, 7],
  ]);
  expect(sequences.map((s) => (s.batch ?? []).map((b) => rel(b.id)))).toEqual([
    [2, 3],
    [1, 3],
    [1, 2],
    [],
    [],
  ]);
});

test('patch-rejected over a batch: equal reads hold for every PATCH; a change is reported once', () => {
  const cp2 = { ...cp, accountHolderName: 'Changed' };
  const run = (after: object) => {
    const judge = new Judge([PATCH_REJECTED_ORACLE]);
    const log = [get(), patch(400), patch(400), patch(400), { ...get(), json: after }].map(exchangeFrom);
    return log.flatMap((ex) => judge.judge(ex)).map((j) => j.judgement);
  };
  const same = run(cp);
  expect(same.map((j) => j.held)).toEqual([true, true, true]);
  const changed = run(cp2);
  expect(changed).toHaveLength(1);
  expect(changed[0]).toMatchObject({ held: false, requirement: 'patch-rejected-unchanged' });
});

function outcome(partial: Partial<ProbeOutcome>): ProbeOutcome {
  return { ...emptyOutcome('p', 't', []), ...partial };
}

test('verdicts: passed only when judged; otherwise not exercised, with every reason', () => {
  const vs = verdicts([
    outcome({
      probe: 'a',
      requirements: ['get-known-counterparty-200'],
      judged: { 'get-known-counterparty-200': 2 },
    }),
    outcome({
      probe: 'w',
      requirements: ['patch-valid-accepted', 'patch-persisted', 'address-schema'],
      status: 'skipped',
      skipReason: 'read-only run',
    }),
    // A read probe aiming at address-schema ran and judged nothing: the read-only run is not why.
    outcome({ probe: 'r', requirements: ['address-schema'] }),
    outcome({ probe: 'i', requirements: ['collection-routed'], incomplete: 'the target stopped answering' }),
  ]);
  const v = (id: string) => vs.find((x) => x.id === id)!;
  expect(v('get-known-counterparty-200')).toMatchObject({ status: 'passed', judged: 2, reasons: [] });
  expect(v('patch-valid-accepted')).toMatchObject({ status: 'not-exercised', reasons: ['read-only run'] });
  expect(v('patch-persisted').reasons).toEqual([
    'read-only run',
    'no accepted PATCH was followed by a read of the counterparty',
  ]);
  expect(v('collection-routed').reasons).toEqual(['i could not complete: the target stopped answering']);
  expect(v('address-schema').reasons).toEqual(['no counterparty returned carried an address']);
  expect(v('address-schema').oracles).toEqual(['counterparty-response']);
});

test('the property runner shrinks on an oracle verdict and reports its judge, sender, input and seed', async () => {
  // A server that answers 400 to every reference longer than 8 characters: reference-status
  // (an oracle, not the probe) judges a valid reference answered 400.
  const server: Server = createServer((req, res) => {
    const ref = decodeURIComponent((req.url ?? '').split('/').pop() ?? '');
    res.writeHead(ref.length > 8 ? 400 : 404, { 'Content-Type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const session = new TargetSession({ politeness: EMBEDDED_POLITENESS });
  const sender: Probe = {
    id: 'sends-references',
    title: 'GET of generated valid references',
    requirements: ['reference-valid-not-400'],
    judges: [],
    operations: ['getCounterparty'],
    group: 'references',
    access: 'read',
    async run(ctx) {
      await runProperty(ctx, {
        name: 'valid reference',
        arbitrary: validReference(),
        async probe(input) {
          await ctx.http.send({ method: 'GET', path: counterpartyPath(input.value), role: 'the case' });
          return undefined;
        },
      });
    },
  };
  try {
    const target = {
      baseURL,
      token: 't',
      counterpartyRef: 'ACME-1',
      writableRef: undefined,
      accountFixture: undefined,
      seed: 42,
      runs: 50,
    };
    const out = await runProbe(sender, target, new RunContext(session, baseURL));
    expect(out.incomplete).toBeUndefined();
    expect(out.findings, JSON.stringify({ judged: out.judged, notes: out.notes })).toHaveLength(1);
    const f = out.findings[0]!;
    expect(f).toMatchObject({
      requirement: 'reference-valid-not-400',
      judgedBy: 'reference-status',
      sentBy: 'sends-references',
      role: 'the case',
      seed: 42,
      status: 400,
    });
    // Shrunk to the shortest reference that still fails: 9 characters.
    expect(String(f.input)).toHaveLength(9);
    expect(f.curl).toMatch(/^curl .*Authorization: Bearer \$API_TOKEN/);
    expect(out.judged['reference-valid-not-400']).toBeGreaterThan(1);
  } finally {
    session.close();
    await new Promise((resolve) => server.close(resolve));
  }
});
