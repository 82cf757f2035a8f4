/**
 * `npm run conformance` whatever the user's setup: one configuration, resolved once in the
 * process the user started (flags, then the environment, then the .env of the directory the run
 * was started from; an empty value counts as set) and obeyed by every Playwright process, which
 * reads no .env of its own; relative paths against the directory the run was started from; the
 * start-up reachability check; the reports directory taken before the first request; and
 * `--probe`, which the replay command of a finding uses.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ConfigError } from '../../config/error.ts';
import { EMBEDDED_TARGET } from '../../config/embedded.ts';
import { resolveRun } from '../../run/resolve.ts';
import { PROBES } from '../../probes/index.ts';
import {
  REFERENCE_COUNTERPARTY,
  REFERENCE_TOKEN,
  ReferenceServer,
  WRITABLE_COUNTERPARTY,
} from '../../servers/reference.ts';
import { LOCK_FILE } from '../../bin/reports-lock.ts';
import type { ConformanceRecord } from '../../reporter/summary.ts';
import {
  playwrightCli,
  projectCopy,
  recordingProxy,
  removeTemporaryDirectories,
  RUN_SETTINGS,
  runCli,
  runNode,
  ShowcaseServer,
  targetEnv,
  temporaryDirectory,
  type CliRun,
} from './cli-fixtures.ts';
import { forward } from '../../servers/forward.ts';

test.describe.configure({ mode: 'default' });
test.afterAll(() => removeTemporaryDirectories());

type Proxy = Awaited<ReturnType<typeof recordingProxy>>;

/** A reference server behind a recording proxy, for the length of `fn`. */
async function withTarget<T>(fn: (proxy: Proxy) => Promise<T>): Promise<T> {
  const reference = new ReferenceServer();
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
  test("an empty WRITABLE_COUNTERPARTY_REF in the environment beats the project's .env: read-only, only GET sent", async () => {
    const project = projectCopy();
    writeFileSync(join(project, '.env'), `WRITABLE_COUNTERPARTY_REF=${WRITABLE_COUNTERPARTY}\n`);
    await withTarget(async (proxy) => {
      // A read probe and a write probe: were the .env read, the write probe would PATCH.
      const r = await runCli(
        { ...targetEnv(proxy.url, REFERENCE_TOKEN, false), WRITABLE_COUNTERPARTY_REF: '' },
        { project, cwd: project, args: READ_AND_WRITE_PROBES },
      );
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(firstLine(r)).toContain('read-only');
      expect([...proxy.methods]).toEqual(['GET']);
      expect(record(r.reports).mode).toBe('read-only');
    });
  });

  test("an empty ACCOUNT_FIXTURE in the environment beats the project's .env: no account is sent", async () => {
    const project = projectCopy();
    writeFileSync(join(project, '.env'), `ACCOUNT_FIXTURE=${JSON.stringify(FIXTURE)}\n`);
    await withTarget(async (proxy) => {
      // The probe that adds accounts (it sends nothing without a fixture), and one that PATCHes.
      const r = await runCli(
        { ...targetEnv(proxy.url, REFERENCE_TOKEN, true), ACCOUNT_FIXTURE: '' },
        {
          project,
          cwd: project,
          args: ['--probe', 'patch-valid-accounts', '--probe', 'patch-valid-details'],
        },
      );
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(firstLine(r)).toContain(`write mode on ${WRITABLE_COUNTERPARTY}`);
      expect(proxy.methods).toContain('PATCH');
      expect(proxy.requests.filter((q) => q.body.includes(FIXTURE_IBAN))).toEqual([]);
      const appended = record(r.reports).requirements.find((q) => q.id === 'patch-accounts-appended')!;
      expect(appended.status).toBe('not-exercised');
      expect(appended.reasons.join(' ')).toMatch(/ACCOUNT_FIXTURE is not set/);
    });
  });

  test("run from another directory: that directory's .env names the target, the project's .env is not read", async () => {
    const project = projectCopy();
    // Were it read, the run would write, and stop after five requests.
    writeFileSync(
      join(project, '.env'),
      `WRITABLE_COUNTERPARTY_REF=${WRITABLE_COUNTERPARTY}\nCONFORMANCE_MAX_REQUESTS=5\n`,
    );
    const elsewhere = temporaryDirectory('payflow-elsewhere-');
    await withTarget(async (proxy) => {
      writeFileSync(
        join(elsewhere, '.env'),
        `API_BASE_URL=${proxy.url}\nAPI_TOKEN=${REFERENCE_TOKEN}\nCOUNTERPARTY_REF=${REFERENCE_COUNTERPARTY}\n`,
      );
      const r = await runCli({}, { project, cwd: elsewhere, args: READ_AND_WRITE_PROBES });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(firstLine(r)).toContain(`target ${proxy.url}, read-only`);
      expect([...proxy.methods]).toEqual(['GET']);
      expect(proxy.requests.length).toBeGreaterThan(50);
      expect(r.stdout).toContain('(at most 25000, CONFORMANCE_MAX_REQUESTS)');
    });
  });

  test('relative paths (ACCOUNT_FIXTURE, CONFORMANCE_WAIVERS, CONFORMANCE_REPORTS_DIR) resolve against the directory the run was started from', async () => {
    const elsewhere = temporaryDirectory('payflow-elsewhere-');
    mkdirSync(join(elsewhere, 'fixtures'));
    mkdirSync(join(elsewhere, 'ci'));
    writeFileSync(join(elsewhere, 'fixtures', 'account.json'), JSON.stringify(FIXTURE));
    writeFileSync(
      join(elsewhere, 'ci', 'waivers.yaml'),
      'waivers:\n  - requirement: timestamp-format\n    reason: a waiver this run does not need\n    expires: 2099-12-31\n',
    );
    await withTarget(async (proxy) => {
      writeFileSync(
        join(elsewhere, '.env'),
        [
          `API_BASE_URL=${proxy.url}`,
          `API_TOKEN=${REFERENCE_TOKEN}`,
          `COUNTERPARTY_REF=${REFERENCE_COUNTERPARTY}`,
          `WRITABLE_COUNTERPARTY_REF=${WRITABLE_COUNTERPARTY}`,
          'ACCOUNT_FIXTURE=fixtures/account.json',
          'CONFORMANCE_WAIVERS=ci/waivers.yaml',
          'CONFORMANCE_REPORTS_DIR=out/reports',
          '',
        ].join('\n'),
      );
      // The probe that adds accounts, and a read (what the waiver names is judged on both).
      const r = await runCli(
        { CONFORMANCE_REPORTS_DIR: undefined, CONFORMANCE_RESULTS_DIR: undefined },
        { cwd: elsewhere, args: ['--probe', 'known-counterparty', '--probe', 'patch-valid-accounts'] },
      );
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const rec = record(join(elsewhere, 'out', 'reports'));
      expect(rec.waivers.file).toBe(join('ci', 'waivers.yaml'));
      expect(rec.waivers.entries.map((w) => w.status)).toEqual(['stale']);
      expect(rec.requirements.find((q) => q.id === 'patch-accounts-appended')!.status).toBe('passed');
      expect(proxy.requests.some((q) => q.method === 'PATCH' && q.body.includes(FIXTURE_IBAN))).toBe(true);
      expect(r.stdout).toContain(`Reports: ${join('out', 'reports', 'conformance.html')}`);
    });
  });

  test('a relative ACCOUNT_FIXTURE missing from the directory the run was started from: one line, exit 2, nothing sent', async () => {
    const elsewhere = temporaryDirectory('payflow-elsewhere-');
    const target = await recordingProxy('');
    try {
      const r = await runCli(
        { ...targetEnv(target.url, REFERENCE_TOKEN), ACCOUNT_FIXTURE: 'fixtures/missing.json' },
        { cwd: elsewhere },
      );
      expectOneLineError(r, /ACCOUNT_FIXTURE: cannot read the file 'fixtures\/missing.json' \(ENOENT\)/);
      expect(target.arrivals).toEqual([]);
    } finally {
      await target.close();
    }
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
  // Through the CLI for the first two (exit 2, one line, nothing sent: the path every case takes);
  // the rest are the same resolution (run/resolve.ts) called directly, each a fraction of a
  // CLI process's cost.
  cases.forEach(([name, env, message, secret], index) => {
    if (index < 2) {
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
    test(name, () => {
      const url = 'http://127.0.0.1:9';
      let error: unknown;
      try {
        resolveRun(
          { ...targetEnv(url, REFERENCE_TOKEN), ...env(url) },
          temporaryDirectory('payflow-config-'),
          EMBEDDED_TARGET,
        );
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      const text = (error as Error).message;
      expect(text).toMatch(message);
      expect(text).not.toContain('\n');
      if (secret !== undefined) expect(text).not.toContain(secret);
    });
  });

  test('a reports directory that cannot be written', async () => {
    const target = await recordingProxy('');
    const work = temporaryDirectory('payflow-blocked-');
    writeFileSync(join(work, 'a-file'), '');
    try {
      const r = await runCli({
        ...targetEnv(target.url, REFERENCE_TOKEN),
        CONFORMANCE_REPORTS_DIR: join(work, 'a-file', 'reports'),
      });
      expectOneLineError(r, /the reports directory \S+\/a-file\/reports cannot be written \(ENOTDIR\)/);
      expect(target.arrivals).toEqual([]);
    } finally {
      await target.close();
    }
  });
});

test.describe('the reachability check', () => {
  test('a name that does not resolve: exit 2, one line', async () => {
    const r = await runCli({
      ...targetEnv('http://no-such-host.invalid', REFERENCE_TOKEN),
      CONFORMANCE_TIMEOUT_MS: '5000',
    });
    expectOneLineError(
      r,
      /cannot reach API_BASE_URL http:\/\/no-such-host\.invalid \((ENOTFOUND|EAI_AGAIN|no connection within 5000 ms)/,
    );
  });

  test('a TLS failure (https to a server that does not speak it): exit 2, one line', async () => {
    const target = await recordingProxy('');
    try {
      const r = await runCli(targetEnv(target.url.replace('http:', 'https:'), REFERENCE_TOKEN));
      expectOneLineError(r, /cannot reach API_BASE_URL https:\/\/127\.0\.0\.1:\d+ \(TLS failure: /);
      expect(target.arrivals).toEqual([]);
    } finally {
      await target.close();
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

  test('a lock left by a run that no longer exists is taken over', async () => {
    const reports = join(temporaryDirectory('payflow-stale-'), 'reports');
    mkdirSync(reports);
    // No process has this pid (above any pid_max Linux allows).
    writeFileSync(join(reports, LOCK_FILE), '2147483646\n');
    const r = await runCli(
      { CONFORMANCE_REPORTS_DIR: reports, CONFORMANCE_RUNS: '3' },
      { args: ['--probe', 'known-counterparty'] },
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(existsSync(join(reports, 'conformance.json'))).toBe(true);
    expect(existsSync(join(reports, LOCK_FILE))).toBe(false);
  });
});

test.describe('--probe', () => {
  test('an unknown probe id: exit 2, one line listing the known ones', async () => {
    const r = await runCli({}, { args: ['--probe', 'no-such-probe'] });
    expectOneLineError(r, /unknown probe 'no-such-probe' \(--probe\); known probes: /);
    for (const p of PROBES) expect(r.stderr).toContain(p.id);
    const missing = await runCli({}, { args: ['--probe'] });
    expectOneLineError(missing, /--probe needs a probe id; known probes: known-counterparty/);
  });

  test('--help lists it', async () => {
    const r = await runCli({}, { args: ['--help'] });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--probe <id>\s+run only this probe/);
  });

  test("a finding's replay command runs that probe alone with the same seed and finds it again", async () => {
    const server = new ShowcaseServer(REFERENCE_TOKEN);
    const proxy = await recordingProxy(await server.start(0));
    try {
      const env = { ...targetEnv(proxy.url, REFERENCE_TOKEN, false), CONFORMANCE_SEED: '11' };
      // The probe that finds the fault and another: the replay runs the first alone.
      const full = await runCli(env, {
        args: ['--probe', 'known-counterparty', '--probe', 'invalid-references'],
      });
      expect(full.code, full.stdout + full.stderr).toBe(1);
      const whole = record(full.reports);
      const finding = whole.requirements.find((q) => q.id === 'reference-invalid-400')!.findings[0]!;
      // The command the summary prints for it.
      const replay = /replay: .*\bCONFORMANCE_SEED=(\d+) .* --probe (\S+)/.exec(
        full.stdout.slice(full.stdout.indexOf('[FAIL] MUST reference-invalid-400')),
      );
      expect(replay, full.stdout).not.toBeNull();
      const [, seed, probe] = replay!;
      expect(seed).toBe('11');
      const requestsBefore = proxy.requests.length;

      const again = await runCli({ ...env, CONFORMANCE_SEED: seed }, { args: ['--probe', probe!] });
      expect(again.code, again.stdout + again.stderr).toBe(1);
      expect(firstLine(again)).toContain(`seed 11 (given)`);
      expect(firstLine(again)).toContain(`only --probe ${probe}`);
      expect(again.stdout).toMatch(/\[1\/1\] ✗ invalid-references: /);
      const rec = record(again.reports);
      expect(rec.probes.map((p) => p.probe)).toEqual([probe]);
      expect(rec.incomplete).toEqual([]);
      const refound = rec.requirements.find((q) => q.id === 'reference-invalid-400')!;
      expect(refound.status).toBe('failed');
      expect(refound.findings.map((f) => f.input)).toContainEqual(finding.input);
      // Fewer requests than the whole run: only that probe's.
      expect(proxy.requests.length - requestsBefore).toBeLessThan(requestsBefore);
      // What no selected probe exercises is not selected, and says why; never passed.
      const aimed = new Set(PROBES.find((p) => p.id === probe)!.requirements);
      const others = rec.requirements.filter((q) => !aimed.has(q.id as never) && q.judged === 0);
      expect(others.length).toBeGreaterThan(5);
      for (const q of others) {
        expect(q.status, q.id).toBe('not-selected');
        expect(q.reasons.join(' '), q.id).toContain(`this run was limited to --probe ${probe}`);
      }
      expect(rec.requirements.filter((q) => q.status === 'passed').every((q) => q.judged > 0)).toBe(true);
    } finally {
      await proxy.close();
      await server.stop();
    }
  });
});
