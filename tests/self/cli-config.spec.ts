/**
 * `npm run conformance` whatever the user's setup: one configuration, resolved once in the
 * process the user started (flags, then the environment, then the .env of the directory the run
 * was started from; an empty value counts as set) and obeyed by every Playwright process, which
 * reads no .env of its own; relative paths against the directory the run was started from; the
 * start-up reachability check; the reports directory taken before the first request; and
 * `--probe`.
 *
 * Through the CLI: one run started in another directory (its .env read, the project's not, an
 * empty value beating the .env, relative paths, the workers sending only GET though a write
 * probe was selected), which serves three tests; the Playwright runner started directly; one
 * configuration error (exit 2, one line, nothing sent); and two runs sharing a reports directory.
 * What one setting, flag or input does is the CLI's own resolution (resolveAsCli: bin/conformance.ts
 * parseRunArgs and run/resolve.ts resolveRun), the reachability check (bin/preflight.ts) and the
 * lock (bin/reports-lock.ts) called in this process, and, for ACCOUNT_FIXTURE, the resolved run
 * handed down and run as a worker runs it (suite-runner.ts runResolved). That a reachability
 * failure is exit 2 is cli.spec.ts's unreachable target; a finding's replay command is
 * selection-cli.spec.ts's replay test.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ConfigError } from '../../config/error.ts';
import { PROBES } from '../../probes/index.ts';
import {
  REFERENCE_COUNTERPARTY,
  REFERENCE_TOKEN,
  ReferenceServer,
  WRITABLE_COUNTERPARTY,
} from '../../servers/reference.ts';
import { LOCK_FILE, lockReportsDir } from '../../bin/reports-lock.ts';
import { preflight, type PreflightTarget } from '../../bin/preflight.ts';
import { parseRunArgs, runUsage } from '../../bin/conformance.ts';
import { UsageError } from '../../bin/args.ts';
import type { ConformanceRecord } from '../../reporter/record.ts';
import {
  playwrightCli,
  projectCopy,
  recordingProxy,
  removeTemporaryDirectories,
  resolveAsCli,
  RUN_SETTINGS,
  runCli,
  runNode,
  targetEnv,
  temporaryDirectory,
  type CliRun,
} from './cli-fixtures.ts';
import { runResolved } from './suite-runner.ts';
import { VirtualClock } from './fake-clock.ts';
import { forward } from '../../servers/forward.ts';

test.describe.configure({ mode: 'default' });
test.afterAll(() => removeTemporaryDirectories());

type Proxy = Awaited<ReturnType<typeof recordingProxy>>;

/**
 * A reference server behind a recording proxy, for the length of `fn`; on `clock`'s time, when the
 * suite runs in this process on it (runResolved).
 */
async function withTarget<T>(fn: (proxy: Proxy) => Promise<T>, clock?: VirtualClock): Promise<T> {
  const reference = new ReferenceServer(clock ? { now: () => new Date(clock.now()) } : {});
  const proxy = await recordingProxy(await reference.start(0));
  try {
    return await fn(proxy);
  } finally {
    await proxy.close();
    await reference.stop();
  }
}

function record(reports: string): ConformanceRecord {
  return JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as ConformanceRecord;
}

function firstLine(r: CliRun): string {
  return r.stdout.split('\n')[0] ?? '';
}

