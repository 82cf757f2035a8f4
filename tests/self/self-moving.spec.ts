/**
 * A bounded cost whatever the target does (issue 24): a counterparty whose reads differ with no
 * write between is judged on what a write can change, its moving fields reported once and never
 * bisected; and batching has a budget of resendings derived from its plan, past which the probe
 * stops with a bisection storm. All bounds are request counts, never wall time.
 */
import { expect, test } from '@playwright/test';
import { EMBEDDED_POLITENESS } from '../../config/config.ts';
import {
  BisectionStorm,
  bisectionBudget,
  CHANGED_CASES_BUDGET,
  chunks,
  sendInBatches,
} from '../../engine/batch.ts';
import { Judge } from '../../engine/judge.ts';
import { RunContext, runProbe } from '../../engine/run.ts';
import type { Probe, ProbeOutcome } from '../../engine/types.ts';
import type { Exchange } from '../../exchange/exchange.ts';
import { ORACLES } from '../../oracles/index.ts';
import { exchangeFrom } from '../../oracles/vectors/format.ts';
import { patchValidAccounts, patchValidDetails } from '../../probes/counterparty-patch.ts';
import { patchInvalidBodies } from '../../probes/invalid-bodies.ts';
import { GALLERY } from '../../servers/gallery/index.ts';
import { ReferenceServer } from '../../servers/reference.ts';
import { TargetSession } from '../../transport/session.ts';
import { VirtualClock } from './fake-clock.ts';
import { galleryTarget } from './suite-runner.ts';

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

test('a target whose every write changes the state: four single cases found, the later batches restored but not taken apart', async () => {
  let sends = 0;
  let restores = 0;
  const cases = range(700);
  const size = 32;
  const r = await sendInBatches(cases, size, String, {
    send: async () => {
      sends++;
      return true;
    },
    restore: async () => {
      restores++;
    },
  });
  const planned = chunks(cases, size).length;
  expect(r.changed).toEqual([0, 1, 2, 3]);
  expect(r.changedBatches).toBe(planned);
  expect(r.notTakenApart).toBe(planned - 1);
  // The batches, and the resendings that found the four cases: depth-first, 5 + 1 + 2 + 1. Not
  // all 22 batches taken apart (22 × 62 = 1364 sendings, a restore each).
  expect(sends).toBe(planned + 9);
  expect(restores).toBe(sends);
});

