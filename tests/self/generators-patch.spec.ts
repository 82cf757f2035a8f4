/**
 * The PATCH body generators: valid bodies validate against the spec's PatchCounterpartyRequest;
 * every invalid body fails it, and only at the field and keyword its rule names; the boundary
 * lists cover what interface.md §2 and §4.2 call out; same seed, same values; shrinking works.
 */
import { isDeepStrictEqual } from 'node:util';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import {
  DEFAULT_ACCOUNT_FIXTURE,
  parseAccountFixture,
  type AccountFixture,
} from '../../generators/account-fixture.ts';
import { COUNTRIES, emailOfLength, emailFormatOk } from '../../generators/fields.ts';
import type { Labelled } from '../../generators/labelled.ts';
import {
  invalidPatchBody,
  invalidPatchBodyExamples,
  validAccountsBody,
  validDetailsBody,
  validDetailsFieldBody,
  validDetailsBodyExamples,
  type PatchBody,
} from '../../generators/patch-body.ts';
import { accountPairBodies } from '../../generators/account-pairs.ts';
import { detailsPairBodies } from '../../generators/details-pairs.ts';
import { accountPairOptions } from '../../probes/valid-pairs.ts';
import { HOLDER_NAME, MOBILE, REMARKS } from '../../generators/patch-details.ts';
import { PROTOTYPE_NAMES } from '../../generators/prototype-names.ts';
import { spec } from '../../spec/index.ts';
import { misjudged } from './patch-rules.ts';
import { failing } from './sample-checks.ts';

/** The covering arrays' rows, as the valid-PATCH probes send them (probes/valid-pairs.ts). */
const pairBodies = (fixture: AccountFixture) => [
  ...detailsPairBodies(),
  ...accountPairBodies(accountPairOptions([fixture])),
];

const SEED = 20261122;
const FIXTURE = DEFAULT_ACCOUNT_FIXTURE;
const PINNED = {
  accountIdentifier: { scheme: 'IBAN', number: 'NL91ABNA0417164300' },
  country: 'NL',
  currency: 'EUR',
};

for (const [name, fixture] of [
  ['the default fixture', FIXTURE],
  ['a pinned fixture', PINNED],
] as const) {
  test(`valid bodies validate against PatchCounterpartyRequest (${name})`, () => {
    const bodies: Labelled<PatchBody>[] = [
      ...fc.sample(validDetailsBody(), { seed: SEED, numRuns: 300 }),
      ...fc.sample(validDetailsFieldBody(), { seed: SEED, numRuns: 300 }),
      ...fc.sample(validAccountsBody(fixture), { seed: SEED, numRuns: 300 }),
      ...validDetailsBodyExamples(),
      ...pairBodies(fixture),
    ];
    const wrong = bodies.flatMap((b) => {
      const errors = spec().errors('PatchCounterpartyRequest', b.value);
      return failing(JSON.stringify(b.value), [
        [errors.length === 0, `valid (${errors.map((e) => `${e.instancePath} ${e.message}`).join(', ')})`],
        [b.rule.keeps, 'its rule keeping the spec'],
        ...(b.value.counterpartyAccounts ?? []).flatMap((a) => [
          [
            isDeepStrictEqual(a.accountIdentifier, fixture.accountIdentifier),
            "the fixture's identifier",
          ] as const,
          // Valid accounts use countries both the request and the response allow.
          [a.country !== undefined && COUNTRIES.includes(a.country), 'a country of both schemas'] as const,
          ['country' in fixture ? a.country === fixture.country : true, "the fixture's country"] as const,
        ]),
      ]);
    });
    expect(wrong).toEqual([]);
  });

  test(`invalid bodies fail the schema only at the field and keyword they claim (${name})`, () => {
    const bodies = [
      ...fc.sample(invalidPatchBody(fixture), { seed: SEED, numRuns: 1500 }),
      ...invalidPatchBodyExamples(fixture),
    ];
    const wrong = bodies.flatMap((b) => {
      const why = misjudged(b);
      return why === undefined
        ? []
        : [
            `${b.rule.field} ${b.rule.keyword} (${b.rule.description}): ${why}: ${JSON.stringify(b.value).slice(0, 200)}`,
          ];
    });
    expect(wrong).toEqual([]);
  });
}

