/**
 * The progress line the conformance reporter prints per completed probe
 * (suite/conformance-reporter.ts: how it ended, what it sent and waited, what it found), the
 * summary's pace line (reporter/pace.ts: the rate, what was in flight, the back-offs), and the
 * live line on a terminal while a probe runs long (reporter/live.ts, suite/live-progress.ts), on
 * an injected "is a terminal" flag and a fake clock: no assertion depends on how long anything took.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import FakeTimers from '@sinonjs/fake-timers';
import { expect, test } from '@playwright/test';
import { emptyOutcome } from '../../engine/run.ts';
import type { Finding, ProbeOutcome } from '../../engine/types.ts';
import type { ExchangeLog } from '../../exchange/log.ts';
import {
  LIVE_AFTER_MS,
  LIVE_PROGRESS_ENV,
  LiveLine,
  liveProgressEnv,
  progressText,
  type ProbeProgress,
} from '../../reporter/live.ts';
import {
  keepProgress,
  LIVE_INTERVAL_MS,
  liveTerminal,
  readProgress,
  type ProgressClock,
} from '../../suite/live-progress.ts';
import { FAKE_EPOCH } from './fake-clock.ts';
import { progressLine } from '../../suite/conformance-reporter.ts';
import { paceLine } from '../../reporter/pace.ts';

const outcome = () => ({ ...emptyOutcome('patch-valid-details', 'valid bodies', []), requests: 388 });

test('a clean probe: requests and time', () => {
  expect(progressLine('patch-valid-details: valid bodies', outcome(), undefined, 3940)).toBe(
    '✓ patch-valid-details: 388 request(s), 3.9 s',
  );
});

test('retries and waits are named; findings are counted and marked', () => {
  const o = { ...outcome(), retries: 3, waitedMs: 2500, findings: [{} as Finding, {} as Finding] };
  expect(progressLine('patch-valid-details: x', o, undefined, 12_000)).toBe(
    '✗ patch-valid-details: 388 request(s), 3 retried, 2.5 s waited, 12.0 s, 2 finding(s)',
  );
});

test('skipped, incomplete and outcome-less probes say why', () => {
  const skipped = { ...outcome(), status: 'skipped' as const, skipReason: 'read-only run' };
  expect(progressLine('patch-valid-details: x', skipped, undefined, 1)).toBe(
    '- patch-valid-details: skipped (read-only run)',
  );
  expect(progressLine('patch-valid-details: x', outcome(), 'could not complete: budget', 500)).toBe(
    '! patch-valid-details: 388 request(s), 0.5 s: could not complete: budget',
  );
  expect(progressLine('patch-valid-details: x', undefined, 'did not complete (timedOut): x', 500)).toBe(
    '! patch-valid-details: did not complete (timedOut): x (0.5 s)',
  );
});

test('the pace line: effective rate, most in flight, back-offs by reason', () => {
  const pace = {
    adaptive: true,
    requests: 400,
    firstSentAt: 1_000_000,
    lastDoneAt: 1_010_000,
    effectiveRps: 40,
    maxInFlight: 12,
    finalConcurrency: 6,
    backoffs: [
      { at: 1_002_000, reason: '429' as const, detail: 'answered 429', concurrency: 6, rps: 28 },
      { at: 1_003_000, reason: 'ratelimit-header' as const, detail: 'quota 40/1 s', concurrency: 6, rps: 40 },
    ],
  };
  expect(paceLine(pace)).toBe(
    '40.0 requests/s while sending (adaptive), at most 12 in flight; 2 back-off(s) (429, ratelimit-header): see the report',
  );
  expect(paceLine({ ...pace, adaptive: false, backoffs: [] })).toBe(
    '40.0 requests/s while sending (fixed limits), at most 12 in flight; no back-off',
  );
});

test.describe('the live line while a probe runs (reporter/live.ts, suite/live-progress.ts)', () => {
  const ERASE = '\x1b[2K';
  /** A LiveLine on a fake clock and a list of running probes the test sets. */
  function live(tty: boolean, columns?: number) {
    const written: string[] = [];
    const state = { now: FAKE_EPOCH, running: [] as ProbeProgress[] };
    const line = new LiveLine({
      tty,
      ...(columns !== undefined ? { columns } : {}),
      write: (t) => written.push(t),
      now: () => state.now,
      read: () => state.running,
    });
    return { line, written, state };
  }
  const probe = (over: Partial<ProbeProgress> = {}): ProbeProgress => ({
    probe: 'patch-valid-details',
    startedAt: FAKE_EPOCH,
    requests: 10,
    findings: 1,
    ...over,
  });

  test('on a terminal: nothing for a probe under two seconds, then its line, rewritten in place, erased before other output', () => {
    const { line, written, state } = live(true, 120);
    state.running = [probe()];
    state.now = FAKE_EPOCH + LIVE_AFTER_MS - 1;
    line.tick();
    expect(written).toEqual([]);
    state.now = FAKE_EPOCH + LIVE_AFTER_MS;
    line.tick();
    expect(written).toEqual([`${ERASE}  … patch-valid-details: 10 request(s), 1 finding(s) so far, 2 s\r`]);
    state.running = [probe({ requests: 388, findings: 3 })];
    state.now = FAKE_EPOCH + 22_400;
    line.tick();
    expect(written[1]).toBe(`${ERASE}  … patch-valid-details: 388 request(s), 3 finding(s) so far, 22 s\r`);
    // Before a line of its own (a probe's end), the live line is erased, once.
    line.clear();
    line.clear();
    expect(written.slice(2)).toEqual([`${ERASE}\r`]);
    // No probe running long: nothing shown, and what was shown is erased.
    line.tick();
    state.running = [];
    line.tick();
    expect(written.slice(3)).toEqual([expect.stringContaining('388'), `${ERASE}\r`]);
    // No line break ever: each write ends at the start of the line the next one replaces.
    expect(written.join('')).not.toContain('\n');
  });

  test('several probes running long share the line, oldest first; it never wraps a narrow terminal', () => {
    const { line, written, state } = live(true, 60);
    state.running = [
      probe({ probe: 'b-probe', startedAt: FAKE_EPOCH + 1000 }),
      probe({ probe: 'a-probe', startedAt: FAKE_EPOCH + 5000 }),
      probe({ probe: 'short', startedAt: FAKE_EPOCH + 9000 }),
    ];
    state.now = FAKE_EPOCH + 10_000;
    expect(progressText(state.running, state.now)).toBe(
      '  … b-probe: 10 request(s), 1 finding(s) so far, 9 s | a-probe: 10 request(s), 1 finding(s) so far, 5 s',
    );
    line.tick();
    const shown = written[0]!.slice(ERASE.length, -1);
    expect(shown.length).toBeLessThanOrEqual(59);
    expect(shown).toMatch(/^ {2}… b-probe: .*…$/);
  });

  test('not on a terminal: no line at all, and no progress kept by the workers', () => {
    const { line, written, state } = live(false);
    state.running = [probe()];
    for (const at of [0, 2000, 5000, 60_000]) {
      state.now = FAKE_EPOCH + at;
      line.tick();
    }
    line.clear();
    expect(written).toEqual([]);
    // The CLI says so to the run's processes only when its output is a terminal.
    expect(liveProgressEnv({ isTTY: false, columns: 80 })).toEqual({});
    expect(liveProgressEnv({})).toEqual({});
    expect(liveProgressEnv({ isTTY: true, columns: 80 })).toEqual({ [LIVE_PROGRESS_ENV]: '80' });
    expect(liveTerminal({})).toEqual({ tty: false, columns: 0 });
    expect(liveTerminal({ [LIVE_PROGRESS_ENV]: '80' })).toEqual({ tty: true, columns: 80 });
    const dir = mkdtempSync(join(tmpdir(), 'payflow-live-'));
    try {
      const stop = keepProgress(dir, 'p', { log: { size: 0 } as ExchangeLog, running: undefined }, {});
      expect(readdirSync(dir)).toEqual([]);
      stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a worker keeps its probe's requests and findings so far, on its clock, and removes them at the end", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payflow-live-'));
    const clock = FakeTimers.createClock(FAKE_EPOCH);
    const ticking: ProgressClock = {
      now: () => clock.now,
      every: (fn, ms) => {
        const id = clock.setInterval(fn, ms);
        return () => clock.clearInterval(id);
      },
    };
    try {
      const run = { log: { size: 5 } as ExchangeLog, running: { findings: [] as Finding[] } as ProbeOutcome };
      const stop = keepProgress(dir, 'patch-valid-details', run, { [LIVE_PROGRESS_ENV]: '80' }, ticking);
      expect(readProgress(dir)).toEqual([
        { probe: 'patch-valid-details', startedAt: FAKE_EPOCH, requests: 0, findings: 0 },
      ]);
      // Sent 40 more, found one: the next write says so.
      (run.log as { size: number }).size = 45;
      run.running.findings.push({} as Finding);
      clock.tick(LIVE_INTERVAL_MS);
      expect(readProgress(dir)).toEqual([
        { probe: 'patch-valid-details', startedAt: FAKE_EPOCH, requests: 40, findings: 1 },
      ]);
      stop();
      expect(readProgress(dir)).toEqual([]);
      // Stopped: no write after.
      clock.tick(10 * LIVE_INTERVAL_MS);
      expect(readdirSync(dir)).toEqual([]);
      // A directory gone (the run ended) reads as nothing running.
      expect(readProgress(join(dir, 'gone'))).toEqual([]);
      // A worker gone mid-probe left its file: not a probe running.
      keepProgress(dir, 'patch-valid-details', run, { [LIVE_PROGRESS_ENV]: '80' }, ticking);
      expect(readProgress(dir)).toHaveLength(1);
      expect(readProgress(dir, () => false)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
