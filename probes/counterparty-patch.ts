/**
 * PATCH /api/v1/counterparties/{ref} (interface.md §4.2, §7, §8; RFC 5789 §2). Accepted cases
 * follow one another, each PATCH's answer being the state the next starts from, with a read every
 * READ_EVERY of them and at the end (re-read up to the settle window, CONFORMANCE_SETTLE_MS);
 * bodies that must be refused are probes/invalid-bodies.ts's, in concurrent batches. What
 * an update did to the stored counterparty is judged by the sequence oracles
 * (oracles/patch-update.ts, oracles/patch-rejected.ts) from those exchanges (engine/judge.ts), and
 * every answer by the single-exchange oracles. While a failure is shrunk, each case is sent alone
 * with the reads around it. The probes judge what needs their plan: this body is
 * valid, so it must be accepted. They write, so they run only with
 * WRITABLE_COUNTERPARTY_REF and only against that counterparty (plus invented references for the
 * unknown-counterparty cases).
 */
import fc from 'fast-check';
import { canonicalJson } from '../exchange/canonical-json.ts';
import { describeResponse } from '../exchange/describe.ts';
import { is2xx, type Exchange } from '../exchange/exchange.ts';
import {
  type CasePacking,
  coverCases,
  type Probe,
  type ProbeContext,
  runProperty,
  type TargetConfig,
} from '../engine/probe-api.ts';
import { family } from './family.ts';
import {
  type AccountFixture,
  DEFAULT_ACCOUNT_BUDGET,
  identifierKey,
  withAccountFixture,
} from '../generators/account-fixture.ts';
import {
  accountPairArray,
  accountPairBodies,
  NO_BRANCH,
  type PairValue,
} from '../generators/account-pairs.ts';
import type { CoveringArray } from '../generators/covering-array.ts';
import { detailsPairBodies } from '../generators/details-pairs.ts';
import { keeps, labelled, type Labelled } from '../generators/labelled.ts';
import {
  MAX_ACCOUNTS_PER_BODY,
  SINGLE_DETAIL_PARTS,
  validAccountsBody,
  validDetailsFieldBody,
  validDetailsBodyExamples,
  type PatchBody,
  type SingleDetailPart,
} from '../generators/patch-body.ts';
import type { PatchAccount } from '../generators/patch-accounts.ts';
import type { PatchDetails } from '../generators/patch-details.ts';
import { accountsOf } from '../oracles/compare.ts';
import { COUNTERPARTY_RESPONSE_REQUIREMENTS } from '../oracles/counterparty-response.ts';
import { LIFECYCLE_REQUIREMENTS } from '../oracles/lifecycle-headers.ts';
import type { Violation } from '../oracles/types.ts';
import {
  acceptedRoundTrips,
  finishWriting,
  patchRequest,
  restoreDetails,
  startWriting,
  Writer,
} from './write-lane.ts';
import {
  accountPacking,
  accountPairOptions,
  ACCOUNTS_PER_PATCH,
  DETAILS_ROW_SLOTS,
  detailsRowValue,
  isDetailsRow,
} from './valid-pairs.ts';
import { ownOf } from '../exchange/own.ts';
import { operationIds } from '../spec/operations.ts';

/** Random cases of the account-adding property: every case leaves accounts behind. */
export const ACCOUNT_RUNS = 8;
/** The same with a single ACCOUNT_FIXTURE: every account added repeats its identifier. */
export const ACCOUNT_RUNS_ONE_FIXTURE = 2;
/** The accounts the covering array leaves the random cases, whatever its size. */
export const RANDOM_ACCOUNT_RESERVE = ACCOUNT_RUNS_ONE_FIXTURE * MAX_ACCOUNTS_PER_BODY;

/** What every accepted PATCH of the writable counterparty is judged on (sequences.ts and concurrent-patches.ts send them too). */
export const UPDATE_REQUIREMENTS = [
  'patch-valid-accepted',
  'patch-persisted',
  'patch-sent-fields-applied',
  'patch-unsent-fields-unchanged',
  'patch-immutable-fields',
  'patch-updated-at',
  'patch-lifecycle-headers-as-get',
] as const;

/**
 * The answer to a valid body, PATCHed (`what` names it): the probes judge acceptance, the oracles
 * the rest. Every probe that PATCHes valid bodies judges it so (patch-sequences and
 * concurrent-patches too).
 */
