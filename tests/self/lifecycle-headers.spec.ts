/** Parsing of Deprecation and Sunset values (RFC 9745, RFC 8594, interface.md §4.1). */
import { expect, test } from '@playwright/test';
import { classifyDeprecation, classifySunset, parseHttpDate } from '../../oracles/lifecycle-headers.ts';
import { isJsonContentType } from '../../oracles/counterparty-response.ts';

const cases: [string, ReturnType<typeof classifySunset>['form']][] = [
  ['2027-06-30T23:59:59Z', 'date-time'],
  ['2027-06-30T23:59:59+02:00', 'date-time'],
  ['Wed, 30 Jun 2027 23:59:59 GMT', 'http-date'],
  ['Thu, 30 Jun 2027 23:59:59 GMT', 'invalid'], // wrong weekday
  ['Wed, 31 Jun 2027 23:59:59 GMT', 'invalid'], // no 31 June
  ['2027-02-30T00:00:00Z', 'invalid'],
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
  expect(classifyDeprecation('@-1').form).toBe('structured-date');
  expect(classifyDeprecation('true').form).toBe('other');
  expect(classifyDeprecation('1688169599').form).toBe('other');
  expect(classifyDeprecation('Wed, 30 Jun 2027 23:59:59 GMT').form).toBe('http-date');
});

test('HTTP-date round trip', () => {
  expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(Date.UTC(1994, 10, 6, 8, 49, 37));
  expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT')).toBeUndefined();
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
