/**
 * Concurrent clients (interface.md §4.2; RFC 5789 §2): concurrent-patches sends two accepted
 * PATCHes of the writable counterparty in flight at once (disjoint fields, the same field, both,
 * accounts beside a detail), released in the order a fast-check scheduler (`fc.scheduler`)
 * chooses, then reads it: the state must be what some serial order of them makes it
 * (oracles/patch-concurrent.ts judges the group). Shrunk to the smallest pair and schedule that
 * shows a lost update.
 *
 * The probe judges only that a valid body is accepted; what the PATCHes did to the stored state
 * is the oracles'. It writes, so it runs only with WRITABLE_COUNTERPARTY_REF, and hands its
 * changes on to the run's restore at its end; the accounts it adds stay (at most a few, within
 * CONFORMANCE_ACCOUNT_BUDGET).
 */
import fc from 'fast-check';
import { is2xx, type Exchange } from '../exchange/exchange.ts';
import { type Probe, type ProbeContext, runProperty, showsState } from '../engine/probe-api.ts';
import { DEFAULT_ACCOUNT_BUDGET, type AccountFixture } from '../generators/account-fixture.ts';
import { keeps, labelled, type Labelled } from '../generators/labelled.ts';
import { validAccountsBody, type PatchBody } from '../generators/patch-body.ts';
import type { Obj } from '../oracles/compare.ts';
import { operationIds } from '../spec/operations.ts';
import { DUPLICATES_NOTE, fixturesOf, Identifiers } from './account-identifiers.ts';
import { UPDATE_REQUIREMENTS, validAccepted } from './counterparty-patch.ts';
import { family } from './family.ts';
import { MAX_SEQUENCE_SHRINKS, SEQUENCE_ACCOUNTS } from './sequences.ts';
import { finishWriting, patchRequest, readWritable, startWriting } from './write-lane.ts';

/**
 * Pairs of concurrent PATCHes per run (each two PATCHes at once, then a read): one of each kind
 * (pairKinds), then random ones up to this many.
 */
export const CONCURRENT_RUNS = 4;

/** Two PATCHes sent at once: what each sets, and how the pair is described. */
interface Pair {
  kind: string;
  first: PatchBody;
  second: PatchBody;
}

/**
 * The kinds of pairs of concurrent PATCHes, one arbitrary each: disjoint fields, the same field,
 * both, an account beside a detail (with ACCOUNT_FIXTURE).
 */
function pairKinds(tag: string, fixture: AccountFixture | undefined): fc.Arbitrary<Pair>[] {
  const word = fc.stringMatching(/^[a-z]{3,12}$/).map((w) => `c ${w}`);
  const email = fc.stringMatching(/^[a-z]{3,12}$/).map((w) => `${w}@example.org`);
  const options: fc.Arbitrary<Pair>[] = [
    fc.tuple(word, email).map(([r, e]) => ({
      kind: 'disjoint fields',
      first: { counterpartyDetails: { remarks: `${r} ${tag}` } },
      second: { counterpartyDetails: { emailAddress: e } },
    })),
    fc.tuple(word, word).map(([a, b]) => ({
      kind: 'the same field',
      first: { counterpartyDetails: { remarks: `${a} ${tag}` } },
      second: { counterpartyDetails: { remarks: `${b} ${tag}` } },
    })),
    fc.tuple(word, word, email, email).map(([a, b, x, y]) => ({
      kind: 'two fields each',
      first: { counterpartyDetails: { remarks: `${a} ${tag}`, emailAddress: x } },
      second: { counterpartyDetails: { remarks: `${b} ${tag}`, emailAddress: y } },
    })),
  ];
  if (fixture)
    options.push(
      fc.tuple(validAccountsBody(fixture), word).map(([accounts, r]) => ({
        kind: 'an account beside a detail',
        first: { counterpartyAccounts: (accounts.value.counterpartyAccounts ?? []).slice(0, 1) },
        second: { counterpartyDetails: { remarks: `${r} ${tag}` } },
      })),
    );
  return options;
}

/** A pair and the scheduler that releases its two PATCHes, as a case of concurrent-patches. */
type ScheduledPair = { pair: Pair; scheduler: fc.Scheduler; toJSON: () => unknown };

function scheduledPair([pair, scheduler]: [Pair, fc.Scheduler]): Labelled<ScheduledPair> {
  return labelled(
    {
      pair,
      scheduler,
      // A finding shows the two bodies and the order the scheduler released them in.
      toJSON: () => ({ ...pair, schedule: scheduler.toString() }),
    },
    keeps('sequence', 'concurrency', `two PATCHes at once: ${pair.kind}`),
  );
}

/**
 * The read after two concurrent PATCHes: repeated, with back-off, until it shows the answer of one
 * of them (whichever the deployment applied last) or the settle window after both has passed; the
 * judge judges the pair with it (engine/judge.ts). Returns what the last read showed.
 */
