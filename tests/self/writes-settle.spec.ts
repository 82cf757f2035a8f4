/**
 * Writes at about one request per case, and settling (issue 13): the judge's rules over
 * timestamps for reads that trail a PATCH, the chains of accepted PATCHes it judges from their
 * answers, the configuration of the settle window, of a list of account fixtures and of lanes
 * (several writable counterparties), the split of the write probes across lanes, and the account
 * probe against a service refusing an identifier it holds.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { DEFAULT_SETTLE_MS, parseConfig } from '../../config/config.ts';
import { Judge } from '../../engine/judge.ts';
import { refusedShows } from '../../engine/judge-states.ts';
import { assignLanes, laneTarget, probeRoundTrips } from '../../engine/lanes.ts';
import type { Probe } from '../../engine/types.ts';
import { RunContext, runProbe } from '../../engine/run.ts';
import type { Exchange } from '../../exchange/exchange.ts';
import { DEFAULT_ACCOUNT_FIXTURE, parseAccountFixtures } from '../../generators/account-fixture.ts';
import { ORACLES } from '../../oracles/index.ts';
import type { Oracle, PatchSequence } from '../../oracles/types.ts';
import { exchangeFrom } from '../../oracles/vectors/format.ts';
import { patchValidAccounts, patchValidDetails } from '../../probes/counterparty-patch.ts';
import { Writer } from '../../probes/write-lane.ts';
import type { Finding, ProbeContext } from '../../engine/types.ts';
import { GALLERY } from '../../servers/gallery/index.ts';
import { ReferenceServer, WRITABLE_COUNTERPARTIES } from '../../servers/reference.ts';
import { PROBES } from '../../probes/index.ts';
import { duplicateRefusingServer } from '../../servers/gallery/patch.ts';
import { TargetSession } from '../../transport/session.ts';
import { EMBEDDED_POLITENESS } from '../../config/config.ts';
import { galleryTarget } from './suite-runner.ts';

const URL = 'http://h/api/v1/counterparties/ACME-1';
const base = {
  counterpartyReference: 'ACME-1',
  state: 'ACTIVE',
  createdAt: '2024-01-10T09:00:00Z',
  updatedAt: '2024-03-05T14:30:00Z',
  accountHolderName: 'Acme',
};
const SETTLE = 1000;
/** The suite's own requests carry the token (recorded as $API_TOKEN): the request-credentials oracle judges any that do not. */
const AUTH = { Authorization: 'Bearer $API_TOKEN', 'Content-Type': 'application/json' };

/** A read at `at` ms showing `json`. */
function read(at: number, json: object): Exchange {
  return {
    ...exchangeFrom({ request: { method: 'GET', url: URL, headers: AUTH }, status: 200, json }),
    startedAt: at,
  };
}
/** A PATCH at `at` ms sending `sent`, answered `status` with `json`. */
function patch(at: number, sent: object, status: number, json: object): Exchange {
  return {
    ...exchangeFrom({ request: { method: 'PATCH', url: URL, headers: AUTH, json: sent }, status, json }),
    startedAt: at,
  };
}
const remarks = (r: string, updatedAt = '2024-03-06T00:00:00Z'): object => ({
  ...base,
  remarks: r,
  updatedAt,
});
const send = (r: string): object => ({ counterpartyDetails: { remarks: r } });
const refusal = { code: 'INVALID_REQUEST', message: 'no' };

/** The requirements violated and held when the judge (all oracles) sees `log` and is flushed. */
function verdicts(log: Exchange[], settleMs = SETTLE): { violated: string[]; held: string[] } {
  const judge = new Judge(ORACLES, '', settleMs);
  const all = [...log.flatMap((ex) => judge.judge(ex)), ...judge.flush()].map((j) => j.judgement);
  const ids = (held: boolean): string[] =>
    [...new Set(all.filter((j) => j.held === held).map((j) => j.requirement))].sort();
  return { violated: ids(false), held: ids(true) };
}

