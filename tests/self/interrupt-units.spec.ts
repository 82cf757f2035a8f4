/**
 * The pieces of an interrupted run, one by one: the run-wide stop state and what the session
 * still sends after it, the verdicts and the record of an interrupted run, and the report set
 * that replaces the previous one whole.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { signalAction, SIGNAL_REPEAT_MS } from '../../bin/interrupt.ts';
import { EMBEDDED_POLITENESS } from '../../config/config.ts';
import type { ProbeOutcome, RestoreRecord } from '../../engine/types.ts';
import { verdicts } from '../../engine/verdicts.ts';
import { renderHtml } from '../../reporter/html.ts';
import { renderJunit } from '../../reporter/junit.ts';
import { recordErrors } from '../../reporter/record-schema.ts';
import { commitFiles, createStaging, MANIFEST } from '../../reporter/report-set.ts';
import { buildRecord } from '../../reporter/build-record.ts';
import type { RecordRun } from '../../reporter/record.ts';
import { formatSummary } from '../../reporter/console.ts';
import { FileLedger } from '../../transport/ledger.ts';
import { TargetSession, TargetUnavailable } from '../../transport/session.ts';
import { processAlive, readStop, requestStop } from '../../transport/stop.ts';
import { removeTemporaryDirectories, temporaryDirectory } from './cli-fixtures.ts';
import { fakeClock, scriptedTarget } from './fake-clock.ts';

test.afterAll(() => removeTemporaryDirectories());

test.describe('the stop state and the session', () => {
  let server: Server;
  let url: string;
  let seen: string[];
  /** Answers 503 with Retry-After: 20 to the path /slow, 200 {} to anything else. */
  test.beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (req.url === '/slow') res.writeHead(503, { 'Retry-After': '20' }).end();
      else res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  test.beforeEach(() => {
    seen = [];
  });
  test.afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const politeness = { ...EMBEDDED_POLITENESS, maxRetryWaitMs: 60_000 };

  test('the first interruption recorded stands, whole, for every process of the run', () => {
    const dir = temporaryDirectory('payflow-stop-');
    expect(readStop(dir)).toBeUndefined();
    expect(requestStop(dir, { signal: 'SIGINT', reason: 'first' })).toBe(true);
    expect(requestStop(dir, { signal: 'SIGTERM', reason: 'second' })).toBe(true);
    expect(readStop(dir)).toEqual({ signal: 'SIGINT', reason: 'first' });
    // The draft files it writes first are gone.
    expect(readdirSync(dir)).toEqual(['interrupted']);
    expect(requestStop(join(dir, 'gone'), { signal: 'SIGINT', reason: 'late' })).toBe(false);
  });

  test('after the stop, only housekeeping is sent', async () => {
    const dir = temporaryDirectory('payflow-stop-');
    const one = new TargetSession({ politeness, ledger: new FileLedger(dir) });
    const other = new TargetSession({ politeness, ledger: new FileLedger(dir) });
    await one.exchange('GET', new URL(`${url}/before`), {}, undefined);
    requestStop(dir, { signal: 'SIGTERM', reason: 'SIGTERM received by the CLI' });
    const refused = await other
      .exchange('GET', new URL(`${url}/after`), {}, undefined)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TargetUnavailable);
    expect((refused as TargetUnavailable).kind).toBe('interrupted');
    expect((refused as TargetUnavailable).message).toMatch(
      /GET \/after not sent: the run was interrupted \(SIGTERM\)/,
    );
    await one.exchange('PATCH', new URL(`${url}/restore`), {}, Buffer.from('{}'), { housekeeping: true });
    expect(seen).toEqual(['GET /before', 'PATCH /restore']);
    one.close();
    other.close();
  });

  test('a Retry-After wait ends when the run stops, and nothing more goes out', async () => {
    // On a fake clock before a scripted target: the stop is seen at the wait's next look (every
    // INTERRUPT_POLL_MS, 100 ms), not when the 20 s the target asked for are over.
    const dir = temporaryDirectory('payflow-stop-');
    const clock = fakeClock();
    const target = scriptedTarget(clock, () => ({ status: 503, headers: { 'Retry-After': '20' } }));
    const s = new TargetSession({
      politeness,
      ledger: new FileLedger(dir),
      clock,
      transmit: target.transmit,
    });
    const waiting = s.exchange('GET', new URL(`${url}/slow`), {}, undefined).catch((e: unknown) => e);
    await clock.tick(10);
    expect(target.sent.map((r) => `${r.path} at ${r.at}`)).toEqual(['/slow at 0']);
    requestStop(dir, { signal: 'SIGINT', reason: 'SIGINT received by the CLI' });
    const error = await clock.drive(waiting);
    expect((error as TargetUnavailable).kind).toBe('interrupted');
    expect(clock.elapsed()).toBe(110);
    expect(target.sent).toHaveLength(1);
    s.close();
  });

  test('the run stops when the CLI that started it is gone, or exited and not yet reaped', async () => {
    test.skip(!existsSync('/proc/self/stat'), 'needs /proc to make and see a zombie');
    // sh starts `sleep 0.3` and becomes `sleep 5`, which never reaps it: an exited process that
    // still answers kill(pid, 0), as bin/conformance.ts is until tsx reaps it. (The child outlives
    // the exec, so sh cannot reap it first.)
    const parent = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 5']);
    const zombie = await new Promise<number>((resolve) =>
      parent.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))),
    );
    const state = (): string | undefined =>
      existsSync(`/proc/${zombie}/stat`)
        ? readFileSync(`/proc/${zombie}/stat`, 'utf8').split(') ')[1]?.[0]
        : 'gone';
    await expect.poll(state).toBe('Z');
    expect(processAlive(zombie)).toBe(false);
    expect(processAlive(process.pid)).toBe(true);
    parent.kill();
    const dir = temporaryDirectory('payflow-stop-');
    const s = new TargetSession({ politeness, ledger: new FileLedger(dir), supervisorPid: zombie });
    const error = await s.exchange('GET', new URL(`${url}/x`), {}, undefined).catch((e: unknown) => e);
    expect((error as TargetUnavailable).kind).toBe('interrupted');
    expect(readStop(dir)?.reason).toBe(`the CLI that started the run (pid ${zombie}) is gone`);
    expect(seen).toEqual([]);
    s.close();
  });
});

