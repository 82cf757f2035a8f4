/**
 * The wall-time figures the self-tests measure but do not assert (a verdict must not depend on
 * how busy the machine is). The self-tests assert the decisions (on a fake clock) and
 * the outcomes (requests counted, probes completed); how long those take on this machine is
 * measured here, by `npm run bench` (BENCH_ONLY=timing runs this part alone):
 *
 *   - the whole suite against each hostile variant (tests/self/hostile.spec.ts keeps only a
 *     backstop ten times and more above these);
 *   - the politeness variants with the default pace of a deployment, on real servers: time
 *     against the least the limit allows, requests refused, the effective rate, the most in
 *     flight (tests/self/politeness-gallery.spec.ts asserts these on a fake clock);
 *   - the CLI against a server that stops answering after the reachability check
 *     (tests/self/hostile-cli.spec.ts asserts the report and the request count).
 */
import { REMOTE_POLITENESS } from '../config/config.ts';
import { RunContext, runProbe } from '../engine/run.ts';
import { PROBES } from '../probes/index.ts';
import { HOSTILE_VARIANTS } from '../servers/gallery/index.ts';
import { hangsAfter } from '../servers/gallery/hostile.ts';
import { POLITENESS_VARIANTS } from '../servers/gallery/politeness.ts';
import { REFERENCE_COUNTERPARTY, REFERENCE_TOKEN } from '../servers/reference.ts';
import { systemClock } from '../transport/clock.ts';
import { TargetSession } from '../transport/session.ts';
import { removeTemporaryDirectories, runCli } from '../tests/self/cli-fixtures.ts';
import { galleryTarget, runSuite } from '../tests/self/suite-runner.ts';

/** The probe set of tests/self/politeness-gallery.spec.ts, 3 cases per property. */
const POLITENESS_PROBES = [
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

function s(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export async function timingRows(): Promise<[string, string][]> {
  const rows: [string, string][] = [];
  console.log('running: the suite (its selection) against each hostile variant (real time) ...');
  for (const v of HOSTILE_VARIANTS) {
    const server = v.create();
    const url = await server.start(0);
    try {
      const run = await runSuite(galleryTarget(url), {
        politeness: v.limits ?? {},
        deadline: true,
        clock: systemClock,
        ...(v.probes ? { probes: v.probes } : {}),
      });
      rows.push([
        `hostile ${v.id}`,
        `${s(run.durationMs)}, ${run.requests} requests (backstop ${s(v.maxDurationMs)})`,
      ]);
    } finally {
      await server.stop();
    }
  }
  console.log('running: the politeness variants with the default pace (real servers) ...');
  for (const v of POLITENESS_VARIANTS) {
    const server = v.create();
    const baseURL = await server.start(0);
    const session = new TargetSession({ politeness: REMOTE_POLITENESS });
    try {
      const run = new RunContext(session, baseURL);
      const target = { ...galleryTarget(baseURL), runs: 3 };
      const started = performance.now();
      let incomplete = 0;
      for (const probe of PROBES.filter((p) => POLITENESS_PROBES.includes(p.id))) {
        if ((await runProbe(probe, target, run)).incomplete !== undefined) incomplete++;
      }
      const ms = performance.now() - started;
      const requests = session.ledger.count();
      const report = session.politenessReport();
      const floor =
        v.limitRps === undefined ? '' : `, ${(ms / ((requests * 1000) / v.limitRps)).toFixed(2)}× the floor`;
      rows.push([
        `politeness ${v.id}`,
        `${s(ms)} for ${requests} requests${floor}; ${server.stats().limited} refused, ${report.effectiveRps} requests/s, at most ${report.maxInFlight} in flight (server: ${server.stats().maxInFlight}), ${report.backoffs.length} back-off(s), ${incomplete} probe(s) incomplete`,
      ]);
    } finally {
      session.close();
      await server.stop();
    }
  }
  console.log('running: the CLI against a server that stops answering ...');
  const server = hangsAfter(1);
  const baseURL = await server.start();
  try {
    const r = await runCli({
      CONFORMANCE_RPS: undefined,
      CONFORMANCE_CONCURRENCY: '2',
      CONFORMANCE_RUNS: '3',
      API_BASE_URL: baseURL,
      API_TOKEN: REFERENCE_TOKEN,
      COUNTERPARTY_REF: REFERENCE_COUNTERPARTY,
      CONFORMANCE_TIMEOUT_MS: '500',
    });
    const sent = /Requests sent: (\d+)/.exec(r.stdout)?.[1] ?? '?';
    rows.push(['CLI, a server that stops answering', `${s(r.ms)} to exit ${r.code}, ${sent} requests sent`]);
  } finally {
    await server.stop();
    removeTemporaryDirectories();
  }
  return rows;
}
