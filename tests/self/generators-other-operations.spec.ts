/**
 * The generators of the other operations (generators/other-operations.ts): every member of each
 * finite class is among the explicit cases, every value is derived from the spec and keeps or
 * breaks what it claims, the same seed gives the same values, and no body that could be valid (a
 * JSON object or array) is ever produced.
 *
 * Every value of a sample is checked, with one expect over the sample (the values that fail, and
 * why: failing() below), not one per value, which cost seconds in Playwright's bookkeeping of
 * steps where generating and checking the values takes milliseconds.
 */
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { REFERENCE } from '../../generators/counterparty-reference.ts';
import {
  allowedItemChars,
  badBody,
  badBodyExamples,
  billFilterExamples,
  billFilterQuery,
  billStatusValues,
  forbiddenItemChars,
  invalidItemReference,
  invalidItemReferenceExamples,
  isJsonText,
  ITEM_RESOURCES,
  LARGE_BODY_BYTES,
  LARGE_JSON_STRING_BYTES,
  LARGEST_PAGE,
  LONG_REFERENCE_LENGTHS,
  paginationExamples,
  paginationMinimum,
  paginationQuery,
  queryString,
  unknownItemReference,
  unknownItemReferenceExamples,
  type ItemResource,
} from '../../generators/other-operations.ts';
import { spec } from '../../spec/index.ts';
import { failing } from './sample-checks.ts';

const SEED = 42;
const KNOWN = 'ACME-Supplies_0001';

function resource(kind: ItemResource['kind']): ItemResource {
  return ITEM_RESOURCES.find((r) => r.kind === kind)!;
}

test('the classes come from the spec: the named bill statuses, the pagination minimum, the 1.3.0 patterns', () => {
  expect(billStatusValues()).toEqual(['OPEN', 'PROCESSING', 'PAID', 'POST']);
  expect(paginationMinimum()).toEqual({ page: 0, pageSize: 0 });
  for (const kind of ['mandate', 'collection'] as const) {
    const r = resource(kind);
    expect(allowedItemChars(r.schema!).join('')).toBe(
      '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
    );
  }
  expect(resource('bill').schema).toBeUndefined();
});

test('bill filter examples: every named status alone, the reference bounds alone, every status with every reference', () => {
  const examples = billFilterExamples(KNOWN).map((e) => e.value);
  const statuses = billStatusValues();
  for (const status of statuses) expect(examples).toContainEqual({ status });
  const refs = examples.filter((q) => q.status === undefined).map((q) => q.counterpartyReference!);
  expect(refs).toContain(KNOWN);
  expect(refs.map((r) => r.length)).toEqual(expect.arrayContaining([REFERENCE.min, REFERENCE.max]));
  for (const status of statuses) {
    for (const counterpartyReference of refs)
      expect(examples).toContainEqual({ status, counterpartyReference });
  }
  for (const q of examples) {
    expect(Object.keys(q).every((k) => k === 'status' || k === 'counterpartyReference')).toBe(true);
  }
});

test('bill filter values keep the spec: named statuses, valid counterparty references; at least one filter', () => {
  const values = [
    ...fc.sample(billFilterQuery(KNOWN), { seed: SEED, numRuns: 300 }),
    ...billFilterExamples(KNOWN),
  ];
  const statuses = billStatusValues();
  const wrong = values.flatMap(({ value, rule }) =>
    failing(JSON.stringify(value), [
      [rule.keeps, 'its rule keeping the spec'],
      [Object.keys(value).length > 0, 'at least one filter'],
      [value.status === undefined || statuses.includes(value.status), 'a named status'],
      [
        value.counterpartyReference === undefined ||
          spec().errors('CounterpartyReference', value.counterpartyReference).length === 0,
        'a valid counterparty reference',
      ],
    ]),
  );
  expect(wrong).toEqual([]);
});

test('pagination examples: page and pageSize at the minimum and one above, alone and in every pair', () => {
  const examples = paginationExamples().map((e) => e.value);
  expect(examples).toEqual([
    { page: '0' },
    { page: '1' },
    { pageSize: '0' },
    { pageSize: '1' },
    { page: '0', pageSize: '0' },
    { page: '0', pageSize: '1' },
    { page: '1', pageSize: '0' },
    { page: '1', pageSize: '1' },
  ]);
  const wrong = fc.sample(paginationQuery(), { seed: SEED, numRuns: 300 }).flatMap(({ value }) =>
    (['page', 'pageSize'] as const).flatMap((name) => {
      if (value[name] === undefined) return [];
      const n = Number(value[name]);
      return failing(`${name}=${value[name]}`, [
        [Number.isInteger(n) && n >= 0 && n <= LARGEST_PAGE, `a whole number from 0 to ${LARGEST_PAGE}`],
      ]);
    }),
  );
  expect(wrong).toEqual([]);
  expect(queryString({})).toBe('');
  expect(queryString({ status: 'OPEN', pageSize: '0' })).toBe('?status=OPEN&pageSize=0');
});

