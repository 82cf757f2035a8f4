/**
 * Never green on a target the user did not mean (config/target.ts): the embedded reference server
 * runs only when asked for by name (--embedded, CONFORMANCE_EMBEDDED=1) or when no setting of a
 * deployment is given at all; a deployment's setting without a base URL, an empty base URL (what
 * a CI step passes when its secret is missing), two targets named at once, and a name one edit
 * away from a setting's are configuration errors naming what to fix. The first line of a run says
 * which target, and why.
 *
 * The cases are the CLI's own resolution in this process (resolveAsCli); two of them also go
 * through the command (exit 2, one line, nothing run), the issue's own: a misspelt API_BASE_URL
 * in .env, and the empty flags the Action passed when its secrets were missing.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ConfigError } from '../../config/error.ts';
import { CONFIG_VARIABLES } from '../../config/sources.ts';
import { checkMisspelled, editDistance, meantSetting } from '../../config/target.ts';
import { EMBEDDED_TARGET } from '../../config/embedded.ts';
import { removeTemporaryDirectories, resolveAsCli, runCli, temporaryDirectory } from './cli-fixtures.ts';

test.afterAll(() => removeTemporaryDirectories());

/** A directory with `dotenv` as its .env (none when undefined). */
function dir(dotenv?: string): string {
  const d = temporaryDirectory('payflow-target-');
  if (dotenv !== undefined) writeFileSync(join(d, '.env'), dotenv);
  return d;
}

async function rejection(
  args: string[],
  env: Record<string, string | undefined>,
  d = dir(),
): Promise<string> {
  try {
    await resolveAsCli(args, env, d);
  } catch (error) {
    expect(error, String(error)).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toContain('\n');
    return (error as Error).message;
  }
  throw new Error(`resolved without an error: ${JSON.stringify({ args, env })}`);
}

const DEPLOYMENT = { API_TOKEN: 'token-0123456789', COUNTERPARTY_REF: 'ACME-0001' };

