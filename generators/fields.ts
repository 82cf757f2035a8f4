/**
 * The field machinery of the request-body generators (counterpartyDetails and counterpartyAccounts
 * of PATCH /api/v1/counterparties/{ref}, interface.md sections 2, 4.2): a string or enum field is
 * read from spec/openapi.yaml (generators/field-spec.ts: length, pattern, format, enum, and the
 * characters a pattern allows), and from it come valid values and values that break exactly one
 * rule.
 *
 * Valid sub-arbitraries produce plain values; invalid ones produce `Labelled<unknown>` values that
 * break exactly one rule, named by `rule.field` (a path such as 'counterpartyDetails.remarks') and
 * `rule.keyword` (the JSON Schema keyword). Every map has an unmapper, so fast-check can shrink
 * user-provided examples too (except the email format mutations that drop a character).
 */
import fc from 'fast-check';
import { spec } from '../spec/index.ts';
import {
  breaks,
  codePointLength,
  invertibleMap,
  isLabelled,
  jsonType,
  labelled,
  sameLabelled,
  showChar,
  type Labelled,
} from './labelled.ts';
import { COUNTRIES, patternString, type EnumField, type StringField } from './field-spec.ts';
import { prototypeName } from './prototype-names.ts';
import { takeOwn } from '../exchange/own.ts';

/** The field descriptions and their valid strings, for the generators that import them from here. */
export {
  COUNTRIES,
  enumField,
  fillString,
  NON_ASCII_EXTRAS,
  patternString,
  stringField,
  stringWith,
  type EnumField,
  type StringField,
} from './field-spec.ts';

// ---------------------------------------------------------------------------------------------
// Email addresses (format email, read from the spec's validator)
// ---------------------------------------------------------------------------------------------

const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789'.split('');
const LOCAL_MAX = 64;
const LABEL_MAX = 63;

/** Whether `s` satisfies the spec's email format (ajv-formats), whatever its length. */
export function emailFormatOk(s: string): boolean {
  return spec()
    .errors('EmailAddress', s)
    .every((e) => e.keyword !== 'format');
}

/**
 * An address of exactly `n` characters (5 <= n <= 64 + 1 + 253) that satisfies the email format:
 * a local part of `a` (at most 64 characters), then a domain of labels of `b` (at most 63 characters
 * each) ending in a label of letters.
 */
export function emailOfLength(n: number, a = 'a', b = 'b'): string {
  if (n < 5 || n > LOCAL_MAX + 1 + 253) throw new RangeError(`no email address of length ${n}`);
  const local = Math.max(1, Math.min(LOCAL_MAX, n - 4));
  let rest = n - 1 - local;
  const labels: string[] = [];
  while (rest > 0) {
    if (labels.length > 0 && rest <= LABEL_MAX) {
      labels.push('c'.repeat(rest));
      break;
    }
    const take = Math.min(LABEL_MAX, rest - 2);
    labels.push(b.repeat(take));
    rest -= take + 1;
  }
  return `${a.repeat(local)}@${labels.join('.')}`;
}

function sizedEmail(minLength: number, maxLength: number): fc.Arbitrary<string> {
  return invertibleMap(
    fc.tuple(
      fc.integer({ min: minLength, max: maxLength }),
      fc.constantFrom(...LOWER_ALNUM),
      fc.constantFrom(...LOWER_ALNUM),
    ),
    ([n, a, b]) => emailOfLength(n, a, b),
    (v) => {
      if (typeof v !== 'string' || !v.includes('@')) return [];
      const at = v.indexOf('@');
      return [[codePointLength(v), v[0] ?? 'a', v[at + 1] ?? 'b'] as [number, string, string]];
    },
    (x, y) => x === y,
  );
}

/** Valid email addresses: RFC 5322 addresses from fast-check, and addresses of every length. */
export function validEmail(f: StringField): fc.Arbitrary<string> {
  const ok = (s: string): boolean => {
    const n = codePointLength(s);
    return n >= f.minLength && n <= f.maxLength && emailFormatOk(s);
  };
  return fc.oneof(
    { arbitrary: fc.emailAddress().filter(ok), weight: 3 },
    { arbitrary: sizedEmail(f.minLength, f.maxLength), weight: 1 },
  );
}