test('settle: a read that trails an accepted PATCH within the window, then one that shows it, is no finding', () => {
  const log = [
    read(0, base),
    patch(10, send('new'), 200, remarks('new')),
    read(20, base), // a replica not there yet
    read(400, remarks('new')),
  ];
  const v = verdicts(log);
  expect(v.violated).toEqual([]);
  expect(v.held).toContain('patch-persisted');
  // Without a window the trailing read is a finding: the rule is what makes it none.
  expect(verdicts(log, 0).violated).toEqual(['patch-persisted']);
});

test('settle: a field seen to move, then a PATCH of it: a trailing read that shows it otherwise does not settle the PATCH', () => {
  // Two reads with no write between disagree on remarks (a replica, or another client): it moves.
  // A PATCH of remarks is still judged on it, so only a read showing it confirms the PATCH.
  const log = [
    read(0, remarks('old')),
    read(5, remarks('other')),
    patch(10, send('new'), 200, remarks('new')),
    read(20, remarks('other')), // the replica not there yet
    read(400, remarks('new')),
  ];
  const v = verdicts(log);
  expect(v.violated).toEqual([]);
  expect(v.held).toContain('patch-persisted');
  // No read shows it within the window: still found.
  expect(verdicts([...log.slice(0, 4), read(1500, remarks('other'))]).violated).toEqual(['patch-persisted']);
});

test('settle: a change that never appears within the window still fails patch-persisted', () => {
  const stale = [read(0, base), patch(10, send('new'), 200, remarks('new')), read(20, base)];
  // A read past the window that still does not show it.
  expect(verdicts([...stale, read(1500, base)]).violated).toEqual(['patch-persisted']);
  // The next PATCH comes with only the stale read: judged against it.
  expect(verdicts([...stale, patch(30, send('second'), 200, remarks('second'))]).violated).toContain(
    'patch-persisted',
  );
  // The end of the traffic, likewise.
  expect(verdicts(stale).violated).toEqual(['patch-persisted']);
});

test('settle: a stale read the writer takes as its last before the next write judges the PATCH at once, as that write would', () => {
  const stale = [read(0, base), patch(10, send('new'), 200, remarks('new')), read(20, base)];
  const now = new Judge(ORACLES, '', SETTLE);
  for (const ex of stale) now.judge(ex);
  const early = now.lastRead('ACME-1').map((j) => j.judgement);
  const late = new Judge(ORACLES, '', SETTLE);
  for (const ex of stale) late.judge(ex);
  // What the next PATCH brings of the sequence oracles (the others judge that PATCH itself).
  const sequenceOracles = new Set(ORACLES.filter((o) => o.kind === 'patch').map((o) => o.id));
  const next = late
    .judge(patch(30, send('second'), 200, remarks('second')))
    .filter((j) => sequenceOracles.has(j.oracle))
    .map((j) => j.judgement);
  // The same judgements, the violation resting on the stale read; nothing left for the next PATCH.
  expect(early).toEqual(next);
  const violated = early.flatMap((j) => (j.held ? [] : [j]));
  expect(violated.map((j) => j.requirement)).toEqual(['patch-persisted']);
  expect(violated[0]!.exchange).toBe(stale[2]);
  expect(
    now
      .judge(patch(30, send('second'), 200, remarks('second')))
      .filter((j) => j.judgement.requirement === 'patch-persisted'),
  ).toEqual([]);
  // A read that showed the PATCH judged it already; another counterparty waits for its own reads.
  const shown = new Judge(ORACLES, '', SETTLE);
  for (const ex of [read(0, base), patch(10, send('new'), 200, remarks('new')), read(20, remarks('new'))])
    shown.judge(ex);
  expect(shown.lastRead('ACME-1')).toEqual([]);
  const other = new Judge(ORACLES, '', SETTLE);
  for (const ex of stale) other.judge(ex);
  expect(other.lastRead('ACME-2')).toEqual([]);
  expect(other.flush().some((j) => j.judgement.requirement === 'patch-persisted')).toBe(true);
});

