/**
 * The finite-class lists (generators/finite-classes.ts): every case breaks exactly the rule it
 * names, against spec/openapi.yaml; every member of each class is covered (every printable-ASCII
 * character a pattern forbids, every look-alike, both length bounds, every enum member's near
 * misses); the lists are the same on every call (no seed).
 */
import { expect, test } from '@playwright/test';
import { DEFAULT_ACCOUNT_FIXTURE } from '../../generators/account-fixture.ts';
import {
  KILOBYTES,
  LOOK_ALIKES,
  PRINTABLE_ASCII,
  enumNearMisses,
  finiteClassCases,
  forbiddenClass,
  structuralEdges,
  unlistedCountries,
} from '../../generators/finite-classes.ts';
import { COUNTRIES } from '../../generators/fields.ts';
import { canonicalJson as canonicalJsonOf } from '../../exchange/canonical-json.ts';
import { ACCOUNT_CURRENCY, ACCOUNT_NAME } from '../../generators/patch-accounts.ts';
import {
  ADDRESS_COUNTRY,
  ADDRESS_LINE,
  HOLDER_NAME,
  MOBILE,
  POSTAL_CODE,
  REMARKS,
} from '../../generators/patch-details.ts';
import { spec } from '../../spec/index.ts';
import { misjudged } from './patch-rules.ts';

const CASES = finiteClassCases(DEFAULT_ACCOUNT_FIXTURE);

test('every finite-class case breaks the one rule it names', () => {
  const wrong = CASES.flatMap((c) => {
    const why = misjudged(c);
    return why === undefined ? [] : [`${c.rule.description}: ${why}`];
  });
  expect(wrong).toEqual([]);
});

test('every character a pattern forbids is sent, in each field; none it allows', () => {
  for (const f of [HOLDER_NAME, MOBILE, REMARKS, ADDRESS_LINE, POSTAL_CODE, ACCOUNT_NAME]) {
    const re = new RegExp(f.pattern!, 'u');
    const forbidden = forbiddenClass(f);
    // derived from the pattern: every printable ASCII character it rejects, and no other
    const ascii = PRINTABLE_ASCII.filter((c) => !re.test(`a${c}a`) && !re.test(`1${c}1`));
    expect(forbidden.filter((c) => PRINTABLE_ASCII.includes(c)).sort(), f.field).toEqual(ascii.sort());
    // every look-alike: none of them is allowed by any pattern here
    expect(
      forbidden.filter((c) => !PRINTABLE_ASCII.includes(c)),
      f.field,
    ).toEqual([...LOOK_ALIKES]);
    const sent = new Set(
      CASES.filter((c) => c.rule.field === f.field && c.rule.keyword === 'pattern').map(
        (c) => c.rule.description,
      ),
    );
    expect(sent.size, f.field).toBe(forbidden.length);
    for (const kw of ['minLength', 'maxLength', 'type']) {
      expect(
        CASES.some((c) => c.rule.field === f.field && c.rule.keyword === kw),
        `${f.field} ${kw}`,
      ).toBe(true);
    }
    expect(
      CASES.some((c) => c.rule.field === f.field && c.rule.description.includes(`${KILOBYTES} characters`)),
    ).toBe(true);
  }
  // the faults the random cases missed
  expect(forbiddenClass(HOLDER_NAME)).toEqual(expect.arrayContaining(['.', '&']));
  expect(forbiddenClass(POSTAL_CODE)).toContain('_');
  expect(forbiddenClass(MOBILE)).toEqual(expect.arrayContaining(['٣', '０', '+', ' ']));
});

test('every enum member has its near misses; countries outside the list, UK and INR included', () => {
  for (const v of ADDRESS_COUNTRY.values)
    expect(enumNearMisses(ADDRESS_COUNTRY, [], ['DE'])).toContain(v.toLowerCase());
  for (const v of ACCOUNT_CURRENCY.values) {
    expect(enumNearMisses(ACCOUNT_CURRENCY, [])).toEqual(
      expect.arrayContaining([v.toLowerCase(), ` ${v}`, `${v} `]),
    );
  }
  const unlisted = unlistedCountries();
  expect(unlisted).toContain('UK');
  expect(unlisted.filter((c) => COUNTRIES.includes(c))).toEqual([]);
  for (const letter of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') {
    expect(unlisted.some((c) => c.startsWith(letter))).toBe(true);
    expect(unlisted.some((c) => c.endsWith(letter))).toBe(true);
  }
  expect(CASES.some((c) => JSON.stringify(c.value).includes('"INR"'))).toBe(true);
});

test('the lists are deterministic: the same cases on every call', () => {
  expect(canonicalJsonOf(finiteClassCases(DEFAULT_ACCOUNT_FIXTURE))).toBe(canonicalJsonOf(CASES));
});

test('structural edges validate, and cover every allowed symbol of each pattern', () => {
  const edges = structuralEdges();
  for (const d of edges) {
    expect(spec().errors('PatchCounterpartyRequest', { counterpartyDetails: d }), JSON.stringify(d)).toEqual(
      [],
    );
  }
  const text = JSON.stringify(edges);
  expect(edges).toContainEqual({ accountHolderName: '   ' });
  expect(edges).toContainEqual({ mobileNumber: '00000' });
  expect(edges).toContainEqual({ address: { addressLine: ' ' } });
  expect(edges).toContainEqual({ address: { postalCode: '-' } });
  expect(text).toContain('net   30');
});
