/**
 * Items of `counterpartyAccounts` of PATCH /api/v1/counterparties/{ref} (interface.md sections 2.3
 * and 4.2), read from the spec's PatchCounterpartyAccount schema. The inner fields of
 * `accountIdentifier` and `branchIdentifier` are not shown in the document, so every generated
 * account carries those of the configured account fixture (generators/account-fixture.ts).
 *
 * Where the request and the response disagree, valid accounts use only what both allow: the
 * request pattern `^[A-Z]*$` admits any two capitals as the bank country, but a returned account's
 * country must be on the country list (section 2.3), so valid accounts take countries from the
 * list only. A code such as UK (the v1.1.0 change note's name for GB) is neither generated as
 * valid (the response forbids it) nor as invalid (the request allows it).
 */
import fc from 'fast-check';
import { spec } from '../spec/index.ts';
import type { AccountFixture } from './account-fixture.ts';
import {
  badEnum,
  enumField,
  invalidStringField,
  labelledFrom,
  notInEnum,
  nullValue,
  patternString,
  stringField,
  validCountry,
  withBrokenField,
  wrongType,
  type EnumField,
  type L,
} from './fields.ts';
import { breaks, labelled } from './labelled.ts';

const ITEM = 'counterpartyAccounts[]';
const schema = spec().schema('PatchCounterpartyAccount');
const prop = (name: string) => spec().property('PatchCounterpartyAccount', name);

export const ACCOUNT_TYPE: EnumField = enumField(prop('accountType'), `${ITEM}.accountType`, 'AccountType');
export const ACCOUNT_CATEGORY: EnumField = enumField(
  prop('accountCategory'),
  `${ITEM}.accountCategory`,
  'AccountCategory',
);
export const ACCOUNT_CURRENCY: EnumField = enumField(prop('currency'), `${ITEM}.currency`, 'Currency');
export const ACCOUNT_NAME = stringField(prop('name'), `${ITEM}.name`);
export const ACCOUNT_COUNTRY = stringField(prop('country'), `${ITEM}.country`);

/** The fields every item must carry, and those required only when accountType is BANK_ACCOUNT. */
export const ACCOUNT_REQUIRED: readonly string[] = schema.required ?? [];
export const BANK_ACCOUNT_REQUIRED: readonly string[] =
  (schema.then as { required?: string[] } | undefined)?.required ?? [];

export interface PatchAccount {
  accountType: string;
  accountCategory: string;
  name: string;
  accountIdentifier: Record<string, unknown>;
  country?: string;
  currency?: string;
  branchIdentifier?: Record<string, unknown>;
  [field: string]: unknown;
}

/** The plain, generated part of an account; the fixture adds the identifiers. */
type AccountCore = {
  accountType: string;
  accountCategory: string;
  name: string;
  country: string;
  currency?: string;
};

function withFixture(fixture: AccountFixture): (core: AccountCore) => PatchAccount {
  return (core) => ({
    ...core,
    accountIdentifier: structuredClone(fixture.accountIdentifier),
    ...(fixture.branchIdentifier ? { branchIdentifier: structuredClone(fixture.branchIdentifier) } : {}),
  });
}

function withoutFixture(value: unknown): Required<AccountCore> {
  if (value === null || typeof value !== 'object') throw new Error('not an account');
  const { accountIdentifier: _a, branchIdentifier: _b, ...core } = value as PatchAccount;
  return core as Required<AccountCore>;
}

/**
 * Valid account items: every type and category, names of every length and allowed character,
 * countries from the list (or the fixture's), each currency or none (or the fixture's).
 */
export function validPatchAccount(fixture: AccountFixture): fc.Arbitrary<PatchAccount> {
  const required = ['accountType', 'accountCategory', 'name', 'country'] as const;
  return fc
    .record(
      {
        accountType: fc.constantFrom(...ACCOUNT_TYPE.values),
        accountCategory: fc.constantFrom(...ACCOUNT_CATEGORY.values),
        name: patternString(ACCOUNT_NAME, ACCOUNT_NAME.minLength, ACCOUNT_NAME.maxLength),
        country: fixture.country !== undefined ? fc.constant(fixture.country) : validCountry(),
        currency:
          fixture.currency !== undefined
            ? fc.constant(fixture.currency)
            : fc.constantFrom(...ACCOUNT_CURRENCY.values),
      },
      { requiredKeys: fixture.currency !== undefined ? [...required, 'currency'] : [...required] },
    )
    .map(withFixture(fixture), withoutFixture);
}

/** A valid account built from given core fields (for the boundary examples). */
export function patchAccount(
  fixture: AccountFixture,
  core: Partial<AccountCore> & { name: string },
): PatchAccount {
  return withFixture(fixture)({
    accountType: ACCOUNT_TYPE.values[0]!,
    accountCategory: ACCOUNT_CATEGORY.values[0]!,
    country: fixture.country ?? 'DE',
    ...(fixture.currency !== undefined ? { currency: fixture.currency } : {}),
    ...core,
  });
}

