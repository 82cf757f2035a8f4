/**
 * Parsing of Deprecation and Sunset values (RFC 9745, RFC 9651, RFC 8594, interface.md §4.1), the
 * old check API kept for its callers, and the WWW-Authenticate parser (RFC 9110 §11.6.1). The
 * oracles themselves are judged by their vectors (oracles/vectors/*.json,
 * tests/self/oracle-vectors.spec.ts).
 */
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import {
  classifyDeprecation,
  classifySunset,
  parseDocumentDateTime,
  parseHttpDate,
  parseStructuredDate,
  parseStructuredDateItem,
} from '../../oracles/lifecycle-headers.ts';
import { hasBearerChallenge, parseChallenges } from '../../oracles/auth-challenge.ts';
import { isJsonContentType } from '../../oracles/counterparty-response.ts';

const cases: [string, ReturnType<typeof classifySunset>['form']][] = [
  ['2027-06-30T23:59:59Z', 'date-time'],
  ['2027-06-30T23:59:59+02:00', 'date-time'],
  ['2016-12-31T23:59:60Z', 'date-time'], // a leap second
  ['Wed, 30 Jun 2027 23:59:59 GMT', 'http-date'],
  ['Thu, 30 Jun 2027 23:59:59 GMT', 'invalid'], // wrong weekday
  ['Wed, 31 Jun 2027 23:59:59 GMT', 'invalid'], // no 31 June
  ['Sun, 30 Jun 2024 23:59:59 UTC', 'invalid'], // IMF-fixdate ends in GMT
  ['Wednesday, 30-Jun-27 23:59:59 GMT', 'invalid'], // obsolete rfc850 form
  ['2027-02-30T00:00:00Z', 'invalid'],
  ['2027-06-30T23:59:59', 'invalid'], // no offset
  ['soon', 'invalid'],
  ['@1767225599', 'invalid'],
  ['', 'invalid'],
];
for (const [value, form] of cases) {
  test(`Sunset ${JSON.stringify(value)} is ${form}`, () => {
    expect(classifySunset(value).form).toBe(form);
  });
}

test('Deprecation forms', () => {
  expect(classifyDeprecation('@1688169599')).toEqual({ form: 'structured-date', ms: 1688169599000 });
  expect(classifyDeprecation('@1688169599;foo=1')).toEqual({ form: 'structured-date', ms: 1688169599000 });
  expect(classifyDeprecation('@-1').form).toBe('structured-date');
  expect(classifyDeprecation('true')).toEqual({ form: 'other', reason: 'a Token, not a Date' });
  expect(classifyDeprecation('1688169599')).toEqual({
    form: 'other',
    reason: 'an Integer or Decimal, not a Date',
  });
  expect(classifyDeprecation('@1688169599.5').form).toBe('other');
  expect(classifyDeprecation('@1688169599000000').form).toBe('other');
  expect(classifyDeprecation('Wed, 30 Jun 2027 23:59:59 GMT').form).toBe('http-date');
});

test('a structured date keeps its parameters; invalid parameters fail the Item', () => {
  const r = parseStructuredDateItem('@1688169599;foo=1;bar="x;y"');
  expect(r.ok && [...r.date.parameters]).toEqual([
    ['foo', 1],
    ['bar', 'x;y'],
  ]);
  const bad = parseStructuredDateItem('@1688169599;Foo=1');
  expect(bad.ok).toBe(false);
  expect(!bad.ok && bad.reason).toContain('at offset 12'); // the offset of "F" in the value
  expect(parseStructuredDateItem('@1688169599;').ok).toBe(false);
  expect(parseStructuredDateItem('"@1688169599"').ok).toBe(false); // a String
});

test('a 15-digit structured date, beyond a JS Date, is still a date in seconds', () => {
  const r = parseStructuredDateItem('@-999999999999999');
  expect(r.ok && r.date.seconds).toBe(-999999999999999);
  expect(parseStructuredDate('@999999999999999')).toBe(999999999999999 * 1000);
});

test('every sf-integer after "@" is a structured date of that many seconds', () => {
  const limit = 10n ** 15n - 1n;
  fc.assert(
    fc.property(fc.bigInt({ min: -limit, max: limit }), (n) => {
      const r = parseStructuredDateItem(`@${n}`);
      expect(r.ok && r.date.seconds).toBe(Number(n));
    }),
  );
});

test('HTTP-date round trip', () => {
  expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(Date.UTC(1994, 10, 6, 8, 49, 37));
  expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT')).toBeUndefined();
  expect(parseHttpDate('Sun Nov  6 08:49:37 1994')).toBeUndefined();
  expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 gmt')).toBeUndefined();
  expect(parseHttpDate(' Sun, 06 Nov 1994 08:49:37 GMT')).toBeUndefined();
});

test('every instant of years 1000 to 9999 is read back from its IMF-fixdate and its date-time', () => {
  const dates = fc.date({
    min: new Date('1000-01-01T00:00:00Z'),
    max: new Date('9999-12-31T23:59:59Z'),
    noInvalidDate: true,
  });
  fc.assert(
    fc.property(dates, (d) => {
      const seconds = Math.floor(d.getTime() / 1000) * 1000;
      expect(parseHttpDate(d.toUTCString())).toBe(seconds);
      expect(parseDocumentDateTime(d.toISOString())).toBe(d.getTime());
    }),
  );
});

