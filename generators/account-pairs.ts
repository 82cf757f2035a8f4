/**
 * Every pair of values of an added account's enumerated and finite fields, by a pairwise covering
 * array (generators/covering-array.ts) rather than by the seed: accountType, accountCategory,
 * currency (or none: it is optional), country (from the country list, or none where the type does
 * not require one) and the kind of branch identifier (interface.md §2.3, §4.2). A deployment that
 * refuses a combination the document allows (a GBP account whose bank country is not GB) is then
 * caught on every run, where random accounts paired the two on some seeds only.
 *
 * The values come from spec/openapi.yaml (the enums and the country list) and from the account
 * fixtures (the kinds of branch identifier they carry: the document shows none's inner fields,
 * so only a fixture's can be sent); a value the spec gains enters the array by itself. The array
 * spans the valid space only: a row is kept when a fixture can carry it (its pinned country and
 * currency, its kind of branch identifier) and the request model finds the account valid (the
 * caller's `valid`, requests/: SORT goes with GBP and ROUTING with USD, a branch identifier needs
 * a currency, country is required for BANK_ACCOUNT), so a pair a relation forbids is never sent
 * as valid. With a fixture pinning country and currency, those factors have one value each.
 */
import type { AccountFixture } from './account-fixture.ts';
import { coveringArray, type CoveringArray, type Factor } from './covering-array.ts';
import {
  ACCOUNT_CATEGORY,
  ACCOUNT_CURRENCY,
  ACCOUNT_NAME,
  ACCOUNT_TYPE,
  type PatchAccount,
} from './patch-accounts.ts';
import { COUNTRIES } from './fields.ts';
import { keeps, labelled, type Labelled } from './labelled.ts';
import { spec } from '../spec/index.ts';

/** A factor's value: an enum member, a kind of branch identifier, or undefined for a field left out. */
export type PairValue = string | undefined;

/** The kind of branch identifier an account carries that has none. */
export const NO_BRANCH = 'none';

export interface AccountPairOptions {
  /** The accounts the deployment accepts (ACCOUNT_FIXTURE): their identifiers, pins and kinds. */
  fixtures: readonly AccountFixture[];
  /** The kind of a branch identifier (SORT, ROUTING, another), as the request model reads it. */
  branchKind(branch: Record<string, unknown>): string;
  /** Whether an account item is valid, as the request model judges it (relations included). */
  valid(account: PatchAccount): boolean;
}

/** The names of the factors, as the rows hold them. */
export const ACCOUNT_PAIR_FACTORS = [
  'accountType',
  'accountCategory',
  'currency',
  'country',
  'branch',
] as const;

const kindOf = (options: AccountPairOptions, f: AccountFixture): string =>
  f.branchIdentifier === undefined ? NO_BRANCH : options.branchKind(f.branchIdentifier);

/** The factors, read from the spec and from the fixtures. */
export function accountPairFactors(options: AccountPairOptions): Factor<PairValue>[] {
  const item = spec().schema('PatchCounterpartyAccount');
  const optional = (name: string): PairValue[] => ((item.required ?? []).includes(name) ? [] : [undefined]);
  const kinds = [...new Set(options.fixtures.map((f) => kindOf(options, f)))];
  return [
    { name: 'accountType', values: ACCOUNT_TYPE.values },
    { name: 'accountCategory', values: ACCOUNT_CATEGORY.values },
    { name: 'currency', values: [...optional('currency'), ...ACCOUNT_CURRENCY.values] },
    // The request pattern admits any two capitals, a returned account only the list (§2.3).
    { name: 'country', values: [...optional('country'), ...COUNTRIES] },
    { name: 'branch', values: kinds },
  ];
}

/** The first fixture that can carry a row: its pins agree, and so does its kind of branch identifier. */
function carrier(options: AccountPairOptions, row: readonly PairValue[]): AccountFixture | undefined {
  const [, , currency, country, branch] = row;
  return options.fixtures.find(
    (f) =>
      kindOf(options, f) === branch &&
      (f.currency === undefined || f.currency === currency) &&
      (f.country === undefined || f.country === country),
  );
}

/** The account of a row, carried by `fixture`, named `name`. */
function accountOf(row: readonly PairValue[], fixture: AccountFixture, name: string): PatchAccount {
  const [accountType, accountCategory, currency, country] = row;
  return {
    accountType: accountType!,
    accountCategory: accountCategory!,
    name,
    accountIdentifier: structuredClone(fixture.accountIdentifier),
    ...(country !== undefined ? { country } : {}),
    ...(currency !== undefined ? { currency } : {}),
    ...(fixture.branchIdentifier ? { branchIdentifier: structuredClone(fixture.branchIdentifier) } : {}),
  };
}

/** The covering array of the account factors over the valid rows a fixture can carry. */
export function accountPairArray(options: AccountPairOptions): CoveringArray<PairValue> {
  return coveringArray(accountPairFactors(options), {
    allowed: (row) => {
      const fixture = carrier(options, row);
      return fixture !== undefined && options.valid(accountOf(row, fixture, 'Pairs'));
    },
  });
}

/**
 * The name of the i-th account: the first at the shortest length the spec allows, the second at
 * the longest, the others naming their row (every character in the name pattern).
 */
function nameOf(i: number, row: readonly PairValue[]): string {
  const min = ACCOUNT_NAME.minLength;
  const max = ACCOUNT_NAME.maxLength;
  if (i === 0) return 'a-_'.padEnd(min, 'x').slice(0, min);
  if (i === 1) return 'Max Length_Account-'.padEnd(max, '0123456789 ').slice(0, max);
  const words = row.slice(1).map((v) => v ?? 'none');
  return `Pairs ${i + 1} ${words.join(' ')}`.slice(0, max);
}

/** One line naming a row's values, e.g. 'BANK_ACCOUNT, BUSINESS, GBP, country CY, no branch identifier'. */
export function describeAccountRow(row: readonly PairValue[]): string {
  const [accountType, accountCategory, currency, country, branch] = row;
  return [
    accountType,
    accountCategory,
    currency ?? 'no currency',
    country === undefined ? 'no country' : `country ${country}`,
    branch === NO_BRANCH ? 'no branch identifier' : `a ${branch} branch identifier`,
  ].join(', ');
}

/**
 * The accounts of the covering array, one body each (several share a PATCH: the probe packs them),
 * in the array's order (a prefix cut by the account budget keeps the rows covering most pairs).
 * The first body carries a detail too, so that accounts and details go together.
 */
export function accountPairBodies(
  options: AccountPairOptions,
  array: CoveringArray<PairValue> = accountPairArray(options),
): Labelled<{ counterpartyAccounts: PatchAccount[]; counterpartyDetails?: { remarks: string } }>[] {
  return array.rows.map((row, i) =>
    labelled(
      {
        counterpartyAccounts: [accountOf(row, carrier(options, row)!, nameOf(i, row))],
        ...(i === 0 ? { counterpartyDetails: { remarks: 'accounts and details together' } } : {}),
      },
      keeps(
        'counterpartyAccounts[]',
        'pairs',
        `account ${i + 1} of the ${array.rows.length} covering every pair of values: ${describeAccountRow(row)}`,
      ),
    ),
  );
}
