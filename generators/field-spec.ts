/**
 * A string or enum field of a request body as spec/openapi.yaml describes it (length, pattern,
 * format, enum; interface.md sections 2, 4.2), and the valid strings that come from it: the
 * characters a pattern allows come from `spec().allowedChars(pattern)`. The generators of values
 * that break one rule of a field build on it (generators/fields.ts).
 */
import fc from 'fast-check';
import { spec, type SchemaNode } from '../spec/index.ts';

// ---------------------------------------------------------------------------------------------
// Field descriptions read from the spec
// ---------------------------------------------------------------------------------------------

/**
 * Characters outside printable ASCII that every pattern here forbids, added on purpose: a tab
 * (the "double word separator" of remarks), a newline, Latin letters with diacritics, a currency
 * sign, a CJK ideograph, a no-break space and an Arabic-Indic digit (ECMA-262 `\d` is [0-9] only).
 */
export const NON_ASCII_EXTRAS: readonly string[] = ['\t', '\n', 'é', 'ß', '€', '中', '\u00a0', '٣'];

/** A string field of a request schema, as the spec defines it. */
export interface StringField {
  /** The rule location, e.g. 'counterpartyDetails.remarks' or 'counterpartyAccounts[].name'. */
  field: string;
  /** The property name, used in descriptions. */
  name: string;
  minLength: number;
  maxLength: number;
  pattern?: string;
  format?: string;
  /** The single printable-ASCII characters the pattern allows. */
  allowed: string[];
  /** Characters allowed only between allowed characters (the spaces between remarks' words). */
  separators: string[];
  /** Printable ASCII characters outside allowed and separators, plus NON_ASCII_EXTRAS. */
  forbidden: string[];
  /** Whether the pattern accepts the empty string. */
  patternAcceptsEmpty: boolean;
}

/** An enum field of a request schema. */
export interface EnumField {
  field: string;
  name: string;
  /** The schema the enum comes from, named in descriptions. */
  schemaName: string;
  values: string[];
}

const ALNUM = /^[A-Za-z0-9]$/;

/** Reads a string field's constraints from a (dereferenced) schema node. */
export function stringField(node: SchemaNode, field: string): StringField {
  const name = field.split('.').pop() ?? field;
  if (node.type !== 'string' || node.minLength === undefined || node.maxLength === undefined) {
    throw new Error(`spec: ${field} is not a string with minLength and maxLength`);
  }
  const out: StringField = {
    field,
    name,
    minLength: node.minLength,
    maxLength: node.maxLength,
    allowed: [],
    separators: [],
    forbidden: [],
    patternAcceptsEmpty: true,
  };
  if (node.format !== undefined) out.format = node.format;
  if (node.pattern !== undefined) {
    const re = new RegExp(node.pattern, 'u');
    out.pattern = node.pattern;
    out.allowed = spec().allowedChars(node.pattern);
    const word = out.allowed.find((c) => ALNUM.test(c)) ?? out.allowed[0] ?? 'a';
    const printable = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i));
    out.separators = printable.filter((c) => !out.allowed.includes(c) && re.test(word + c + word));
    out.forbidden = [
      ...printable.filter((c) => !out.allowed.includes(c) && !out.separators.includes(c)),
      ...NON_ASCII_EXTRAS.filter((c) => !re.test(word + c + word)),
    ];
    out.patternAcceptsEmpty = re.test('');
  }
  return out;
}

/** Reads an enum field from a (dereferenced) schema node. */
export function enumField(node: SchemaNode, field: string, schemaName: string): EnumField {
  if (!node.enum) throw new Error(`spec: ${field} has no enum`);
  return { field, name: field.split('.').pop() ?? field, schemaName, values: [...node.enum] };
}

/** The document's country list (the Country enum), GB included and UK not. */
export const COUNTRIES: readonly string[] = spec().schema('Country').enum ?? [];

function patternRe(f: StringField): RegExp | undefined {
  return f.pattern === undefined ? undefined : new RegExp(f.pattern, 'u');
}

/** The first alphanumeric character a field allows: used to repair and to fill. */
function firstWordChar(f: StringField): string {
  return f.allowed.find((c) => ALNUM.test(c)) ?? f.allowed[0] ?? 'a';
}

/** Turns leading and trailing separators into word characters, so words sit between separators. */
function repair(f: StringField, s: string): string {
  if (f.separators.length === 0) return s;
  const w = firstWordChar(f);
  const chars = [...s];
  for (let i = 0; i < chars.length && f.separators.includes(chars[i]!); i++) chars[i] = w;
  for (let i = chars.length - 1; i >= 0 && f.separators.includes(chars[i]!); i--) chars[i] = w;
  return chars.join('');
}

/** One character a pattern allows, weighted so that symbols and spaces show up often. */
function unitOf(f: StringField): fc.Arbitrary<string> {
  const alnum = f.allowed.filter((c) => ALNUM.test(c));
  const symbols = f.allowed.filter((c) => !ALNUM.test(c) && c !== ' ');
  const spaces = [...f.allowed.filter((c) => c === ' '), ...f.separators];
  const parts: { arbitrary: fc.Arbitrary<string>; weight: number }[] = [];
  if (alnum.length > 0) parts.push({ arbitrary: fc.constantFrom(...alnum), weight: 8 });
  if (symbols.length > 0) parts.push({ arbitrary: fc.constantFrom(...symbols), weight: 2 });
  if (spaces.length > 0) parts.push({ arbitrary: fc.constantFrom(...spaces), weight: 1 });
  if (parts.length === 0)
    throw new Error(`spec: the pattern of ${f.field} allows no printable ASCII character`);
  return fc.oneof(...parts);
}

/**
 * Strings of `minLength..maxLength` characters the field's pattern accepts (at every length
 * from 1; length 0 only if the pattern accepts the empty string). Spread over the whole range.
 */
export function patternString(f: StringField, minLength: number, maxLength: number): fc.Arbitrary<string> {
  const raw = fc.string({ unit: unitOf(f), minLength, maxLength, size: 'max' });
  if (f.separators.length === 0) return raw;
  const re = patternRe(f);
  return raw.map(
    (s) => repair(f, s),
    (v) => {
      if (typeof v === 'string' && (v === '' || re?.test(v) === true)) return v;
      throw new Error('not a repaired string');
    },
  );
}

/** A valid string of exactly `n` characters cycling through every character the field allows. */
export function fillString(f: StringField, n: number, offset = 0): string {
  const cycle = [...f.allowed, ...f.separators];
  return repair(f, Array.from({ length: n }, (_, i) => cycle[(i + offset) % cycle.length]).join(''));
}

/** A valid string of length `n` (at least 3) with `c` in the middle, between word characters. */
export function stringWith(f: StringField, c: string, n = Math.max(f.minLength, 5)): string {
  const w = f.allowed.filter((x) => ALNUM.test(x));
  const left = Math.floor((n - c.length) / 2);
  const right = n - c.length - left;
  const side = (k: number, o: number): string =>
    Array.from({ length: k }, (_, i) => w[(i + o) % w.length] ?? 'a').join('');
  return side(left, 10) + c + side(right, 36);
}
