/**
 * Valid combinations by design, not by seed: the pairwise covering array (generators/covering-array.ts),
 * the factors of an added account and of a details patch read from the spec and the fixtures
 * (generators/account-pairs.ts, generators/details-pairs.ts), the valid space the request model
 * leaves them (probes/valid-pairs.ts), and the packing that lets other cases fill a row's strings.
 */
import { expect, test } from '@playwright/test';
import { ANY_VALUE, coverCases, NO_VALUE, type PackValue } from '../../engine/packing.ts';
import { DEFAULT_ACCOUNT_FIXTURES, type AccountFixture } from '../../generators/account-fixture.ts';
import {
  accountPairArray,
  accountPairBodies,
  accountPairFactors,
  NO_BRANCH,
  type PairValue,
} from '../../generators/account-pairs.ts';
import { coveringArray, pairsOf, type Factor } from '../../generators/covering-array.ts';
import {
  DETAIL_SLOTS,
  detailsPairArray,
  detailsPairBodies,
  PAIR_ENUM_VALUES,
} from '../../generators/details-pairs.ts';
import { COUNTRIES } from '../../generators/fields.ts';
import { accountPairOptions } from '../../probes/valid-pairs.ts';
import { branchType, SAMPLE_ACCOUNTS } from '../../requests/index.ts';
import { spec } from '../../spec/index.ts';

/** Every pair of values that some allowed row of the product holds. */
function feasiblePairs<V>(
  factors: readonly Factor<V>[],
  allowed: (row: readonly V[]) => boolean,
): Set<string> {
  const rows: V[][] = [[]];
  for (const f of factors) {
    const next: V[][] = [];
    for (const r of rows) for (const v of f.values) next.push([...r, v]);
    rows.splice(0, rows.length, ...next);
  }
  return pairsOf(factors, rows.filter(allowed));
}

test('every pair of values is covered, by the known fewest rows on small arrays, the same on every call', () => {
  const three = (name: string): Factor<number> => ({ name, values: [0, 1, 2] });
  const factors = ['a', 'b', 'c', 'd'].map(three);
  const array = coveringArray(factors);
  // CAN(2, 3^4) = 9: the orthogonal array of order 3.
  expect(array.rows).toHaveLength(9);
  expect(pairsOf(factors, array.rows)).toEqual(feasiblePairs(factors, () => true));
  expect(array.pairs).toBe(6 * 9);
  expect(coveringArray(factors)).toEqual(array);
  // Each row covers at least as many new pairs as any later one: a prefix keeps the best rows.
  expect([...array.newPairs].sort((x, y) => y - x)).toEqual(array.newPairs);
  expect(array.newPairs.reduce((n, k) => n + k, 0)).toBe(array.pairs);
});

test('rows a filter forbids are never taken, and the pairs only they hold are not asked for', () => {
  const factors: Factor<string>[] = [
    { name: 'branch', values: ['none', 'SORT', 'ROUTING'] },
    { name: 'currency', values: ['EUR', 'USD', 'GBP'] },
    { name: 'category', values: ['PERSONAL', 'BUSINESS'] },
  ];
  const allowed = (r: readonly string[]): boolean =>
    (r[0] !== 'SORT' || r[1] === 'GBP') && (r[0] !== 'ROUTING' || r[1] === 'USD');
  const array = coveringArray(factors, { allowed });
  expect(array.rows.every(allowed)).toBe(true);
  expect(pairsOf(factors, array.rows)).toEqual(feasiblePairs(factors, allowed));
  expect(pairsOf(factors, array.rows).has('branch="SORT" currency="EUR"')).toBe(false);
  expect(coveringArray(factors, { allowed: () => false }).rows).toEqual([]);
});

test('the account factors come from the spec and the fixtures: a new enum value or country enters by itself', () => {
  const options = accountPairOptions(DEFAULT_ACCOUNT_FIXTURES);
  const factors = accountPairFactors(options);
  const item = (p: string) => spec().property('PatchCounterpartyAccount', p).enum;
  expect(factors.map((f) => f.name)).toEqual([
    'accountType',
    'accountCategory',
    'currency',
    'country',
    'branch',
  ]);
  expect(factors[0]!.values).toEqual(item('accountType'));
  expect(factors[1]!.values).toEqual(item('accountCategory'));
  expect(factors[2]!.values).toEqual([undefined, ...(item('currency') ?? [])]);
  expect(factors[3]!.values).toEqual([undefined, ...COUNTRIES]);
  expect(factors[4]!.values).toEqual([NO_BRANCH]);
});

test('unpinned fixtures: every valid pair of an account, in as many accounts as countries times currencies (and none)', () => {
  const options = accountPairOptions(DEFAULT_ACCOUNT_FIXTURES);
  const factors = accountPairFactors(options);
  const array = accountPairArray(options);
  // BANK_ACCOUNT requires a country: no row leaves it out, every other pair is held.
  const valid = (r: readonly PairValue[]): boolean => r[3] !== undefined;
  expect(pairsOf(factors, array.rows)).toEqual(feasiblePairs(factors, valid));
  expect(array.rows).toHaveLength(COUNTRIES.length * 4);
  // The first rows pair GBP with a country other than GB (the deployment).
  expect(array.rows.slice(0, 8).some((r) => r[2] === 'GBP' && r[3] !== 'GB')).toBe(true);
  const bodies = accountPairBodies(options, array);
  for (const b of bodies)
    expect(options.valid(b.value.counterpartyAccounts[0]!), b.rule.description).toBe(true);
  // Names at both length bounds, then names that say their row; accounts and details together.
  const name = spec().property('PatchCounterpartyAccount', 'name');
  expect(bodies[0]!.value.counterpartyAccounts[0]!.name).toHaveLength(name.minLength!);
  expect(bodies[1]!.value.counterpartyAccounts[0]!.name).toHaveLength(name.maxLength!);
  expect(bodies[0]!.value.counterpartyDetails).toBeDefined();
});