test('a signal within SIGNAL_REPEAT_MS of the first is the same stop; a later one exits at once', () => {
  // RunGuard's decision (bin/interrupt.ts), on fake milliseconds: one Ctrl-C on npm run
  // conformance reaches the CLI up to three times, within a moment.
  expect(signalAction(undefined, 5_000, true)).toBe('stop');
  expect(signalAction(5_000, 5_001, true)).toBe('repeat');
  expect(signalAction(5_000, 5_000 + SIGNAL_REPEAT_MS - 1, true)).toBe('repeat');
  expect(signalAction(5_000, 5_000 + SIGNAL_REPEAT_MS, true)).toBe('exit');
  expect(signalAction(5_000, 5_000 + SIGNAL_REPEAT_MS - 1, false)).toBe('repeat');
  // Before Playwright started, or after it ended, there is nothing to stop: exit at once.
  expect(signalAction(undefined, 5_000, false)).toBe('exit');
});

function outcome(probe: string, extra: Partial<ProbeOutcome> = {}): ProbeOutcome {
  return {
    probe,
    title: probe,
    requirements: [],
    status: 'ran',
    findings: [],
    judged: {},
    notApplicable: [],
    requests: 1,
    notes: [],
    durationMs: 1,
    ...extra,
  };
}

const restored: RestoreRecord = {
  counterparty: 'cp-1',
  fields: ['remarks'],
  status: 'restored',
  detail: 'restored the original remarks of cp-1',
  afterInterrupt: true,
};