export function validAccepted(ctx: ProbeContext, patch: Exchange, what: string): Violation | undefined {
  if (!is2xx(patch.status)) {
    return {
      requirement: 'patch-valid-accepted',
      exchange: patch,
      message: `the valid body (${what}) was answered ${patch.status}`,
      expected: '2xx with the updated counterparty (interface.md §4.2)',
      received: describeResponse(patch),
    };
  }
  ctx.held('patch-valid-accepted');
  return undefined;
}

/**
 * How explicit valid detail bodies share a PATCH: each detail field is a part of its own, and so
 * is each field of the address (a partial address may be merged or may replace the stored one,
 * but the fields sent are judged either way). No rule of the document ties two detail fields
 * together, so cases on different fields are independent. Bodies with accounts go alone.
 */
export const DETAILS_PACKING: CasePacking<Labelled<PatchBody>> = {
  slots(c) {
    const { counterpartyDetails: details, counterpartyAccounts } = c.value;
    if (counterpartyAccounts !== undefined || details === undefined) return undefined;
    // A row of the covering array holds every field: those it carries, for a case to fill, and
    // those it leaves out, for none to add (probes/valid-pairs.ts).
    if (isDetailsRow(c)) return DETAILS_ROW_SLOTS;
    return Object.entries(details).flatMap(([key, value]) =>
      key === 'address' && value !== null && typeof value === 'object' && Object.keys(value).length > 0
        ? Object.keys(value).map((sub) => `address.${sub}`)
        : [key],
    );
  },
  // Two cases that set a field to the same value share a PATCH: a random body of several fields
  // carries a listed country, which an explicit case sends too.
  valueAt(c, slot) {
    const details = c.value.counterpartyDetails ?? {};
    if (isDetailsRow(c)) return detailsRowValue(details, slot);
    const [key, sub] = slot.split('.') as [keyof PatchDetails, string | undefined];
    const value = sub === undefined ? details[key] : ownOf(details.address, sub);
    return canonicalJson(value);
  },
  merge(cases) {
    const details: PatchDetails = {};
    // A row's strings are fillers: the cases that fill its fields go after it and win.
    for (const c of [...cases.filter(isDetailsRow), ...cases.filter((x) => !isDetailsRow(x))]) {
      const { address, ...rest } = c.value.counterpartyDetails ?? {};
      Object.assign(details, rest);
      if (address !== undefined) details.address = { ...details.address, ...address };
    }
    return labelled(
      { counterpartyDetails: details },
      keeps(
        'body',
        'schema',
        `${cases.length} valid cases in one patch: ${cases.map((c) => c.rule.description).join('; ')}`,
      ),
    );
  },
};

let detailsExamplesMemo: Labelled<PatchBody>[] | undefined;

/**
 * The explicit cases of the details probe: the rows of the covering array of the details' finite
 * fields first (every pair of fields present or left out, and of address countries; the other
 * cases fill the strings of their fields), then the boundary cases.
 */
export function detailsExamples(): Labelled<PatchBody>[] {
  detailsExamplesMemo ??= [...detailsPairBodies(), ...validDetailsBodyExamples()];
  return detailsExamplesMemo;
}

let detailsRoomMemo: Record<SingleDetailPart, number> | undefined;

/** A case that sets `part` alone to a value no other case has: a stand-in that is never sent. */
function standIn(part: SingleDetailPart, i: number): Labelled<PatchBody> {
  const value = `room ${i}`;
  const [key, sub] = part.split('.') as [string, string | undefined];
  return labelled(
    { counterpartyDetails: sub === undefined ? { [key]: value } : { address: { [sub]: value } } },
    keeps(part, 'room', 'a stand-in'),
  );
}

/**
 * The places the explicit cases' PATCHes leave free for each field a random case sets alone: how
 * many cases of that field alone, each of its own value, join those PATCHes before one more is
 * needed. It is the packing's own answer: stand-ins packed after the explicit cases, each alone in
 * a PATCH of its own where none has the field free. The random cases draw their fields in these
 * proportions (validDetailsFieldBody): drawn alike, the field with the fewest places took a PATCH
 * of its own for each case past them (41 to 57 PATCHes for seeds 1 to 12, where the explicit
 * cases take 41; 41 to 48 now, 43.7 on average over seeds 1 to 40).
 */
