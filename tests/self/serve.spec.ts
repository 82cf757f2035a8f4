/**
 * `payflow-conformance serve` (bin/serve.ts): the reference server alone. Its flags and banner
 * directly; then the command itself: it prints its URL and a token drawn for the start, answers
 * with that token only, stops cleanly on SIGTERM and SIGINT (exit 0, the port closed), refuses a
 * port in use and bad flags (exit 2); a read-only run of the CLI against it passes, and the HAR
 * that run recorded validates. (The installed package does the same in pack.spec.ts.)
 *
 * One process of the command (its token drawn) serves the read-only run, is refused its own port
 * by a second start (exit 2, one line) and stops on SIGTERM. The run is narrowed to one probe (the
 * point is the server, not the suite), and the HAR it recorded is judged in-process by the
 * functions `validate` calls (cli-fixtures.ts validateInProcess; `validate` of a run's
 * exchanges.har as a process: cli.spec.ts). That another start draws another token and that
 * --token is the token it accepts are shown by startServing, with which the command starts the
 * server; a bad --port by parseServeFlags, refused as a port in use is (exit 2, its line). SIGINT
 * stops it as SIGTERM does (the same handler): pack.spec.ts stops the installed `serve` with
 * SIGINT and expects exit 0. Some 1 s of CPU a process of the command.
 */
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { DEFAULT_SERVE_PORT, parseServeFlags, serveBanner, startServing } from '../../bin/serve.ts';
import { UsageError } from '../../bin/args.ts';
import type { ConformanceRecord } from '../../reporter/record.ts';
import { REFERENCE_COUNTERPARTY, WRITABLE_COUNTERPARTY } from '../../servers/reference.ts';
import { EMBEDDED_TARGET } from '../../config/embedded.ts';
import { itemFixturesJson } from '../../generators/item-fixtures.ts';
import {
  readJson,
  removeTemporaryDirectories,
  ROOT,
  runCli,
  runNode,
  targetEnv,
  temporaryDirectory,
  validateInProcess,
  type ProcessRun,
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
    [['--port', 'x'], /^--port must be a whole number from 0 to 65535, not 'x'$/],
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
    // The bills, mandates and collections it holds and accepts, as the embedded run gets them.
    const items = /^ {2}export ITEM_FIXTURES='(.*)'$/m.exec(banner)?.[1];
    expect(JSON.parse(items!)).toEqual(JSON.parse(itemFixturesJson(EMBEDDED_TARGET.itemFixtures!)));
    expect(serveBanner('http://127.0.0.1:4010', 'tok', false)).not.toContain('drawn for this start');
  });
});

test('each start draws another token, and --token is the token it accepts', async () => {
  // As the command starts the server (serveCommand: startServing(parseServeFlags(args))).
  const starts = [
    await startServing({ port: 0, host: '127.0.0.1' }),
    await startServing({ port: 0, host: '127.0.0.1' }),
    await startServing(parseServeFlags(['--port', '0', '--token', 'my-token-1'])),
  ];
  try {
    const [a, b, chosen] = starts;
    expect(a!.token).toMatch(/^[0-9a-f]{32}$/);
    expect(b!.token).toMatch(/^[0-9a-f]{32}$/);
    expect(b!.token).not.toBe(a!.token);
    expect([a!.tokenDrawn, b!.tokenDrawn]).toEqual([true, true]);
    expect(await status(b!.url, `Bearer ${b!.token}`)).toBe(200);
    expect(await status(b!.url, `Bearer ${a!.token}`)).toBe(401);
    expect(chosen!.token).toBe('my-token-1');
    expect(chosen!.tokenDrawn).toBe(false);
    expect(serveBanner(chosen!.url, chosen!.token, chosen!.tokenDrawn)).not.toContain('drawn for this start');
    expect(await status(chosen!.url, 'Bearer my-token-1')).toBe(200);
    expect(await status(chosen!.url)).toBe(401);
  } finally {
    await Promise.all(starts.map((s) => s.server.stop()));
  }
});

test.describe('the command', () => {
  // One process for the tests below, in order: the read-only run against it, a start on its
  // port refused, then SIGTERM.
  test.describe.configure({ mode: 'default' });
  let drawn: Serving;
  let stopped: ProcessRun | undefined;
  test.beforeAll(async () => {
    drawn = await serve('--port', '0');
  });
  test.afterAll(async () => {
    if (stopped === undefined) await drawn?.stop('SIGKILL');
  });

  test('prints its URL and a token drawn for the start, and answers that token only', async () => {
    expect(drawn.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(drawn.token).toMatch(/^[0-9a-f]{32}$/);
    expect(drawn.banner.split(drawn.token).length).toBe(2); // printed once
    expect(drawn.banner).toContain('drawn for this start');
    expect(await status(drawn.url, `Bearer ${drawn.token}`)).toBe(200);
    expect(await status(drawn.url)).toBe(401);
    expect(await status(drawn.url, 'Bearer reference-token')).toBe(401);
  });

  test('a read-only run of the CLI against it passes, and the HAR that run recorded validates', async () => {
    test.setTimeout(300_000);
    const run = await runCli(targetEnv(drawn.url, drawn.token, false), {
      args: ['--probe', 'known-counterparty'],
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(`target ${drawn.url} (API_BASE_URL from the environment), read-only,`);
    const record = readJson(join(run.reports, 'conformance.json')) as ConformanceRecord;
    expect(record.verdict).toBe('pass');
    const validated = await validateInProcess([join(run.reports, 'exchanges.har')], {}, run.work);
    expect(validated.code, validated.line ?? validated.summary).toBe(0);
    // A HAR holds the traffic, not the probes' own judgements: what only a probe judges is not
    // exercised, and the verdict says so (exit 0 all the same).
    expect(validated.record!.verdict).toBe('pass-unexercised');
    expect(validated.record!.traffic?.kind).toBe('har');
  });

  test('a port in use is exit 2 with one line', async () => {
    const port = new URL(drawn.url).port;
    const r = await runNode([COMMAND, 'serve', '--port', port], {}, temporaryDirectory('payflow-serve-'));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `conformance: port ${port} of 127.0.0.1 is in use (--port chooses another; 0: a free one)\n`,
    );
  });

  test('stops on SIGTERM with exit 0, its port closed', async () => {
    stopped = await drawn.stop('SIGTERM');
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stdout).toContain('serve: SIGTERM, stopped');
    expect(stopped.stderr).toBe('');
    await expect(status(drawn.url, `Bearer ${drawn.token}`)).rejects.toThrow();
  });
});