/** What `fn` threw (or rejected with); undefined when it did not. */
async function thrown(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

function thrownSync(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** A ConfigError of one line: what the CLI prints, with exit 2. */
function expectOneLineConfigError(error: unknown, message: RegExp): void {
  expect(error, String(error)).toBeInstanceOf(ConfigError);
  expect((error as Error).message).toMatch(message);
  expect((error as Error).message).not.toContain('\n');
}

/** Exit 2 with one line on stderr, and no stack trace. */
function expectOneLineError(r: CliRun, message: RegExp): void {
  expect(r.code, r.stdout + r.stderr).toBe(2);
  expect(r.stderr).toMatch(message);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).not.toMatch(/^\s+at /m);
}

/** An account fixture whose identifier no generator uses: recognisable in any request body that carries it. */
const FIXTURE_IBAN = 'GB29NWBK60161331926819';
const FIXTURE = { accountIdentifier: { type: 'IBAN', value: FIXTURE_IBAN } };

/**
 * A read probe with many requests and a write probe, for the runs whose point is which settings
 * won (a whole run would prove no more, at several times the cost).
 */
const READ_AND_WRITE_PROBES = ['--probe', 'invalid-references', '--probe', 'patch-valid-details'];

test.describe('one configuration, resolved once', () => {
  // One run serves the three tests of this describe: started in another directory, whose .env
  // names the target and a writable counterparty, with relative paths; the project's own .env
  // (where Playwright runs) names a writable counterparty and a five-request cap; the
  // environment sets WRITABLE_COUNTERPARTY_REF empty. A read probe with many requests and a write
  // probe: were either .env read by a Playwright process, the write probe would PATCH.
  test.describe('a run started in another directory', () => {
    let run: CliRun;
    let url: string;
    let methods: string[];
    let requests: number;
    let elsewhere: string;

    test.beforeAll(async () => {
      const project = projectCopy();
      writeFileSync(
        join(project, '.env'),
        `WRITABLE_COUNTERPARTY_REF=${WRITABLE_COUNTERPARTY}\nCONFORMANCE_MAX_REQUESTS=5\n`,
      );
      elsewhere = temporaryDirectory('payflow-elsewhere-');
      mkdirSync(join(elsewhere, 'ci'));
      writeFileSync(
        join(elsewhere, 'ci', 'waivers.yaml'),
        'waivers:\n  - requirement: reference-invalid-400\n    reason: a waiver this run does not need\n    expires: 2099-12-31\n',
      );
      await withTarget(async (proxy) => {
        url = proxy.url;
        writeFileSync(
          join(elsewhere, '.env'),
          [
            `API_BASE_URL=${proxy.url}`,
            `API_TOKEN=${REFERENCE_TOKEN}`,
            `COUNTERPARTY_REF=${REFERENCE_COUNTERPARTY}`,
            `WRITABLE_COUNTERPARTY_REF=${WRITABLE_COUNTERPARTY}`,
            'CONFORMANCE_WAIVERS=ci/waivers.yaml',
            'CONFORMANCE_REPORTS_DIR=out/reports',
            '',
          ].join('\n'),
        );
        run = await runCli(
          {
            WRITABLE_COUNTERPARTY_REF: '',
            CONFORMANCE_REPORTS_DIR: undefined,
            CONFORMANCE_RESULTS_DIR: undefined,
          },
          { project, cwd: elsewhere, args: READ_AND_WRITE_PROBES },
        );
        methods = [...proxy.methods];
        requests = proxy.requests.length;
      });
    });

    test("that directory's .env names the target, the project's .env is not read", () => {
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(firstLine(run)).toContain(
        `target ${url} (API_BASE_URL from ${join(elsewhere, '.env')}), read-only`,
      );
      expect(firstLine(run)).toContain(`.env read: ${join(elsewhere, '.env')}`);
      // Not the project's five-request cap.
      expect(requests).toBeGreaterThan(50);
      expect(run.stdout).toContain('(at most 25000, CONFORMANCE_MAX_REQUESTS)');
    });

    test('an empty WRITABLE_COUNTERPARTY_REF in the environment beats the .env: the CLI resolves read-only, its workers send only GET', () => {
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(firstLine(run)).toContain('read-only');
      expect(methods).toEqual(['GET']);
      const rec = record(join(elsewhere, 'out', 'reports'));
      expect(rec.mode).toBe('read-only');
      expect(rec.probes.find((p) => p.probe === 'patch-valid-details')!.status).toBe('skipped');
      // Its MUST requirements not exercised, the gate passes (no --require-exercised).
      expect(rec.verdict).toBe('pass-unexercised');
    });

    test('relative paths (CONFORMANCE_WAIVERS, CONFORMANCE_REPORTS_DIR) resolve against the directory the run was started from', () => {
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const rec = record(join(elsewhere, 'out', 'reports'));
      expect(rec.waivers.file).toBe(join('ci', 'waivers.yaml'));
      expect(rec.waivers.entries.map((w) => w.status)).toEqual(['stale']);
      expect(run.stdout).toContain(`Reports: ${join('out', 'reports', 'conformance.html')}`);
    });
  });

  // ACCOUNT_FIXTURE, resolved as the CLI resolves it and run as its workers run it (the run handed
  // down and read back, suite-runner.ts runResolved): that the CLI process resolves once and its
  // workers obey the result is the run above; what the variable's value does is these.
  test("an empty ACCOUNT_FIXTURE in the environment beats the .env's: no account is sent", async () => {
    const dir = temporaryDirectory('payflow-fixture-');
    writeFileSync(join(dir, '.env'), `ACCOUNT_FIXTURE=${JSON.stringify(FIXTURE)}\n`);
    const clock = new VirtualClock();
    await withTarget(async (proxy) => {
      const run = await resolveAsCli(
        ['--probe', 'patch-valid-accounts', '--probe', 'patch-valid-details'],
        { ...RUN_SETTINGS, ...targetEnv(proxy.url, REFERENCE_TOKEN, true), ACCOUNT_FIXTURE: '' },
        dir,
      );
      expect(run.config.writableRef).toBe(WRITABLE_COUNTERPARTY);
      expect(run.config.accountFixture).toBeUndefined();
      const suite = await runResolved(run, { clock });
      expect(proxy.methods).toContain('PATCH');
      expect(proxy.requests.filter((q) => q.body.includes(FIXTURE_IBAN))).toEqual([]);
      const appended = suite.verdicts.find((v) => v.id === 'patch-accounts-appended')!;
      expect(appended.status).toBe('not-exercised');
      expect(appended.reasons.join(' ')).toMatch(/ACCOUNT_FIXTURE is not set/);
    }, clock);
  });

  test('a relative ACCOUNT_FIXTURE is read from the directory the run was started from, and its account sent', async () => {
    const elsewhere = temporaryDirectory('payflow-elsewhere-');
    mkdirSync(join(elsewhere, 'fixtures'));
    writeFileSync(join(elsewhere, 'fixtures', 'account.json'), JSON.stringify(FIXTURE));
    const clock = new VirtualClock();
    await withTarget(async (proxy) => {
      const run = await resolveAsCli(
        ['--probe', 'patch-valid-accounts'],
        {
          ...RUN_SETTINGS,
          ...targetEnv(proxy.url, REFERENCE_TOKEN, true),
          ACCOUNT_FIXTURE: 'fixtures/account.json',
        },
        elsewhere,
      );
      expect(run.config.accountFixture).toEqual(FIXTURE);
      const suite = await runResolved(run, { clock });
      expect(suite.verdicts.find((v) => v.id === 'patch-accounts-appended')!.status).toBe('passed');
      expect(proxy.requests.some((q) => q.method === 'PATCH' && q.body.includes(FIXTURE_IBAN))).toBe(true);
    }, clock);
  });

  test('a relative ACCOUNT_FIXTURE missing from the directory the run was started from: a one-line configuration error', async () => {
    // Resolution fails before anything is sent; the CLI's exit 2 with that line, and nothing
    // sent, are the first of the configuration errors below, through the CLI.
    const elsewhere = temporaryDirectory('payflow-elsewhere-');
    const error = await thrown(() =>
      resolveAsCli(
        [],
        { ...targetEnv('http://127.0.0.1:9', REFERENCE_TOKEN), ACCOUNT_FIXTURE: 'fixtures/missing.json' },
        elsewhere,
      ),
    );
    expectOneLineConfigError(
      error,
      /ACCOUNT_FIXTURE: cannot read the file 'fixtures\/missing.json' \(ENOENT\)/,
    );
  });

  test('run directly (npm run conformance:shard), the runner resolves the configuration once and its workers read no .env', async () => {
    const project = projectCopy();
    writeFileSync(join(project, '.env'), `WRITABLE_COUNTERPARTY_REF=${WRITABLE_COUNTERPARTY}\n`);
    const results = temporaryDirectory('payflow-results-');
    await withTarget(async (proxy) => {
      const r = await runNode(
        // A read probe and a write probe, as Playwright selects tests: were the project's .env
        // read by a worker, the write probe would PATCH.
        playwrightCli(
          'test',
          '--config',
          join(project, 'playwright.config.ts'),
          '--reporter=list',
          '--grep',
          '(invalid-references|patch-valid-details): ',
        ),
        {
          ...targetEnv(proxy.url, REFERENCE_TOKEN, false),
          ...RUN_SETTINGS,
          WRITABLE_COUNTERPARTY_REF: '',
          CONFORMANCE_RESULTS_DIR: results,
        },
        project,
      );
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(proxy.requests.length).toBeGreaterThan(50);
      expect([...proxy.methods]).toEqual(['GET']);
    });
  });
});

test.describe('configuration errors: exit 2, one line, nothing sent', () => {
  const cases: [string, (url: string) => Record<string, string>, RegExp, string?][] = [
    ['an empty query in API_BASE_URL', (url) => ({ API_BASE_URL: `${url}/?` }), /query or fragment/],
    ['an empty fragment in API_BASE_URL', (url) => ({ API_BASE_URL: `${url}#` }), /query or fragment/],
    ['a query in API_BASE_URL', (url) => ({ API_BASE_URL: `${url}/?key=k3y` }), /query or fragment/, 'k3y'],
    [
      'a control character in the token',
      () => ({ API_TOKEN: 'tok-\u0001-abcdef' }),
      /API_TOKEN cannot be sent in an HTTP header: its character 5 is a control character/,
    ],
    [
      'a non-ASCII character in the token',
      () => ({ API_TOKEN: 'tok-\u00e9-abcdef' }),
      /API_TOKEN cannot be sent in an HTTP header: its character 5 is a non-ASCII character/,
      'abcdef',
    ],
    [
      'credentials in API_BASE_URL',
      (url) => ({ API_BASE_URL: url.replace('//', '//user:s3cret@') }),
      /must not carry credentials/,
      's3cret',
    ],
    [
      'credentials in a malformed API_BASE_URL',
      (url) => ({ API_BASE_URL: url.replace('://', '//user:s3cret@') }),
      /API_BASE_URL is not a valid URL: '\*\*\*@127\.0\.0\.1/,
      's3cret',
    ],
    [
      'credentials in an API_BASE_URL of another scheme',
      (url) => ({ API_BASE_URL: url.replace('http://', 'ftp://user:s3cret@') }),
      /must be an http:\/\/ or https:\/\/ URL, got 'ftp:\/\/\*\*\*@127/,
      's3cret',
    ],
  ];
  // Through the CLI for the first (exit 2, one line, nothing sent: the path every case takes, a
  // ConfigError of the resolution turned into the command's one line); the rest are the same
  // resolution (run/resolve.ts, as the CLI calls it: resolveAsCli) called directly, each a
  // fraction of a CLI process's cost.
  cases.forEach(([name, env, message, secret], index) => {
    if (index === 0) {
      test(`${name} (through the CLI)`, async () => {
        const target = await recordingProxy('');
        try {
          const r = await runCli({ ...targetEnv(target.url, REFERENCE_TOKEN), ...env(target.url) });
          expectOneLineError(r, message);
          if (secret !== undefined) expect(r.stdout + r.stderr).not.toContain(secret);
          expect(target.arrivals).toEqual([]);
        } finally {
          await target.close();
        }
      });
      return;
    }
    test(name, async () => {
      const url = 'http://127.0.0.1:9';
      const error = await thrown(() =>
        resolveAsCli(
          [],
          { ...targetEnv(url, REFERENCE_TOKEN), ...env(url) },
          temporaryDirectory('payflow-config-'),
        ),
      );
      expectOneLineConfigError(error, message);
      if (secret !== undefined) expect((error as Error).message).not.toContain(secret);
    });
  });

  test('a reports directory that cannot be written', async () => {
    // What the CLI does with the resolved reports directory before the first request
    // (lockReportsDir); that a refusal there is exit 2, one line and nothing sent is the refused
    // second run of "one run per reports directory", through the CLI.
    const work = temporaryDirectory('payflow-blocked-');
    writeFileSync(join(work, 'a-file'), '');
    const run = await resolveAsCli(
      [],
      {
        ...targetEnv('http://127.0.0.1:9', REFERENCE_TOKEN),
        CONFORMANCE_REPORTS_DIR: join(work, 'a-file', 'reports'),
      },
      work,
    );
    expectOneLineConfigError(
      await thrown(() => lockReportsDir(run.reportsDir)),
      /the reports directory \S+\/a-file\/reports cannot be written \(ENOTDIR\)/,
    );
  });
});

// The start-up check (bin/preflight.ts) as the CLI calls it, with the target the configuration
// names; the CLI turns its ConfigError into exit 2 with its one line, before the suite starts:
// cli.spec.ts "exits 2 when the target cannot be reached" proves that through the CLI.
test.describe('the reachability check', () => {
  const target = (baseURL: string, timeoutMs = 5000): PreflightTarget => ({
    baseURL,
    token: REFERENCE_TOKEN,
    counterpartyRef: REFERENCE_COUNTERPARTY,
    timeoutMs,
  });

  test('a name that does not resolve: a one-line configuration error', async () => {
    expectOneLineConfigError(
      await thrown(() => preflight(target('http://no-such-host.invalid'))),
      /cannot reach API_BASE_URL http:\/\/no-such-host\.invalid \((ENOTFOUND|EAI_AGAIN|no connection within 5000 ms)/,
    );
  });

  test('a TLS failure (https to a server that does not speak it): a one-line configuration error, nothing sent', async () => {
    const server = await recordingProxy('');
    try {
      expectOneLineConfigError(
        await thrown(() => preflight(target(server.url.replace('http:', 'https:')))),
        /cannot reach API_BASE_URL https:\/\/127\.0\.0\.1:\d+ \(TLS failure: /,
      );
      expect(server.arrivals).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

test.describe('one run per reports directory', () => {
  test('a second run using the reports directory of a run in progress is refused; the first completes and lets it go', async () => {
    const reference = new ReferenceServer();
    const upstream = await reference.start(0);
    // Holds the first request (the first run's reachability check) until released.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const firstArrived = new Promise<void>((resolve) => (arrived = resolve));
    let count = 0;
    const front = createServer((req: IncomingMessage, res: ServerResponse) => {
      count++;
      const pass = (): void => forward(upstream, req, res);
      if (count === 1) {
        arrived();
        void released.then(pass);
      } else pass();
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
    const reports = join(temporaryDirectory('payflow-shared-'), 'reports');
    try {
      const env = {
        ...targetEnv(url, REFERENCE_TOKEN, false),
        CONFORMANCE_REPORTS_DIR: reports,
        CONFORMANCE_RUNS: '3',
        CONFORMANCE_TIMEOUT_MS: '60000',
      };
      // One probe: what is proven is the lock, held from before the first request to the end.
      const first = runCli(env, { args: ['--probe', 'known-counterparty'] });
      await firstArrived;
      const lock = join(reports, LOCK_FILE);
      expect(existsSync(lock)).toBe(true);
      const second = await runCli(env);
      expectOneLineError(
        second,
        /another run \(pid \d+\) is using the reports directory \S+\/reports; wait for it/,
      );
      expect(count).toBe(1);
      release();
      const done = await first;
      expect(done.code, done.stdout + done.stderr).toBe(0);
      expect(existsSync(lock)).toBe(false);
    } finally {
      release();
      await new Promise<void>((resolve) => {
        front.close(() => resolve());
        front.closeAllConnections();
      });
      await reference.stop();
    }
  });

  test('a lock left by a run that no longer exists is taken over', () => {
    // The CLI's lockReportsDir, in this process; that a run releases the lock when it ends is the
    // test above, through the CLI.
    const reports = join(temporaryDirectory('payflow-stale-'), 'reports');
    mkdirSync(reports);
    const lock = join(reports, LOCK_FILE);
    // No process has this pid (above any pid_max Linux allows).
    writeFileSync(lock, '2147483646\n');
    lockReportsDir(reports);
    expect(readFileSync(lock, 'utf8')).toBe(`${process.pid}\n`);
    rmSync(lock);
  });
});

// In this process, as the CLI reads its command line (parseRunArgs) and prints --help (runUsage):
// that a UsageError is exit 2 with its one line is selection-cli.spec.ts's missing value through
// the CLI, and that `run --help` prints this usage is pack.spec.ts and distribution.spec.ts. A
// finding's replay command (--probe with the seed) is selection-cli.spec.ts's replay test, which
// runs the line a finding prints from a clean shell, and asserts what this file's replay test
// asserted (the probe alone, the same seed, the finding again, the rest not selected).
test.describe('--probe', () => {
  test('an unknown probe id: exit 2, one line listing the known ones', () => {
    const unknown = thrownSync(() => parseRunArgs(['--probe', 'no-such-probe']));
    expect(unknown).toBeInstanceOf(UsageError);
    expect((unknown as Error).message).toMatch(/^unknown probe 'no-such-probe' \(--probe\); known probes: /);
    for (const p of PROBES) expect((unknown as Error).message).toContain(p.id);
    const missing = thrownSync(() => parseRunArgs(['--probe']));
    expect(missing).toBeInstanceOf(UsageError);
    expect((missing as Error).message).toMatch(/^--probe needs a probe id; known probes: known-counterparty/);
    expect((missing as Error).message).not.toContain('\n');
    expect(parseRunArgs(['--probe', 'known-counterparty', '--probe', 'known-counterparty']).probes).toEqual([
      'known-counterparty',
    ]);
  });

  test('--help lists it', () => {
    expect(runUsage()).toMatch(/--probe <id>\s+run only this probe/);
  });
});