test('halves that change the state while no single case does: the batching stops at its budget, with a storm', async () => {
  let sends = 0;
  const cases = range(700);
  const size = 32;
  const budget = bisectionBudget(size);
  const error = await sendInBatches(cases, size, String, {
    send: async (batch) => {
      sends++;
      return batch.length > 1;
    },
    restore: async () => {},
  }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(BisectionStorm);
  expect(String((error as Error).message)).toMatch(
    /bisection storm: \d+ of the first \d+ batch\(es\) \(of 22 planned\)/,
  );
  // Four single cases' worth of resendings (2 × log2(32) + 1 each), whatever the plan's size:
  // bisection is sequential, so this bounds the time too.
  expect(budget).toBe(CHANGED_CASES_BUDGET * (2 * 5 + 1));
  expect(sends).toBeLessThanOrEqual(chunks(cases, size).length + budget);
});

test('a few changing cases fit the budget and are all found', async () => {
  const bad = [3, 200, 411, 690];
  let state = 0;
  const r = await sendInBatches(range(700), 32, String, {
    send: async (batch) => {
      for (const c of batch) if (bad.includes(c)) state++;
      return state !== 0;
    },
    restore: async () => {
      state = 0;
    },
  });
  expect(r.changed).toEqual(bad);
});

const URL = 'http://h/api/v1/counterparties/ACME-1';
const stored = {
  counterpartyReference: 'ACME-1',
  state: 'ACTIVE',
  createdAt: '2024-01-10T09:00:00Z',
  updatedAt: '2024-03-05T14:30:00Z',
  accountHolderName: 'Acme',
};
// The suite's own requests carry the token (recorded as $API_TOKEN): the request-aware oracles
// would otherwise judge them as unauthenticated.
const AUTH = { Authorization: 'Bearer $API_TOKEN', 'Content-Type': 'application/json' };
const read = (at: number, createdAt: string): Exchange => ({
  ...exchangeFrom({
    request: { method: 'GET', url: URL, headers: AUTH },
    status: 200,
    json: { ...stored, createdAt },
  }),
  startedAt: at,
});
const patch = (at: number, sent: object, status: number, json: object): Exchange => ({
  ...exchangeFrom({ request: { method: 'PATCH', url: URL, headers: AUTH, json: sent }, status, json }),
  startedAt: at,
});

test('the judge leaves a field that moved between two reads out of the PATCH comparisons', () => {
  const judge = new Judge(ORACLES);
  const violated = (exs: Exchange[]): string[] =>
    exs.flatMap((ex) => judge.judge(ex)).flatMap((j) => (j.judgement.held ? [] : [j.judgement.requirement]));
  // Two reads with no write between disagree on createdAt: the pair oracle says so, once.
  expect(violated([read(0, '2024-01-10T09:00:01Z'), read(10, '2024-01-10T09:00:02Z')])).toEqual([
    'immutable-fields-stable',
  ]);
  // A refused PATCH, and an accepted one answered with the stored createdAt: the reads around them
  // still move, and nothing is blamed on the writes.
  const refused = patch(20, { counterpartyDetails: { remarks: '' } }, 400, { error: 'x' });
  const sent = { counterpartyDetails: { remarks: 'net 30' } };
  const accepted = patch(40, sent, 200, { ...stored, remarks: 'net 30' });
  const after = {
    ...read(50, '2024-01-10T09:00:04Z'),
    body: { ...stored, remarks: 'net 30', createdAt: '2024-01-10T09:00:04Z' },
  };
  expect(violated([refused, read(30, '2024-01-10T09:00:03Z'), accepted, after])).toEqual([]);
});

/** Runs the write probes one after another in one process, as one lane does. */
async function lane(server: ReferenceServer, probes: Probe[]): Promise<ProbeOutcome[]> {
  const baseURL = await server.start(0);
  try {
    const run = new RunContext(new TargetSession({ politeness: EMBEDDED_POLITENESS }), baseURL);
    const out: ProbeOutcome[] = [];
    for (const probe of probes) out.push(await runProbe(probe, galleryTarget(baseURL), run));
    return out;
  } finally {
    await server.stop();
  }
}

test('a counterparty whose createdAt moves on every read: reported once, at the cost of the plan', async () => {
  const probes = [patchValidDetails, patchValidAccounts, patchInvalidBodies];
  const reference = await lane(new ReferenceServer(), probes);
  const variant = GALLERY.find((v) => v.id === 'answers-created-at-every-read')!;
  const moving = await lane(variant.create() as ReferenceServer, probes);
  for (const o of [...reference, ...moving])
    expect(o.incomplete, `${o.probe}: ${o.incomplete}`).toBeUndefined();
  expect(reference.flatMap((o) => o.findings)).toEqual([]);
  expect([...new Set(moving.flatMap((o) => o.findings.map((f) => f.requirement)))]).toEqual(variant.trips);
  // The bound: each probe sends what it sends to a conforming target, and at most one more read
  // per batch of refused PATCHes (the read that tells a moving field from a change), never a
  // bisection: no restore beyond each probe's own.
  reference.forEach((ref, i) => {
    const got = moving[i]!;
    const batches = Number(/in (\d+) batch/.exec(ref.notes.join('\n'))?.[1] ?? 0);
    expect(got.requests, got.probe).toBeLessThanOrEqual(ref.requests + batches + 1);
    expect(got.restores?.length ?? 0, got.probe).toBe(ref.restores?.length ?? 0);
  });
  expect(moving.flatMap((o) => o.notes).some((n) => /createdAt changed between two reads/.test(n))).toBe(
    true,
  );
  // What the first probe learned, the later ones of the lane start from: each says so, and none
  // reads twice before its first PATCH when it starts from the read the one before ended with.
  for (const o of moving.slice(1))
    expect(
      o.notes.some((n) => /createdAt seen to change with no write between by an earlier check/.test(n)),
      o.probe,
    ).toBe(true);
});

test("a write probe that starts from the lane's last read, after two reads were compared, reads no second time", async () => {
  const server = new ReferenceServer();
  const baseURL = await server.start(0);
  try {
    // On a virtual clock: the read the probe before ended with serves within KNOWN_READ_MS of
    // it, however long the machine takes between the two probes.
    const session = new TargetSession({ politeness: EMBEDDED_POLITENESS, clock: new VirtualClock() });
    const roles = (run: RunContext, from: number): string[] =>
      run.log.all.slice(from).map((ex) => ex.origin.role ?? '');
    const before = (r: string[]): number =>
      r.slice(
        0,
        r.findIndex((x) => x.startsWith('PATCH')),
      ).length;
    // Alone: the read before the first PATCH, and a second one (what moves by itself).
    const alone = new RunContext(session, baseURL);
    await runProbe(patchValidAccounts, galleryTarget(baseURL), alone);
    expect(before(roles(alone, 0))).toBe(2);
    // After patch-valid-details in the same process: its last read is the state before.
    const lane = new RunContext(session, baseURL);
    await runProbe(patchValidDetails, galleryTarget(baseURL), lane);
    const from = lane.log.size;
    await runProbe(patchValidAccounts, galleryTarget(baseURL), lane);
    expect(before(roles(lane, from))).toBe(0);
    session.close();
  } finally {
    await server.stop();
  }
});