test.describe('the embedded server runs only when no target setting is given, or when asked for', () => {
  test('nothing set: the embedded server, and the reason says none was given', async () => {
    const run = await resolveAsCli([], { CONFORMANCE_SEED: '7', CONFORMANCE_RUNS: '3' }, dir());
    expect(run.config.baseURL).toBeUndefined();
    expect(run.target).toEqual({
      kind: 'embedded',
      why: expect.stringMatching(/^no target setting given/),
      unused: [],
    });
    // Its own writable counterparty: the embedded server is throwaway.
    expect(run.config.writableRef).toBe(EMBEDDED_TARGET.writableRef);
  });

  test('a base URL: that deployment, and where the base URL was read', async () => {
    const fromEnv = await resolveAsCli([], { API_BASE_URL: 'http://127.0.0.1:9', ...DEPLOYMENT }, dir());
    expect(fromEnv.target?.why).toBe('API_BASE_URL from the environment');
    const d = dir(`API_BASE_URL=http://127.0.0.1:9\n`);
    const fromDotenv = await resolveAsCli([], DEPLOYMENT, d);
    expect(fromDotenv.target?.why).toBe(`API_BASE_URL from ${join(d, '.env')}`);
    const fromFlag = await resolveAsCli(['--base-url', 'http://127.0.0.1:9'], DEPLOYMENT, dir());
    expect(fromFlag.target).toEqual({ kind: 'deployment', why: 'API_BASE_URL from --base-url', unused: [] });
  });

  // Each of these says the user meant a deployment: without its base URL, the run would have
  // judged the embedded server and passed.
  for (const [label, args, env] of [
    ['the token alone', [], { API_TOKEN: 'token-0123456789' }],
    ['the readable counterparty alone', [], { COUNTERPARTY_REF: 'ACME-0001' }],
    ['an empty base URL alone (a missing secret)', ['--base-url', ''], {}],
    ['an empty base URL in the environment', [], { API_BASE_URL: '' }],
    ['a writable counterparty set empty', [], { WRITABLE_COUNTERPARTY_REF: '' }],
    ['an account fixture', ['--account-fixture', '{"accountIdentifier":{"iban":"x"}}'], {}],
    ['item fixtures', [], { ITEM_FIXTURES: '{}' }],
    ["a gateway's header", [], { CONFORMANCE_HEADER_X_TENANT: 'acme' }],
    ["a gateway's secret header", [], { CONFORMANCE_SECRET_HEADER_X_API_KEY: 'k-0123456789' }],
    ['a --header flag', ['--header', 'X-Tenant: acme'], {}],
  ] as const) {
    test(`${label} without a base URL is a configuration error`, async () => {
      const message = await rejection([...args], { ...env });
      expect(message).toMatch(
        /^no deployment to test: API_BASE_URL is (not set|empty \(from (--base-url|the environment)\))/,
      );
      expect(message).toContain('or --embedded to run against the embedded reference server');
    });
  }

  test("the Action's empty inputs (its secrets missing) name each setting and where it came from", async () => {
    const message = await rejection(['--base-url', '', '--counterparty-ref', ''], {
      API_TOKEN: 'token-0123456789',
    });
    expect(message).toBe(
      'no deployment to test: API_BASE_URL is empty (from --base-url), yet API_TOKEN (the environment), ' +
        'COUNTERPARTY_REF (--counterparty-ref) are set; give the deployment in API_BASE_URL (--base-url), ' +
        'or --embedded to run against the embedded reference server',
    );
    // Never the token's value.
    expect(message).not.toContain('token-0123456789');
  });

  test('--embedded asks for the embedded server: its settings apply, a token set is said to be unused', async () => {
    const run = await resolveAsCli(
      ['--embedded', '--writable-counterparty-ref', ''],
      { API_TOKEN: 'token-0123456789', COUNTERPARTY_REF: EMBEDDED_TARGET.counterpartyRef },
      dir(),
    );
    expect(run.config.baseURL).toBeUndefined();
    expect(run.config.writableRef).toBeUndefined(); // set empty: a read-only run
    expect(run.config.token).toBe(EMBEDDED_TARGET.token);
    expect(run.target).toEqual({
      kind: 'embedded',
      why: 'asked for by --embedded',
      unused: [
        'API_TOKEN is set (the environment) and not used: the embedded reference server has a token of its own',
      ],
    });
    const d = dir('CONFORMANCE_EMBEDDED=1\n');
    expect((await resolveAsCli([], {}, d)).target?.why).toBe(
      `asked for by CONFORMANCE_EMBEDDED=1 from ${join(d, '.env')}`,
    );
  });

  test('--embedded beside a base URL from any source names two targets', async () => {
    expect(await rejection(['--embedded', '--base-url', 'http://127.0.0.1:9'], DEPLOYMENT)).toBe(
      '--embedded and API_BASE_URL (from --base-url) name two targets: leave out one of them (an empty API_BASE_URL is none)',
    );
    const d = dir('CONFORMANCE_EMBEDDED=1\n');
    expect(await rejection([], { API_BASE_URL: 'http://127.0.0.1:9', ...DEPLOYMENT }, d)).toMatch(
      /^CONFORMANCE_EMBEDDED=1 from .*\.env and API_BASE_URL \(from the environment\) name two targets/,
    );
    // An empty base URL is none: the embedded server, asked for.
    expect((await resolveAsCli(['--embedded', '--base-url', ''], {}, dir())).target?.kind).toBe('embedded');
  });

  test('CONFORMANCE_EMBEDDED is 1 or 0', async () => {
    expect(await rejection([], { CONFORMANCE_EMBEDDED: 'yes' })).toBe(
      "CONFORMANCE_EMBEDDED must be 1 (run against the embedded reference server) or 0, got 'yes'",
    );
    expect((await resolveAsCli([], { CONFORMANCE_EMBEDDED: '0' }, dir())).target?.why).toMatch(
      /^no target setting/,
    );
  });

  test('settings that belong to no target (seed, limits, reports) leave the embedded server the default', async () => {
    const run = await resolveAsCli(
      ['--rps', '5', '--settle-ms', '10'],
      { CONFORMANCE_SEED: '1', CONFORMANCE_STRICT: '1', CONFORMANCE_ACCOUNT_BUDGET: '3' },
      dir(),
    );
    expect(run.target?.kind).toBe('embedded');
  });

  test('a variable named __proto__ or constructor in the environment or .env is an ordinary name', async () => {
    const env = JSON.parse('{"__proto__":"x","constructor":"y","CONFORMANCE_SEED":"4"}') as Record<
      string,
      string
    >;
    const run = await resolveAsCli([], env, dir('toString=z\nhasOwnProperty=w\n'));
    expect(run.target?.kind).toBe('embedded');
    expect(run.config.seed).toBe(4);
  });
});