export function detailsRoom(): Record<SingleDetailPart, number> {
  if (detailsRoomMemo !== undefined) return detailsRoomMemo;
  const explicit = detailsExamples();
  const room = (part: SingleDetailPart): number => {
    const standIns = Array.from({ length: explicit.length }, (_, i) => standIn(part, i));
    const packs = coverCases([...explicit, ...standIns], DETAILS_PACKING.slots, DETAILS_PACKING.valueAt);
    const alone = new Set(standIns);
    return packs
      .filter((p) => p.some((c) => !alone.has(c)))
      .flat()
      .filter((c) => alone.has(c)).length;
  };
  detailsRoomMemo = Object.fromEntries(SINGLE_DETAIL_PARTS.map((part) => [part, room(part)])) as Record<
    SingleDetailPart,
    number
  >;
  return detailsRoomMemo;
}

/** The details probe's arbitrary: random cases in the places its explicit PATCHes leave free. */
export function detailsArbitrary(): fc.Arbitrary<Labelled<PatchBody>> {
  return validDetailsFieldBody(detailsRoom());
}

/**
 * The PATCHes of the details probe's first round (its cost model): its cases packed several to a
 * PATCH (DETAILS_PACKING), as many as the covering array has rows, or the busiest field cases.
 * The cases are the ones fast-check feeds for the run's seed (a dry check, which sends nothing).
 */
function detailsPatches(target: TargetConfig): number {
  const cases: Labelled<PatchBody>[] = [];
  fc.check(
    fc.property(detailsArbitrary(), (c) => {
      cases.push(c);
    }),
    {
      seed: target.seed,
      numRuns: detailsExamples().length + target.runs,
      examples: detailsExamples().map((e) => [e] as [Labelled<PatchBody>]),
    },
  );
  return coverCases(cases, DETAILS_PACKING.slots, DETAILS_PACKING.valueAt).length;
}

export const patchValidDetails: Probe = {
  id: 'patch-valid-details',
  title: 'valid detail patches: each field alone and combined, bounds, every allowed character',
  requirements: [...UPDATE_REQUIREMENTS, ...COUNTERPARTY_RESPONSE_REQUIREMENTS, ...LIFECYCLE_REQUIREMENTS],
  judges: ['patch-valid-accepted'],
  operations: operationIds({ resource: 'counterparty' }),
  group: 'counterparty-patch',
  access: 'write',
  splitAcrossLanes: true,
  roundTrips: (target) => acceptedRoundTrips(detailsPatches(target)),
  async run(ctx) {
    const ref = ctx.target.writableRef!;
    const { current, original, known } = await startWriting(ctx, ref);
    const writer = new Writer(ctx, ref);
    await writer.start(current, known);
    try {
      await runProperty(ctx, {
        name: 'valid details patch',
        arbitrary: detailsArbitrary(),
        examples: detailsExamples(),
        probe: async (input, shrinking) =>
          validAccepted(ctx, await writer.patch(patchRequest(ref, input), shrinking), input.rule.description),
        // The explicit cases of different fields go side by side, several to a PATCH.
        packing: { ...DETAILS_PACKING, settle: async () => void (await writer.settle()) },
      });
      await writer.settle();
    } finally {
      // This probe's restore is a case of its own, judged as any PATCH with the read after it: a
      // PATCH that puts every detail back to its value at creation, which a service may mistake
      // for an undo (gallery answers-undo-resets-updated-at). The other write probes hand their
      // changes on (finishWriting) to the run's one restore at its end, which is not judged.
      await restoreDetails(ctx, ref, original);
    }
  },
};

/** What the account probe sends: the covering array's rows the budget allows, and random cases. */
export interface AccountPlan {
  /** The rows sent, a body each, in the array's order (packed ACCOUNTS_PER_PATCH to a PATCH). */
  rows: Labelled<PatchBody>[];
  /** The rows of the whole array, and the pairs of values it covers (all of them). */
  arrayRows: number;
  pairs: number;
  /** The pairs the rows sent cover. */
  covered: number;
  /** Random cases after the rows. */
  runs: number;
}

