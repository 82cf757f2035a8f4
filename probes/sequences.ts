/**
 * The service as one system (interface.md §4.2; RFC 5789 §2): what sequences of mixed requests do
 * to the stored counterparties, beyond one PATCH and the read after it (concurrent clients:
 * probes/concurrent-patches.ts).
 *
 * patch-sequences: model-based sequences (fast-check's `fc.commands`, run by `fc.asyncModelRun`)
 * of reads of the writable and of the readable counterparty, valid detail and account PATCHes
 * (several accounts in one PATCH too: the document sets no maximum), and PATCHes a conforming
 * deployment refuses, in any order. Every exchange goes to the oracles as it is recorded
 * (engine/judge.ts): a PATCH with the state before it and the read after it, a read of the
 * readable counterparty around writes of the writable one (a write must not change another
 * counterparty: oracles/write-isolation.ts). A failing sequence is shrunk to the shortest one that
 * still fails, and replayed with --case.
 *
 * The probe judges only that a valid body is accepted; what the requests did to the stored state
 * is the oracles'. It writes, so it runs only with WRITABLE_COUNTERPARTY_REF, and hands its changes
 * on to the run's restore at its end; the accounts it adds stay (at most a few, within
 * CONFORMANCE_ACCOUNT_BUDGET).
 */
import fc from 'fast-check';
import type { Exchange } from '../exchange/exchange.ts';
import { counterpartyPath } from '../exchange/paths.ts';
import { type Probe, type ProbeContext, runProperty } from '../engine/probe-api.ts';
import { DEFAULT_ACCOUNT_BUDGET, type AccountFixture } from '../generators/account-fixture.ts';
import { keeps, labelled, type Labelled } from '../generators/labelled.ts';
import { patchAccount } from '../generators/patch-accounts.ts';
import {
  invalidPatchBody,
  invalidPatchBodyExamples,
  validAccountsBody,
  validDetailsBody,
  type PatchBody,
} from '../generators/patch-body.ts';
import type { Obj } from '../oracles/compare.ts';
import { DUPLICATES_NOTE, fixturesOf, Identifiers } from './account-identifiers.ts';
import { COUNTERPARTY_RESPONSE_REQUIREMENTS } from '../oracles/counterparty-response.ts';
import type { Violation } from '../oracles/types.ts';
import { operationIds } from '../spec/operations.ts';
import { UPDATE_REQUIREMENTS, validAccepted } from './counterparty-patch.ts';
import { family } from './family.ts';
import { patchRequest, readWritable, finishWriting, SelfMoving, startWriting, Writer } from './write-lane.ts';

/**
 * Random sequences per run after the explicit ones (the run's CONFORMANCE_RUNS caps it), and
 * commands per sequence. Each step waits for the one before: at 150 ms a round trip, a sequence
 * of four commands costs about a second, on the one lane of a single writable counterparty, the
 * run's long pole. Two a run: the remote write run with one writable counterparty within its 30 s
 * at 150 ms (issue 37); each run's seed draws other ones, so a gate run on every change explores
 * them over time, and the explicit sequences (exampleSequences) are sent whatever the seed.
 */
export const SEQUENCE_RUNS = 2;
const MAX_COMMANDS = 8;
/** Accounts a run of patch-sequences may add, at most (each stays on the counterparty). */
export const SEQUENCE_ACCOUNTS = 6;
/** Shrinking re-sends whole sequences: fewer candidates than a single-request property. */
export const MAX_SEQUENCE_SHRINKS = 60;

/**
 * The run of one sequence: the probe's context, the writable counterparty and its writer (which
 * reads until an accepted PATCH shows, up to the settle window, before the state is read as
 * settled), and what was found.
 */
interface Real {
  ctx: ProbeContext;
  ref: string;
  writer: Writer;
  violations: Violation[];
  accounts: Identifiers;
  /** A read of the readable counterparty a step sent and left going: the next step goes out beside it. */
  pending?: Promise<unknown>;
}

