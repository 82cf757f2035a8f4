/**
 * The command line of `payflow-conformance` (bin/cli.ts) and of its subcommands: a flag for every
 * configuration variable, named by one rule, winning over the environment, which wins over .env;
 * no flag for the token; --help of each command listing each flag with the variable it sets; and
 * the dispatcher's usage errors (exit 2, one line).
 *
 * The installed command is spawned for what only it does (the dispatcher's help and usage errors)
 * and once per command whose flags are read (run, merge, validate); the rest is the parsing and
 * resolution the commands call, in this process.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { parseArgs, UsageError, configurationFlags, strictFlag } from '../../bin/args.ts';
import { parseRunArgs, runUsage } from '../../bin/conformance.ts';
import { mergeUsage } from '../../bin/merge-shards.ts';
import { validateUsage } from '../../bin/validate.ts';
import type { Env } from '../../config/error.ts';
import { flagOf, variableFlags } from '../../config/flags.ts';
import { resolveRun } from '../../run/resolve.ts';
import { CONFIG_VARIABLES } from '../../config/sources.ts';
import { removeTemporaryDirectories, ROOT, temporaryDirectory } from './cli-fixtures.ts';

test.afterAll(removeTemporaryDirectories);

const embedded = { token: 'embedded-token', counterpartyRef: 'EMB-1', writableRef: 'EMB-W' };

test.describe('a flag for every configuration variable', () => {
  test('named by one rule, so a new variable gets its flag', () => {
    expect(flagOf('API_BASE_URL')).toBe('--base-url');
    expect(flagOf('COUNTERPARTY_REF')).toBe('--counterparty-ref');
    expect(flagOf('WRITABLE_COUNTERPARTY_REF')).toBe('--writable-counterparty-ref');
    expect(flagOf('ACCOUNT_FIXTURE')).toBe('--account-fixture');
    expect(flagOf('CONFORMANCE_SEED')).toBe('--seed');
    expect(flagOf('CONFORMANCE_REPORTS_DIR')).toBe('--reports-dir');
    expect(flagOf('CONFORMANCE_TIMEOUT_MS')).toBe('--timeout-ms');
    expect(flagOf('CONFORMANCE_SETTLE_MS')).toBe('--settle-ms');
  });

  test('every variable has one, but the token (environment only) and the switches --strict and --embedded', () => {
    const flags = variableFlags();
    expect(flags.map((f) => f.variable)).toEqual(
      CONFIG_VARIABLES.filter(
        (v) => v !== 'API_TOKEN' && v !== 'CONFORMANCE_STRICT' && v !== 'CONFORMANCE_EMBEDDED',
      ),
    );
    expect(new Set(flags.map((f) => f.flag)).size).toBe(flags.length);
    expect(flags.filter((f) => /token/i.test(f.flag))).toEqual([]);
  });

  test('--name value and --name=value; an empty value is a value; a missing one is a usage error', () => {
    const parse = (...args: string[]): Env => {
      const into: Env = {};
      parseArgs(args, configurationFlags(into));
      return into;
    };
    expect(parse('--seed', '5', '--runs=3')).toEqual({ CONFORMANCE_SEED: '5', CONFORMANCE_RUNS: '3' });
    expect(parse('--writable-counterparty-ref=')).toEqual({ WRITABLE_COUNTERPARTY_REF: '' });
    expect(parse('--seed', '-5')).toEqual({ CONFORMANCE_SEED: '-5' });
    expect(parse('--seed', '1', '--seed', '2')).toEqual({ CONFORMANCE_SEED: '2' });
    expect(() => parse('--seed')).toThrow(new UsageError('--seed needs a value <n> (see --help)'));
    expect(() => parse('--seed', '--runs', '3')).toThrow(/--seed needs a value/);
    expect(() => parse('--api-token', 'x')).toThrow(
      new UsageError('unknown argument --api-token (see --help)'),
    );
    expect(() => parse('--token=x')).toThrow(/unknown argument --token=x/);
    expect(() => parse('stray')).toThrow(/unexpected argument stray/);
    let strict = false;
    parseArgs(['--strict'], [strictFlag(() => (strict = true))]);
    expect(strict).toBe(true);
    expect(() => parseArgs(['--strict=1'], [strictFlag(() => undefined)])).toThrow(/--strict takes no value/);
  });

  test('flags win over the environment, which wins over .env; relative paths resolve against the directory', () => {
    const dir = temporaryDirectory('payflow-flags-');
    writeFileSync(join(dir, '.env'), 'CONFORMANCE_RUNS=3\nCONFORMANCE_SEED=11\n');
    expect(resolveRun({}, dir, embedded).config.runs).toBe(3);
    expect(resolveRun({ CONFORMANCE_RUNS: '4' }, dir, embedded).config.runs).toBe(4);
    const run = resolveRun({ CONFORMANCE_RUNS: '4' }, dir, embedded, {
      variables: { CONFORMANCE_RUNS: '5', CONFORMANCE_REPORTS_DIR: 'out', WRITABLE_COUNTERPARTY_REF: '' },
    });
    expect(run.config.runs).toBe(5);
    expect(run.config.seed).toBe(11);
    expect(run.reportsDir).toBe(join(dir, 'out'));
    // Set but empty, by a flag too: none (a read-only run against the embedded server).
    expect(run.config.writableRef).toBeUndefined();
    // The defaults are below the directory the run was started from, not the project.
    const plain = resolveRun({}, dir, embedded);
    expect(plain.reportsDir).toBe(join(dir, 'reports'));
    expect(plain.resultsDir).toBe(join(dir, 'test-results', 'conformance'));
  });
});

test.describe('--help', () => {
  test('of run and merge lists every flag with the variable it sets, and says the token is no flag', () => {
    for (const usage of [runUsage(), mergeUsage()]) {
      for (const f of variableFlags())
        expect(usage).toMatch(
          new RegExp(`^  ${f.flag} ${f.value.replace(/[|]/g, '\\|')}\\s+${f.variable}$`, 'm'),
        );
      expect(usage).toMatch(/^ {2}--strict\s+CONFORMANCE_STRICT=1$/m);
      expect(usage).toContain(
        'API_TOKEN (the bearer token, required with a base URL) is read from the environment',
      );
      expect(usage).toContain('never from a flag');
    }
    expect(runUsage()).toMatch(/^usage: payflow-conformance run \[options\]$/m);
    expect(mergeUsage()).toMatch(/^usage: payflow-conformance merge \[options\] \[<blob-dir>\]$/m);
  });

  test('of validate lists its own flags and the variables it reads', () => {
    const usage = validateUsage();
    expect(usage).toMatch(/^usage: payflow-conformance validate <file\.har> \[options\]$/m);
    for (const flag of ['--base-url <url>', '--proxy', '--port <n>', '--duration <s>', '--strict'])
      expect(usage).toContain(`  ${flag}`);
    expect(usage).toMatch(/^ {2}--reports-dir <dir>\s+CONFORMANCE_REPORTS_DIR$/m);
    expect(usage).toMatch(/^ {2}--waivers <file\|none>\s+CONFORMANCE_WAIVERS$/m);
    // The proxy's bound on each exchange with the target.
    expect(usage).toMatch(/^ {2}--timeout-ms <ms>\s+CONFORMANCE_TIMEOUT_MS$/m);
    expect(usage).not.toContain('--seed');
    expect(usage).toContain('never from a flag');
  });
});

/** The installed command, run as npx runs it: plain node and the shim. */
function cli(
  args: string[],
  env: Record<string, string> = {},
): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'payflow-conformance.mjs'), ...args], {
    cwd: temporaryDirectory('payflow-flags-cwd-'),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), ...env },
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

