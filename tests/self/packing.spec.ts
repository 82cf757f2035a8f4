/**
 * Several explicit valid cases per accepted PATCH (issue 24): the covering design itself (every
 * case in one pack, no two of a pack on one field, as few packs as the field with most cases), the
 * splitting of a failed pack, and the details probe against the reference server (every explicit
 * case still sent, in fewer PATCHes) and against variants that refuse exactly one boundary value
 * of one field, which must be reported with that single case, shrunk, and replayed alone.
 */
import { expect, test } from '@playwright/test';
import { EMBEDDED_POLITENESS } from '../../config/config.ts';
import { coverCases, splitPack } from '../../engine/packing.ts';
import { runProperty } from '../../engine/property.ts';
import { RunContext, runProbe } from '../../engine/run.ts';
import type { Probe, ProbeContext, ProbeOutcome, TargetConfig } from '../../engine/types.ts';
import { counterpartyPath } from '../../exchange/paths.ts';
import { requestJson, type Exchange } from '../../exchange/exchange.ts';
import fc from 'fast-check';
import { keeps, labelled, type Labelled } from '../../generators/labelled.ts';
import {
  validDetailsBodyExamples,
  validDetailsFieldBody,
  type PatchBody,
} from '../../generators/patch-body.ts';
import {
  DETAILS_PACKING,
  detailsArbitrary,
  detailsExamples,
  detailsRoom,
  patchValidDetails,
} from '../../probes/counterparty-patch.ts';
import { DETAILS_ROW_SLOTS, detailsRowValue, isDetailsRow } from '../../probes/valid-pairs.ts';
import { GALLERY } from '../../servers/gallery/index.ts';
import { type Counterparty, ReferenceServer, WRITABLE_COUNTERPARTY } from '../../servers/reference.ts';
import { patchRequest, ROLE } from '../../probes/write-lane.ts';
import { TargetSession } from '../../transport/session.ts';
import { VirtualClock } from './fake-clock.ts';
import { galleryTarget, SELF_TEST_SEED } from './suite-runner.ts';

test('the covering design: each case once, no shared slot, as few packs as the fullest slot', () => {
  const cases = [
    { id: 'a1', s: ['a'] },
    { id: 'a2', s: ['a'] },
    { id: 'a3', s: ['a'] },
    { id: 'b1', s: ['b'] },
    { id: 'c1', s: ['c'] },
    { id: 'bc', s: ['b', 'c'] },
    { id: 'all', s: ['a', 'b', 'c'] },
    { id: 'alone', s: [] as string[] },
  ];
  const packs = coverCases(cases, (c) => c.s);
  const ids = packs.map((p) => p.map((c) => c.id));
  expect(ids.flat().sort()).toEqual(cases.map((c) => c.id).sort());
  for (const pack of packs) {
    const slots = pack.flatMap((c) => c.s);
    expect(new Set(slots).size, JSON.stringify(pack)).toBe(slots.length);
  }
  // 'all' and 'alone' go alone; a's three cases need three packs, b and c fit beside them.
  expect(ids).toEqual([['a1', 'bc'], ['a2', 'b1', 'c1'], ['a3'], ['all'], ['alone']]);
});

test('cases giving a slot the same value may share a pack, never different values, and go where most of their values already are', () => {
  const cases = [
    { id: 'x:DE', v: { x: 'DE' } },
    { id: 'x:FR', v: { x: 'FR' } },
    { id: 'y1', v: { y: '1' } },
    { id: 'x:FR+y2', v: { x: 'FR', y: '2' } },
    { id: 'x:DE+y3', v: { x: 'DE', y: '3' } },
  ];
  const slots = (c: (typeof cases)[number]): string[] => Object.keys(c.v);
  const valueAt = (c: (typeof cases)[number], slot: string): string =>
    String((c.v as Record<string, string>)[slot]);
  const ids = coverCases(cases, slots, valueAt).map((p) => p.map((c) => c.id));
  // The two-slot cases first, a pack each (their y differ); x:DE and x:FR join the pack that
  // already sends their country; y1 fits neither (y taken), so it takes a pack of its own.
  expect(ids).toEqual([['x:DE', 'x:DE+y3'], ['x:FR', 'x:FR+y2'], ['y1']]);
  for (const pack of coverCases(cases, slots, valueAt)) {
    for (const slot of ['x', 'y'])
      expect(new Set(pack.filter((c) => slot in c.v).map((c) => valueAt(c, slot))).size).toBeLessThanOrEqual(
        1,
      );
  }
  // Without values, no slot is shared: four packs for x's four cases.
  expect(coverCases(cases, slots)).toHaveLength(4);
});