test('a leap second is the end of second 59', () => {
  expect(parseDocumentDateTime('2016-12-31T23:59:60Z')).toBe(Date.UTC(2017, 0, 1));
});

test('Bearer challenges', () => {
  expect(hasBearerChallenge('Bearer realm="payflow"')).toBe(true);
  expect(hasBearerChallenge('bearer')).toBe(true);
  expect(hasBearerChallenge('Basic realm="x", Bearer error="invalid_token"')).toBe(true);
  expect(
    hasBearerChallenge(
      'Newauth realm="apps", type=1, title="Login to \\"apps\\"", Basic realm="simple", Bearer',
    ),
  ).toBe(true);
  expect(hasBearerChallenge('Basic realm="bearer"')).toBe(false);
  expect(hasBearerChallenge('Basic realm="a bearer b"')).toBe(false);
  expect(hasBearerChallenge('Basic realm="a, bearer b"')).toBe(false);
  expect(hasBearerChallenge('Negotiate bearer')).toBe(false);
  expect(hasBearerChallenge('BearerX')).toBe(false);
  expect(hasBearerChallenge('Bearer realm="payflow')).toBe(false); // does not parse
  expect(hasBearerChallenge(undefined)).toBe(false);
});

test('challenges: schemes, auth-params, token68 and quoted-pairs', () => {
  expect(
    parseChallenges('Newauth realm="apps", type=1, title="Login to \\"apps\\"", Basic realm="simple"'),
  ).toEqual({
    ok: true,
    challenges: [
      { scheme: 'Newauth', params: { realm: 'apps', type: '1', title: 'Login to "apps"' } },
      { scheme: 'Basic', params: { realm: 'simple' } },
    ],
  });
  expect(parseChallenges('Basic abc==, Bearer REALM = x')).toEqual({
    ok: true,
    challenges: [
      { scheme: 'Basic', token68: 'abc==', params: {} },
      { scheme: 'Bearer', params: { realm: 'x' } },
    ],
  });
});

test('challenges that do not parse say where', () => {
  expect(parseChallenges('')).toEqual({ ok: false, error: 'no challenge', offset: 0 });
  expect(parseChallenges('Bearer realm="x" Basic')).toMatchObject({ ok: false, offset: 17 });
  expect(parseChallenges('Bearer realm="a", REALM="b"')).toMatchObject({ ok: false, offset: 18 });
  // An auth-param needs 1*SP after its scheme (RFC 9110 §11.2); after a comma it starts no challenge.
  expect(parseChallenges('Bearer, realm="x"')).toMatchObject({ ok: false, offset: 13 });
  expect(parseChallenges('Bearer realm="\u0100"')).toMatchObject({ ok: false, offset: 14 }); // not a Latin-1 octet
});

const TOKEN = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,12}$/);
const quote = (v: string) => `"${v.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;

test('any list of challenges with quoted auth-params is read back as written', () => {
  const challenge = fc.record({
    scheme: TOKEN,
    params: fc.uniqueArray(fc.tuple(TOKEN, fc.string({ maxLength: 20 })), {
      maxLength: 4,
      selector: ([name]) => name.toLowerCase(),
    }),
  });
  fc.assert(
    fc.property(fc.array(challenge, { minLength: 1, maxLength: 4 }), (challenges) => {
      const value = challenges
        .map(
          (c) =>
            c.scheme + (c.params.length ? ` ${c.params.map(([n, v]) => `${n}=${quote(v)}`).join(', ')}` : ''),
        )
        .join(', ');
      expect(parseChallenges(value)).toEqual({
        ok: true,
        challenges: challenges.map((c) => ({
          scheme: c.scheme,
          params: Object.fromEntries(c.params.map(([n, v]) => [n.toLowerCase(), v])),
        })),
      });
    }),
  );
});

test('no quoted realm of a Basic challenge makes it a Bearer challenge', () => {
  const words = fc.array(fc.constantFrom('bearer', 'Bearer', ',', ' ', '"', '\\', '=', 'realm', 'x'), {
    maxLength: 8,
  });
  fc.assert(
    fc.property(words, fc.string({ maxLength: 10 }), (parts, tail) => {
      expect(hasBearerChallenge(`Basic realm=${quote(parts.join('') + tail)}`)).toBe(false);
    }),
  );
});

test('JSON media types', () => {
  expect(isJsonContentType('application/json')).toBe(true);
  expect(isJsonContentType('application/json; charset=utf-8')).toBe(true);
  expect(isJsonContentType('application/problem+json')).toBe(true);
  expect(isJsonContentType('Application/JSON')).toBe(true);
  expect(isJsonContentType('text/plain')).toBe(false);
  expect(isJsonContentType('text/json')).toBe(false);
  expect(isJsonContentType(undefined)).toBe(false);
});