async function readAfterBoth(ctx: ProbeContext, ref: string, answers: readonly Exchange[]): Promise<Obj> {
  const until = Math.max(...answers.map((a) => a.startedAt + a.durationMs)) + (ctx.target.settleMs ?? 0);
  const clock = ctx.http.clock;
  const shows = (read: Exchange): boolean => answers.some((a) => is2xx(a.status) && showsState(read, a));
  let read = await readWritable(ctx, ref, 'read after the concurrent PATCHes');
  for (let wait = 50; !shows(read) && read.startedAt < until; wait *= 2) {
    await clock.sleep(Math.min(wait, Math.max(0, until - clock.now())));
    read = await readWritable(ctx, ref, 'read after the concurrent PATCHes (settling)');
  }
  return read.body;
}

export const concurrentPatches: Probe = {
  id: 'concurrent-patches',
  title:
    'two accepted PATCHes of the writable counterparty in flight at once, in the order a scheduler releases them, then a read: some serial order of them explains it',
  requirements: [...UPDATE_REQUIREMENTS, 'patch-concurrent-serializable', 'patch-accounts-appended'],
  judges: ['patch-valid-accepted'],
  operations: operationIds({ resource: 'counterparty' }),
  group: 'counterparty-patch',
  access: 'write',
  // Each pair its PATCHes and the read after them (the read before is the last pair's), and the
  // read at the start and the restore (in a run of one process; see patch-sequences). One pair of
  // each kind at least.
  roundTrips: (target) =>
    Math.max(pairKinds('', target.accountFixture).length, Math.min(target.runs, CONCURRENT_RUNS)) * 2 + 3,
  async run(ctx) {
    const ref = ctx.target.writableRef!;
    const fixture = ctx.target.accountFixture;
    // Each concurrent PATCH of an account adds one for good: within the run's account budget.
    let accountsLeft = Math.min(SEQUENCE_ACCOUNTS, ctx.target.accountBudget ?? DEFAULT_ACCOUNT_BUDGET);
    const tag = (ctx.target.seed >>> 0).toString(36);
    const identifiers = new Identifiers(fixturesOf(ctx));
    const { current, original } = await startWriting(ctx, ref);
    // The read before a pair: the probe's first read, then the read after the pair before it, as
    // long as nothing was sent since (the judge takes the last read before the PATCHes).
    let known: Obj | undefined = current;
    // Every kind is a finite class, tried whatever the seed: one pair of each, its values and
    // the order its PATCHes are released in drawn from the seed; random pairs of any kind after
    // them, up to CONCURRENT_RUNS pairs in all.
    const kinds = pairKinds(tag, fixture);
    const explicit = kinds.map((kind, i) =>
      scheduledPair(fc.sample(fc.tuple(kind, fc.scheduler()), { seed: ctx.target.seed + i, numRuns: 1 })[0]!),
    );
    try {
      await runProperty(ctx, {
        name: 'concurrent PATCHes',
        arbitrary: fc.tuple(fc.oneof(...kinds), fc.scheduler()).map(scheduledPair),
        examples: explicit,
        runs: Math.max(0, Math.min(ctx.target.runs, CONCURRENT_RUNS) - explicit.length),
        maxShrinkProbes: MAX_SEQUENCE_SHRINKS,
        async probe(input) {
          const { pair, scheduler } = input.value;
          const accounts =
            (pair.first.counterpartyAccounts?.length ?? 0) + (pair.second.counterpartyAccounts?.length ?? 0);
          if (accounts > accountsLeft) return undefined;
          accountsLeft -= accounts;
          const before = known ?? (await readWritable(ctx, ref, 'read before the concurrent PATCHes')).body;
          known = undefined;
          identifiers.saw(before);
          // Both are in flight at once: each starts when the scheduler releases it, and neither
          // waits for the other's answer.
          const send = (body: PatchBody, which: string): Promise<Exchange> =>
            scheduler.schedule(Promise.resolve(), `release the ${which} PATCH`).then(() =>
              ctx.http.send({
                ...patchRequest(ref, labelled(body, input.rule)),
                role: `the ${which} of two concurrent PATCHes`,
              }),
            );
          const bodies = [identifiers.assign(pair.first), identifiers.assign(pair.second)] as const;
          const sent = [send(bodies[0], 'first'), send(bodies[1], 'second')];
          await scheduler.waitAll();
          const answers = await Promise.all(sent);
          const violations = answers.flatMap((ex, i) =>
            identifiers.excused(bodies[i]!, ex) ? [] : (validAccepted(ctx, ex, input.rule.description) ?? []),
          );
          known = await readAfterBoth(ctx, ref, answers);
          return violations;
        },
      });
    } finally {
      if (identifiers.duplicates > 0) ctx.note(`${identifiers.duplicates} ${DUPLICATES_NOTE}`);
      await finishWriting(ctx, ref, original);
    }
  },
};

export const CONCURRENT_PROBES = family(import.meta.url, [concurrentPatches]);
