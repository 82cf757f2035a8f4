/**
 * Counterparty references for the path of GET/PATCH /api/v1/counterparties/{ref}, derived from
 * the spec's CounterpartyReference schema: valid ones (every allowed character, every length
 * from the minimum to the maximum) and invalid ones, each labelled with the rule it breaks.
 */
import fc from 'fast-check';
import { spec } from '../spec/index.ts';
import type { Labelled, Rule } from './labelled.ts';
import { LOOK_ALIKES } from './finite-classes.ts';

const FIELD = 'counterpartyReference';

function constraints(): { min: number; max: number; pattern: string } {
  const s = spec().schema('CounterpartyReference');
  if (s.minLength === undefined || s.maxLength === undefined || s.pattern === undefined) {
    throw new Error('spec: CounterpartyReference lacks minLength, maxLength or pattern');
  }
  return { min: s.minLength, max: s.maxLength, pattern: s.pattern };
}

export const REFERENCE = constraints();

/** Every single character the reference pattern allows (probed over printable ASCII). */
export const REFERENCE_CHARS: readonly string[] = spec().allowedChars(REFERENCE.pattern);

/**
 * Characters the pattern forbids, one of every kind: every printable ASCII character it rejects
 * except the slash (a routing separator, tested on its own), a tab, non-ASCII letters and
 * symbols, and every look-alike of generators/finite-classes.ts (full-width forms, other scripts'
 * digits, homoglyphs, other spaces, control characters). All are sent percent-encoded.
 */
export const FORBIDDEN_REFERENCE_CHARS: readonly string[] = (() => {
  const re = new RegExp(REFERENCE.pattern, 'u');
  const ascii: string[] = [];
  for (let code = 0x20; code < 0x7f; code++) {
    const c = String.fromCharCode(code);
    if (c !== '/' && !re.test(c)) ascii.push(c);
  }
  return [...new Set([...ascii, '\t', 'é', 'ß', 'Ω', '€', '中', '\u00a0', ...LOOK_ALIKES])];
})();

/** The longest invalid reference generated: long enough to break maxLength, short enough that no
 * gateway answers 414 URI Too Long instead of judging the reference. */
export const LONGEST_INVALID_REFERENCE = 256;

/**
 * A reference of kilobytes, sent once among the boundary cases: a service must refuse it like any
 * reference past maxLength (400), or a server in front of it with 414 URI Too Long (RFC 9110
 * §15.5.15), which the reference-status oracle leaves open for it.
 */
export const KILOBYTE_REFERENCE = 4096;

function rule(keyword: string, keeps: boolean, description: string): Rule {
  return { field: FIELD, keyword, keeps, description };
}

function validRule(value: string): Rule {
  return rule(
    'pattern',
    true,
    `length ${value.length} within ${REFERENCE.min}..${REFERENCE.max}, characters from ${REFERENCE.pattern}`,
  );
}

function label(value: string, r: Rule): Labelled<string> {
  return { value, rule: r };
}

const unlabel = (v: unknown): string => {
  if (typeof v === 'object' && v !== null && typeof (v as Labelled<string>).value === 'string') {
    return (v as Labelled<string>).value;
  }
  throw new Error('not a labelled reference');
};

const refChar = (): fc.Arbitrary<string> => fc.constantFrom(...REFERENCE_CHARS);

/** Valid references: length min..max, characters from the pattern. */
export function validReference(): fc.Arbitrary<Labelled<string>> {
  return fc
    .string({ unit: refChar(), minLength: REFERENCE.min, maxLength: REFERENCE.max })
    .map((v) => label(v, validRule(v)), unlabel);
}

/** Too short: 1 to min-1 allowed characters (the empty reference is a different route). */
export function tooShortReference(): fc.Arbitrary<Labelled<string>> {
  return fc
    .string({ unit: refChar(), minLength: 1, maxLength: REFERENCE.min - 1 })
    .map(
      (v) => label(v, rule('minLength', false, `length ${v.length} < minLength ${REFERENCE.min}`)),
      unlabel,
    );
}

