/** Configuration parsing: every mistake is a ConfigError with one line saying what to fix. */
import { expect, test } from '@playwright/test';
import { ConfigError, DEFAULT_RUNS, parseConfig } from '../../config/config.ts';

const embedded = { token: 'embedded-token', counterpartyRef: 'embedded-ref' };
const remote = { API_BASE_URL: 'https://sandbox.example.com/', API_TOKEN: 'tok', COUNTERPARTY_REF: 'ACME-1' };

test('no base URL: the embedded server defaults, read-only', () => {
  const c = parseConfig({}, embedded);
  expect(c).toMatchObject({ baseURL: undefined, token: 'embedded-token', counterpartyRef: 'embedded-ref' });
  expect(c.writableRef).toBeUndefined();
  expect(c.runs).toBe(DEFAULT_RUNS);
  expect(c.seedGiven).toBe(false);
});

test('a configured deployment', () => {
  const c = parseConfig(
    { ...remote, WRITABLE_COUNTERPARTY_REF: 'W-1', CONFORMANCE_SEED: '-5', CONFORMANCE_RUNS: '7' },
    embedded,
  );
  expect(c).toMatchObject({
    baseURL: 'https://sandbox.example.com',
    token: 'tok',
    counterpartyRef: 'ACME-1',
    writableRef: 'W-1',
    seed: -5,
    seedGiven: true,
    runs: 7,
  });
});

test('an empty WRITABLE_COUNTERPARTY_REF is a read-only run', () => {
  expect(parseConfig({ ...remote, WRITABLE_COUNTERPARTY_REF: '  ' }, embedded).writableRef).toBeUndefined();
});

const bad: [string, Record<string, string>, RegExp][] = [
  ['missing token', { API_BASE_URL: 'https://x.example', COUNTERPARTY_REF: 'abc' }, /API_TOKEN is required/],
  [
    'missing counterparty',
    { API_BASE_URL: 'https://x.example', API_TOKEN: 't' },
    /COUNTERPARTY_REF is required/,
  ],
  ['malformed URL', { ...remote, API_BASE_URL: 'not a url' }, /API_BASE_URL is not a valid URL/],
  ['ftp URL', { ...remote, API_BASE_URL: 'ftp://x.example' }, /http:\/\/ or https:\/\//],
  ['URL with credentials', { ...remote, API_BASE_URL: 'https://u:p@x.example' }, /credentials/],
  ['token with Bearer prefix', { ...remote, API_TOKEN: 'Bearer abc' }, /bare token/],
  ['invalid reference', { ...remote, COUNTERPARTY_REF: 'a/b' }, /not a valid counterparty reference/],
  ['non-numeric seed', { CONFORMANCE_SEED: 'abc' }, /CONFORMANCE_SEED must be a whole number/],
  ['zero runs', { CONFORMANCE_RUNS: '0' }, /CONFORMANCE_RUNS must be between/],
  ['huge runs', { CONFORMANCE_RUNS: '1e9' }, /CONFORMANCE_RUNS must be a whole number/],
];
for (const [name, env, message] of bad) {
  test(`config error: ${name}`, () => {
    let error: unknown;
    try {
      parseConfig(env, embedded);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });
}

const badURLs: [string, string][] = [
  ['an empty query', 'https://x.example/?'],
  ['an empty fragment', 'https://x.example/#'],
  ['an empty query after a path prefix', 'https://x.example/api?'],
  ['a query', 'https://x.example/?key=abc'],
  ['a fragment', 'https://x.example/#top'],
];
for (const [name, url] of badURLs) {
  test(`config error: API_BASE_URL with ${name}`, () => {
    expect(() => parseConfig({ ...remote, API_BASE_URL: url }, embedded)).toThrow(
      /API_BASE_URL must not carry a query or fragment/,
    );
  });
}

const badTokens: [string, string, RegExp][] = [
  ['a control character', 'abc\u0001defghij', /its character 4 is a control character/],
  ['DEL', 'abcdefghij\u007f', /its character 11 is a control character/],
  ['a non-ASCII character', 'abcd\u00e9fghij', /its character 5 is a non-ASCII character/],
  ['an emoji', '\u{1F600}abcdefgh', /its character 1 is a non-ASCII character/],
];
for (const [name, token, message] of badTokens) {
  test(`config error: a token that cannot be sent in an HTTP header (${name}), never shown`, () => {
    let error: unknown;
    try {
      parseConfig({ ...remote, API_TOKEN: token }, embedded);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^API_TOKEN cannot be sent in an HTTP header: /);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('fgh');
  });
}

const credentialURLs = [
  'https://al1ce:s3cret@x.example',
  'https://s3cret@x.example',
  'http//al1ce:s3cret@x.example',
  'ftp://al1ce:s3cret@x.example',
  'al1ce:s3cret@x.example',
  'https://al1ce:s3/cret@x.example',
  'https://x.example?token=s3cret',
  'https://al1ce:s3cret@x.example:99999',
];
for (const url of credentialURLs) {
  test(`config error: credentials in ${url.replace('s3cret', '…')} are never shown`, () => {
    let error: unknown;
    try {
      parseConfig({ ...remote, API_BASE_URL: url }, embedded);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^API_BASE_URL /);
    expect((error as Error).message).not.toContain('s3');
    expect((error as Error).message).not.toContain('al1ce');
  });
}