test('settle: the writer reads until a read starts after the window, though one that started within it ends after it', async () => {
  // Each request takes 300 ms of a manual clock (a busy target or machine); the target never
  // shows the PATCH. With a window of 1000 ms after the PATCH's answer, the reads at +0, +350 and
  // +750 start within it (the judge leaves them unjudged), the one at +750 ending after it.
  let t = 0;
  const clock = { now: () => t, sleep: async (ms: number) => void (t += Math.max(0, ms)) };
  const sent: Exchange[] = [];
  const ctx = {
    http: {
      clock,
      interruption: () => undefined,
      send: async (req: { method: string }) => {
        const startedAt = t;
        t += 300;
        const ex =
          req.method === 'PATCH' ? patch(startedAt, send('new'), 200, remarks('new')) : read(startedAt, base);
        const timed = { ...ex, durationMs: 300 };
        sent.push(timed);
        return timed;
      },
    },
    target: { settleMs: SETTLE },
    note: () => {},
    lastRead: () => {},
    moving: () => ({ fields: new Set(), learned: false }),
  } as unknown as ProbeContext;
  const writer = new Writer(ctx, 'ACME-1');
  const accepted = await writer.patch(
    { method: 'PATCH', path: '/api/v1/counterparties/ACME-1', json: send('new') },
    false,
  );
  await writer.settle();
  const end = accepted.startedAt + accepted.durationMs + SETTLE;
  const reads = sent.filter((ex) => ex.request.method === 'GET');
  expect(reads.map((ex) => ex.startedAt - (accepted.startedAt + accepted.durationMs))).toEqual([
    0, 350, 750, 1050,
  ]);
  expect(reads.at(-1)!.startedAt).toBeGreaterThanOrEqual(end);
  // So the judge judges the PATCH with that read, while the case that sent it runs.
  expect(verdicts(sent).violated).toEqual(['patch-persisted']);
  const judge = new Judge(ORACLES, '', SETTLE);
  const during = sent.flatMap((ex) => judge.judge(ex)).map((j) => j.judgement);
  expect(during.filter((j) => !j.held).map((j) => j.requirement)).toEqual(['patch-persisted']);
});

test('settle: a stale read does not blame a refused PATCH for an accepted change appearing late', () => {
  const log = [
    read(0, base),
    patch(10, send('new'), 200, remarks('new')),
    read(20, base),
    patch(30, { counterpartyDetails: {} }, 400, refusal),
    read(500, remarks('new')),
  ];
  expect(verdicts(log).violated).toEqual([]);
});

test("settle: a refused PATCH's change that appears late, within or after the window, is found", () => {
  const start = [read(0, base), patch(10, { counterpartyDetails: {} }, 400, refusal), read(20, base)];
  expect(verdicts([...start, read(600, remarks('leaked'))]).violated).toEqual(['patch-rejected-unchanged']);
  expect(verdicts([...start, read(1500, remarks('leaked'))]).violated).toEqual(['patch-rejected-unchanged']);
  // Equal reads up to a read past the window: held.
  const clean = verdicts([...start, read(600, base), read(1500, base)]);
  expect(clean.violated).toEqual([]);
  expect(clean.held).toContain('patch-rejected-unchanged');
});

/**
 * The requirements violated when one probe's exchanges are judged and flushed (its end), then the
 * next probe's accepted PATCH at `at` ms, answered with `shown` and read back as it, by one judge.
 */
function violatedAcrossProbes(first: Exchange[], at: number, shown: object): string[] {
  const judge = new Judge(ORACLES, '', SETTLE);
  for (const ex of first) judge.judge(ex);
  judge.flush();
  const next = [
    ...judge.judge(patch(at, send('next'), 200, { ...shown, remarks: 'next' })),
    ...judge.judge(read(at + 10, { ...shown, remarks: 'next' })),
    ...judge.flush(),
  ].map((j) => j.judgement);
  return next.filter((j) => !j.held).map((j) => j.requirement);
}

