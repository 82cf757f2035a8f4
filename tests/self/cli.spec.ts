/**
 * `npm run conformance` end to end: exit 0 on the reference server (the whole suite, writing,
 * started as the npm script starts it) and `npm run validate` of the exchanges.har that run wrote
 * giving the run's verdicts, 1 on a faulty one (naming the requirement), 2 with one line when the
 * target cannot be reached; and, in this process, what a configuration error, the .env of the
 * directory the run starts in and a read-only run come to.
 *
 * The whole suite runs once here (a beforeAll shared by the two tests of the embedded server):
 * validate.spec.ts ran it a second time, with the same settings, for its exchanges.har.
 *
 * The configuration errors and the .env are the command's own parsing and resolution called here
 * (resolveAsCli: bin/conformance.ts parseRunArgs, run/resolve.ts resolveRun); the read-only and
 * the write run are that resolution handed down and run as the workers run it
 * (suite-runner.ts runResolved), the read-only one over every probe. Through the CLI elsewhere:
 * a ConfigError as exit 2 with one line and nothing sent, cli-config.spec.ts "an empty query in
 * API_BASE_URL (through the CLI)"; a UsageError, selection-cli.spec.ts "an unknown or missing
 * value"; the .env of the directory a run starts in read and the workers sending only GET in a
 * read-only run, cli-config.spec.ts "a run started in another directory"; a write run exercising
 * every PATCH requirement, the first test here.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { GALLERY } from '../../servers/gallery/index.ts';
import {
  REFERENCE_COUNTERPARTY,
  REFERENCE_TOKEN,
  ReferenceServer,
  WRITABLE_COUNTERPARTY,
} from '../../servers/reference.ts';
import { requirement } from '../../spec/requirements.ts';
import { ORACLES } from '../../oracles/index.ts';
import { recordErrors } from '../../reporter/record-schema.ts';
import type { ConformanceRecord } from '../../reporter/record.ts';
import { resolveSelection } from '../../config/selection.ts';
import { SELECTABLE } from '../../probes/index.ts';
import { UsageError } from '../../bin/args.ts';
import { ConfigError } from '../../config/error.ts';
import {
  nodeTs,
  recordingProxy,
  removeTemporaryDirectories,
  resolveAsCli,
  RUN_SETTINGS,
  runCli,
  runNode,
  targetEnv,
  temporaryDirectory,
  type CliRun,
  type ProcessRun,
} from './cli-fixtures.ts';
import { runResolved } from './suite-runner.ts';
import { VirtualClock } from './fake-clock.ts';

test.afterAll(removeTemporaryDirectories);

/** The CLI in a temporary directory (seed 7, 15 cases per property, no rate limit); `dotenv` is written there as .env. */
function conformance(
  env: Record<string, string | undefined>,
  dotenv?: string,
  args: string[] = [],
  viaTsx = false,
): Promise<CliRun> {
  return runCli(env, {
    args,
    viaTsx,
    ...(dotenv === undefined ? {} : { setup: (work: string) => writeFileSync(join(work, '.env'), dotenv) }),
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

/** `npm run validate -- <har>` as a process, in a directory of its own, and the record it wrote. */
async function validateHar(har: string): Promise<ProcessRun & { record: ConformanceRecord | undefined }> {
  const work = temporaryDirectory('payflow-validate-');
  const reports = join(work, 'reports');
  const run = await runNode(nodeTs('bin/validate.ts', har), { CONFORMANCE_REPORTS_DIR: reports }, work);
  const json = join(reports, 'conformance.json');
  const record = existsSync(json) ? (JSON.parse(readFileSync(json, 'utf8')) as ConformanceRecord) : undefined;
  return { ...run, record };
}

const ORACLE_JUDGED = new Set<string>(ORACLES.flatMap((o) => o.requirements));

test.describe('the whole suite against the embedded reference server', () => {
  // One run for both tests (about 10 s of CPU: the CLI, Playwright's runner and a worker loading
  // the whole suite): its exit status and report, and `validate` of the exchanges.har it wrote.
  test.describe.configure({ mode: 'default' });
  let run: CliRun;
  test.beforeAll(async () => {
    // Started as `npm run conformance` starts it (tsx's command); the other CLI tests use tsx's
    // loader. No target configured: the embedded server; the settings are RUN_SETTINGS (seed 7,
    // 15 cases per property, no rate limit, one worker), the settings validate.spec.ts's run of
    // the whole suite had for its exchanges.har (runCli under tsx's loader, the same environment).
    run = await conformance({}, undefined, [], true);
  });

  test('exits 0 against the embedded reference server and writes the report', () => {
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('seed 7');
    expect(run.stdout).toContain('Conformance PASSED');
    const record = JSON.parse(readFileSync(join(run.reports, 'conformance.json'), 'utf8'));
    expect(record.verdict).toBe('pass');
    expect(record.seed).toBe(7);
    // The embedded server is throwaway: its runs write, so every requirement is judged.
    expect(record.mode).toBe('write');
    // The write checks handed their changes on to one another; the run's end put the writable
    // counterparty's original details back, once (engine/baseline.ts), and says so.
    expect(record.restore).toEqual({
      status: 'restored',
      details: [
        expect.stringMatching(
          /^restored the run's original .+ at the end of the run \(changed last by [a-z-]+\)$/,
        ),
      ],
    });
    expect(run.stdout).toContain('Writable counterparty restored at the end of the run: restored the run');
    // Once: global teardown says it only where no conformance reporter does (a shard).
    expect(run.stdout).not.toContain('Writable counterparty restored: ');
    // That restore is in exchanges.har, its last request: the file lists every request the run sent.
    const entries = JSON.parse(readFileSync(join(run.reports, 'exchanges.har'), 'utf8')).log.entries as {
      request: { method: string };
      _probe?: string;
      _role?: string;
    }[];
    expect(entries.length).toBe(record.requests);
    const last = entries.at(-1)!;
    expect([last.request.method, last._probe, last._role]).toEqual(['PATCH', 'recovery', 'restore']);
    const notPassed = (record.requirements as { id: string; status: string }[])
      .filter((v) => v.status !== 'passed')
      .map((v) => `${v.id}: ${v.status}`);
    expect(notPassed).toEqual([]);
  });

  // Moved here from validate.spec.ts, which ran the whole suite a second time for it. That run's
  // exchanges.har read by `npm run validate` as a process: every requirement only oracles judge
  // gets the run's verdict; one a probe judges too gets the run's verdict wherever the run's
  // findings are the oracles'; the probe-only ones are not exercised; the exchanges per operation
  // are the run's. The whole suite: every operation, every kind of exchange the suite sends, in
  // the file the reporter writes. (A faulty variant's narrowed run: validate.spec.ts.)
  test("the suite's own exchanges.har gets the run's verdicts for every requirement an oracle judges", async () => {
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const har = join(run.reports, 'exchanges.har');
    const suite = JSON.parse(
      readFileSync(join(run.reports, 'conformance.json'), 'utf8'),
    ) as ConformanceRecord;
    expect(recordErrors(suite)).toEqual([]);
    expect(suite.coverage!.operations.every((o) => o.exchanges > 0)).toBe(true);
    expect(readFileSync(har, 'utf8')).not.toContain(REFERENCE_TOKEN);
    const v = await validateHar(har);
    expect(v.code, v.stdout + v.stderr).toBe(run.code);
    expect(v.record!.traffic!.exchanges).toBe(suite.requests);
    const status = (id: string) => v.record!.requirements.find((r) => r.id === id)?.status;
    for (const r of suite.requirements) {
      const got = status(r.id);
      const byOracles = r.findings.every((f) => r.oracles.includes(f.judgedBy));
      if (!ORACLE_JUDGED.has(r.id)) expect(`${r.id}: ${got}`).toBe(`${r.id}: not-exercised`);
      else if (byOracles) expect(`${r.id}: ${got}`).toBe(`${r.id}: ${r.status}`);
    }
    // The same exchanges per operation.
    expect(v.record!.coverage!.operations).toEqual(suite.coverage!.operations);
  });
});

test('exits 1 against a faulty server and names the broken MUST requirement', async () => {
  const variant = GALLERY.find((v) => v.trips.some((id) => requirement(id).level === 'MUST'))!;
  const server = variant.create();
  const baseURL = await server.start(0);
  try {
    // The requirements the variant breaks, as a user narrowing a failure selects them
    // (--requirement), and of the probes that judge them the first: the same exit status and
    // summary line at a fraction of a whole failing run, where every failed probe but the last
    // costs a new Playwright worker. The whole suite through the CLI is the test above (a pass)
    // and report.spec.ts's strict run against a faulty server.
    const [probe] = resolveSelection({ requirements: variant.trips }, SELECTABLE)!.probes;
    const r = await conformance(
      {
        API_BASE_URL: baseURL,
        API_TOKEN: REFERENCE_TOKEN,
        COUNTERPARTY_REF: REFERENCE_COUNTERPARTY,
        WRITABLE_COUNTERPARTY_REF: WRITABLE_COUNTERPARTY,
      },
      undefined,
      [...variant.trips.flatMap((id) => ['--requirement', id]), '--probe', probe!],
    );
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain('Conformance FAILED');
    for (const id of variant.trips) expect(r.stdout).toContain(id);
    expect(r.stdout).not.toContain(REFERENCE_TOKEN);
  } finally {
    await server.stop();
  }
});

/** What the command resolving `args` over `env` in `dir` threw: the one line it prints, exit 2. */
async function configurationError(
  args: string[],
  env: Record<string, string | undefined>,
  dir = temporaryDirectory('payflow-config-'),
): Promise<Error> {
  try {
    await resolveAsCli(args, env, dir);
  } catch (error) {
    expect(error instanceof ConfigError || error instanceof UsageError, String(error)).toBe(true);
    expect((error as Error).message).not.toContain('\n');
    return error as Error;
  }
  throw new Error(`no configuration error for ${args.join(' ')}`);
}

const configErrors: [string, Record<string, string>, RegExp][] = [
  ['missing token', { API_BASE_URL: 'http://127.0.0.1:9', COUNTERPARTY_REF: 'abc' }, /API_TOKEN is required/],
  [
    'malformed URL',
    { API_BASE_URL: 'http//nowhere', API_TOKEN: 't', COUNTERPARTY_REF: 'abc' },
    /API_BASE_URL/,
  ],
  ['bad run count', { CONFORMANCE_RUNS: 'many' }, /CONFORMANCE_RUNS/],
  ['unknown argument', {}, /unknown argument/],
];
// In this process (the resolution the CLI runs first); exit 2 with the line, through the CLI, is
// cli-config.spec.ts's and selection-cli.spec.ts's (the doc comment above).
for (const [name, env, message] of configErrors) {
  test(`one line (exit 2) on a configuration error: ${name}`, async () => {
    const error = await configurationError(name === 'unknown argument' ? ['--bogus'] : [], env);
    expect(error.message).toMatch(message);
  });
}

test('exits 2 when the target cannot be reached', async () => {
  const server = createServer();
  const url = await listen(server);
  await new Promise((resolve) => server.close(resolve)); // the port is now closed
  const r = await conformance({ API_BASE_URL: url, API_TOKEN: 't', COUNTERPARTY_REF: 'abc' });
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/cannot reach API_BASE_URL/);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
});

test('reads .env from the directory the run starts in; the real environment wins', async () => {
  // The CLI's resolution over that directory; that the CLI reads the .env of the directory it was
  // started from is cli-config.spec.ts's run started in another directory.
  const dir = temporaryDirectory('payflow-dotenv-');
  writeFileSync(join(dir, '.env'), 'CONFORMANCE_RUNS=not-a-number\n');
  const fromFile = await configurationError([], {}, dir);
  expect(fromFile.message).toMatch(/CONFORMANCE_RUNS must be a whole number, got 'not-a-number'/);
  const fromEnv = await configurationError([], { CONFORMANCE_RUNS: 'from-env' }, dir);
  expect(fromEnv.message).toMatch(/got 'from-env'/);
});

test('a read-only run sends nothing but GET; a write run does send writes', async () => {
  // Every probe read-only, and the probes that send PATCH, POST and DELETE writing, resolved as
  // the CLI resolves them and run as its workers run them; through the CLI, a read-only run with a
  // write probe selected sends only GET in cli-config.spec.ts, and the first test here writes.
  const clock = new VirtualClock();
  const reference = new ReferenceServer({ now: () => new Date(clock.now()) });
  const proxy = await recordingProxy(await reference.start(0));
  const dir = temporaryDirectory('payflow-modes-');
  try {
    const env = { ...RUN_SETTINGS, ...targetEnv(proxy.url, REFERENCE_TOKEN, false) };
    const readOnly = await runResolved(await resolveAsCli([], env, dir), { clock });
    expect(readOnly.incomplete).toEqual([]);
    expect(readOnly.requests).toBeGreaterThan(100);
    expect([...proxy.methods]).toEqual(['GET']);
    // The PATCH requirements are reported as skipped, with the reason.
    const patch = readOnly.verdicts.filter((v) => v.id.startsWith('patch-'));
    expect(patch.length).toBeGreaterThan(5);
    for (const v of patch) {
      expect(v.status, v.id).toBe('not-exercised');
      expect(v.reasons.join(' '), v.id).toMatch(/read-only run: set WRITABLE_COUNTERPARTY_REF/);
    }
    proxy.methods.clear();
    const writing = await runResolved(
      await resolveAsCli(
        ['--probe', 'patch-valid-details', '--probe', 'writes-require-authentication'],
        { ...env, WRITABLE_COUNTERPARTY_REF: WRITABLE_COUNTERPARTY },
        dir,
      ),
      { clock },
    );
    expect(writing.incomplete).toEqual([]);
    expect(writing.tripped).toEqual([]);
    expect([...proxy.methods].sort()).toEqual(expect.arrayContaining(['GET', 'PATCH', 'POST', 'DELETE']));
  } finally {
    await proxy.close();
    await reference.stop();
  }
});