test('invalid item references: every forbidden character once and each long length; all break the pattern, none holds a slash', () => {
  for (const kind of ['mandate', 'collection'] as const) {
    const r = resource(kind);
    const forbidden = forbiddenItemChars(r.schema!);
    expect(forbidden).not.toContain('/');
    for (const c of ['_', '.', ' ', '~', '%', '?', '#']) expect(forbidden).toContain(c);
    const examples = invalidItemReferenceExamples(r);
    for (const c of forbidden)
      expect(
        examples.some((e) => e.value === `conformance${c}invalid`),
        c,
      ).toBe(true);
    for (const n of LONG_REFERENCE_LENGTHS) expect(examples.some((e) => e.value.length === n)).toBe(true);
    const values = [...examples, ...fc.sample(invalidItemReference(r), { seed: SEED, numRuns: 300 })];
    const wrong = values.flatMap(({ value, rule }) =>
      failing(`${kind} ${value}`, [
        [!rule.keeps, 'its rule breaking the spec'],
        [!value.includes('/'), 'free of "/"'],
        [
          spec()
            .errors(r.schema!, value)
            .some((e) => e.keyword === 'pattern'),
          'outside the pattern',
        ],
      ]),
    );
    expect(wrong).toEqual([]);
  }
  expect(invalidItemReferenceExamples(resource('bill'))).toEqual([]);
});

test('unknown item references keep the pattern, are invented, and reach every long length', () => {
  for (const r of ITEM_RESOURCES) {
    const examples = unknownItemReferenceExamples(r, SEED);
    for (const n of LONG_REFERENCE_LENGTHS) expect(examples.some((e) => e.value.length === n)).toBe(true);
    const values = [...examples, ...fc.sample(unknownItemReference(r), { seed: SEED, numRuns: 300 })];
    const wrong = values.flatMap(({ value, rule }) =>
      failing(`${r.kind} ${value}`, [
        [rule.keeps, 'its rule keeping the spec'],
        [value.toLowerCase().includes('conformance-unknown'), 'holding "conformance-unknown"'],
        [/^[a-zA-Z0-9-]+$/.test(value), 'of [a-zA-Z0-9-] only'],
        [r.schema === undefined || spec().errors(r.schema, value).length === 0, 'keeping the pattern'],
      ]),
    );
    expect(wrong).toEqual([]);
  }
});

test('bad bodies: empty, not JSON, every JSON scalar type, very large; never a JSON object or array', () => {
  const examples = badBodyExamples();
  const values = [...examples, ...fc.sample(badBody(), { seed: SEED, numRuns: 500 })];
  const wrong = values.flatMap(({ value, rule }) => {
    const parsed = isJsonText(value.text) ? (JSON.parse(value.text) as unknown) : undefined;
    return failing(value.text.slice(0, 40), [
      [!rule.keeps, 'its rule breaking the spec'],
      [parsed === null || typeof parsed !== 'object', 'other than a JSON object or array'],
    ]);
  });
  expect(wrong).toEqual([]);
  const texts = examples.map((e) => e.value.text);
  expect(examples.filter((e) => e.value.text === '').map((e) => e.value.contentType)).toEqual([
    'application/json',
    'text/plain',
  ]);
  const types = new Set(
    texts.filter(isJsonText).map((t) => (JSON.parse(t) === null ? 'null' : typeof JSON.parse(t))),
  );
  expect([...types].sort()).toEqual(['boolean', 'null', 'number', 'string']);
  for (const t of ['true', 'false']) expect(texts).toContain(t);
  expect(texts.filter((t) => t !== '' && !isJsonText(t)).length).toBeGreaterThanOrEqual(7);
  // Very large: 1 MiB that is not JSON, a JSON string of 64 KiB.
  const large = texts.filter((t) => Buffer.byteLength(t) >= LARGE_JSON_STRING_BYTES);
  expect(large.map((t) => [Buffer.byteLength(t), isJsonText(t)])).toEqual([
    [LARGE_BODY_BYTES, false],
    [LARGE_JSON_STRING_BYTES, true],
  ]);
  expect(LARGE_BODY_BYTES).toBe(1024 * 1024);
});

test('the same seed gives the same values', () => {
  const arbs = [
    billFilterQuery(KNOWN),
    paginationQuery(),
    invalidItemReference(resource('mandate')),
    unknownItemReference(resource('bill')),
    badBody(),
  ];
  for (const arb of arbs as fc.Arbitrary<unknown>[]) {
    expect(fc.sample(arb, { seed: SEED, numRuns: 20 })).toEqual(fc.sample(arb, { seed: SEED, numRuns: 20 }));
  }
});