test("settle: a refused PATCH's late change, shown after its probe ended, is not the next probe's accepted PATCH's", () => {
  // A probe sends a refused PATCH that the primary stores, reads the replica (nothing yet) and
  // ends (flush: its judgements go to it). The next probe of the lane PATCHes another field
  // within the refused PATCH's window; the primary's answer shows the refused change.
  const leaked = { ...base, accountHolderName: 'Leaked' };
  const refusedName = { counterpartyDetails: { accountHolderName: 'Leaked', remarks: 'x'.repeat(300) } };
  const log = [read(0, base), patch(10, refusedName, 400, refusal), read(20, base)];
  // The refused PATCH's, shown in the accepted PATCH's answer.
  expect(violatedAcrossProbes(log, 30, leaked)).toEqual(['patch-rejected-unchanged']);
  // Past the window, the same change is the accepted PATCH's.
  const late = [read(0, base), patch(10, send('x'), 400, refusal), read(20, base)];
  expect(violatedAcrossProbes(late, 2000, leaked)).toContain('patch-unsent-fields-unchanged');
});

test("settle: a refused PATCH's partial address that replaced the stored one, shown late, is the refused PATCH's", () => {
  // interface.md §2.2 does not say whether a partial address is merged or replaces the stored one:
  // a refused PATCH's address stored late may drop a field it did not send.
  const stored = { ...base, address: { postalCode: '1234', country: 'SE' } };
  const replaced = { ...base, address: { addressLine: 'Leaked 1' } };
  const refusedAddress = {
    counterpartyDetails: { address: { addressLine: 'Leaked 1' }, remarks: 'x'.repeat(300) },
  };
  expect(refusedShows(stored, replaced, [patch(10, refusedAddress, 400, refusal)])).toEqual(['address']);
  // Merged, likewise.
  const merged = { ...base, address: { addressLine: 'Leaked 1', postalCode: '1234', country: 'SE' } };
  expect(refusedShows(stored, merged, [patch(10, refusedAddress, 400, refusal)])).toEqual(['address']);
  // A field gone that no refused PATCH could have dropped (none sent an address): not theirs.
  expect(
    refusedShows(stored, { ...base, address: { postalCode: '1234' } }, [patch(10, send('x'), 400, refusal)]),
  ).toEqual([]);
  // Through the judge: the next probe's accepted PATCH is not blamed for the replaced address.
  const log = [read(0, stored), patch(10, refusedAddress, 400, refusal), read(20, stored)];
  expect(violatedAcrossProbes(log, 30, replaced)).not.toContain('patch-unsent-fields-unchanged');
});

test("a refused PATCH and an accepted one after it with no read between: a change the refused one sent, in the accepted answer, is the refused one's", () => {
  const refusedDetails = { counterpartyDetails: { remarks: 'partial' }, counterpartyAccounts: [] };
  const other = { counterpartyDetails: { accountHolderName: 'Acme Two' } };
  const answer = (extra: object): object => ({
    ...base,
    accountHolderName: 'Acme Two',
    updatedAt: '2024-03-06T00:00:00Z',
    ...extra,
  });
  const log = (gap: number, shown: object): Exchange[] => [
    read(0, base),
    patch(10, refusedDetails, 400, refusal),
    patch(10 + gap, other, 200, shown),
    read(20 + gap, shown),
  ];
  // Within the refused PATCH's window, past it, and with no window: recorded traffic, where no
  // read need come between two writes.
  for (const [gap, settleMs] of [
    [5, SETTLE],
    [3000, SETTLE],
    [5, 0],
  ] as const) {
    // Its details stored by the refused PATCH (a partial apply): that PATCH's finding alone.
    expect(verdicts(log(gap, answer({ remarks: 'partial' })), settleMs).violated).toEqual([
      'patch-rejected-unchanged',
    ]);
    // Not stored: no finding, and the accepted PATCH is judged from the read before the refused one.
    const clean = verdicts(log(gap, answer({})), settleMs);
    expect(clean.violated).toEqual([]);
    expect(clean.held).toContain('patch-unsent-fields-unchanged');
  }
  // Overlapping, what the accepted PATCH started from is not known: not judged on what it did not send.
  const overlapping = [
    read(0, base),
    { ...patch(10, refusedDetails, 400, refusal), durationMs: 50 },
    patch(20, other, 200, answer({ accountHolderName: 'Acme Two', remarks: 'other client' })),
    read(100, answer({ remarks: 'other client' })),
  ];
  const v = verdicts(overlapping);
  expect(v.violated).toEqual([]);
  expect(v.held).not.toContain('patch-unsent-fields-unchanged');
});