/** Too long: max+1 to LONGEST_INVALID_REFERENCE allowed characters. */
export function tooLongReference(): fc.Arbitrary<Labelled<string>> {
  return fc
    .string({ unit: refChar(), minLength: REFERENCE.max + 1, maxLength: LONGEST_INVALID_REFERENCE })
    .map(
      (v) => label(v, rule('maxLength', false, `length ${v.length} > maxLength ${REFERENCE.max}`)),
      unlabel,
    );
}

function forbiddenRule(c: string): Rule {
  const shown = JSON.stringify(c);
  return rule(
    'pattern',
    false,
    `contains ${shown} (U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}), outside ${REFERENCE.pattern}`,
  );
}

/** A reference of valid length holding one forbidden character, anywhere in it. */
export function forbiddenCharReference(): fc.Arbitrary<Labelled<string>> {
  const half = Math.floor((REFERENCE.max - 1) / 2);
  return fc
    .tuple(
      fc.string({ unit: refChar(), minLength: 0, maxLength: half }),
      fc.constantFrom(...FORBIDDEN_REFERENCE_CHARS),
      fc.string({ unit: refChar(), minLength: 0, maxLength: half }),
    )
    .filter(([a, , b]) => a.length + 1 + b.length >= REFERENCE.min)
    .map(([a, c, b]) => label(a + c + b, forbiddenRule(c)));
}

/** Any reference without a slash that breaks the length or the pattern. */
export function invalidReference(): fc.Arbitrary<Labelled<string>> {
  return fc.oneof(tooShortReference(), tooLongReference(), forbiddenCharReference());
}

/** A reference with a raw slash inside, allowed characters on both sides: a routing 404. */
export function slashReference(): fc.Arbitrary<Labelled<string>> {
  const segment = fc.string({ unit: refChar(), minLength: 1, maxLength: 40 });
  return fc
    .tuple(segment, segment)
    .map(([a, b]) =>
      label(`${a}/${b}`, rule('pattern', false, 'contains a raw "/" inside: a path separator')),
    );
}

/** Boundary cases run before random exploration: both length bounds, every allowed character. */
export function validReferenceExamples(): Labelled<string>[] {
  const all = REFERENCE_CHARS.join('');
  const cycle = (n: number, offset = 0): string =>
    Array.from({ length: n }, (_, i) => REFERENCE_CHARS[(i + offset) % REFERENCE_CHARS.length]).join('');
  const values = [
    cycle(REFERENCE.min),
    cycle(REFERENCE.max),
    cycle(REFERENCE.max, 37),
    all.slice(0, REFERENCE.max),
    '-'.repeat(REFERENCE.min),
    '_'.repeat(REFERENCE.min),
    '0'.repeat(REFERENCE.max),
    cycle(REFERENCE.min + 1, 10),
    cycle(REFERENCE.max - 1, 20),
  ];
  return [...new Set(values)].map((v) => label(v, validRule(v)));
}

/** Boundary cases: lengths 1, min-1, max+1, the longest, kilobytes; every forbidden character once. */
export function invalidReferenceExamples(): Labelled<string>[] {
  const short = [1, REFERENCE.min - 1].map((n) =>
    label('a'.repeat(n), rule('minLength', false, `length ${n} < minLength ${REFERENCE.min}`)),
  );
  const long = [REFERENCE.max + 1, LONGEST_INVALID_REFERENCE, KILOBYTE_REFERENCE].map((n) =>
    label('b'.repeat(n), rule('maxLength', false, `length ${n} > maxLength ${REFERENCE.max}`)),
  );
  const chars = FORBIDDEN_REFERENCE_CHARS.map((c) => label(`ab${c}cd`, forbiddenRule(c)));
  return [...short, ...long, ...chars];
}

export function slashReferenceExamples(): Labelled<string>[] {
  return ['abc/def', 'a/b', 'ACME-1/accounts', 'x_y/z-9/w'].map((v) =>
    label(v, rule('pattern', false, 'contains a raw "/" inside: a path separator')),
  );
}