test.describe('a name one edit away from a setting is a configuration error', () => {
  test('letters swapped, dropped, added or changed, or another case, in .env or the environment', async () => {
    const d = dir(
      'API_BASE_ULR=http://127.0.0.1:9\nAPI_TOKEN=token-0123456789\nCOUNTERPARTY_REF=ACME-0001\n',
    );
    expect(await rejection([], {}, d)).toBe(
      `API_BASE_ULR (in ${join(d, '.env')}) is not a setting of the suite: did you mean API_BASE_URL? Rename it, or remove it`,
    );
    for (const [name, meant] of [
      ['API_BASE_UR', 'API_BASE_URL'],
      ['API_BASE_URLS', 'API_BASE_URL'],
      ['API_TOKNE', 'API_TOKEN'],
      ['COUNTERPARTY_RFE', 'COUNTERPARTY_REF'],
      ['api_token', 'API_TOKEN'],
      ['WRITEABLE_COUNTERPARTY_REF', 'WRITABLE_COUNTERPARTY_REF'],
      ['COUNTERPARTY_REFS_', undefined], // two edits: not caught, and no false alarm either
      ['CONFORMANCE_SEEDS', 'CONFORMANCE_SEED'],
      ['CONFORMANCE_RUN', 'CONFORMANCE_RUNS'],
    ] as const) {
      expect(meantSetting(name, CONFIG_VARIABLES), name).toBe(meant);
      if (meant !== undefined)
        expect(await rejection([], { [name]: 'x' }), name).toBe(
          `${name} (in the environment) is not a setting of the suite: did you mean ${meant}? Rename it, or remove it`,
        );
    }
  });

  test('the settings themselves, the extra headers and unrelated names pass', () => {
    expect(() =>
      checkMisspelled(
        [
          ...CONFIG_VARIABLES.map((n): [string, string] => [n, 'env']),
          ['CONFORMANCE_HEADER_X_TENANT', 'env'],
          ['PATH', 'env'],
          ['HOME', 'env'],
          ['CONFORMANCE_RESOLVED_CONFIG', 'env'],
          ['CONFORMANCE_RUN_STATE', 'env'],
          ['NODE_COMPILE_CACHE', 'env'],
        ],
        CONFIG_VARIABLES,
      ),
    ).not.toThrow();
  });

  test('no two settings are one edit apart, so a setting is never taken for a misspelling of another', () => {
    for (const a of CONFIG_VARIABLES)
      for (const b of CONFIG_VARIABLES)
        if (a !== b) expect(editDistance(a, b), `${a} ${b}`).toBeGreaterThan(1);
  });

  test('editDistance: optimal string alignment, capped', () => {
    expect(editDistance('abcd', 'abcd')).toBe(0);
    expect(editDistance('abcd', 'abdc')).toBe(1);
    expect(editDistance('abcd', 'abd')).toBe(1);
    expect(editDistance('abcd', 'abxcd')).toBe(1);
    expect(editDistance('abcd', 'axcd')).toBe(1);
    expect(editDistance('abcd', 'badc')).toBe(2);
    expect(editDistance('abcd', 'wxyz', 3)).toBe(4);
    expect(editDistance('a', 'abcdef')).toBe(2);
  });
});

test.describe('through the command', () => {
  test('a misspelt API_BASE_URL in .env beside a token and a counterparty: exit 2, one line, no run', async () => {
    const r = await runCli(
      { CONFORMANCE_REPORTS_DIR: undefined, CONFORMANCE_RESULTS_DIR: undefined },
      {
        setup: (work) =>
          writeFileSync(
            join(work, '.env'),
            'API_BASE_ULR=http://127.0.0.1:9\nAPI_TOKEN=token-0123456789\nCOUNTERPARTY_REF=ACME-0001\n',
          ),
      },
    );
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr.trim()).toMatch(
      /^conformance: API_BASE_ULR \(in .*\.env\) is not a setting of the suite: did you mean API_BASE_URL\?/,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).not.toContain('PASSED');
  });

  test("run --base-url '' --counterparty-ref '' (the Action's missing secrets): exit 2, naming what is missing", async () => {
    const r = await runCli({}, { args: ['--base-url', '', '--counterparty-ref', ''] });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toContain('conformance: no deployment to test: API_BASE_URL is empty (from --base-url)');
    expect(r.stdout).toBe('');
  });
});
