/**
 * Configuration parsing and resolution: every mistake is a ConfigError with one line saying what
 * to fix, which shows no secret; the configuration is resolved once, with a fixed precedence.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect, test } from '@playwright/test';
import { DEFAULT_RUNS, parseConfig } from '../../config/config.ts';
import { ConfigError } from '../../config/error.ts';
import { resolveRun } from '../../run/resolve.ts';
import { playwrightEnv, RESOLVED_VARIABLE, resolvedRun, resolveOnce } from '../../run/hand-down.ts';
import { invocationDirectory, PROJECT_ROOT } from '../../config/sources.ts';

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

test('against the embedded server too, an empty WRITABLE_COUNTERPARTY_REF or ACCOUNT_FIXTURE asks for none', () => {
  const withDefaults = {
    ...embedded,
    writableRef: 'embedded-writable',
    accountFixture: { accountIdentifier: { iban: 'NL00TEST0000000000' } },
  };
  expect(parseConfig({}, withDefaults)).toMatchObject({ writableRef: 'embedded-writable' });
  expect(parseConfig({}, withDefaults).accountFixture).toBeDefined();
  expect(parseConfig({ WRITABLE_COUNTERPARTY_REF: '' }, withDefaults).writableRef).toBeUndefined();
  expect(parseConfig({ ACCOUNT_FIXTURE: '' }, withDefaults).accountFixture).toBeUndefined();
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

test.describe('resolved once: flags, then the environment, then .env of the directory the run started from', () => {
  const dir = (dotenv: string, files: Record<string, string> = {}): string => {
    // Below the test's output directory, which Playwright clears.
    mkdirSync(test.info().outputDir, { recursive: true });
    const d = mkdtempSync(join(test.info().outputDir, 'resolve-'));
    writeFileSync(join(d, '.env'), dotenv);
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(dirname(join(d, name)), { recursive: true });
      writeFileSync(join(d, name), text);
    }
    return d;
  };
  const dotenv = [
    'API_BASE_URL=https://from-dotenv.example',
    'API_TOKEN=dotenv-token',
    'COUNTERPARTY_REF=ACME-1',
    'WRITABLE_COUNTERPARTY_REF=W-1',
    'CONFORMANCE_RUNS=9',
    'CONFORMANCE_STRICT=0',
    '',
  ].join('\n');

  test('.env fills in what the environment does not set', () => {
    const run = resolveRun({}, dir(dotenv), embedded);
    expect(run.config).toMatchObject({
      baseURL: 'https://from-dotenv.example',
      token: 'dotenv-token',
      writableRef: 'W-1',
      runs: 9,
    });
    expect(run.strict).toBe(false);
  });

  test('the environment wins over .env, and an empty value counts as set', () => {
    const run = resolveRun(
      { API_BASE_URL: 'https://from-env.example', WRITABLE_COUNTERPARTY_REF: '', CONFORMANCE_RUNS: '' },
      dir(dotenv),
      embedded,
    );
    expect(run.config.baseURL).toBe('https://from-env.example');
    // Empty: a read-only run, and the default case count, whatever .env says.
    expect(run.config.writableRef).toBeUndefined();
    expect(run.config.runs).toBe(DEFAULT_RUNS);
    expect(resolveRun({ API_BASE_URL: '' }, dir(dotenv), embedded).config.baseURL).toBeUndefined();
  });

  test('flags win over both', () => {
    expect(resolveRun({}, dir(dotenv), embedded, { strict: true }).strict).toBe(true);
    expect(resolveRun({ CONFORMANCE_STRICT: '0' }, dir(''), embedded, { strict: true }).strict).toBe(true);
    expect(resolveRun({ CONFORMANCE_STRICT: '1' }, dir(dotenv), embedded).strict).toBe(true);
    const run = resolveRun({}, dir(''), embedded, { probes: ['known-counterparty'] });
    expect(run.probes).toEqual(['known-counterparty']);
    expect(resolveRun({}, dir(''), embedded).probes).toBeNull();
  });

  test('relative paths resolve against that directory, not the working directory', () => {
    const d = dir(
      'ACCOUNT_FIXTURE=fixtures/account.json\nCONFORMANCE_WAIVERS=ci/waivers.yaml\nCONFORMANCE_REPORTS_DIR=out/reports\nCONFORMANCE_RESULTS_DIR=out/results\n',
      {
        'fixtures/account.json': '{"accountIdentifier":{"type":"IBAN","value":"NL91ABNA0417164300"}}',
        'ci/waivers.yaml': 'waivers: []\n',
      },
    );
    const run = resolveRun({}, d, embedded);
    expect(run.config.accountFixture).toEqual({
      accountIdentifier: { type: 'IBAN', value: 'NL91ABNA0417164300' },
    });
    expect(run.waivers).toBe(join(d, 'ci', 'waivers.yaml'));
    expect(run.reportsDir).toBe(join(d, 'out', 'reports'));
    expect(run.resultsDir).toBe(join(d, 'out', 'results'));
    expect(() => resolveRun({ ACCOUNT_FIXTURE: 'fixtures/missing.json' }, d, embedded)).toThrow(
      /ACCOUNT_FIXTURE: cannot read the file 'fixtures\/missing.json' \(ENOENT\)/,
    );
  });

  test('under npm run (of this project or of a package calling the installed command), the directory npm was invoked from; otherwise the working directory', () => {
    const manifest = join(PROJECT_ROOT, 'package.json');
    // npm runs a script in its package's root: where the user was is INIT_CWD.
    expect(invocationDirectory({ INIT_CWD: '/home/u/ci', npm_package_json: manifest }, PROJECT_ROOT)).toBe(
      '/home/u/ci',
    );
    expect(
      invocationDirectory({ INIT_CWD: '/other/sub', npm_package_json: '/other/package.json' }, '/other'),
    ).toBe('/other/sub');
    // A script that changed directory first (cd ci && payflow-conformance run) chose that one.
    expect(invocationDirectory({ INIT_CWD: '/home/u', npm_package_json: manifest }, '/home/u/ci')).toBe(
      '/home/u/ci',
    );
    expect(invocationDirectory({}, '/elsewhere')).toBe('/elsewhere');
  });

  test('the Playwright processes read the resolved configuration, resolved at most once, and no raw variable', () => {
    const d = dir('WRITABLE_COUNTERPARTY_REF=W-1\nCONFORMANCE_EMBEDDED=1\n');
    const env: NodeJS.ProcessEnv = {
      API_TOKEN: 'x',
      INIT_CWD: d,
      npm_package_json: join(PROJECT_ROOT, 'package.json'),
    };
    const first = resolveOnce(embedded, env);
    expect(first.config.writableRef).toBe('W-1');
    expect(env.API_TOKEN).toBeUndefined();
    expect(env[RESOLVED_VARIABLE]).toBeDefined();
    // .env changes, a variable is set: what was resolved stands.
    writeFileSync(join(d, '.env'), 'WRITABLE_COUNTERPARTY_REF=W-2\n');
    env.WRITABLE_COUNTERPARTY_REF = '';
    expect(resolveOnce(embedded, env)).toEqual(first);
    expect(resolvedRun(env)).toEqual(first);
    const child = playwrightEnv(first, { PATH: '/bin', API_TOKEN: 't', CONFORMANCE_RUNS: '3' });
    expect(Object.keys(child).sort()).toEqual([RESOLVED_VARIABLE, 'PATH'].sort());
    expect(() => resolvedRun({})).toThrow(/npm run conformance/);
  });
});