test("a refused PATCH's change that shows only in the read after the next accepted PATCH, within its window: the refused one's", () => {
  const refusedRemarks = {
    counterpartyDetails: { remarks: 'leaked' },
    counterpartyAccounts: [{ name: 'x' }],
  };
  const two = { ...base, accountHolderName: 'Two', updatedAt: '2024-03-06T00:00:00Z' };
  const accepted = (at: number): Exchange =>
    patch(at, { counterpartyDetails: { accountHolderName: 'Two' } }, 200, two);
  const after = (at: number): Exchange => read(at, { ...two, remarks: 'leaked' });
  // Applied late (a store that applies it after answering, a queue): the accepted PATCH's answer
  // does not show it, the read after does. With a read between and without.
  for (const log of [
    [read(0, base), patch(10, refusedRemarks, 400, refusal), read(20, base), accepted(30), after(600)],
    [read(0, base), patch(10, refusedRemarks, 400, refusal), accepted(30), after(600)],
  ]) {
    const v = verdicts(log);
    expect(v.violated).toEqual(['patch-rejected-unchanged']);
    expect(v.held).toContain('patch-persisted');
    // Past the refused PATCH's window, or with none, the read after is the accepted PATCH's.
    expect(verdicts([...log.slice(0, -1), after(3000)]).violated).toEqual(['patch-persisted']);
    expect(verdicts(log, 0).violated).toEqual(['patch-persisted']);
  }
});

test("a refused PATCH's change that shows in a read after the next accepted PATCH was settled, within its window: the refused one's, not a moving field", () => {
  const refusedRemarks = {
    counterpartyDetails: { remarks: 'leaked' },
    counterpartyAccounts: [{ name: 'x' }],
  };
  const two = { ...base, accountHolderName: 'Two', updatedAt: '2024-03-06T00:00:00Z' };
  const settled = [
    read(0, base),
    patch(10, refusedRemarks, 400, refusal),
    read(20, base),
    patch(30, { counterpartyDetails: { accountHolderName: 'Two' } }, 200, two),
    read(40, two),
  ];
  const v = verdicts([...settled, read(600, { ...two, remarks: 'leaked' })]);
  expect(v.violated).toEqual(['patch-rejected-unchanged']);
  // Past its window, or with none, two reads that differ with no write between: a field moving.
  expect(verdicts([...settled, read(3000, { ...two, remarks: 'leaked' })]).violated).toEqual([]);
  expect(verdicts([...settled, read(600, { ...two, remarks: 'leaked' })], 0).violated).toEqual([]);
});

test('a refused PATCH and an accepted one that sends the same value: a read past the window that lost it fails the accepted one', () => {
  const refusedSame = { counterpartyDetails: { remarks: 'same' }, counterpartyAccounts: [] };
  const log = [
    read(0, base),
    patch(10, refusedSame, 400, refusal),
    patch(15, send('same'), 200, remarks('same')),
    // Stored without the field it sent.
    read(2000, { ...base, updatedAt: '2024-03-06T00:00:00Z' }),
  ];
  expect(verdicts(log).violated).toEqual(['patch-persisted']);
  // Shown by a later read within the window: no finding.
  const shown = [...log.slice(0, 3), read(20, base), read(400, remarks('same'))];
  expect(verdicts(shown).violated).toEqual([]);
});