test('a fixture pinning country and currency: one value each, the array shrinks to the categories', () => {
  const pinned: AccountFixture = {
    accountIdentifier: { scheme: 'IBAN', number: 'NL91ABNA0417164300' },
    country: 'NL',
    currency: 'EUR',
  };
  const array = accountPairArray(accountPairOptions([pinned]));
  const categories = spec().property('PatchCounterpartyAccount', 'accountCategory').enum ?? [];
  expect(array.rows).toHaveLength(categories.length);
  for (const r of array.rows) expect([r[2], r[3]]).toEqual(['EUR', 'NL']);
});

test('fixtures with branch identifiers: SORT only with GBP, ROUTING only with USD, never without a currency', () => {
  const fixtures: AccountFixture[] = [
    { accountIdentifier: SAMPLE_ACCOUNTS[0]!.accountIdentifier as Record<string, unknown> },
    { ...(SAMPLE_ACCOUNTS[1] as AccountFixture), currency: 'GBP' },
    { ...(SAMPLE_ACCOUNTS[2] as AccountFixture), currency: 'USD' },
  ];
  const options = accountPairOptions(fixtures);
  const factors = accountPairFactors(options);
  expect(factors[4]!.values).toEqual([NO_BRANCH, 'SORT', 'ROUTING']);
  const array = accountPairArray(options);
  const matched = (r: readonly PairValue[]): boolean =>
    r[3] !== undefined && (r[4] === NO_BRANCH || r[2] === (r[4] === 'SORT' ? 'GBP' : 'USD'));
  expect(array.rows.every(matched)).toBe(true);
  expect(pairsOf(factors, array.rows)).toEqual(feasiblePairs(factors, matched));
  accountPairBodies(options, array).forEach((b, i) => {
    const account = b.value.counterpartyAccounts[0]!;
    expect(options.valid(account), b.rule.description).toBe(true);
    // Carried by a fixture of the row's kind, with the row's currency.
    const kind = account.branchIdentifier === undefined ? NO_BRANCH : branchType(account.branchIdentifier);
    expect([kind, account.currency]).toEqual([array.rows[i]![4], array.rows[i]![2]]);
  });
});

test('the details factors: which fields a patch carries, every pair in 7 rows, each valid', () => {
  const details = spec().schema('PatchCounterpartyDetails');
  const address = spec().schema('Address');
  expect(DETAIL_SLOTS.map((s) => s.slot)).toEqual(
    Object.keys(details.properties ?? {}).flatMap((k) =>
      k === 'address' ? Object.keys(address.properties ?? {}).map((a) => `address.${a}`) : [k],
    ),
  );
  // The address country's values are each sent by a boundary case; its presence is paired.
  const country = DETAIL_SLOTS.find((s) => s.slot === 'address.country')!;
  expect(country.values).toEqual(PAIR_ENUM_VALUES ? [undefined, ...COUNTRIES] : [false, true]);
  const array = detailsPairArray();
  const factors = DETAIL_SLOTS.map((s) => ({ name: s.slot, values: s.values }));
  const present = (v: unknown): boolean => v !== undefined && v !== false;
  expect(pairsOf(factors, array.rows)).toEqual(feasiblePairs(factors, (r) => r.some(present)));
  // Seven binary factors: CAN(2, 2^7) is 6; the greedy takes one more.
  expect(array.rows.length).toBeLessThanOrEqual(PAIR_ENUM_VALUES ? (COUNTRIES.length + 1) * 2 : 7);
  for (const b of detailsPairBodies(array))
    expect(spec().errors('PatchCounterpartyRequest', b.value), b.rule.description).toEqual([]);
});

test('packing: a part left open takes one case’s value, a part left out takes none', () => {
  type C = { id: string; v: Record<string, PackValue> };
  const cases: C[] = [
    { id: 'row', v: { a: ANY_VALUE, b: NO_VALUE, c: '"DE"' } },
    { id: 'a1', v: { a: '"x"' } },
    { id: 'a2', v: { a: '"y"' } },
    { id: 'b1', v: { b: '"z"' } },
    { id: 'cDE', v: { c: '"DE"' } },
    { id: 'row2', v: { a: NO_VALUE, b: ANY_VALUE, c: '"DE"' } },
  ];
  const ids = coverCases(
    cases,
    (c) => Object.keys(c.v),
    (c, slot) => c.v[slot]!,
  ).map((p) => p.map((c) => c.id));
  // The two rows differ where one leaves a part out and the other open: never one PATCH. a1 fills
  // the first row's open part; a2 cannot (a1 gave it its value); b1 fills the second row's.
  expect(ids).toEqual([['row', 'a1', 'cDE'], ['a2'], ['b1', 'row2']]);
});
