/**
 * Finite classes tried in full: explicit, deterministic cases for every member of each finite
 * class of PATCH /api/v1/counterparties/{ref} (interface.md §2.1, §2.2, §4.2), derived from
 * spec/openapi.yaml through generators/fields.ts. Random cases rarely land on the one forbidden
 * character a deployment lets through (`.` or `&` in accountHolderName, `_` in postalCode); these
 * lists send each of them, so a fault is caught whatever the seed.
 *
 * Per string field: every printable-ASCII character outside its pattern and every look-alike of
 * LOOK_ALIKES the pattern rejects, each in the middle of an otherwise valid value; one past each
 * length bound and a value of kilobytes; wrong JSON types, including those that carry a value
 * that would be valid if coerced (a number of valid length, `true`, a one-item array around a
 * valid string, an object around it, null). Per enum: near misses of every member (lower case,
 * capitalised, surrounding spaces, full-width), other versions' values (UK, INR) and, for the
 * country list, one unlisted two-letter code per letter. Every case breaks exactly one rule and
 * is labelled with it.
 */
import { labelled, breaks, codePointLength, showChar, type Rule } from './labelled.ts';
import {
  COUNTRIES,
  emailOfLength,
  enumRule,
  fillString,
  type EnumField,
  type L,
  type StringField,
} from './fields.ts';
import {
  ACCOUNT_CATEGORY,
  ACCOUNT_COUNTRY,
  ACCOUNT_CURRENCY,
  ACCOUNT_NAME,
  ACCOUNT_TYPE,
  patchAccount,
} from './patch-accounts.ts';
import {
  ADDRESS_COUNTRY,
  ADDRESS_LINE,
  EMAIL,
  HOLDER_NAME,
  MOBILE,
  POSTAL_CODE,
  REMARKS,
} from './patch-details.ts';
import type { AccountFixture } from './account-fixture.ts';

/**
 * Characters outside printable ASCII that look like, or are read as, characters the patterns
 * allow: accented letters, full-width forms, other scripts' digits, Cyrillic and Greek homoglyphs,
 * spaces other than U+0020, dashes and an apostrophe other than the ASCII ones, control
 * characters, and symbols no pattern allows.
 */
export const LOOK_ALIKES: readonly string[] = [
  // accented and other Latin letters
  'é',
  'Á',
  'ñ',
  'ß',
  'ø',
  // full-width forms of a letter, a digit, a hyphen, an underscore, a space
  'Ａ',
  'ｚ',
  '０',
  '－',
  '＿',
  '\u3000',
  // other scripts' digits (ECMA-262 \d is [0-9] only), and a mathematical digit outside the BMP
  '٣',
  '۵',
  '५',
  '๓',
  '𝟙',
  // Cyrillic and Greek homoglyphs of a, o, A, O, e
  'а',
  'о',
  'А',
  'Ο',
  'е',
  // spaces other than U+0020
  '\u00a0',
  '\u2002',
  '\u2009',
  '\u200b',
  '\u202f',
  // dashes and an apostrophe other than ASCII
  '\u2010',
  '\u2013',
  '\u2212',
  '\u2019',
  // control characters
  '\u0000',
  '\t',
  '\n',
  '\r',
  '\u007f',
  '\u0085',
  // symbols
  '€',
  '中',
];

/** Printable ASCII, U+0020 to U+007E. */
export const PRINTABLE_ASCII: readonly string[] = Array.from({ length: 0x7f - 0x20 }, (_, i) =>
  String.fromCharCode(0x20 + i),
);

/** The length of the very long values: kilobytes, far past every maxLength here. */
export const KILOBYTES = 8192;

/** Where a case goes in the body: a detail field, an address field, or a field of one account. */
export type Slot = 'details' | 'address' | 'account';

/** A valid value of `f` of `n` code points with `c` in the middle, between alphanumerics. */
export function middleOf(f: StringField, c: string, n = Math.max(f.minLength, 5)): string {
  const w = f.allowed.filter((x) => /^[A-Za-z0-9]$/.test(x));
  const rest = n - codePointLength(c);
  const left = Math.floor(rest / 2);
  const side = (k: number, o: number): string =>
    Array.from({ length: k }, (_, i) => w[(i + o) % w.length] ?? 'a').join('');
  return side(left, 10) + c + side(rest - left, 36);
}

/** Every character a field's pattern rejects between two allowed characters: ASCII and look-alikes. */
export function forbiddenClass(f: StringField): string[] {
  if (f.pattern === undefined) return [];
  const re = new RegExp(f.pattern, 'u');
  return [...PRINTABLE_ASCII, ...LOOK_ALIKES].filter((c) => !re.test(middleOf(f, c)));
}