/** The covering array of the last fixtures asked for: every run of a process gives the same. */
let pairsMemo: { key: string; array: CoveringArray<PairValue>; bodies: Labelled<PatchBody>[] } | undefined;

/** The account covering array and its bodies for `fixtures` (some 50 ms: the model judges each row). */
function accountPairs(fixtures: readonly AccountFixture[]): NonNullable<typeof pairsMemo> {
  const key = canonicalJson(fixtures);
  if (pairsMemo?.key !== key) {
    const options = accountPairOptions(fixtures);
    const array = accountPairArray(options);
    pairsMemo = { key, array, bodies: accountPairBodies(options, array) };
  }
  return pairsMemo;
}

/**
 * The account probe's plan for a target: the covering array over the fixtures
 * (generators/account-pairs.ts), cut to the account budget less RANDOM_ACCOUNT_RESERVE (a row is
 * an account that stays on the counterparty), then as many random cases as the budget leaves
 * room for, at most ACCOUNT_RUNS (ACCOUNT_RUNS_ONE_FIXTURE with a single fixture).
 */
export function accountPlan(target: TargetConfig, fixture: AccountFixture): AccountPlan {
  const fixtures = target.accountFixtures ?? [fixture];
  const budget = target.accountBudget ?? DEFAULT_ACCOUNT_BUDGET;
  const { array, bodies } = accountPairs(fixtures);
  const rows = structuredClone(bodies.slice(0, Math.max(0, budget - RANDOM_ACCOUNT_RESERVE)));
  const wanted = Math.min(target.runs, fixtures.length > 1 ? ACCOUNT_RUNS : ACCOUNT_RUNS_ONE_FIXTURE);
  return {
    rows,
    arrayRows: array.rows.length,
    pairs: array.pairs,
    covered: array.newPairs.slice(0, rows.length).reduce((n, k) => n + k, 0),
    runs: Math.max(0, Math.min(wanted, Math.floor((budget - rows.length) / MAX_ACCOUNTS_PER_BODY))),
  };
}

/** What an account sets that a fixture may pin, and its kind of branch identifier. */
function carries(fixture: AccountFixture, account: PatchAccount, kind: (b: unknown) => string): boolean {
  return (
    (fixture.country === undefined || fixture.country === account.country) &&
    (fixture.currency === undefined || fixture.currency === account.currency) &&
    kind(fixture.branchIdentifier) === kind(account.branchIdentifier)
  );
}