/** Oracles that record the sequences the judge hands them. */
function recorder(): { oracles: Oracle[]; sequences: PatchSequence[] } {
  const sequences: PatchSequence[] = [];
  return {
    sequences,
    oracles: [
      { id: 's', kind: 'patch', requirements: [], unexercised: {}, judge: (s) => (sequences.push(s), []) },
    ],
  };
}

test('a chain of accepted PATCHes: each judged from the answer before it, the last with the read', () => {
  const { oracles, sequences } = recorder();
  const judge = new Judge(oracles, '', SETTLE);
  const r0 = read(0, base);
  const p1 = patch(10, send('first'), 200, remarks('first'));
  const p2 = patch(20, send('second'), 200, remarks('second'));
  const p3 = patch(30, send('third'), 200, remarks('third'));
  const r1 = read(40, remarks('third'));
  for (const ex of [r0, p1, p2, p3]) judge.judge(ex);
  expect(sequences).toHaveLength(0);
  judge.judge(r1);
  expect(sequences.map((s) => [s.before?.id, s.patch.id, s.after?.id])).toEqual([
    [r0.id, p1.id, undefined],
    [p1.id, p2.id, undefined],
    [p2.id, p3.id, r1.id],
  ]);
});

test('a contradicted chain: only the first has a state before it, and no later read is a state before', () => {
  const { oracles, sequences } = recorder();
  const judge = new Judge(oracles, '', 0);
  const r0 = read(0, base);
  const p1 = patch(10, send('first'), 200, remarks('first'));
  const p2 = patch(20, send('second'), 200, remarks('second'));
  const r1 = read(40, base); // nothing stored
  const p3 = patch(50, send('third'), 200, remarks('third'));
  for (const ex of [r0, p1, p2, r1, p3]) judge.judge(ex);
  judge.flush();
  expect(sequences.map((s) => [s.before?.id, s.patch.id, s.after?.id])).toEqual([
    [r0.id, p1.id, undefined],
    [undefined, p2.id, r1.id],
    [undefined, p3.id, undefined],
  ]);
  // A server that answers each PATCH with its change but stores none fails persisted only.
  expect(verdicts([r0, p1, p2, r1], 0).violated).toEqual(['patch-persisted']);
});

test('CONFORMANCE_SETTLE_MS: default, bounds, and a clear error', () => {
  const embedded = { token: 't', counterpartyRef: 'embedded-ref' };
  // A deployment waits for a trailing replica; the embedded server has none.
  const deployment = { API_BASE_URL: 'https://example.test', API_TOKEN: 't', COUNTERPARTY_REF: 'ACME-0001' };
  expect(parseConfig(deployment, embedded).settleMs).toBe(DEFAULT_SETTLE_MS);
  expect(parseConfig({}, embedded).settleMs).toBe(0);
  expect(parseConfig({ ...deployment, CONFORMANCE_SETTLE_MS: '0' }, embedded).settleMs).toBe(0);
  expect(DEFAULT_SETTLE_MS).toBe(2000);
  expect(parseConfig({ CONFORMANCE_SETTLE_MS: '0' }, embedded).settleMs).toBe(0);
  expect(parseConfig({ CONFORMANCE_SETTLE_MS: '60000' }, embedded).settleMs).toBe(60_000);
  expect(() => parseConfig({ CONFORMANCE_SETTLE_MS: '60001' }, embedded)).toThrow(
    /CONFORMANCE_SETTLE_MS must be between 0 and 60000/,
  );
  expect(() => parseConfig({ CONFORMANCE_SETTLE_MS: '2s' }, embedded)).toThrow(
    /CONFORMANCE_SETTLE_MS must be a whole number/,
  );
});

