/**
 * The progress line the conformance reporter prints per completed probe
 * (suite/conformance-reporter.ts: how it ended, what it sent and waited, what it found), and
 * the summary's pace line (reporter/pace.ts: the rate, what was in flight, the back-offs).
 */
import { expect, test } from '@playwright/test';
import { emptyOutcome } from '../../engine/run.ts';
import type { Finding } from '../../engine/types.ts';
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