test('the explicit detail cases: 92 in as many PATCHes as the address country has cases, plus the one with every field', () => {
  const examples = validDetailsBodyExamples();
  const packs = coverCases(examples, DETAILS_PACKING.slots);
  const perSlot = new Map<string, number>();
  for (const e of examples) {
    const slots = DETAILS_PACKING.slots(e) ?? [];
    if (slots.length > 1) continue;
    for (const s of slots) perSlot.set(s, (perSlot.get(s) ?? 0) + 1);
  }
  const fullest = Math.max(...perSlot.values());
  expect(examples.length).toBe(92);
  expect(packs.length).toBeLessThanOrEqual(fullest + 1);
  expect(packs.length).toBeLessThan(examples.length / 2);
  // A merged body carries each case's value at its own field.
  for (const pack of packs) {
    const merged = DETAILS_PACKING.merge(pack).value.counterpartyDetails!;
    for (const c of pack) {
      const { address, ...rest } = c.value.counterpartyDetails!;
      for (const [k, v] of Object.entries(rest)) expect(merged[k as keyof typeof merged]).toEqual(v);
      for (const [k, v] of Object.entries(address ?? {}))
        expect(merged.address?.[k as keyof typeof address]).toEqual(v);
    }
  }
});

test('a failed pack is split down to the cases that fail alone, and no further', async () => {
  const sent: string[][] = [];
  const pack = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
  const count = await splitPack(pack, async (cases) => {
    sent.push([...cases]);
    return cases.includes('e') ? 'failed' : 'passed';
  });
  expect(sent.filter((s) => s.length === 1 && s[0] === 'e')).toHaveLength(1);
  // Halves of 7: 4+3, then 2+1, then 1+1: six sendings at most, far fewer than the 7 alone + halves.
  expect(count).toBe(sent.length);
  expect(count).toBeLessThanOrEqual(6);
});

async function runDetails(
  server: ReferenceServer,
  target?: Partial<TargetConfig>,
  log?: Exchange[],
): Promise<ProbeOutcome> {
  const baseURL = await server.start(0);
  try {
    // A settle window is waited out on a virtual clock: no real time, whatever the machine's load.
    const clock = target?.settleMs ? { clock: new VirtualClock() } : {};
    const run = new RunContext(
      new TargetSession({ politeness: EMBEDDED_POLITENESS, ...clock }),
      baseURL,
      target?.settleMs,
    );
    const outcome = await runProbe(patchValidDetails, { ...galleryTarget(baseURL), ...target }, run);
    log?.push(...run.log.all);
    return outcome;
  } finally {
    await server.stop();
  }
}

