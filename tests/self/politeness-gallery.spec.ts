/**
 * The default pace against a deployment (adaptive: REMOTE_POLITENESS) against clean servers that
 * are hard to be polite to (servers/gallery/politeness.ts): a probe set judged against a server
 * limited to 40 requests/s, with the limit announced in RateLimit headers or not at all, reports
 * nothing, completes every probe, and takes near the time the limit allows; a server whose
 * latency rises under load is sent fewer requests at once.
 */
import { expect, test } from '@playwright/test';
import { REMOTE_POLITENESS } from '../../config/config.ts';
import { RunContext, runProbe } from '../../engine/run.ts';
import type { ProbeOutcome } from '../../engine/types.ts';
import { verdicts } from '../../engine/verdicts.ts';
import { PROBES } from '../../probes/index.ts';
import { REFERENCE_COUNTERPARTY, REFERENCE_TOKEN } from '../../servers/reference.ts';
import { CAPACITY_IN_FLIGHT, LIMIT_RPS, POLITENESS_VARIANTS } from '../../servers/gallery/politeness.ts';
import { SLOW_START_UNTIL } from '../../transport/limiter.ts';
import { TargetSession } from '../../transport/session.ts';
import { galleryTarget } from './suite-runner.ts';

/**
 * Probes of every kind (reads, authentication, lists, writes), about 300 requests with 3 cases
 * per property: enough to outrun a limit of 40 requests/s for several seconds, few enough to
 * keep each test under 15 s.
 */
const PROBE_IDS = [
  'known-counterparty',
  'valid-references',
  'invalid-references',
  'reads-require-authentication',
  'collections-routed',
  'bill-list-filters',
  'bill-list-pagination',
  'patch-valid-accounts',
  'patch-unknown-counterparty',
  'unknown-item-references',
  'reference-variants',
];
const RUNS = 3;

/** The elapsed time against a rate-limited server, as a multiple of the least the limit allows. */
const TIME_FACTOR = 1.5;

function variant(id: string): (typeof POLITENESS_VARIANTS)[number] {
  return POLITENESS_VARIANTS.find((v) => v.id === id)!;
}

test('the probe set is the suite’s', () => {
  const known = new Set(PROBES.map((p) => p.id));
  expect(PROBE_IDS.filter((id) => !known.has(id))).toEqual([]);
});

for (const v of POLITENESS_VARIANTS) {
  test(`${v.id} passes with the default pace: ${v.behaviour}`, async () => {
    const server = v.create();
    const baseURL = await server.start(0);
    const session = new TargetSession({ politeness: REMOTE_POLITENESS });
    try {
      const run = new RunContext(session, baseURL);
      const target = { ...galleryTarget(baseURL), runs: RUNS };
      const outcomes: ProbeOutcome[] = [];
      const started = performance.now();
      for (const probe of PROBES.filter((p) => PROBE_IDS.includes(p.id))) {
        outcomes.push(await runProbe(probe, target, run));
      }
      const elapsedMs = performance.now() - started;
      const report = session.politenessReport();
      const summary = JSON.stringify({ elapsedMs, stats: server.stats(), report }, null, 1);
      const tripped = verdicts(outcomes).filter((x) => x.status === 'failed' || x.status === 'warned');
      expect(
        tripped.map((x) => `${x.id}: ${x.findings[0]?.message}`),
        summary,
      ).toEqual([]);
      expect(
        outcomes.filter((o) => o.incomplete !== undefined).map((o) => `${o.probe}: ${o.incomplete}`),
        summary,
      ).toEqual([]);
      const requests = session.ledger.count();
      expect(requests, summary).toBeGreaterThan(250);
      expect(report.requests).toBe(requests);
      const factor =
        v.limitRps === undefined
          ? ''
          : ` (${(elapsedMs / ((requests * 1000) / v.limitRps)).toFixed(2)}× requests/${v.limitRps} s)`;
      const backoffs = report.backoffs.map((b) => `${b.reason} (${b.detail})`).join('; ');
      console.log(
        `${v.id}: ${requests} requests in ${Math.round(elapsedMs)} ms${factor}, ${report.effectiveRps} requests/s, ` +
          `${server.stats().limited} refused, back-offs: ${backoffs || 'none'}`,
      );
      if (v.limitRps !== undefined) {
        // Near the least time the limit allows (less, by the burst a full bucket lets through).
        expect(elapsedMs, summary).toBeLessThanOrEqual((TIME_FACTOR * requests * 1000) / v.limitRps);
        expect(report.effectiveRps, summary).toBeLessThanOrEqual(v.limitRps * 1.3);
        expect(report.backoffs.length, summary).toBeGreaterThan(0);
      }
      if (v.id === 'rate-limited-announced') {
        // Paced to the quota from the first answer: hardly a request refused.
        expect(report.backoffs[0]?.reason, summary).toBe('ratelimit-header');
        expect(report.backoffs[0]?.rps, summary).toBe(LIMIT_RPS);
        expect(server.stats().limited, summary).toBeLessThanOrEqual(2);
      }
      if (v.id === 'rate-limited-silent') {
        expect(
          report.backoffs.some((b) => b.reason === '429'),
          summary,
        ).toBe(true);
        // Each refusal is retried; few of the requests are refused.
        expect(server.stats().limited, summary).toBeLessThan(requests / 10);
      }
    } finally {
      session.close();
      await server.stop();
    }
  });
}

test('a server whose latency rises under load is sent fewer requests at once', async () => {
  const server = variant('slows-under-load').create();
  const baseURL = await server.start(0);
  const session = new TargetSession({ politeness: REMOTE_POLITENESS });
  const url = new URL(`${baseURL}/api/v1/counterparties/${REFERENCE_COUNTERPARTY}`);
  const headers = { Authorization: `Bearer ${REFERENCE_TOKEN}` };
  try {
    // 400 reads started at once, as a probe sending its cases concurrently does: the session queues them.
    const statuses = await Promise.all(
      Array.from({ length: 400 }, () =>
        session.exchange('GET', url, headers, undefined).then((r) => r.response.status),
      ),
    );
    const report = session.politenessReport();
    const summary = JSON.stringify({ stats: server.stats(), report }, null, 1);
    expect(
      statuses.every((s) => s === 200),
      summary,
    ).toBe(true);
    // It grew past the start (4) while latency held, then backed off when it rose.
    expect(report.maxInFlight, summary).toBeGreaterThan(CAPACITY_IN_FLIGHT);
    expect(
      report.backoffs.some((b) => b.reason === 'latency'),
      summary,
    ).toBe(true);
    expect(
      report.backoffs.every((b) => b.reason === 'latency'),
      summary,
    ).toBe(true);
    // Never near the cap of 32: slow start ends at 16, and the latency held it near what the
    // server serves without delay.
    expect(server.stats().maxInFlight, summary).toBeLessThanOrEqual(SLOW_START_UNTIL);
    expect(report.finalConcurrency, summary).toBeLessThanOrEqual(CAPACITY_IN_FLIGHT + 3);
  } finally {
    session.close();
    await server.stop();
  }
});