test('ACCOUNT_FIXTURE: an object or a list of them, inline or in a file; errors name the item', () => {
  const a = { accountIdentifier: { iban: 'NL00TEST0000000001' } };
  const b = { accountIdentifier: { iban: 'NL00TEST0000000002' }, currency: 'EUR' };
  expect(parseAccountFixtures(JSON.stringify(a))).toEqual([a]);
  expect(parseAccountFixtures(JSON.stringify([a, b]))).toEqual([a, b]);
  expect(() => parseAccountFixtures('[]')).toThrow(/ACCOUNT_FIXTURE: the list is empty/);
  expect(() => parseAccountFixtures(JSON.stringify([a, { currency: 'EUR' }]))).toThrow(
    /^ACCOUNT_FIXTURE\[1\]: missing "accountIdentifier"/,
  );
  const embedded = { token: 't', counterpartyRef: 'embedded-ref' };
  const remote = { API_BASE_URL: 'https://x.example', API_TOKEN: 't', COUNTERPARTY_REF: 'ACME-1' };
  const inline = parseConfig({ ...remote, ACCOUNT_FIXTURE: JSON.stringify([a, b]) }, embedded);
  expect(inline.accountFixture).toEqual(a);
  expect(inline.accountFixtures).toEqual([a, b]);
  const dir = mkdtempSync(join(tmpdir(), 'fixtures-'));
  writeFileSync(join(dir, 'accounts.json'), JSON.stringify([b, a]));
  const file = parseConfig({ ...remote, ACCOUNT_FIXTURE: 'accounts.json' }, embedded, dir);
  expect(file.accountFixtures).toEqual([b, a]);
  const single = parseConfig({ ...remote, ACCOUNT_FIXTURE: JSON.stringify(a) }, embedded);
  expect(single.accountFixtures).toEqual([a]);
});

test('a service refusing an identifier it holds with 409: no finding with one fixture, and it says so', async () => {
  const server = duplicateRefusingServer();
  const baseURL = await server.start(0);
  const session = new TargetSession({ politeness: EMBEDDED_POLITENESS });
  try {
    const target = { ...galleryTarget(baseURL), accountFixture: DEFAULT_ACCOUNT_FIXTURE };
    delete target.accountFixtures;
    const outcome = await runProbe(patchValidAccounts, target, new RunContext(session, baseURL));
    expect(outcome.incomplete).toBeUndefined();
    expect(outcome.findings).toEqual([]);
    // The first account with the identifier was judged; the repeats were refused and not judged.
    expect(outcome.judged['patch-valid-accepted']).toBeGreaterThan(0);
    expect(outcome.judged['patch-accounts-appended']).toBeGreaterThan(0);
    expect(outcome.notes.join('\n')).toMatch(/refused with 409 and not judged/);
    expect(outcome.notes.join('\n')).toMatch(
      /accounts added to conformance-writable-01: 1 .* from 1 fixture/,
    );
  } finally {
    session.close();
    await server.stop();
  }
});

test('WRITABLE_COUNTERPARTY_REF: a comma-separated list of lanes, trimmed; empties, repeats and bad references refused', () => {
  const embedded = { token: 't', counterpartyRef: 'embedded-ref', writableRef: 'embedded-w' };
  const remote = { API_BASE_URL: 'https://x.example', API_TOKEN: 't', COUNTERPARTY_REF: 'ACME-1' };
  const two = parseConfig({ ...remote, WRITABLE_COUNTERPARTY_REF: ' W-1 , W-2' }, embedded);
  expect(two.writableRef).toBe('W-1');
  expect(two.writableRefs).toEqual(['W-1', 'W-2']);
  expect(parseConfig({ ...remote, WRITABLE_COUNTERPARTY_REF: 'W-1' }, embedded).writableRefs).toEqual([
    'W-1',
  ]);
  expect(parseConfig(remote, embedded).writableRefs).toBeUndefined();
  expect(parseConfig({}, embedded).writableRefs).toEqual(['embedded-w']);
  expect(parseConfig({ WRITABLE_COUNTERPARTY_REF: 'aaa,bbb' }, embedded).writableRefs).toEqual([
    'aaa',
    'bbb',
  ]);
  for (const [value, message] of [
    ['W-1,,W-2', /has an empty entry/],
    ['W-1,', /has an empty entry/],
    ['W-1, W-1', /names 'W-1' twice/],
    ['W-1,a b', /'a b' is not a valid counterparty reference/],
  ] as const) {
    expect(() => parseConfig({ ...remote, WRITABLE_COUNTERPARTY_REF: value }, embedded)).toThrow(message);
  }
});