function sized(f: StringField, n: number): string {
  return f.format === 'email' ? emailOfLength(n) : fillString(f, n);
}

/** Every case that breaks one rule of a string field, as the field's value. */
export function stringFieldCases(f: StringField): { value: unknown; rule: Rule }[] {
  const out: { value: unknown; rule: Rule }[] = [];
  for (const c of forbiddenClass(f)) {
    out.push({
      value: middleOf(f, c),
      rule: breaks(f.field, 'pattern', `${f.name} with ${showChar(c)}, outside ${f.pattern ?? ''}`),
    });
  }
  const emptyNote =
    f.pattern !== undefined && !new RegExp(f.pattern, 'u').test('') ? ' (and the pattern)' : '';
  if (f.minLength >= 1 && (f.format !== 'email' || f.minLength - 1 >= 5)) {
    const n = f.minLength - 1;
    out.push({
      value: sized(f, n),
      rule: breaks(
        f.field,
        'minLength',
        `${f.name} of length ${n} < minLength ${f.minLength}${n === 0 ? emptyNote : ''}`,
      ),
    });
  }
  out.push({
    value: sized(f, f.maxLength + 1),
    rule: breaks(f.field, 'maxLength', `${f.name} of length ${f.maxLength + 1} > maxLength ${f.maxLength}`),
  });
  if (f.format !== 'email') {
    out.push({
      value: fillString(f, KILOBYTES),
      rule: breaks(f.field, 'maxLength', `${f.name} of ${KILOBYTES} characters > maxLength ${f.maxLength}`),
    });
  }
  // Wrong types, most carrying a value that would be valid if coerced.
  const valid = f.format === 'email' ? 'jane.doe@example.com' : fillString(f, Math.max(f.minLength, 5));
  const digits = Number('44770090012'.slice(0, Math.min(11, f.maxLength)));
  const types: [unknown, string][] = [
    [digits, `a number (${digits}) where a string is expected`],
    [true, 'a boolean (true) where a string is expected'],
    [false, 'a boolean (false) where a string is expected'],
    [[valid], `an array around a valid string (${JSON.stringify([valid])}) where a string is expected`],
    [{ value: valid }, 'an object around a valid string where a string is expected'],
    [null, 'null where a string is expected'],
  ];
  for (const [value, what] of types)
    out.push({ value, rule: breaks(f.field, 'type', `${f.name} is ${what}`) });
  return out;
}

/** Near misses of every member of an enum: case, surrounding space, full width; and extra values. */
export function enumNearMisses(
  f: EnumField,
  extra: readonly string[],
  /** The members tried in every near miss; the others in lower case only (default: all). */
  sample: readonly string[] = f.values,
): string[] {
  const fullWidth = (s: string): string =>
    [...s].map((c) => (/[!-~]/.test(c) ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c)).join('');
  const misses = f.values.flatMap((v) =>
    sample.includes(v)
      ? [v.toLowerCase(), v.charAt(0) + v.slice(1).toLowerCase(), ` ${v}`, `${v} `, fullWidth(v)]
      : [v.toLowerCase()],
  );
  return [...new Set([...misses, ...extra])].filter((v) => !f.values.includes(v));
}

/** Two capitals outside the country list: one beginning with each letter, one ending with each. */
export function unlistedCountries(): string[] {
  const caps = Array.from({ length: 26 }, (_, i) => String.fromCharCode(0x41 + i));
  const out = new Set<string>(['UK', 'EU', 'XK', 'ZZ']);
  for (const a of caps) {
    const first = caps.map((b) => a + b).find((c) => !COUNTRIES.includes(c) && !out.has(c));
    const last = caps.map((b) => b + a).find((c) => !COUNTRIES.includes(c) && !out.has(c));
    if (first) out.add(first);
    if (last) out.add(last);
  }
  return [...out].filter((c) => !COUNTRIES.includes(c));
}

/** Enum cases: near misses of the members, other versions' values, wrong types. */
export function enumCases(
  f: EnumField,
  extra: readonly string[],
  sample: readonly string[] = f.values,
): { value: unknown; rule: Rule }[] {
  const out: { value: unknown; rule: Rule }[] = enumNearMisses(f, extra, sample).map((v) => ({
    value: v,
    rule: enumRule(f, v),
  }));
  const first = f.values[0] ?? '';
  out.push(
    {
      value: [first],
      rule: breaks(f.field, 'type', `${f.name} is an array around ${JSON.stringify(first)}`),
    },
    { value: null, rule: breaks(f.field, 'type', `${f.name} is null where a string is expected`) },
  );
  return out;
}