/**
 * Runs a step's `work` beside the read of the readable counterparty the step before left going,
 * and waits for both: reading another counterparty leaves the writable one as it was, so the two
 * need not wait for each other, and a leak of an earlier write shows in that read either way (the
 * reads at a sequence's end show any later one). The first failure of either is thrown.
 */
async function beside<T>(r: Real, work: () => Promise<T>): Promise<T> {
  const pending = r.pending;
  r.pending = undefined;
  const [left, own] = await Promise.allSettled([pending, work()]);
  if (left.status === 'rejected') throw left.reason;
  if (own.status === 'rejected') throw own.reason;
  return own.value;
}

/** Reads the readable counterparty. */
function readOther(r: Real, role = 'read of the readable counterparty'): Promise<Exchange> {
  return r.ctx.http.send({ method: 'GET', path: counterpartyPath(r.ctx.target.counterpartyRef), role });
}

/** What the model knows: how many accounts the run may still add. */
interface Model {
  accountsLeft: { n: number };
}

class ReadWritable implements fc.AsyncCommand<Model, Real> {
  check = (): boolean => true;
  async run(_m: Model, r: Real): Promise<void> {
    // After an accepted PATCH, read until it shows (a replica may trail); else one read.
    await beside(r, async () => {
      if (!(await r.writer.settle())) await readWritable(r.ctx, r.ref, 'read of the writable counterparty');
    });
  }
  toString = (): string => 'read the writable counterparty';
}

/**
 * Sends the read and leaves it going: the next step goes out beside it (beside), one round trip
 * less on the lane for each. Two in a row go out together.
 */
class ReadOther implements fc.AsyncCommand<Model, Real> {
  check = (): boolean => true;
  async run(_m: Model, r: Real): Promise<void> {
    const going = beside(r, () => readOther(r));
    // Handled here so that a sequence stopped by a failure before the next step leaves no
    // unhandled rejection; the next step still awaits it and throws what it threw.
    going.catch(() => undefined);
    r.pending = going;
  }
  toString = (): string => 'read the readable counterparty';
}

class ValidPatch implements fc.AsyncCommand<Model, Real> {
  constructor(readonly body: Labelled<PatchBody>) {}
  private accounts(): number {
    return this.body.value.counterpartyAccounts?.length ?? 0;
  }
  check = (m: Readonly<Model>): boolean => this.accounts() <= m.accountsLeft.n;
  async run(m: Model, r: Real): Promise<void> {
    m.accountsLeft.n -= this.accounts();
    const body = labelled(r.accounts.assign(this.body.value), this.body.rule);
    const ex = await beside(r, () =>
      r.writer.patch({ ...patchRequest(r.ref, body), role: 'PATCH of the sequence' }, false),
    );
    if (r.accounts.excused(body.value, ex)) return;
    const v = validAccepted(r.ctx, ex, this.body.rule.description);
    if (v) r.violations.push(v);
  }
  toString = (): string => `PATCH ${JSON.stringify(this.body.value)}`;
}

class RefusedPatch implements fc.AsyncCommand<Model, Real> {
  constructor(readonly body: Labelled<unknown>) {}
  check = (): boolean => true;
  async run(_m: Model, r: Real): Promise<void> {
    // Whether it is refused, and that it changed nothing, is the oracles' (request-body, patch-rejected).
    await beside(r, () =>
      r.writer.patch({ ...patchRequest(r.ref, this.body), role: 'refused PATCH of the sequence' }, false),
    );
  }
  toString = (): string =>
    `PATCH (refused: ${this.body.rule.description}) ${JSON.stringify(this.body.value).slice(0, 120)}`;
}

