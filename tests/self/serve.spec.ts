/**
 * `payflow-conformance serve` (bin/serve.ts): the reference server alone. Its flags and banner
 * directly; then the command itself: it prints its URL and a token drawn for the start, answers
 * with that token only, stops cleanly on SIGTERM and SIGINT (exit 0, the port closed), refuses a
 * port in use and bad flags (exit 2); a read-only run of the CLI against it passes, and the HAR
 * that run recorded validates. (The installed package does the same in pack.spec.ts.)
 */
import { createServer } from 'node:net';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { DEFAULT_SERVE_PORT, parseServeFlags, serveBanner } from '../../bin/serve.ts';
import { UsageError } from '../../bin/args.ts';
import type { ConformanceRecord } from '../../reporter/summary.ts';
import { REFERENCE_COUNTERPARTY, WRITABLE_COUNTERPARTY } from '../../servers/reference.ts';
import {
  readJson,
  removeTemporaryDirectories,
  ROOT,
  runCli,
  runNode,
  targetEnv,
  temporaryDirectory,
  tsx,
} from './cli-fixtures.ts';
import { startServe, type Serving } from './serve-fixtures.ts';

test.afterAll(removeTemporaryDirectories);

const COMMAND = join(ROOT, 'bin', 'payflow-conformance.mjs');

/** `serve` of this clone with `args`. */
function serve(...args: string[]): Promise<Serving> {
  return startServe(process.execPath, [COMMAND, 'serve', ...args], temporaryDirectory('payflow-serve-'));
}

async function status(url: string, authorization?: string): Promise<number> {
  const r = await fetch(`${url}/api/v1/counterparties/${REFERENCE_COUNTERPARTY}`, {
    headers: authorization === undefined ? {} : { authorization },
  });
  await r.arrayBuffer();
  return r.status;
}

test.describe('its flags and banner', () => {
  test('defaults to port 4010 on 127.0.0.1 with no token given; each flag sets its own', () => {
    expect(parseServeFlags([])).toEqual({ port: DEFAULT_SERVE_PORT, host: '127.0.0.1' });
    expect(DEFAULT_SERVE_PORT).toBe(4010);
    expect(parseServeFlags(['--port', '0', '--host=::1', '--token', 'tok-1'])).toEqual({
      port: 0,
      host: '::1',
      token: 'tok-1',
    });
  });

  for (const [args, message] of [
    [['--port', '65536'], /--port must be a whole number from 0 to 65535, not '65536'/],
    [['--port', '-1'], /--port needs|--port must be/],
    [['--port', '80.5'], /--port must be a whole number/],
    [['--token', 'two words'], /--token must be visible ASCII/],
    [['--token='], /--token must be visible ASCII/],
    [['--host='], /--host needs an address/],
    [['--verbose'], /unknown argument --verbose/],
    [['extra'], /unexpected argument extra/],
  ] as const)
    test(`refuses ${args.join(' ')}`, () => {
      expect(() => parseServeFlags(args)).toThrow(UsageError);
      expect(() => parseServeFlags(args)).toThrow(message);
    });

  test('the banner says how each variable of the suite points at it, the token once, quoted for the shell', () => {
    const banner = serveBanner('http://127.0.0.1:4010', "it's", true);
    expect(banner).toContain('  export API_BASE_URL=http://127.0.0.1:4010\n');
    expect(banner).toContain(`  export API_TOKEN='it'\\''s'   # drawn for this start`);
    expect(banner.split("it'\\''s").length).toBe(2);
    expect(banner).toContain(`  export COUNTERPARTY_REF=${REFERENCE_COUNTERPARTY}\n`);
    expect(banner).toMatch(
      new RegExp(`^ {2}export WRITABLE_COUNTERPARTY_REF=${WRITABLE_COUNTERPARTY} `, 'm'),
    );
    expect(banner).toMatch(/^ {2}export ACCOUNT_FIXTURE='\{"accountIdentifier":/m);
    expect(serveBanner('http://127.0.0.1:4010', 'tok', false)).not.toContain('drawn for this start');
  });
});

test.describe('the command', () => {
  test('prints its URL and a token drawn for the start, answers that token only, and stops on SIGTERM with exit 0', async () => {
    const first = await serve('--port', '0');
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(first.token).toMatch(/^[0-9a-f]{32}$/);
    expect(first.banner.split(first.token).length).toBe(2); // printed once
    expect(await status(first.url, `Bearer ${first.token}`)).toBe(200);
    expect(await status(first.url)).toBe(401);
    expect(await status(first.url, 'Bearer reference-token')).toBe(401);
    // Another start draws another token.
    const second = await serve('--port', '0');
    expect(second.token).not.toBe(first.token);
    const [a, b] = await Promise.all([first.stop('SIGTERM'), second.stop('SIGINT')]);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toContain('serve: SIGTERM, stopped');
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toContain('serve: SIGINT, stopped');
    expect(a.stderr + b.stderr).toBe('');
    await expect(status(first.url, `Bearer ${first.token}`)).rejects.toThrow();
  });

  test('--token is the token it accepts; a port in use is exit 2 with one line', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    try {
      const r = await runNode(
        [COMMAND, 'serve', '--port', String(port)],
        {},
        temporaryDirectory('payflow-serve-'),
      );
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `conformance: port ${port} of 127.0.0.1 is in use (--port chooses another; 0: a free one)\n`,
      );
    } finally {
      busy.close();
    }
    const chosen = await serve('--port', '0', '--token', 'my-token-1');
    try {
      expect(chosen.token).toBe('my-token-1');
      expect(chosen.banner).not.toContain('drawn for this start');
      expect(await status(chosen.url, 'Bearer my-token-1')).toBe(200);
    } finally {
      expect((await chosen.stop()).code).toBe(0);
    }
    const bad = await runNode([COMMAND, 'serve', '--port', 'x'], {}, temporaryDirectory('payflow-serve-'));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("conformance: --port must be a whole number from 0 to 65535, not 'x'\n");
  });

  test('a read-only run of the CLI against it passes, and the HAR that run recorded validates', async () => {
    test.setTimeout(300_000);
    const served = await serve('--port', '0');
    try {
      const run = await runCli(targetEnv(served.url, served.token, false), {
        args: [
          '--probe',
          'known-counterparty',
          '--probe',
          'invalid-references',
          '--probe',
          'reads-require-authentication',
        ],
      });
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toContain(`target ${served.url}, read-only,`);
      const record = readJson(join(run.reports, 'conformance.json')) as ConformanceRecord;
      expect(record.verdict).toBe('pass');
      const validated = await runNode(
        tsx('bin/validate.ts', join(run.reports, 'exchanges.har'), '--reports-dir', 'validated'),
        {},
        run.work,
      );
      expect(validated.code, validated.stdout + validated.stderr).toBe(0);
      const judged = readJson(join(run.work, 'validated', 'conformance.json')) as ConformanceRecord;
      // A HAR holds the traffic, not the probes' own judgements: what only a probe judges is not
      // exercised, and the verdict says so (exit 0 all the same).
      expect(judged.verdict).toBe('pass-unexercised');
      expect(judged.traffic?.kind).toBe('har');
    } finally {
      expect((await served.stop('SIGINT')).code).toBe(0);
    }
  });
});