test.describe('the record of an interrupted run', () => {
  const WRITE_RUN = { baseURL: 'http://127.0.0.1:1', writableRef: 'cp-1' };
  const interrupted = { signal: 'SIGINT', reason: 'SIGINT received by the CLI' };
  const patch = ['patch-valid-accepted', 'patch-persisted'] as const;

  test("requirements the stop left unjudged are not exercised, 'interrupted'; a read-only reason stands", () => {
    const outcomes = [
      outcome('patch-valid-details', {
        requirements: [...patch],
        judged: { 'patch-valid-accepted': 1 },
        incomplete: 'GET … not sent: the run was interrupted',
        interrupted: true,
      }),
      outcome('patch-invalid-bodies', {
        requirements: ['patch-invalid-rejected'],
        status: 'skipped',
        skipReason: 'interrupted',
        interrupted: true,
      }),
      outcome('auth', {
        requirements: ['auth-401-bearer-challenge'],
        status: 'skipped',
        skipReason: 'read-only run',
      }),
    ];
    const vs = new Map(verdicts(outcomes, { interrupted: true }).map((v) => [v.id, v]));
    expect(vs.get('patch-valid-accepted')?.status).toBe('passed');
    expect(vs.get('patch-persisted')?.reasons).toEqual(['interrupted']);
    expect(vs.get('patch-invalid-rejected')?.reasons).toEqual(['interrupted']);
    expect(vs.get('auth-401-bearer-challenge')?.reasons).toEqual(['read-only run']);
    // A requirement no probe of the run reached: the interruption, not a guess about traffic.
    expect(vs.get('patch-unknown-not-created')?.reasons).toEqual(['interrupted']);
  });

  const cases: [string, ProbeOutcome[], RecordRun, string][] = [
    ['restored', [outcome('patch-valid-details', { restores: [restored] })], WRITE_RUN, 'restored'],
    [
      'failed',
      [
        outcome('patch-valid-details', {
          restores: [{ ...restored, status: 'failed', detail: 'could not restore: 500' }],
        }),
      ],
      WRITE_RUN,
      'failed',
    ],
    [
      'a restore before the stop is not the one after it',
      [outcome('patch-valid-details', { restores: [{ ...restored, afterInterrupt: false }] })],
      WRITE_RUN,
      'none-needed',
    ],
    ['read-only', [], { baseURL: 'http://127.0.0.1:1' }, 'none-needed'],
  ];
  for (const [name, outcomes, run, status] of cases) {
    test(`restore: ${name}`, () => {
      const record = buildRecord({
        outcomes,
        incomplete: [],
        run,
        startedAt: new Date(),
        durationMs: 1,
        interrupted,
        writeProbes: outcomes.map((o) => o.probe),
      });
      expect(recordErrors(record)).toEqual([]);
      expect(record.interrupted?.restore.status).toBe(status);
      expect(record.verdict).toBe('fail');
      expect(record.gateReasons[0]).toMatch(/^the run was interrupted by SIGINT/);
    });
  }

  test('restore: unknown when a write check ended without an outcome', () => {
    const record = buildRecord({
      outcomes: [],
      incomplete: [],
      run: WRITE_RUN,
      startedAt: new Date(),
      durationMs: 1,
      interrupted: { signal: null, reason: 'Playwright stopped a check while it was running' },
      writeProbes: ['patch-valid-details'],
    });
    expect(record.interrupted?.restore.status).toBe('unknown');
    expect(record.interrupted?.restore.details[0]).toMatch(/patch-valid-details ended without an outcome/);
    expect(recordErrors(record)).toEqual([]);
  });

  test('the HTML page, the JUnit file and the console say it', () => {
    const record = buildRecord({
      outcomes: [outcome('patch-valid-details', { restores: [restored] })],
      incomplete: [],
      run: WRITE_RUN,
      startedAt: new Date(),
      durationMs: 1,
      interrupted,
    });
    expect(renderHtml(record)).toContain('<h2>Interrupted by SIGINT</h2>');
    expect(renderHtml(record)).toContain('restored the original remarks of cp-1');
    expect(renderJunit(record)).toContain(
      '<property name="interrupted" value="SIGINT: SIGINT received by the CLI"/>',
    );
    expect(renderJunit(record)).toContain(
      '<property name="interrupted.restore" value="restored: restored the original remarks of cp-1"/>',
    );
    expect(formatSummary(record)).toContain(
      'INTERRUPTED by SIGINT (SIGINT received by the CLI): partial report; restored',
    );
    // A run that was not interrupted says nothing of the kind.
    const whole = buildRecord({
      outcomes: [],
      incomplete: [],
      run: WRITE_RUN,
      startedAt: new Date(),
      durationMs: 1,
    });
    expect(whole.interrupted).toBeUndefined();
    expect(renderHtml(whole)).not.toContain('Interrupted');
  });
});

test.describe('the report set', () => {
  const SET = ['conformance.json', 'conformance.html', 'junit.xml', join('playwright', 'index.html')];

  function writeSet(dir: string, content: string, entries = SET): void {
    for (const entry of entries) {
      mkdirSync(join(dir, entry, '..'), { recursive: true });
      writeFileSync(join(dir, entry), content);
    }
  }

  /** A set written by the suite: staged, then moved in. */
  function commitSet(reports: string, content: string, entries = SET): void {
    const staging = createStaging(reports);
    writeSet(staging, content, entries);
    commitFiles(staging, reports);
  }

  test("a new set replaces the suite's previous one, and leaves the user's files and nothing else behind", () => {
    const reports = join(temporaryDirectory('payflow-set-'), 'reports');
    commitSet(reports, 'old');
    writeFileSync(join(reports, 'notes.txt'), 'mine');
    commitSet(reports, 'new');
    for (const entry of SET) expect(readFileSync(join(reports, entry), 'utf8'), entry).toBe('new');
    expect(readdirSync(reports).sort()).toEqual([
      MANIFEST,
      'conformance.html',
      'conformance.json',
      'junit.xml',
      'notes.txt',
      'playwright',
    ]);
  });

  test('an entry the new set lacks goes with the old set: never a mix', () => {
    const reports = join(temporaryDirectory('payflow-set-'), 'reports');
    commitSet(reports, 'old');
    commitSet(reports, 'new', SET.slice(0, 3));
    expect(existsSync(join(reports, 'playwright'))).toBe(false);
    for (const entry of SET.slice(0, 3)) expect(readFileSync(join(reports, entry), 'utf8')).toBe('new');
  });
});
