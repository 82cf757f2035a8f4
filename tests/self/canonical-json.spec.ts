/**
 * canonicalJson (exchange/canonical-json.ts): one text per JSON value whatever the order of its
 * object keys. What it writes is the value (read back, it equals what JSON.stringify writes, so two
 * values that differ never share a text), and the text does not move when every object's keys are
 * put in another order: boundary cases, then any JSON value fast-check makes.
 */
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { canonicalJson, frozenCanonicalJson } from '../../exchange/canonical-json.ts';

/** `v` with every plain object's own keys in reverse order (a key named __proto__ kept a key). */
function reversed(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversed);
  if (v === null || typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype) return v;
  const out = {};
  for (const k of Object.keys(v).reverse())
    Object.defineProperty(out, k, {
      value: reversed((v as Record<string, unknown>)[k]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}

const CASES: [string, unknown, string][] = [
  [
    'keys in any order, nested',
    { b: 1, a: { d: [3, { z: 0, y: null }], c: 'x' } },
    '{"a":{"c":"x","d":[3,{"y":null,"z":0}]},"b":1}',
  ],
  [
    'array-index keys: first, in numeric order, as JSON.stringify writes any object',
    { b: 1, 10: 'ten', 2: 'two', '02': 'not an index' },
    '{"2":"two","10":"ten","02":"not an index","b":1}',
  ],
  ['undefined and functions: left out of an object', { a: undefined, b: () => 1, d: 1 }, '{"d":1}'],
  ['undefined and functions: null in an array', [undefined, () => 1, 1], '[null,null,1]'],
  ['numbers JSON has no text for', [NaN, Infinity, -0], '[null,null,0]'],
  [
    'a Date: its toJSON',
    { at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)) },
    '{"at":"2026-01-02T03:04:05.000Z"}',
  ],
  [
    'a key named __proto__, as JSON.parse makes it: a key like any other',
    JSON.parse('{"b":1,"__proto__":{"y":2,"x":[1]}}'),
    '{"__proto__":{"x":[1],"y":2},"b":1}',
  ],
  ['empty values', [{}, [], '', 0, false, null], '[{},[],"",0,false,null]'],
];

for (const [name, value, text] of CASES)
  test(`${name}: ${text}`, () => {
    expect(canonicalJson(value)).toBe(text);
    expect(canonicalJson(reversed(value))).toBe(text);
  });

test('a key named __proto__ counts: {"__proto__":1} is not {}', () => {
  expect(canonicalJson(JSON.parse('{"__proto__":1}'))).not.toBe(canonicalJson({}));
});

test('any JSON value: read back, it is the value; its keys in another order, the same text', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      const text = canonicalJson(v);
      expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(v)));
      expect(canonicalJson(reversed(v))).toBe(text);
    }),
    { seed: 20261127, numRuns: 1000 },
  );
});

test('the kept text of a value never changed after is its canonical text, also for __proto__ keys and scalars', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      expect(frozenCanonicalJson(v)).toBe(canonicalJson(v));
      // Asked again for the same object: the same text.
      expect(frozenCanonicalJson(v)).toBe(canonicalJson(v));
    }),
    { seed: 20261128 },
  );
  const proto = JSON.parse('{"__proto__":1,"a":[2]}') as object;
  expect(frozenCanonicalJson(proto)).toBe('{"__proto__":1,"a":[2]}');
});
