/**
 * The property runner's concurrent schedule, against a local server that counts what it gets:
 * it finds the same failures, shrinks to the same input with the same seed and path, and costs a
 * conforming target the same requests as the sequential schedule; cases are in flight together;
 * equivalent cases are sent once; cases of one lane never overlap; explicit cases are recorded in
 * their order. Fixed seeds throughout.
 */
import { MAX_FINDINGS_PER_CAUSE } from '../../engine/finding-groups.ts';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { EMBEDDED_POLITENESS } from '../../config/config.ts';
import { requestKey, runCases } from '../../engine/cases.ts';
import { runProperty, type PropertySpec } from '../../engine/property.ts';
import { RunContext, runProbe } from '../../engine/run.ts';
import type { Probe, ProbeContext, ProbeOutcome, TargetConfig } from '../../engine/types.ts';
import { counterpartyPath } from '../../exchange/paths.ts';
import { validReference, validReferenceExamples } from '../../generators/counterparty-reference.ts';
import { labelled } from '../../generators/labelled.ts';
import { TargetSession } from '../../transport/session.ts';

/** A server answering GET of a reference after `delayMs`: 400 when `fails(ref)`, else 404. */
interface Counting {
  baseURL: string;
  /** The requests it got, as "METHOD /path". */
  got: string[];
  /** The most requests it had in flight at once. */
  maxInFlight: number;
  /** The most requests in flight at once on one reference. */
  maxPerReference: number;
  close(): Promise<void>;
}