/** A country of the document's list (GB, never UK). */
export function validCountry(): fc.Arbitrary<string> {
  return fc.constantFrom(...COUNTRIES);
}

// ---------------------------------------------------------------------------------------------
// Invalid field values: one broken rule each
// ---------------------------------------------------------------------------------------------

export type L = Labelled<unknown>;

/** A map from plain values to labelled ones whose unmapper takes the value back. */
export function labelledFrom<S>(
  arb: fc.Arbitrary<S>,
  build: (s: S) => L,
  source: (value: unknown) => S[],
): fc.Arbitrary<L> {
  return invertibleMap(arb, build, (v) => (isLabelled(v) ? source(v.value) : []), sameLabelled);
}

export const asString = (v: unknown): string[] => (typeof v === 'string' ? [v] : []);

/** Too short by one or more: minLength-1 down to 1 (or 0 when the pattern accepts ''); '' when minLength is 1. */
export function tooShort(f: StringField): fc.Arbitrary<L> {
  const lowest = f.patternAcceptsEmpty || f.format !== undefined ? 0 : 1;
  const note = (s: string): string =>
    s === '' && !f.patternAcceptsEmpty && f.pattern !== undefined ? " (the pattern's + rejects it too)" : '';
  const build = (s: string): L =>
    labelled(
      s,
      breaks(
        f.field,
        'minLength',
        `${f.name} of length ${codePointLength(s)} < minLength ${f.minLength}${note(s)}`,
      ),
    );
  if (f.format === 'email') {
    // 'a@b.c' is the shortest address of the format; shorter ones would break the format too
    return labelledFrom(sizedEmail(Math.min(5, f.minLength - 1), f.minLength - 1), build, asString);
  }
  const max = f.minLength - 1;
  const min = Math.min(lowest, max);
  return labelledFrom(patternString(f, min, max), build, asString);
}

/** The longest value generated beyond maxLength. */
export function longestInvalid(f: StringField): number {
  return Math.max(2 * f.maxLength, f.maxLength + 10);
}

/** Too long by one or more: maxLength+1 up to longestInvalid(f), characters the pattern allows. */
export function tooLong(f: StringField): fc.Arbitrary<L> {
  const build = (s: string): L =>
    labelled(
      s,
      breaks(f.field, 'maxLength', `${f.name} of length ${codePointLength(s)} > maxLength ${f.maxLength}`),
    );
  const source =
    f.format === 'email'
      ? sizedEmail(f.maxLength + 1, Math.min(f.maxLength + 45, LOCAL_MAX + 1 + 253))
      : patternString(f, f.maxLength + 1, longestInvalid(f));
  return labelledFrom(source, build, asString);
}

function forbiddenCharRule(f: StringField, c: string, at: number): L['rule'] {
  return breaks(
    f.field,
    'pattern',
    `${f.name} with ${showChar(c)} at index ${at}, outside ${f.pattern ?? ''}`,
  );
}

/** A value of valid length with one forbidden character inserted anywhere. */
export function forbiddenChar(f: StringField): fc.Arbitrary<L> {
  const base = patternString(f, Math.max(0, f.minLength - 1), f.maxLength - 1);
  return labelledFrom(
    fc.tuple(base, fc.constantFrom(...f.forbidden), fc.nat()),
    ([s, c, n]) => {
      const chars = [...s];
      const at = n % (chars.length + 1);
      chars.splice(at, 0, c);
      return labelled(chars.join(''), forbiddenCharRule(f, c, at));
    },
    (v) => {
      if (typeof v !== 'string') return [];
      const chars = [...v];
      return chars.flatMap((c, i) =>
        f.forbidden.includes(c)
          ? [[[...chars.slice(0, i), ...chars.slice(i + 1)].join(''), c, i] as [string, string, number]]
          : [],
      );
    },
  );
}