const DETAIL_STRINGS: [string, StringField][] = [
  ['accountHolderName', HOLDER_NAME],
  ['emailAddress', EMAIL],
  ['mobileNumber', MOBILE],
  ['remarks', REMARKS],
];
const ADDRESS_STRINGS: [string, StringField][] = [
  ['addressLine', ADDRESS_LINE],
  ['postalCode', POSTAL_CODE],
];

/**
 * Every explicit invalid case of a PATCH body, one broken rule each: the detail fields, the
 * address fields, and the fields of an added account (built on `fixture`; the document shows no
 * account identifier, so with the placeholder fixture the accounts are refused for their field
 * and, possibly, for the identifier too: either way refused).
 */
export function finiteClassCases(fixture: AccountFixture): L[] {
  const out: L[] = [];
  for (const [key, f] of DETAIL_STRINGS) {
    for (const c of stringFieldCases(f))
      out.push(labelled({ counterpartyDetails: { [key]: c.value } }, c.rule));
  }
  for (const [key, f] of ADDRESS_STRINGS) {
    for (const c of stringFieldCases(f)) {
      out.push(labelled({ counterpartyDetails: { address: { [key]: c.value } } }, c.rule));
    }
  }
  const countries = [
    ...enumCases(ADDRESS_COUNTRY, ['UK', 'GBR', 'DEU', 'EU', '276', 'D'], ['DE', 'GB', 'IN', 'US']),
    ...unlistedCountries().map((v) => ({ value: v, rule: enumRule(ADDRESS_COUNTRY, v) })),
  ];
  for (const c of countries)
    out.push(labelled({ counterpartyDetails: { address: { country: c.value } } }, c.rule));
  const account = (key: string, value: unknown, rule: Rule): L =>
    labelled(
      {
        counterpartyAccounts: [{ ...patchAccount(fixture, { name: 'Finite Class Account' }), [key]: value }],
      },
      rule,
    );
  for (const c of stringFieldCases(ACCOUNT_NAME)) out.push(account('name', c.value, c.rule));
  const accountEnums: [string, EnumField, string[]][] = [
    ['accountType', ACCOUNT_TYPE, ['BANK', 'CARD', 'IBAN']],
    ['accountCategory', ACCOUNT_CATEGORY, ['CORPORATE', 'INDIVIDUAL']],
    ['currency', ACCOUNT_CURRENCY, ['INR', 'CHF', 'EURO', 'XXX', 'US$']],
  ];
  for (const [key, f, extra] of accountEnums) {
    for (const c of enumCases(f, extra)) out.push(account(key, c.value, c.rule));
  }
  const cf = ACCOUNT_COUNTRY;
  for (const v of ['de', 'De', 'ＤＥ', 'DΕ', 'DЕ']) {
    out.push(
      account(
        'country',
        v,
        breaks(cf.field, 'pattern', `country ${JSON.stringify(v)}, outside ${cf.pattern ?? ''}`),
      ),
    );
  }
  for (const v of ['D', 'DEU', 'GBRX']) {
    const n = codePointLength(v);
    const kw = n < cf.minLength ? 'minLength' : 'maxLength';
    out.push(account('country', v, breaks(cf.field, kw, `country ${JSON.stringify(v)} of length ${n}`)));
  }
  for (const v of [49, ['DE'], null]) {
    out.push(account('country', v, breaks(cf.field, 'type', `country ${JSON.stringify(v)} is not a string`)));
  }
  return out;
}

/**
 * Structural edges each pattern allows, which a careless implementation refuses: a value of the
 * shortest valid length made of one allowed character that is not a letter or a digit 1-9 (three
 * spaces or three hyphens as a holder name, a remark that is one word of apostrophes, an address
 * line of one space, a postal code of hyphens, a mobile number of zeros), and remarks with several
 * spaces between two words. Every one validates against the spec (tests/self/generators-finite.spec.ts).
 */
export function structuralEdges(): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const fields: [Slot, string, StringField][] = [
    ['details', 'accountHolderName', HOLDER_NAME],
    ['details', 'mobileNumber', MOBILE],
    ['details', 'remarks', REMARKS],
    ['address', 'addressLine', ADDRESS_LINE],
    ['address', 'postalCode', POSTAL_CODE],
  ];
  for (const [slot, key, f] of fields) {
    const re = new RegExp(f.pattern ?? '', 'u');
    for (const c of f.allowed.filter((x) => !/^[A-Za-z1-9]$/.test(x))) {
      const value = c.repeat(Math.max(f.minLength, 1));
      if (!re.test(value)) continue;
      out.push(slot === 'address' ? { address: { [key]: value } } : { [key]: value });
    }
  }
  for (const sep of REMARKS.separators) out.push({ remarks: `net${sep.repeat(3)}30` });
  return out;
}
