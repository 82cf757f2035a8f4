/**
 * The counterparty-reference generators: valid values validate against the spec's schema,
 * invalid ones fail it for the reason they claim, the same seed gives the same values, the
 * boundary examples cover both bounds and every character, and shrinking works.
 */
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import {
  FORBIDDEN_REFERENCE_CHARS,
  REFERENCE,
  REFERENCE_CHARS,
  forbiddenCharReference,
  invalidReference,
  invalidReferenceExamples,
  slashReference,
  slashReferenceExamples,
  tooLongReference,
  tooShortReference,
  validReference,
  validReferenceExamples,
} from '../../generators/counterparty-reference.ts';
import { spec } from '../../spec/index.ts';
import { failing } from './sample-checks.ts';

const SEED = 42;
const errorsOf = (value: string) => spec().errors('CounterpartyReference', value);

test('the reference constraints come from the spec', () => {
  expect(REFERENCE).toEqual({ min: 3, max: 90, pattern: '^[-_a-zA-Z0-9]+$' });
  expect(REFERENCE_CHARS.join('')).toBe('-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz');
  expect(FORBIDDEN_REFERENCE_CHARS).not.toContain('/');
  for (const c of FORBIDDEN_REFERENCE_CHARS) expect(REFERENCE_CHARS).not.toContain(c);
});

test('valid references validate against the schema', () => {
  const values = [...fc.sample(validReference(), { seed: SEED, numRuns: 500 }), ...validReferenceExamples()];
  const wrong = values.flatMap((v) =>
    failing(v.value, [
      [errorsOf(v.value).length === 0, 'valid against the schema'],
      [v.rule.keeps, 'its rule keeping the spec'],
    ]),
  );
  expect(wrong).toEqual([]);
});

test('valid examples cover both length bounds and every allowed character', () => {
  const examples = validReferenceExamples().map((e) => e.value);
  const lengths = new Set(examples.map((e) => e.length));
  expect(lengths.has(REFERENCE.min)).toBe(true);
  expect(lengths.has(REFERENCE.max)).toBe(true);
  const used = new Set(examples.join(''));
  for (const c of REFERENCE_CHARS) expect(used.has(c), c).toBe(true);
});

test('invalid references fail the schema by the keyword they claim', () => {
  const values = [
    ...fc.sample(invalidReference(), { seed: SEED, numRuns: 500 }),
    ...invalidReferenceExamples(),
  ];
  const wrong = values.flatMap((v) => {
    const keywords = errorsOf(v.value).map((e) => e.keyword);
    return failing(`${JSON.stringify(v.value)} (${v.rule.description})`, [
      [
        keywords.includes(v.rule.keyword),
        `failing ${v.rule.keyword} (fails ${keywords.join(', ') || 'nothing'})`,
      ],
      [!v.rule.keeps, 'its rule breaking the spec'],
      [!v.value.includes('/'), 'free of a slash'],
      // Never a dot segment, which URL parsers would remove from the path.
      [v.value !== '.' && v.value !== '..', 'a dot segment'],
    ]);
  });
  expect(wrong).toEqual([]);
});

test('invalid examples cover lengths 1, 2, 91 and every forbidden character', () => {
  const examples = invalidReferenceExamples();
  const lengths = examples.filter((e) => e.rule.keyword !== 'pattern').map((e) => e.value.length);
  expect(lengths).toEqual(expect.arrayContaining([1, 2, 91]));
  for (const c of FORBIDDEN_REFERENCE_CHARS) {
    expect(examples.some((e) => e.value.includes(c))).toBe(true);
  }
});

test('each invalid family breaks only its own rule', () => {
  const only = (arb: fc.Arbitrary<{ value: string }>, keyword: string): string[] =>
    fc.sample(arb, { seed: SEED, numRuns: 200 }).flatMap((v) => {
      const keywords = errorsOf(v.value).map((e) => e.keyword);
      return failing(JSON.stringify(v.value), [
        [
          keywords.length === 1 && keywords[0] === keyword,
          `failing ${keyword} alone (fails ${keywords.join(', ')})`,
        ],
        [
          keyword !== 'pattern' || (v.value.length >= REFERENCE.min && v.value.length <= REFERENCE.max),
          `${REFERENCE.min} to ${REFERENCE.max} characters long`,
        ],
      ]);
    });
  expect([
    ...only(tooShortReference(), 'minLength'),
    ...only(tooLongReference(), 'maxLength'),
    ...only(forbiddenCharReference(), 'pattern'),
  ]).toEqual([]);
});

test('slash references hold a raw slash between two valid segments', () => {
  const wrong = [
    ...fc.sample(slashReference(), { seed: SEED, numRuns: 200 }),
    ...slashReferenceExamples(),
  ].flatMap((v) => {
    const parts = v.value.split('/');
    return failing(JSON.stringify(v.value), [
      [parts.length >= 2, 'holding a slash'],
      [parts.every((p) => p.length > 0), 'free of an empty segment'],
    ]);
  });
  expect(wrong).toEqual([]);
});

test('the same seed gives the same values', () => {
  const a = fc.sample(invalidReference(), { seed: 7, numRuns: 50 });
  const b = fc.sample(invalidReference(), { seed: 7, numRuns: 50 });
  expect(a).toEqual(b);
});

test('shrinking reaches the smallest failing reference', () => {
  // A property that fails on references longer than 10: the minimal counterexample has length 11.
  const details = fc.check(
    fc.property(validReference(), (r) => r.value.length <= 10),
    { seed: SEED },
  );
  expect(details.failed).toBe(true);
  expect(details.counterexample![0].value.length).toBe(11);
});