/** The commands a sequence is drawn from: accounts only with a fixture, refusals with one too. */
function commands(fixture: AccountFixture | undefined): fc.Arbitrary<fc.AsyncCommand<Model, Real>>[] {
  const out: fc.Arbitrary<fc.AsyncCommand<Model, Real>>[] = [
    fc.constant(new ReadWritable()),
    fc.constant(new ReadOther()),
    validDetailsBody().map((b) => new ValidPatch(b)),
  ];
  if (fixture) {
    out.push(validAccountsBody(fixture).map((b) => new ValidPatch(b)));
    out.push(invalidPatchBody(fixture).map((b) => new RefusedPatch(b)));
  }
  return out;
}

/**
 * A sequence as a finding shows it (and as the property tells two apart): the commands, each as
 * its one line. fast-check shrinks the commands beneath it.
 */
class Sequence implements Iterable<fc.AsyncCommand<Model, Real>> {
  constructor(readonly commands: Iterable<fc.AsyncCommand<Model, Real>>) {}
  [Symbol.iterator](): Iterator<fc.AsyncCommand<Model, Real>> {
    return this.commands[Symbol.iterator]();
  }
  toJSON(): string[] {
    return [...this.commands].map((c) => c.toString());
  }
}

/**
 * The sequences every run sends first, whatever the seed: a details PATCH alone, one right after an account
 * PATCH (a state cached before the accounts is the classic way to lose them), three accounts in
 * one PATCH after a detail, a refused PATCH between two accepted ones, and a read of the readable
 * counterparty between two writes of the writable one. Accounts only with ACCOUNT_FIXTURE.
 */
function exampleSequences(fixture: AccountFixture | undefined): Labelled<Sequence>[] {
  const details = (remarks: string): ValidPatch =>
    new ValidPatch(
      labelled(
        { counterpartyDetails: { remarks } },
        keeps('counterpartyDetails.remarks', 'schema', 'a remark'),
      ),
    );
  const accounts = (n: number, f: AccountFixture): ValidPatch =>
    new ValidPatch(
      labelled(
        {
          counterpartyAccounts: Array.from({ length: n }, (_, i) =>
            patchAccount(f, { name: `Sequence account ${i + 1}` }),
          ),
        },
        keeps('counterpartyAccounts', 'schema', `${n} account(s) in one PATCH`),
      ),
    );
  const sequence = (description: string, cmds: fc.AsyncCommand<Model, Real>[]): Labelled<Sequence> =>
    labelled(new Sequence(cmds), keeps('sequence', 'commands', description));
  // Shortest first: explicit cases are not shrunk, so the first that fails is the one reported.
  const out = [sequence('a detail alone', [details('sequence zero')])];
  if (fixture)
    out.push(
      sequence('an account, then a detail with no read between', [
        accounts(1, fixture),
        details('sequence one'),
      ]),
      sequence('a detail, then three accounts in one PATCH', [details('sequence two'), accounts(3, fixture)]),
      sequence('a detail, a refused PATCH, a detail', [
        details('sequence three'),
        new RefusedPatch(invalidPatchBodyExamples(fixture)[0]!),
        details('sequence four'),
      ]),
    );
  out.push(
    sequence('a detail, a read of the readable counterparty, a detail, a read', [
      details('sequence five'),
      new ReadOther(),
      details('sequence six'),
      new ReadWritable(),
    ]),
  );
  return out;
}

const SEQUENCE_PROPERTY = 'sequence of requests';