test('lanes: the write probes split by estimated round trips, each lane in the order given; one lane keeps them all', () => {
  const probe = (id: string): Probe => ({ ...patchValidAccounts, id });
  const probes = ['a', 'b', 'c', 'd', 'e'].map(probe);
  const cost: Record<string, number> = { a: 10, b: 200, c: 30, d: 50, e: 20 };
  const target = { ...galleryTarget('http://127.0.0.1:1'), writableRefs: ['W-1', 'W-2'] };
  const lanes = assignLanes(probes, target, (p) => cost[p.id]!);
  expect(lanes.map((l) => [l.ref, l.probes.map((p) => p.id), l.estimate])).toEqual([
    ['W-1', ['b'], 200],
    ['W-2', ['a', 'c', 'd', 'e'], 110],
  ]);
  expect(laneTarget(target, lanes[1]!).writableRef).toBe('W-2');
  const one = assignLanes(probes, { ...target, writableRefs: ['W-1'] }, (p) => cost[p.id]!);
  expect(one.map((l) => l.probes.map((p) => p.id))).toEqual([['a', 'b', 'c', 'd', 'e']]);
  // The real estimate puts the long chain of accepted details apart from the batched probes.
  const real = assignLanes(
    PROBES.filter((p) => p.access === 'write'),
    { ...target, runs: 100 },
    probeRoundTrips,
  );
  // The long chain of accepted details is split: a part of it leads each lane.
  expect(real.map((l) => l.probes[0]!.id)).toEqual(['patch-valid-details', 'patch-valid-details']);
  expect(real.map((l) => l.parts?.get(l.probes[0]!))).toEqual([
    { index: 0, count: 2 },
    { index: 1, count: 2 },
  ]);
  expect(laneTarget({ ...target, runs: 100 }, real[1]!, real[1]!.probes[0]).part).toEqual({
    index: 1,
    count: 2,
  });
});

/** Every part of patch-valid-details, each on its lane's counterparty, at once: what they found. */
async function splitDetails(server: ReferenceServer, lanes: string[]): Promise<Finding[]> {
  const baseURL = await server.start(0);
  try {
    const target = { ...galleryTarget(baseURL), writableRefs: lanes };
    const probes = PROBES.filter((p) => p.access === 'write' && !p.elsewhere);
    const assigned = assignLanes(probes, target, probeRoundTrips);
    const outcomes = await Promise.all(
      assigned.map((lane) =>
        runProbe(
          patchValidDetails,
          laneTarget(target, lane, patchValidDetails),
          new RunContext(new TargetSession({ politeness: EMBEDDED_POLITENESS }), baseURL),
        ),
      ),
    );
    for (const o of outcomes) expect(o.incomplete, o.incomplete).toBeUndefined();
    return outcomes.flatMap((o) => o.findings);
  } finally {
    await server.stop();
  }
}

test('split across two lanes, the parts pass on the reference and together catch a lost update', async () => {
  const lanes = WRITABLE_COUNTERPARTIES.slice(0, 2);
  expect(await splitDetails(new ReferenceServer(), lanes)).toEqual([]);
  const variant = GALLERY.find((v) => v.id === 'patch-not-persisted')!;
  const found = await splitDetails(variant.create() as ReferenceServer, lanes);
  expect(new Set(found.map((f) => f.requirement))).toEqual(new Set(variant.trips));
  // Each part wrote its own lane's counterparty.
  expect(new Set(found.map((f) => f.request?.url.split('/').pop()))).toEqual(new Set(lanes));
});