test('the valid boundary lists cover the bounds, the character classes and every country', () => {
  const details = validDetailsBodyExamples().map((b) => b.value.counterpartyDetails ?? {});
  const values = (key: 'accountHolderName' | 'mobileNumber' | 'remarks' | 'emailAddress') =>
    details.flatMap((d) => (d[key] === undefined ? [] : [d[key]]));
  for (const [key, f] of [
    ['accountHolderName', HOLDER_NAME],
    ['mobileNumber', MOBILE],
    ['remarks', REMARKS],
  ] as const) {
    const lengths = values(key).map((v) => v.length);
    expect(lengths).toContain(f.minLength);
    expect(lengths).toContain(f.maxLength);
    const seen = new Set(values(key).join(''));
    for (const c of [...f.allowed, ...f.separators])
      expect(seen.has(c), `${key} never holds ${JSON.stringify(c)}`).toBe(true);
  }
  expect(values('mobileNumber')).toContain('4477009001234567');
  expect(values('emailAddress').map((e) => e.length)).toEqual(expect.arrayContaining([6, 255]));
  const countries = details.flatMap((d) => (d.address?.country ? [d.address.country] : []));
  expect(new Set(countries)).toEqual(new Set(COUNTRIES));
  expect(countries).toContain('GB');
  const lines = details.flatMap((d) => (d.address?.addressLine ? [d.address.addressLine] : [])).join('');
  for (const c of "#/:?'") expect(lines).toContain(c);
});

test('the invalid boundary list holds the cases the issue names', () => {
  const rules = invalidPatchBodyExamples(FIXTURE).map((b) => `${b.rule.field} ${b.rule.keyword}`);
  for (const expected of [
    'body minProperties',
    'counterpartyDetails minProperties',
    'counterpartyAccounts minItems',
    'body additionalProperties',
    'counterpartyDetails.counterpartyReference additionalProperties',
    'counterpartyDetails.createdBy additionalProperties',
    'counterpartyDetails.remarks pattern',
    'counterpartyDetails.remarks maxLength',
    'counterpartyDetails.address.country enum',
    'counterpartyAccounts[].currency enum',
    'counterpartyAccounts[].accountType enum',
    'counterpartyAccounts[].country required',
    'counterpartyAccounts[].accountIdentifier required',
    'body json',
    'body type',
  ]) {
    expect(rules).toContain(expected);
  }
  const values = invalidPatchBodyExamples(FIXTURE).map((b) => JSON.stringify(b.value));
  expect(values.some((v) => v.includes('"UK"'))).toBe(true);
  expect(values.some((v) => v.includes('"INR"'))).toBe(true);
  expect(values.some((v) => v.includes('"CARD"'))).toBe(true);
  expect(values.some((v) => v.includes('" net 30"'))).toBe(true);
  expect(values.some((v) => v.includes('"net 30 "'))).toBe(true);
});

test('email addresses of every length from 5 to 318 keep the format', () => {
  for (let n = 5; n <= 318; n++) {
    const e = emailOfLength(n, 'q', 'z');
    expect(e.length).toBe(n);
    expect(emailFormatOk(e), e).toBe(true);
  }
});

test('the same seed gives the same bodies', () => {
  const a = fc.sample(invalidPatchBody(FIXTURE), { seed: 7, numRuns: 100 });
  const b = fc.sample(invalidPatchBody(FIXTURE), { seed: 7, numRuns: 100 });
  expect(a).toEqual(b);
  expect(fc.sample(validAccountsBody(FIXTURE), { seed: 7, numRuns: 50 })).toEqual(
    fc.sample(validAccountsBody(FIXTURE), { seed: 7, numRuns: 50 }),
  );
});

test('shrinking reaches the smallest failing body, with its rule kept', () => {
  // A property that fails on remarks longer than 40: the minimal counterexample has length 41.
  const details = fc.check(
    fc.property(validDetailsBody(), (b) => (b.value.counterpartyDetails?.remarks?.length ?? 0) <= 40),
    { seed: SEED },
  );
  expect(details.failed).toBe(true);
  const body = details.counterexample![0];
  expect(body.value.counterpartyDetails?.remarks?.length).toBe(41);
  expect(Object.keys(body.value.counterpartyDetails!)).toEqual(['remarks']);
  expect(body.rule.description).toBe('a valid patch: counterpartyDetails {remarks}');
});