export const patchSequences: Probe = {
  id: 'patch-sequences',
  title:
    'model-based sequences of reads, detail and account PATCHes and refused PATCHes of the writable counterparty, with reads of the readable one: shrunk to the shortest that fails',
  requirements: [
    ...UPDATE_REQUIREMENTS,
    'patch-accounts-appended',
    'patch-rejected-unchanged',
    'patch-other-counterparty-unchanged',
    ...COUNTERPARTY_RESPONSE_REQUIREMENTS,
  ],
  judges: ['patch-valid-accepted'],
  operations: operationIds({ resource: 'counterparty' }),
  group: 'counterparty-patch',
  access: 'write',
  // The explicit sequences and the random ones, each its commands and a round trip of reads at its
  // end (the one before it is the last one's), and the reads at the start and the restore (a run of
  // one process sends it; a run of the suite hands the changes on: write-lane.ts finishWriting).
  roundTrips: (target) => (Math.min(target.runs, SEQUENCE_RUNS) + 5) * (MAX_COMMANDS / 2 + 1) + 4,
  async run(ctx) {
    const ref = ctx.target.writableRef!;
    const fixture = ctx.target.accountFixture;
    const budget = Math.min(SEQUENCE_ACCOUNTS, ctx.target.accountBudget ?? DEFAULT_ACCOUNT_BUDGET);
    const accountsLeft = { n: fixture ? budget : 0 };
    const identifiers = new Identifiers(fixturesOf(ctx));
    const replay = ctx.target.replayCase;
    const { current, original } = await startWriting(ctx, ref);
    /** The probe's first read, until a sequence starts from it. */
    let fresh: Obj | undefined = current;
    /** What the last sequence left, if it ended with its reads and nothing was sent since. */
    let ended: { moving: SelfMoving } | undefined;
    try {
      await runProperty(ctx, {
        name: SEQUENCE_PROPERTY,
        arbitrary: fc
          .commands(commands(fixture), {
            maxCommands: MAX_COMMANDS,
            ...(replay?.property === SEQUENCE_PROPERTY && replay.replayPath !== undefined
              ? { replayPath: replay.replayPath }
              : {}),
          })
          .map((cmds): Labelled<Sequence> =>
            labelled(new Sequence(cmds), keeps('sequence', 'commands', 'a sequence of mixed requests')),
          ),
        examples: exampleSequences(fixture),
        // fast-check writes which commands ran into the sequence's text once it has run.
        replaySuffix: (input) => /replayPath="([^"]+)"/.exec(String(input.value.commands))?.[1],
        runs: Math.min(ctx.target.runs, SEQUENCE_RUNS),
        maxShrinkProbes: MAX_SEQUENCE_SHRINKS,
        async probe(input) {
          // Each sequence starts and ends with reads of both counterparties, each pair at once (two
          // reads, one round trip): what it did is judged within it, and a write's leak to the
          // readable counterparty shows. The pair a sequence ended with, with nothing sent after
          // it, is the next one's start (the judge takes the last read before a PATCH, whoever
          // sent it): one round trip less per sequence, and the second read before the first PATCH
          // (what moves by itself) is made once for the probe, not once per sequence.
          const from = ended;
          ended = undefined;
          const real: Real = {
            ctx,
            ref,
            writer: new Writer(ctx, ref, from?.moving),
            violations: [],
            accounts: identifiers,
          };
          if (from) real.writer.resume();
          else {
            // The probe's first read, with nothing sent after it, is the first of the two reads
            // before the first PATCH; after a sequence that did not end, both are read again.
            const first = fresh ?? (await readWritable(ctx, ref, 'read before the sequence')).body;
            fresh = undefined;
            identifiers.saw(first);
            // Before the first PATCH, not beside it: the state a leak would change.
            await Promise.all([
              real.writer.start(first),
              readOther(real, 'read of the readable counterparty before the sequence'),
            ]);
          }
          try {
            await fc.asyncModelRun(() => ({ model: { accountsLeft }, real }), input.value);
          } catch (error) {
            // A read the last step left going ends before the failure is thrown.
            await real.pending?.catch(() => undefined);
            throw error;
          }
          // The reads at the end, together (and beside a read the last step left going).
          await new ReadOther().run({ accountsLeft }, real);
          await new ReadWritable().run({ accountsLeft }, real);
          ended = { moving: real.writer.moving };
          return real.violations;
        },
      });
    } finally {
      ctx.note(`accounts added by sequences: ${(fixture ? budget : 0) - accountsLeft.n} (at most ${budget})`);
      if (identifiers.duplicates > 0) ctx.note(`${identifiers.duplicates} ${DUPLICATES_NOTE}`);
      await finishWriting(ctx, ref, original);
    }
  },
};

export const SEQUENCE_PROBES = family(import.meta.url, [patchSequences]);