test('on the reference server every explicit case is sent, in fewer PATCHes, and nothing is found', async () => {
  const server = new ReferenceServer();
  const baseURL = await server.start(0);
  const run = new RunContext(new TargetSession({ politeness: EMBEDDED_POLITENESS }), baseURL);
  let outcome: ProbeOutcome;
  try {
    outcome = await runProbe(patchValidDetails, galleryTarget(baseURL), run);
  } finally {
    await server.stop();
  }
  const bodies = run.log.all.filter((ex) => ex.request.method === 'PATCH').map((ex) => requestJson(ex));
  expect(outcome.incomplete, outcome.incomplete).toBeUndefined();
  expect(outcome.findings).toEqual([]);
  const examples = detailsExamples();
  const rows = examples.filter(isDetailsRow);
  // The cases of the first round, as the probe's property draws them: the covering array's rows,
  // the boundary cases (a country alone is a row already), and the random ones; a case equal to
  // one drawn before is sent once, as the first one.
  const runs = galleryTarget('').runs;
  const cases: Labelled<PatchBody>[] = [];
  fc.check(
    fc.property(detailsArbitrary(), (c) => {
      cases.push(c);
    }),
    { seed: SELF_TEST_SEED, numRuns: examples.length + runs, examples: examples.map((e) => [e]) },
  );
  const distinct = new Map<string, Labelled<PatchBody>>();
  for (const c of cases) if (!distinct.has(JSON.stringify(c.value))) distinct.set(JSON.stringify(c.value), c);
  const explicit = new Set(examples.map((e) => JSON.stringify(e.value))).size;
  const note = outcome.notes.find((n) => n.includes('case(s) of the first round'));
  expect(note).toBe(
    `valid details patch: ${distinct.size} case(s) of the first round (${explicit} explicit, the rest random) sent in ${/sent in (\d+)/.exec(note ?? '')?.[1]} request(s), up to ${/up to (\d+)/.exec(note ?? '')?.[1]} in one`,
  );
  expect(distinct.size).toBeGreaterThan(explicit + runs * 0.9);
  const requests = Number(/sent in (\d+) request/.exec(note!)![1]);
  const detailsOf = (b: unknown): Record<string, unknown> =>
    (b as { counterpartyDetails?: Record<string, unknown> }).counterpartyDetails ?? {};
  // Every boundary case's every field went out in some PATCH.
  for (const e of examples.filter((x) => !isDetailsRow(x))) {
    const { address, ...rest } = e.value.counterpartyDetails!;
    const carried = bodies.some((b) => {
      const d = detailsOf(b);
      const a = (d.address ?? {}) as Record<string, unknown>;
      return (
        Object.entries(rest).every(([k, v]) => d[k] === v) &&
        Object.entries(address ?? {}).every(([k, v]) => a[k] === v)
      );
    });
    expect(carried, JSON.stringify(e.value)).toBe(true);
  }
  // Every row went out as it is: some PATCH carries exactly its fields and its country, whatever
  // strings other cases gave them.
  const shape = (d: Record<string, unknown>): string =>
    JSON.stringify(
      DETAILS_ROW_SLOTS.map((slot) => detailsRowValue(d, slot)).map((v) =>
        typeof v === 'string' ? v : String(v),
      ),
    );
  const shapes = new Set(bodies.map((b) => shape(detailsOf(b))));
  for (const r of rows)
    expect(shapes.has(shape(r.value.counterpartyDetails!)), r.rule.description).toBe(true);
  // Explicit and random cases packed, into the rows first, and the restore: at least as many
  // PATCHes as the busiest field has distinct values (the fewest any packing can do: cases giving
  // a field the same value share it), at most the rows more, far fewer than cases.
  const packs = coverCases([...distinct.values()], DETAILS_PACKING.slots, DETAILS_PACKING.valueAt);
  expect(requests).toBe(packs.length);
  const load = new Map<string, Set<string>>();
  for (const c of [...distinct.values()].filter((x) => !isDetailsRow(x)))
    for (const slot of DETAILS_PACKING.slots(c) ?? [])
      load.set(slot, (load.get(slot) ?? new Set()).add(String(DETAILS_PACKING.valueAt!(c, slot))));
  const busiest = Math.max(...[...load.values()].map((v) => v.size));
  expect(requests).toBeGreaterThanOrEqual(busiest);
  expect(requests).toBeLessThanOrEqual(busiest + rows.length);
  expect(requests).toBeLessThan((examples.length + runs) * 0.6);
  expect(bodies.length).toBe(requests + 1);
});