async function countingServer(fails: (ref: string) => boolean, delayMs = 5): Promise<Counting> {
  let inFlight = 0;
  const perReference = new Map<string, number>();
  const state = { got: [] as string[], maxInFlight: 0, maxPerReference: 0 };
  const server: Server = createServer((req, res) => {
    const ref = decodeURIComponent((req.url ?? '').split('/').pop() ?? '');
    state.got.push(`${req.method} ${req.url}`);
    inFlight++;
    const mine = (perReference.get(ref) ?? 0) + 1;
    perReference.set(ref, mine);
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    state.maxPerReference = Math.max(state.maxPerReference, mine);
    setTimeout(() => {
      inFlight--;
      perReference.set(ref, (perReference.get(ref) ?? 1) - 1);
      res.writeHead(fails(ref) ? 400 : 404, { 'Content-Type': 'application/json' });
      res.end('{}');
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

function targetOf(baseURL: string, runs = 50): TargetConfig {
  return {
    baseURL,
    token: 't',
    counterpartyRef: 'ACME-1',
    writableRef: undefined,
    accountFixture: undefined,
    seed: 42,
    runs,
  };
}

/** Runs `body` as a read probe against `server`, with `concurrency` requests allowed in flight. */
async function runAgainst(
  server: Counting,
  body: (ctx: ProbeContext) => Promise<void>,
  concurrency = 16,
  runs = 50,
): Promise<ProbeOutcome> {
  const session = new TargetSession({ politeness: { ...EMBEDDED_POLITENESS, concurrency } });
  const probe: Probe = {
    id: 'sends-references',
    title: 'GET of generated valid references',
    requirements: ['reference-valid-not-400'],
    judges: [],
    operations: ['getCounterparty'],
    group: 'references',
    access: 'read',
    run: body,
  };
  try {
    return await runProbe(probe, targetOf(server.baseURL, runs), new RunContext(session, server.baseURL));
  } finally {
    session.close();
  }
}

/** GET of generated valid references: reference-status (an oracle) judges a 400 to one. */
function references(ctx: ProbeContext, concurrent: boolean): PropertySpec<string> {
  return {
    name: 'valid reference',
    arbitrary: validReference(),
    examples: validReferenceExamples(),
    async probe(input) {
      await ctx.http.send({ method: 'GET', path: counterpartyPath(input.value), role: 'the case' });
      return undefined;
    },
    ...(concurrent ? { concurrent: {} } : {}),
  };
}

const rule = { field: 'counterpartyReference', keyword: 'pattern', keeps: true, description: 'a reference' };

/** What a finding says about where it came from, to compare the two schedules. */
const replayOf = (o: ProbeOutcome) =>
  o.findings.map((f) => ({ requirement: f.requirement, input: f.input, seed: f.seed, path: f.path }));

test('the concurrent schedule finds what the sequential one finds: same shrunk input, seed and path', async () => {
  for (const fails of [(ref: string) => ref.length > 8, (ref: string) => /[A-Z].*_/.test(ref)]) {
    const sequential = await countingServer(fails);
    const concurrent = await countingServer(fails);
    try {
      const seq = await runAgainst(sequential, (ctx) =>
        runProperty(ctx, references(ctx, false)).then(() => {}),
      );
      const con = await runAgainst(concurrent, (ctx) =>
        runProperty(ctx, references(ctx, true)).then(() => {}),
      );
      expect(seq.incomplete).toBeUndefined();
      expect(con.incomplete).toBeUndefined();
      expect(seq.findings).toHaveLength(1);
      expect(replayOf(con)).toEqual(replayOf(seq));
      // The first round's cases are answered from what was sent at once; a shrink candidate equal
      // to a case sent before is not sent again: never more requests than the sequential schedule.
      expect(con.requests).toBeLessThanOrEqual(seq.requests);
      expect(concurrent.maxInFlight).toBeGreaterThan(1);
      expect(sequential.maxInFlight).toBe(1);
    } finally {
      await sequential.close();
      await concurrent.close();
    }
  }
});

test('on a conforming target the concurrent schedule sends the same requests as the sequential one, at once', async () => {
  const sequential = await countingServer(() => false, 20);
  const concurrent = await countingServer(() => false, 20);
  try {
    let seqRuns = 0;
    let conRuns = 0;
    const seq = await runAgainst(sequential, async (ctx) => {
      seqRuns = (await runProperty(ctx, references(ctx, false))).numRuns;
    });
    const con = await runAgainst(concurrent, async (ctx) => {
      conRuns = (await runProperty(ctx, references(ctx, true))).numRuns;
    });
    expect(con.findings).toEqual([]);
    expect(conRuns).toBe(seqRuns);
    // The same requests in the same order of cases (the dry check feeds exactly check's cases).
    expect([...concurrent.got].sort()).toEqual([...sequential.got].sort());
    expect(con.requests).toBe(seq.requests);
    // The first round went out at once (the sequential schedule never has two in flight); what
    // that saves in time against a remote deployment is measured by npm run bench, not here.
    expect(concurrent.maxInFlight).toBeGreaterThanOrEqual(8);
    expect(sequential.maxInFlight).toBe(1);
  } finally {
    await sequential.close();
    await concurrent.close();
  }
});

test('equivalent cases are sent once, and the outcome notes how many were skipped', async () => {
  const server = await countingServer((ref) => ref === 'bbb');
  try {
    const out = await runAgainst(server, (ctx) =>
      runProperty(ctx, {
        name: 'two references',
        arbitrary: fc.constantFrom('aaa', 'bbb', 'ccc').map((r) => labelled(r, rule)),
        runs: 30,
        async probe(input) {
          await ctx.http.send({ method: 'GET', path: counterpartyPath(input.value) });
          return undefined;
        },
        // Cases differing only in what the request does not carry are the same request.
        concurrent: { key: (input) => requestKey({ method: 'GET', path: counterpartyPath(input.value) }) },
      }).then(() => {}),
    );
    // Three distinct requests, whatever the 30 cases, the rounds and the shrinking.
    expect(new Set(server.got).size).toBe(3);
    expect(server.got).toHaveLength(3);
    expect(out.findings.map((f) => f.input)).toEqual(['bbb']);
    expect(out.notes.join('\n')).toMatch(/two references: .*27 equivalent case\(s\) sent once/);
  } finally {
    await server.close();
  }
});

test('inputs the probe knows to hold are not sent, in the first round or while shrinking; the failure is found as without them', async () => {
  const fails = (ref: string): boolean => ref.length > 8;
  const run = async (known?: (ref: string) => boolean): Promise<{ got: string[]; out: ProbeOutcome }> => {
    const server = await countingServer(fails);
    try {
      const out = await runAgainst(server, (ctx) =>
        runProperty(ctx, {
          ...references(ctx, false),
          ...(known ? { known: (input: { value: string }) => known(input.value) } : {}),
        }).then(() => {}),
      );
      return { got: server.got.map((g) => decodeURIComponent(g.split('/').pop() ?? '')), out };
    } finally {
      await server.close();
    }
  };
  const plain = await run();
  // Known: every reference that holds (as a batch sent before the property would have shown).
  const skipping = await run((ref) => !fails(ref));
  // The same finding, shrunk to the same input with the same seed and path.
  expect(replayOf(skipping.out)).toEqual(replayOf(plain.out));
  expect(replayOf(plain.out)).toHaveLength(1);
  // Only what fails went out.
  expect(skipping.got.length).toBeGreaterThan(0);
  expect(skipping.got.every(fails)).toBe(true);
  expect(skipping.got.length).toBeLessThan(plain.got.length);
});

test('cases of one lane never overlap; other lanes go together', async () => {
  const server = await countingServer(() => false, 10);
  try {
    const out = await runAgainst(server, (ctx) =>
      runProperty(ctx, {
        name: 'read, read again',
        arbitrary: fc
          .tuple(fc.constantFrom('lane-a', 'lane-b', 'lane-c', 'lane-d'), fc.nat(1000))
          .map(([r, n]) => labelled({ reference: r, n }, rule)),
        runs: 40,
        async probe(input) {
          const path = counterpartyPath(input.value.reference);
          await ctx.http.send({ method: 'GET', path, role: `first ${input.value.n}` });
          await ctx.http.send({ method: 'GET', path, role: `second ${input.value.n}` });
          return undefined;
        },
        concurrent: { lane: (input) => input.value.reference },
      }).then(() => {}),
    );
    expect(out.incomplete).toBeUndefined();
    expect(server.maxPerReference).toBe(1);
    expect(server.maxInFlight).toBeGreaterThan(1);
  } finally {
    await server.close();
  }
});

test('explicit cases go at once and are recorded in their order, whichever answer came first', async () => {
  // The later the case, the sooner its answer: completion order is the reverse of the cases'.
  const refs = ['r-09', 'r-08', 'r-07', 'r-06', 'r-05', 'r-04', 'r-03', 'r-02', 'r-01', 'r-00'];
  let inFlight = 0;
  let maxInFlight = 0;
  const answered: string[] = [];
  const server = createServer((req, res) => {
    const ref = (req.url ?? '').split('/').pop() ?? '';
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    setTimeout(
      () => {
        inFlight--;
        answered.push(ref);
        res.writeHead(400, { 'Content-Type': 'application/json' });
        res.end('{}');
      },
      5 + 10 * Number(ref.slice(2)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fake = { baseURL, got: [], maxInFlight: 0, maxPerReference: 0, close: async () => {} };
  try {
    let skipped = -1;
    const keyed: string[] = [];
    const out = await runAgainst(fake, async (ctx) => {
      skipped = await runCases(ctx, [...refs, 'r-09'], {
        async probe(ref) {
          await ctx.http.send({ method: 'GET', path: counterpartyPath(ref) });
          return undefined;
        },
        schedule: {
          key: (ref) => {
            keyed.push(ref);
            return ref;
          },
        },
      });
    });
    expect(skipped).toBe(1);
    // Each case's key computed once, however often sending and recording ask for it.
    expect(keyed).toEqual(refs);
    expect(out.requests).toBe(10);
    // reference-status: a valid reference answered 400; kept up to MAX_FINDINGS_PER_CAUSE, in case order.
    expect(out.findings.map((f) => f.request?.url.split('/').pop())).toEqual(
      refs.slice(0, MAX_FINDINGS_PER_CAUSE),
    );
    // All ten were in flight at once, and answered in another order than the cases'.
    expect(maxInFlight).toBe(10);
    expect(answered).not.toEqual(refs);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('a case that throws stops the property: what the oracles found is kept, the error is the outcome', async () => {
  // Nothing listens here after the server closes: every request fails to connect.
  const gone = await countingServer(() => false);
  await gone.close();
  const out = await runAgainst(gone, (ctx) => runProperty(ctx, references(ctx, true)).then(() => {}));
  expect(out.incomplete).toMatch(/ECONNREFUSED|connection/);
  // What the oracles found in the cases that went out (no answer) is kept, nothing else.
  expect(out.findings.length).toBeGreaterThan(0);
  expect(new Set(out.findings.map((f) => f.requirement))).toEqual(new Set(['request-answered']));
  // The failures stopped the cases not yet started: far fewer than the 50 and more of the round.
  expect(out.requests).toBeLessThan(20);
});
