/**
 * The hostile gallery: servers that hang, drop connections, drip or flood bodies, redirect to
 * another origin, answer as a gateway's HTML 502 or rate-limit. Against each, the suite (the same
 * engine as `npm run conformance`) reports exactly the requirements a real wrong answer breaks,
 * exactly the probes that could not complete and why, sends no more than the variant allows where
 * the point is that it stops (the circuit opens, a pause is refused, the budget ends), and causes
 * nothing the server counts as a violation (a request sent to the origin a redirect named, a
 * retry before Retry-After elapsed). These servers hang and pause for real, so the runs take real
 * time; the one wall-time bound is a backstop ten times and more what a run takes on a quiet
 * machine (servers/gallery/hostile.ts says what it protects against). The session's own timing
 * decisions are tested on a fake clock (politeness.spec.ts, limiter.spec.ts).
 */
import { expect, test } from '@playwright/test';
import { EMBEDDED_POLITENESS, REMOTE_POLITENESS } from '../../config/config.ts';
import { PROBES } from '../../probes/index.ts';
import { HOSTILE_VARIANTS } from '../../servers/gallery/index.ts';
import { ASSUMED_BREAKER_THRESHOLD } from '../../servers/gallery/hostile.ts';
import { ASSUMED_MAX_RESPONSE_BYTES, LARGE_ANSWER_BYTES } from '../../servers/gallery/hostile-bodies.ts';
import type { HostileVariant } from '../../servers/gallery/types.ts';
import { REFERENCE_TOKEN } from '../../servers/reference.ts';
import { systemClock } from '../../transport/clock.ts';
import { BREAKER_THRESHOLD } from '../../transport/session.ts';
import { describeTripped, galleryTarget, recordTrips, runSuite } from './suite-runner.ts';

function expectedIncomplete(v: HostileVariant): string[] {
  const all = PROBES.map((p) => p.id).filter((id) => v.probes === undefined || v.probes.includes(id));
  if (v.incomplete === 'all') return all.sort();
  if (Array.isArray(v.incomplete)) return [...v.incomplete].sort();
  const but = v.incomplete.allBut;
  return all.filter((id) => !but.includes(id)).sort();
}

test('hostile variants have unique ids, a fault and a bound', () => {
  expect(HOSTILE_VARIANTS.length).toBeGreaterThanOrEqual(10);
  expect(new Set(HOSTILE_VARIANTS.map((v) => v.id)).size).toBe(HOSTILE_VARIANTS.length);
  for (const v of HOSTILE_VARIANTS) {
    expect(v.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(v.fault.trim()).not.toBe('');
    expect(v.maxDurationMs).toBeGreaterThanOrEqual(30_000);
  }
  expect(ASSUMED_BREAKER_THRESHOLD).toBe(BREAKER_THRESHOLD);
  // Answers of 4 MB are under the body cap a run keeps by default: judged, not refused as too large.
  expect(ASSUMED_MAX_RESPONSE_BYTES).toBe(REMOTE_POLITENESS.maxResponseBytes);
  expect(ASSUMED_MAX_RESPONSE_BYTES).toBe(EMBEDDED_POLITENESS.maxResponseBytes);
  expect(LARGE_ANSWER_BYTES).toBeLessThan(ASSUMED_MAX_RESPONSE_BYTES);
});

test.describe('hostile servers', () => {
  for (const variant of HOSTILE_VARIANTS) {
    test(`${variant.id}: ${variant.fault}`, async () => {
      // Room for the backstop (maxDurationMs, up to three minutes) to be what ends a run that hangs.
      test.setTimeout(240_000);
      const server = variant.create();
      const baseURL = await server.start(0);
      let run;
      try {
        // The real clock: these servers hang and pause for real (Retry-After is checked on arrival).
        run = await runSuite(galleryTarget(baseURL), {
          politeness: variant.limits ?? {},
          deadline: true,
          clock: systemClock,
          ...(variant.probes ? { probes: variant.probes } : {}),
        });
      } finally {
        await server.stop();
      }
      recordTrips(`hostile-${variant.id}`, run);
      const summary = describeTripped(run);
      expect(run.tripped, summary).toEqual([...variant.trips].sort());
      expect(
        run.incomplete.map((i) => i.probe),
        summary,
      ).toEqual(expectedIncomplete(variant));
      for (const i of run.incomplete) {
        expect(i.reason, i.probe).toMatch(variant.reason ?? /./);
        expect(i.reason, 'one line').not.toContain('\n');
        expect(i.reason, 'the token never appears').not.toContain(REFERENCE_TOKEN);
      }
      if (variant.maxRequests !== undefined) {
        expect(run.requests, `requests sent; ${summary}`).toBeLessThanOrEqual(variant.maxRequests);
      }
      // A backstop, not a measure (see maxDurationMs): the figures are npm run bench's.
      expect(run.durationMs, `the run took ${Math.round(run.durationMs)} ms`).toBeLessThan(
        variant.maxDurationMs,
      );
      expect(server.violations?.() ?? []).toEqual([]);
      // A requirement nothing could judge is never reported passed.
      for (const v of run.verdicts.filter((x) => x.status === 'passed'))
        expect(v.judged, v.id).toBeGreaterThan(0);
    });
  }
});