for (const id of ['patch-holder-name-shortest-refused', 'patch-mobile-max-15']) {
  test(`${id}: the one refused boundary value is reported alone, shrunk, and its replay sends it alone`, async () => {
    const variant = GALLERY.find((v) => v.id === id)!;
    const outcome = await runDetails(variant.create() as ReferenceServer);
    expect(outcome.incomplete, outcome.incomplete).toBeUndefined();
    expect(outcome.notes.join('\n')).toMatch(/; \d+ split to find the failing case/);
    const findings = outcome.findings.filter((f) => f.requirement === 'patch-valid-accepted');
    expect(findings).toHaveLength(1);
    const finding = findings[0]!;
    const field = id.includes('holder') ? 'accountHolderName' : 'mobileNumber';
    // The single case: one field, the refused value's length, and nothing else in the body.
    const input = finding.input as { counterpartyDetails: Record<string, string> };
    expect(Object.keys(input)).toEqual(['counterpartyDetails']);
    expect(Object.keys(input.counterpartyDetails)).toEqual([field]);
    expect(input.counterpartyDetails[field]!.length).toBe(field === 'mobileNumber' ? 16 : 3);
    expect(finding.path).toBeDefined();
    // The replay line's case: that one body, alone.
    const replay = await runDetails(variant.create() as ReferenceServer, {
      replayCase: { property: finding.property!, path: finding.path! },
    });
    const again = replay.findings.filter((f) => f.requirement === 'patch-valid-accepted');
    expect(again.map((f) => f.input)).toEqual([finding.input]);
    expect(replay.notes.join('\n')).not.toMatch(/of the first round/);
  });
}

test('a change no read shows, with a settle window: the packed round reports a case that fails alone, with its own PATCH', async () => {
  // Reads confirm several packs at once, and once a read has not shown a PATCH within the window
  // the writer reads no more than once: the judgement of each PATCH sent alone (a half of a split
  // pack, a shrink candidate, a replay) must still come while that PATCH's case runs.
  const variant = GALLERY.find((v) => v.id === 'patch-not-persisted')!;
  const log: Exchange[] = [];
  const outcome = await runDetails(variant.create() as ReferenceServer, { settleMs: 1000 }, log);
  expect(outcome.incomplete, outcome.incomplete).toBeUndefined();
  expect(outcome.notes.join('\n')).toMatch(/; \d+ split to find the failing case/);
  expect(outcome.notes.join('\n')).not.toMatch(/run again alone, the case held/);
  const findings = outcome.findings.filter((f) => f.requirement === 'patch-persisted');
  // The property's finding comes first; the only other is the restore's, which no case sent.
  expect(findings[0]?.path, JSON.stringify(findings.map((f) => f.message))).toBeDefined();
  expect(findings.slice(1).map((f) => f.context?.find((c) => c.request.startsWith('PATCH '))?.role)).toEqual([
    'restore',
  ]);
  // Its input is the body of the PATCH it rests on.
  const finding = findings[0]!;
  const patchOf = (f: typeof finding): string | undefined =>
    f.context?.find((c) => c.request.startsWith('PATCH '))?.curl;
  const body = (curl: string | undefined): unknown =>
    JSON.parse(/--data-binary '(.*)'$/.exec(curl ?? '')![1]!.replaceAll("'\\''", "'"));
  expect(body(patchOf(finding))).toEqual(finding.input);
  expect(log.filter((ex) => ex.request.method === 'PATCH').length).toBeLessThan(120);
  // Replayed alone by its path, it fails the same way, with the same body.
  const replay = await runDetails(variant.create() as ReferenceServer, {
    settleMs: 1000,
    replayCase: { property: finding.property!, path: finding.path! },
  });
  const again = replay.findings.find((f) => f.requirement === 'patch-persisted' && f.path !== undefined);
  expect(again?.input).toEqual(finding.input);
  expect(body(patchOf(again!))).toEqual(finding.input);
});