export const patchValidAccounts: Probe = {
  id: 'patch-valid-accounts',
  title:
    'valid account patches, built from ACCOUNT_FIXTURE: every pair of values, several to a PATCH, and with details',
  requirements: [
    ...UPDATE_REQUIREMENTS,
    'patch-accounts-appended',
    ...COUNTERPARTY_RESPONSE_REQUIREMENTS,
    ...LIFECYCLE_REQUIREMENTS,
  ],
  judges: ['patch-valid-accepted'],
  operations: operationIds({ resource: 'counterparty' }),
  group: 'counterparty-patch',
  access: 'write',
  roundTrips: (target) => {
    if (!target.accountFixture) return 0;
    const plan = accountPlan(target, target.accountFixture);
    return acceptedRoundTrips(Math.ceil(plan.rows.length / ACCOUNTS_PER_PATCH) + plan.runs);
  },
  async run(ctx) {
    const ref = ctx.target.writableRef!;
    const fixture = ctx.target.accountFixture;
    if (!fixture) {
      ctx.notApplicable(
        'patch-accounts-appended',
        'ACCOUNT_FIXTURE is not set, so no valid account can be sent (its identifier fields are not shown in the document)',
      );
      ctx.note('ACCOUNT_FIXTURE is not set: no account was sent');
      return;
    }
    const budget = ctx.target.accountBudget ?? DEFAULT_ACCOUNT_BUDGET;
    const fixtures = ctx.target.accountFixtures ?? [fixture];
    const plan = accountPlan(ctx.target, fixture);
    const { branchKind } = accountPairOptions(fixtures);
    const kind = (b: unknown): string =>
      b !== null && typeof b === 'object' ? branchKind(b as Record<string, unknown>) : NO_BRANCH;
    // Accounts that may be on the counterparty because of the run: sent, and not refused with a 4xx.
    let spent = 0;
    let sent = 0;
    let added = 0;
    let overBudget = 0;
    let duplicates = 0;
    let nextFixture = 0;
    // Added accounts cycle through the fixtures, so a service refusing an identifier it holds can
    // be tested with a list of them: the next one that can carry the account (its pins, its kind
    // of branch identifier), else the next one.
    const fixtureFor = (account: PatchAccount): AccountFixture => {
      for (let k = 0; k < fixtures.length; k++) {
        const f = fixtures[(nextFixture + k) % fixtures.length]!;
        if (carries(f, account, kind)) {
          nextFixture += k + 1;
          return f;
        }
      }
      return fixtures[nextFixture++ % fixtures.length]!;
    };
    const { current, original, known } = await startWriting(ctx, ref);
    // The identifiers the counterparty holds, as far as the suite can tell (a service may mask them).
    const held = new Set(accountsOf(current).map(identifierKey));
    const writer = new Writer(ctx, ref);
    await writer.start(current, known);
    try {
      await runProperty(ctx, {
        name: 'valid accounts patch',
        arbitrary: validAccountsBody(fixture),
        examples: plan.rows,
        // With one fixture every account repeats its identifier: only as many as the cases need.
        runs: plan.runs,
        maxShrinkProbes: 20,
        packing: { ...accountPacking(plan.rows), settle: async () => void (await writer.settle()) },
        async probe(input, shrinking) {
          const generated = input.value.counterpartyAccounts ?? [];
          if (spent + generated.length > budget) {
            overBudget++;
            return undefined;
          }
          const accounts =
            fixtures.length > 1 ? generated.map((a) => withAccountFixture(a, fixtureFor(a))) : generated;
          const body: PatchBody =
            generated.length > 0 ? { ...input.value, counterpartyAccounts: accounts } : input.value;
          const keys = accounts.map(identifierKey);
          const repeats = keys.some((k, i) => held.has(k) || keys.indexOf(k) !== i);
          const labelledBody = labelled(body, input.rule);
          spent += accounts.length;
          sent += accounts.length;
          const patch = await writer.patch(patchRequest(ref, labelledBody), shrinking);
          // A refusal adds nothing (RFC 5789 §2: atomic), so its accounts go back to the budget.
          if (patch.status >= 400 && patch.status < 500) spent -= accounts.length;
          if (is2xx(patch.status)) {
            for (const k of keys) held.add(k);
            added += accounts.length;
          } else if (patch.status === 409 && repeats) {
            // The document does not say whether a counterparty may hold two accounts with one
            // identifier; 409 is HTTP's answer for a conflict with the current state (RFC 9110
            // §15.5.10). Not judged.
            duplicates++;
            return undefined;
          }
          return validAccepted(ctx, patch, labelledBody.rule.description);
        },
      });
      await writer.settle();
    } finally {
      ctx.note(
        `accounts added to ${ref}: ${added} (${sent} sent, of a budget of ${budget}: CONFORMANCE_ACCOUNT_BUDGET), from ${fixtures.length} fixture(s)`,
      );
      ctx.note(
        `account pairs: ${plan.rows.length} of the ${plan.arrayRows} accounts of the covering array sent, ${ACCOUNTS_PER_PATCH} to a PATCH, covering ${plan.covered} of its ${plan.pairs} pairs of values` +
          (plan.rows.length < plan.arrayRows
            ? ` (the rest needs CONFORMANCE_ACCOUNT_BUDGET=${plan.arrayRows + RANDOM_ACCOUNT_RESERVE}, or ACCOUNT_FIXTURE pinning country and currency)`
            : ''),
      );
      if (overBudget > 0) ctx.note(`${overBudget} account case(s) not sent: the account budget was spent`);
      if (duplicates > 0) {
        ctx.note(
          `${duplicates} account case(s) repeating an identifier the counterparty holds were refused with 409 and not judged: the document does not say whether identifiers must be unique; give ACCOUNT_FIXTURE a list to add accounts with fresh ones`,
        );
      }
      ctx.note(
        'account countries come from the country list only: the request pattern ^[A-Z]*$ also admits codes such as UK that a returned account may not carry (§2.2, §2.3)',
      );
      await finishWriting(ctx, ref, original);
    }
  },
};

export const COUNTERPARTY_PATCH_PROBES = family(import.meta.url, [patchValidDetails, patchValidAccounts]);