/** A separator (space) before the first word. */
export function leadingSeparator(f: StringField): fc.Arbitrary<L> {
  return labelledFrom(
    fc.tuple(
      patternString(f, Math.max(1, f.minLength - 1), f.maxLength - 1),
      fc.constantFrom(...f.separators),
    ),
    ([s, c]) => labelled(c + s, breaks(f.field, 'pattern', `${f.name} with a leading ${showChar(c)}`)),
    (v) =>
      typeof v === 'string' && f.separators.includes(v[0] ?? '')
        ? [[v.slice(1), v[0]!] as [string, string]]
        : [],
  );
}

/** A separator (space) after the last word. */
export function trailingSeparator(f: StringField): fc.Arbitrary<L> {
  return labelledFrom(
    fc.tuple(
      patternString(f, Math.max(1, f.minLength - 1), f.maxLength - 1),
      fc.constantFrom(...f.separators),
    ),
    ([s, c]) => labelled(s + c, breaks(f.field, 'pattern', `${f.name} with a trailing ${showChar(c)}`)),
    (v) =>
      typeof v === 'string' && f.separators.includes(v.slice(-1))
        ? [[v.slice(0, -1), v.slice(-1)] as [string, string]]
        : [],
  );
}

/** JSON values of every type but `expected` and null. */
export function otherTypeValue(expected: 'string' | 'object' | 'array'): fc.Arbitrary<unknown> {
  const word = fc.string({ unit: fc.constantFrom(...LOWER_ALNUM), minLength: 1, maxLength: 8 });
  const all: Record<string, fc.Arbitrary<unknown>> = {
    string: word,
    number: fc.integer({ min: -1000, max: 1_000_000 }),
    boolean: fc.boolean(),
    array: fc.array(word, { maxLength: 2 }),
    object: fc.dictionary(fc.oneof(word, prototypeName()), word, { maxKeys: 2 }),
  };
  return fc.oneof(...Object.entries(all).flatMap(([type, arb]) => (type === expected ? [] : [arb])));
}

/** A value of another JSON type than `expected` (never null: see nullValue). */
export function wrongType(field: string, expected: 'string' | 'object' | 'array'): fc.Arbitrary<L> {
  const name = field.split('.').pop() ?? field;
  return labelledFrom(
    otherTypeValue(expected),
    (v) =>
      labelled(
        v,
        breaks(field, 'type', `${name} is ${article(jsonType(v))} where ${article(expected)} is expected`),
      ),
    (v) => (v !== null && v !== undefined && jsonType(v) !== expected ? [v] : []),
  );
}