test('a judgement that comes while a split pack is sent counts for the pack it rests on, not for the half sent', async () => {
  // Packs [e1 e2] and [e3], confirmed by one read, which does not show e3 (never stored) but
  // comes within the settle window: e3's PATCH is judged when the next PATCH goes out, the first
  // half of [e1 e2] (split for e2's own violation). The judgement is e3's, not e1's, which holds.
  const server = new (class extends ReferenceServer {
    protected override save(cp: Counterparty): void {
      if (cp.remarks !== 'three') super.save(cp);
    }
  })();
  const baseURL = await server.start(0);
  const ref = WRITABLE_COUNTERPARTY;
  const body = (details: Record<string, string>): Labelled<PatchBody> =>
    labelled(
      { counterpartyDetails: details },
      keeps('counterpartyDetails', 'schema', JSON.stringify(details)),
    );
  const cases = [
    body({ remarks: 'one' }),
    body({ accountHolderName: 'Flagged' }),
    body({ remarks: 'three' }),
  ];
  const read = (ctx: ProbeContext): Promise<unknown> =>
    ctx.http.send({ method: 'GET', path: counterpartyPath(ref), role: ROLE.after });
  const probe: Probe = {
    id: 'packed-late-judgement',
    title: 'packed PATCHes confirmed by one read',
    requirements: ['patch-valid-accepted', 'patch-persisted'],
    judges: ['patch-valid-accepted'],
    operations: ['getCounterparty', 'patchCounterparty'],
    group: 'counterparty-patch',
    access: 'write',
    async run(ctx) {
      await read(ctx);
      await runProperty(ctx, {
        name: 'late',
        arbitrary: fc.constantFrom(...cases),
        examples: cases,
        runs: 1,
        maxShrinkProbes: 0,
        async probe(input, alone) {
          const patch = await ctx.http.send(patchRequest(ref, input));
          if (alone) {
            await read(ctx);
            ctx.lastRead(ref);
          }
          if (input.value.counterpartyDetails?.accountHolderName !== 'Flagged') return undefined;
          return {
            requirement: 'patch-valid-accepted',
            exchange: patch,
            message: 'flagged',
            expected: '',
            received: '',
          };
        },
        packing: { ...DETAILS_PACKING, settle: async () => void (await read(ctx)) },
      });
    },
  };
  let outcome: ProbeOutcome;
  try {
    const run = new RunContext(
      new TargetSession({ politeness: EMBEDDED_POLITENESS, clock: new VirtualClock() }),
      baseURL,
      1000,
    );
    outcome = await runProbe(probe, galleryTarget(baseURL), run);
  } finally {
    await server.stop();
  }
  expect(outcome.incomplete, outcome.incomplete).toBeUndefined();
  const ofCase = (requirement: string): unknown[] =>
    outcome.findings.filter((f) => f.requirement === requirement && f.path !== undefined).map((f) => f.input);
  expect(ofCase('patch-valid-accepted')).toEqual([cases[1]!.value]);
  // e3's PATCH, sent in its own pack; not e1's, whose half was being sent when it was judged.
  expect(ofCase('patch-persisted')).toEqual([cases[2]!.value]);
});

test('the random detail cases go where the explicit PATCHes leave room: a few PATCHes more whatever the seed', () => {
  const examples = detailsExamples();
  const explicit = coverCases(examples, DETAILS_PACKING.slots, DETAILS_PACKING.valueAt).length;
  const room = detailsRoom();
  // Every field alone is still drawn; the field with the fewest free places least.
  for (const places of Object.values(room)) expect(places).toBeGreaterThan(0);
  const planned = (arbitrary: fc.Arbitrary<Labelled<PatchBody>>, seed: number): number => {
    const cases: Labelled<PatchBody>[] = [];
    fc.check(
      fc.property(arbitrary, (c) => {
        cases.push(c);
      }),
      { seed, numRuns: examples.length + 100, examples: examples.map((e) => [e]) },
    );
    return coverCases(cases, DETAILS_PACKING.slots, DETAILS_PACKING.valueAt).length;
  };
  const seeds = Array.from({ length: 12 }, (_, i) => i + 1);
  const weighted = seeds.map((seed) => planned(detailsArbitrary(), seed));
  const alike = seeds.map((seed) => planned(validDetailsFieldBody(), seed));
  // Drawn alike, the fields with few places overflow: 41 to 57 PATCHes for these seeds.
  expect(Math.max(...alike)).toBeGreaterThan(explicit + 10);
  // Drawn by their places: a few more than the explicit cases take, for every seed.
  expect(Math.max(...weighted)).toBeLessThanOrEqual(explicit + 7);
  const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
  expect(sum(weighted)).toBeLessThan(sum(alike));
});