test.describe('payflow-conformance', () => {
  test('--help names the commands; no command or an unknown one is a usage error', () => {
    const help = cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^ {2}run {7}run the conformance suite/m);
    expect(help.stdout).toMatch(/^ {2}validate {2}judge recorded traffic/m);
    expect(help.stdout).toMatch(/^ {2}merge {5}merge the blob reports/m);
    expect(help.stdout).toMatch(/^ {2}serve {5}run the reference server alone/m);
    // Its examples run as printed from where it was asked: here, outside the clone, its script.
    const script = join(ROOT, 'bin', 'payflow-conformance.mjs');
    expect(help.stdout).toContain(`  API_TOKEN=... node ${script} run --base-url `);
    expect(help.stdout).toContain(`Without one: \`node ${script} serve\` starts`);
    const none = cli([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe('conformance: a command is needed: run, validate, merge, serve (see --help)\n');
    const unknown = cli(['test']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      "conformance: unknown command 'test'; commands: run, validate, merge, serve (see --help)\n",
    );
  });

  test('--version prints the version alone, before the command or after any of them, the proxy too', () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const args of [
      ['--version'],
      ['-V'],
      ['run', '--version'],
      ['run', '--base-url', 'https://example.com', '--version'],
      ['validate', '--version'],
      ['validate', '--proxy', '--version'],
      ['serve', '--version'],
      ['merge', '-V'],
    ]) {
      const r = cli(args);
      expect({ args, ...r }).toEqual({ args, code: 0, stdout: `${version}\n`, stderr: '' });
    }
  });

  test('a command named as a property of Object.prototype is an unknown command, not a crash', () => {
    for (const name of ['constructor', '__proto__', 'toString']) {
      const r = cli([name]);
      expect(r.stderr, name).toBe(
        `conformance: unknown command '${name}'; commands: run, validate, merge, serve (see --help)\n`,
      );
      expect(r.code, name).toBe(2);
    }
  });

  test('a flag wins over the environment, before any request is sent; the token is no flag', () => {
    const env = { API_BASE_URL: 'http://127.0.0.1:9', API_TOKEN: 'tok-flags-7f3a', COUNTERPARTY_REF: 'C-1' };
    const r = cli(['run', '--base-url', 'ftp://example.test'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "conformance: API_BASE_URL must be an http:// or https:// URL, got 'ftp://example.test'\n",
    );
    // No token flag in `run`'s command line, read as the command reads it (bin/conformance.ts
    // parseRunArgs): its UsageError is the line above's route (fail(), exit 2), through the CLI in
    // selection-cli.spec.ts's missing value.
    expect(() => parseRunArgs(['--api-token', 'tok-flags-7f3a'])).toThrow(
      new UsageError('unknown argument --api-token (see --help)'),
    );
    const merge = cli(['merge', '--runs', 'many'], env);
    expect(merge.code).toBe(2);
    expect(merge.stderr).toBe("conformance: CONFORMANCE_RUNS must be a whole number, got 'many'\n");
    const validate = cli(['validate', 'missing.har', '--max-response-bytes', '1'], env);
    expect(validate.code).toBe(2);
    expect(validate.stderr).toMatch(
      /^validate: CONFORMANCE_MAX_RESPONSE_BYTES must be between 1024 and \d+, got 1\n$/,
    );
  });
});