test('the random valid-details cases mostly set one field (never the country alone), some any combination, and shrink to one field', () => {
  const fields = (b: Labelled<PatchBody>): string[] =>
    Object.entries(b.value.counterpartyDetails ?? {}).flatMap(([k, v]) =>
      k === 'address' ? Object.keys(v as object).map((f) => `address.${f}`) : [k],
    );
  const sample = fc.sample(validDetailsFieldBody(), { seed: SEED, numRuns: 1000 });
  const single = sample.filter((b) => fields(b).length === 1);
  // Nine in ten single (the rest a combined body, which may also hold one field).
  expect(single.length).toBeGreaterThanOrEqual(880);
  expect(single.length).toBeLessThan(1000);
  expect(new Set(single.map((b) => fields(b)[0])).size).toBeGreaterThanOrEqual(6);
  expect(sample.some((b) => fields(b).length >= 3)).toBe(true);
  // A country alone comes only from a combined body, about one in 10 × 7 × 3.
  expect(single.filter((b) => fields(b)[0] === 'address.country').length).toBeLessThan(20);
  const details = fc.check(
    fc.property(validDetailsFieldBody(), (b) => (b.value.counterpartyDetails?.remarks?.length ?? 0) <= 40),
    { seed: SEED },
  );
  expect(details.failed).toBe(true);
  expect(fields(details.counterexample![0])).toEqual(['remarks']);
  expect(details.counterexample![0].value.counterpartyDetails?.remarks?.length).toBe(41);
});

test('the account fixture is checked, with one-line messages', () => {
  expect(parseAccountFixture('{"accountIdentifier":{"iban":"x"},"country":"GB","currency":"GBP"}')).toEqual({
    accountIdentifier: { iban: 'x' },
    country: 'GB',
    currency: 'GBP',
  });
  for (const [text, message] of [
    ['{', /not valid JSON/],
    ['[]', /expected a JSON object/],
    ['{}', /missing "accountIdentifier"/],
    ['{"accountIdentifier":"x"}', /must be a JSON object/],
    ['{"accountIdentifier":{},"country":"UK"}', /not in the document's country list/],
    ['{"accountIdentifier":{},"currency":"INR"}', /not one of EUR, USD, GBP/],
    ['{"accountIdentifier":{},"branchIdentifier":{"type":"SORT"}}', /needs a "currency"/],
    ['{"accountIdentifier":{},"iban":"x"}', /unknown key "iban"/],
  ] as const) {
    expect(() => parseAccountFixture(text)).toThrow(message);
  }
});

/** Every property name of a JSON value, at any depth, as the JSON text carries it. */
function namesIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(namesIn);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => [k, ...namesIn(v)]);
}

test('the names of Object.prototype are unknown properties: explicit cases in the body and in counterpartyDetails, and drawn by the random cases', () => {
  expect([...PROTOTYPE_NAMES]).toEqual(expect.arrayContaining(Object.getOwnPropertyNames(Object.prototype)));
  // As sent: JSON.parse of the text keeps __proto__ an own key.
  const sent = invalidPatchBodyExamples(FIXTURE).map((b) => JSON.parse(JSON.stringify(b.value)) as unknown);
  const own = (v: unknown, name: string): boolean =>
    v !== null && typeof v === 'object' && Object.hasOwn(v, name);
  for (const name of PROTOTYPE_NAMES) {
    expect(
      sent.some((v) => own(v, name)),
      `body.${name}`,
    ).toBe(true);
    expect(
      sent.some((v) => own(v, 'counterpartyDetails') && own((v as PatchBody).counterpartyDetails, name)),
      `counterpartyDetails.${name}`,
    ).toBe(true);
  }
  const drawn = new Set(
    fc
      .sample(invalidPatchBody(FIXTURE), { seed: SEED, numRuns: 1500 })
      .flatMap((b) => namesIn(JSON.parse(JSON.stringify(b.value)) as unknown)),
  );
  expect(PROTOTYPE_NAMES.filter((n) => !drawn.has(n))).toEqual([]);
});