/** Deliberate bad enum values: another payment instrument, abbreviations, an Indian-rupee code. */
const DELIBERATE_BAD_TYPES = ['CARD', 'BANK', 'WALLET', ''];
const DELIBERATE_BAD_CATEGORIES = ['CORPORATE', 'INDIVIDUAL', ''];
const DELIBERATE_BAD_CURRENCIES = ['INR', 'CHF', 'EURO', 'XXX', ''];

function requiredRule(key: string): L['rule'] {
  const when = ACCOUNT_REQUIRED.includes(key) ? '' : ' (required when accountType is BANK_ACCOUNT)';
  return breaks(`${ITEM}.${key}`, 'required', `an account without ${key}${when}`);
}

/** A valid account with one required field removed. */
function withoutRequired(fixture: AccountFixture): fc.Arbitrary<L> {
  const keys = [...new Set([...ACCOUNT_REQUIRED, ...BANK_ACCOUNT_REQUIRED])];
  return labelledFrom(
    fc.tuple(fc.constantFrom(...keys), validPatchAccount(fixture)),
    ([key, account]) => {
      const { [key]: _dropped, ...rest } = account;
      return labelled(rest, requiredRule(key));
    },
    () => [],
  );
}

/** Account items that break exactly one rule of PatchCounterpartyAccount. */
export function invalidPatchAccount(fixture: AccountFixture): fc.Arbitrary<L> {
  const base = validPatchAccount(fixture);
  const enumBreaks = (f: EnumField, deliberate: string[], key: string): fc.Arbitrary<L>[] => [
    withBrokenField(key, badEnum(f, notInEnum(f, deliberate)), base),
    withBrokenField(key, wrongType(f.field, 'string'), base),
    withBrokenField(key, nullValue(f.field, 'string'), base),
  ];
  return fc.oneof(
    withoutRequired(fixture),
    fc.oneof(
      ...enumBreaks(ACCOUNT_TYPE, DELIBERATE_BAD_TYPES, 'accountType'),
      ...enumBreaks(ACCOUNT_CATEGORY, DELIBERATE_BAD_CATEGORIES, 'accountCategory'),
      ...enumBreaks(ACCOUNT_CURRENCY, DELIBERATE_BAD_CURRENCIES, 'currency'),
    ),
    withBrokenField('name', invalidStringField(ACCOUNT_NAME), base),
    withBrokenField('country', invalidStringField(ACCOUNT_COUNTRY), base),
    fc.oneof(
      withBrokenField('accountIdentifier', wrongType(`${ITEM}.accountIdentifier`, 'object'), base),
      withBrokenField('accountIdentifier', nullValue(`${ITEM}.accountIdentifier`, 'object'), base),
      withBrokenField('branchIdentifier', wrongType(`${ITEM}.branchIdentifier`, 'object'), base),
      withBrokenField('branchIdentifier', nullValue(`${ITEM}.branchIdentifier`, 'object'), base),
    ),
  );
}

/** Fixed invalid accounts for the boundary lists: the cases the document's readers get wrong. */
export function invalidPatchAccountExamples(fixture: AccountFixture): L[] {
  const ok = patchAccount(fixture, { name: 'Boundary Account' });
  const set = (key: string, value: unknown, rule: L['rule']): L => labelled({ ...ok, [key]: value }, rule);
  const drop = (key: string): L => {
    const { [key]: _dropped, ...rest } = ok;
    return labelled(rest, requiredRule(key));
  };
  const enumCase = (f: EnumField, key: string, v: string): L =>
    set(
      key,
      v,
      breaks(f.field, 'enum', `${f.name} ${JSON.stringify(v)} is not one of ${f.values.join(', ')}`),
    );
  const name = ACCOUNT_NAME;
  const country = ACCOUNT_COUNTRY;
  return [
    drop('country'),
    drop('accountIdentifier'),
    drop('name'),
    drop('accountType'),
    drop('accountCategory'),
    enumCase(ACCOUNT_TYPE, 'accountType', 'CARD'),
    enumCase(ACCOUNT_TYPE, 'accountType', 'bank_account'),
    enumCase(ACCOUNT_CATEGORY, 'accountCategory', 'business'),
    enumCase(ACCOUNT_CURRENCY, 'currency', 'INR'),
    enumCase(ACCOUNT_CURRENCY, 'currency', 'eur'),
    set(
      'country',
      'gb',
      breaks(country.field, 'pattern', `country "gb" in lower case, outside ${country.pattern}`),
    ),
    set('country', 'DEU', breaks(country.field, 'maxLength', `country "DEU" of length 3 > maxLength 2`)),
    set('country', 'D', breaks(country.field, 'minLength', `country "D" of length 1 < minLength 2`)),
    set('name', 'ab', breaks(name.field, 'minLength', `name of length 2 < minLength ${name.minLength}`)),
    set(
      'name',
      'N'.repeat(name.maxLength + 1),
      breaks(name.field, 'maxLength', `name of length ${name.maxLength + 1} > maxLength ${name.maxLength}`),
    ),
    set('name', 'Acme & Sons', breaks(name.field, 'pattern', `name with "&", outside ${name.pattern}`)),
    set(
      'accountIdentifier',
      'DE89370400440532013000',
      breaks(
        `${ITEM}.accountIdentifier`,
        'type',
        'accountIdentifier is a string where an object is expected',
      ),
    ),
  ];
}