/** null where a value of type `expected` is expected (the document defines no removal by null). */
export function nullValue(field: string, expected: 'string' | 'object' | 'array'): fc.Arbitrary<L> {
  const name = field.split('.').pop() ?? field;
  return labelledFrom(
    fc.constant(null),
    () => labelled(null, breaks(field, 'type', `${name} is null where ${article(expected)} is expected`)),
    (v) => (v === null ? [null] : []),
  );
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** Values outside an enum: the deliberate ones (that are not members) and each member in lower case. */
export function notInEnum(f: EnumField, deliberate: readonly string[]): string[] {
  const candidates = [...deliberate, ...f.values.map((v) => v.toLowerCase())];
  return [...new Set(candidates)].filter((v) => !f.values.includes(v));
}

export function enumRule(f: EnumField, v: string): L['rule'] {
  const list =
    f.values.length > 6 ? `the ${f.schemaName} list (${f.values.length} values)` : f.values.join(', ');
  return breaks(f.field, 'enum', `${f.name} ${JSON.stringify(v)} is not one of ${list}`);
}

/** A string outside an enum: from `values`. */
export function badEnum(f: EnumField, values: readonly string[]): fc.Arbitrary<L> {
  return labelledFrom(
    fc.constantFrom(...values),
    (v) => labelled(v, enumRule(f, v)),
    (v) => (typeof v === 'string' && values.includes(v) ? [v] : []),
  );
}

/** Every broken variant of a pattern string field: lengths, characters, separators, types, null. */
export function invalidStringField(f: StringField): fc.Arbitrary<L> {
  const arbs: fc.Arbitrary<L>[] = [tooShort(f), tooLong(f)];
  if (f.pattern !== undefined) arbs.push(forbiddenChar(f));
  if (f.separators.length > 0) arbs.push(leadingSeparator(f), trailingSeparator(f));
  if (f.format === 'email') arbs.push(badEmailFormat(f));
  arbs.push(wrongType(f.field, 'string'), nullValue(f.field, 'string'));
  return fc.oneof(...arbs);
}

// ---------------------------------------------------------------------------------------------
// Email format breaks
// ---------------------------------------------------------------------------------------------

/** Ways to break the email format, each keeping the length in bounds (base length in min+1..max-2). */
const EMAIL_MUTATIONS: readonly {
  name: string;
  apply: (s: string) => string;
  undo?: (s: string) => string | undefined;
}[] = [
  { name: 'without "@"', apply: (s) => s.replace('@', '') },
  {
    name: 'with a second "@"',
    apply: (s) => s.replace('@', '@@'),
    undo: (s) => (s.includes('@@') ? s.replace('@@', '@') : undefined),
  },
  {
    name: 'with a space in the local part',
    apply: (s) => `${s.slice(0, 1)} ${s.slice(1)}`,
    undo: (s) => (s[1] === ' ' ? s[0] + s.slice(2) : undefined),
  },
  {
    name: 'starting with a dot',
    apply: (s) => `.${s}`,
    undo: (s) => (s.startsWith('.') ? s.slice(1) : undefined),
  },
  {
    name: 'with ".." before "@"',
    apply: (s) => s.replace('@', '..@'),
    undo: (s) => (s.includes('..@') ? s.replace('..@', '@') : undefined),
  },
  {
    name: 'ending with a dot',
    apply: (s) => `${s}.`,
    undo: (s) => (s.endsWith('.') ? s.slice(0, -1) : undefined),
  },
  {
    name: 'with a non-ASCII letter in the local part',
    apply: (s) => `é${s}`,
    undo: (s) => (s.startsWith('é') ? s.slice(1) : undefined),
  },
  {
    name: 'with a domain label starting with "-"',
    apply: (s) => s.replace('@', '@-'),
    undo: (s) => (s.includes('@-') ? s.replace('@-', '@') : undefined),
  },
];

function emailFormatRule(f: StringField, mutation: string): L['rule'] {
  return breaks(f.field, 'format', `${f.name} ${mutation}, not an email address`);
}

/** Addresses of valid length that break the email format, one way each. */
export function badEmailFormat(f: StringField): fc.Arbitrary<L> {
  const base = fc
    .emailAddress()
    .filter(
      (s) => codePointLength(s) > f.minLength && codePointLength(s) < f.maxLength - 2 && emailFormatOk(s),
    );
  return labelledFrom(
    fc.tuple(base, fc.nat({ max: EMAIL_MUTATIONS.length - 1 })),
    ([s, i]) => {
      const m = EMAIL_MUTATIONS[i]!;
      return labelled(m.apply(s), emailFormatRule(f, m.name));
    },
    (v) =>
      typeof v !== 'string'
        ? []
        : EMAIL_MUTATIONS.flatMap((m, i) => {
            const s = m.undo?.(v);
            return s === undefined ? [] : [[s, i] as [string, number]];
          }),
  );
}

/** Fixed addresses that break the format, for the boundary lists. */
export function badEmailFormatExamples(f: StringField): L[] {
  const base = 'jane.doe@example.com';
  const fixed: [string, string][] = [
    ['plainaddress', 'without "@"'],
    ['@example.com', 'without a local part'],
    ['jane.doe@', 'without a domain'],
    ['jane doe@example.com', 'with a space in the local part'],
    ['.jane@example.com', 'starting with a dot'],
    ['jane..doe@example.com', 'with ".." in the local part'],
    ['jane.doe@example.com.', 'ending with a dot'],
    ['jane.doe@@example.com', 'with a second "@"'],
    ['jané.doe@example.com', 'with a non-ASCII letter in the local part'],
    ['jane.doe@-example.com', 'with a domain label starting with "-"'],
    [`${base.replace('@', ';')}`, 'with ";" in place of "@"'],
  ];
  return fixed.map(([s, m]) => labelled(s, emailFormatRule(f, m)));
}

/** Deliberate bad countries: UK (the change note's code for GB), ZZ (unassigned), lower case, alpha-3. */
export const DELIBERATE_BAD_COUNTRIES: readonly string[] = ['UK', 'ZZ', 'gb', 'DEU', 'EU', ''];

/**
 * Two capitals the request's account-country pattern accepts but the country list lacks: the
 * alphabet comes from the request pattern itself, which is exactly the disagreement.
 */
export function unlistedCountry(): fc.Arbitrary<string> {
  const pattern = spec().property('PatchCounterpartyAccount', 'country').pattern ?? '';
  const caps = spec().allowedChars(pattern);
  return fc
    .tuple(fc.constantFrom(...caps), fc.constantFrom(...caps))
    .map(
      ([a, b]) => a + b,
      (v) => {
        if (typeof v === 'string' && v.length === 2) return [v[0]!, v[1]!] as [string, string];
        throw new Error('not a two-letter code');
      },
    )
    .filter((c) => !COUNTRIES.includes(c));
}

/** Puts a broken value under `key` of an object drawn from `base`. */
export function withBrokenField<B extends object>(
  key: string,
  broken: fc.Arbitrary<L>,
  base: fc.Arbitrary<B>,
): fc.Arbitrary<L> {
  return invertibleMap(
    fc.tuple(broken, base),
    ([b, o]) => labelled({ ...o, [key]: b.value }, b.rule),
    (v) => {
      if (!isLabelled(v) || v.value === null || typeof v.value !== 'object') return [];
      const taken = takeOwn(v.value as Record<string, unknown>, key);
      return taken ? [[labelled(taken.value, v.rule), taken.rest as B] as [L, B]] : [];
    },
    sameLabelled,
  );
}

/**
 * Property names that counterpartyDetails does not permit (never a permitted one): deliberate
 * ones, the names of Object.prototype, and random lower-case words.
 */
export function unknownPropertyName(
  permitted: readonly string[],
  deliberate: readonly string[],
): fc.Arbitrary<string> {
  return fc
    .oneof(
      fc.constantFrom(...deliberate),
      prototypeName(),
      fc.string({
        unit: fc.constantFrom(...LOWER_ALNUM.filter((c) => /[a-z]/.test(c))),
        minLength: 1,
        maxLength: 12,
      }),
    )
    .filter((n) => !permitted.includes(n));
}

/** An object drawn from `base` with one property added that the schema does not permit. */
export function withUnknownProperty<B extends object>(
  field: string,
  permitted: readonly string[],
  deliberate: readonly string[],
  base: fc.Arbitrary<B>,
): fc.Arbitrary<L> {
  const value = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean());
  return invertibleMap(
    fc.tuple(unknownPropertyName(permitted, deliberate), value, base),
    ([name, v, o]) =>
      labelled(
        { ...o, [name]: v },
        breaks(field, 'additionalProperties', `unknown property ${JSON.stringify(name)} in ${field}`),
      ),
    (v) => {
      if (!isLabelled(v) || v.value === null || typeof v.value !== 'object' || Array.isArray(v.value))
        return [];
      const o = v.value as Record<string, unknown>;
      const extra = Object.keys(o).filter((k) => !permitted.includes(k));
      if (extra.length !== 1) return [];
      const { value: x, rest } = takeOwn(o, extra[0]!)!;
      if (typeof x !== 'string' && typeof x !== 'number' && typeof x !== 'boolean') return [];
      return [[extra[0]!, x, rest as B] as [string, string | number | boolean, B]];
    },
    sameLabelled,
  );
}
