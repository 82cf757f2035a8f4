/**
 * npm run bench: how fast the suite is on this machine, and what it costs next to the server.
 *
 *   1. A full conformance run (`npm run conformance`, the embedded reference server, 100 cases per
 *      property, a fixed seed): wall time, peak memory of its process tree (the CLI, Playwright's
 *      runner with the embedded server, the workers), requests sent (in all and per probe) and
 *      requests per second.
 *      Its timeline (the record's `durations`, bench/timeline.ts): when each step came after the
 *      spawn, up to the reports written and the exit; BENCH_ONLY=embedded runs this case alone.
 *      Beside it, the floor Playwright's runner sets: four empty tests on two workers, the first
 *      test's start and the exit after the spawn (bench/playwright-floor.ts; BENCH_ONLY=floor).
 *   2. The same reference server alone in a process, loaded by autocannon with a mix of the GETs
 *      the suite sends most (200, 404, 400, 401): its raw request rate, and the suite's rate as a
 *      share of it. Then the same mix one request at a time, from autocannon and from the suite's
 *      own HTTP client: the difference is what the suite's HTTP layer adds to each request. And
 *      every check once more, in this process (warm: after one run to load and compile), against
 *      that server in its own process: the suite's own time per request, judging included.
 *   3. The validating proxy (`npm run validate -- --proxy`, in its own process) in front of that
 *      server: the median time of one request of the mix sent directly and through the proxy, one
 *      at a time over a kept-alive connection; the difference is the latency the proxy adds
 *      (forwarding, and judging beside the stream). BENCH_ONLY=proxy runs this case alone.
 *   4. A remote deployment: that server behind a proxy holding every request 150 ms
 *      (BENCH_LATENCY_MS; bench/latency-proxy.ts), run through the CLI with the defaults for a
 *      deployment, a write run and a read-only run: wall time, requests, their rate, the most in
 *      flight, and the floor the request count and latency allow. BENCH_ONLY=remote runs it alone,
 *      BENCH_REMOTE_MODES=write (or lanes, read-only; comma-separated) only the runs it names.
 *   5. The whole gallery (tests/self/gallery.spec.ts: each faulty variant against the probes its
 *      requirements select and the sentinels) and the hostile gallery (tests/self/hostile.spec.ts):
 *      wall time.
 *   6. The wall times the self-tests measure but do not assert (bench/timing.ts): the suite against each
 *      hostile variant, the politeness variants with the default pace, the CLI against a server
 *      that stops answering. BENCH_ONLY=timing runs this part alone.
 *
 * Not part of npm test. Figures are of this machine and whatever else runs on it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon, { type Result } from 'autocannon';
import { RunContext, runProbe } from '../engine/run.ts';
import { ExchangeLog } from '../exchange/log.ts';
import { PROBES } from '../probes/index.ts';
import { HttpClient } from '../transport/client.ts';
import { TargetSession } from '../transport/session.ts';
import { DEFAULT_ACCOUNT_FIXTURE } from '../generators/account-fixture.ts';
import { EMBEDDED_POLITENESS } from '../config/config.ts';
import {
  REFERENCE_COUNTERPARTY,
  REFERENCE_TOKEN,
  WRITABLE_COUNTERPARTIES,
  WRITABLE_COUNTERPARTY,
} from '../servers/reference.ts';
import { REMOTE_POLITENESS } from '../config/config.ts';
import { startDelayingProxy } from './latency-proxy.ts';
import { timingRows } from './timing.ts';
import { PLAYWRIGHT, ROOT, run, startServer, TSX } from './processes.ts';
import { PROXY_ROUNDS, proxyLatency, proxyMix, proxyRow } from './proxy-latency.ts';
import { lastScore } from '../mutation/check.ts';
import { timelineText } from './timeline.ts';
import { floorRow, playwrightFloor } from './playwright-floor.ts';
import type { Durations } from '../reporter/timeline.ts';

const SEED = '20261122';
const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 5);

/** Requests per second of the suite's own HTTP client, one at a time, cycling through `mix`. */
async function suiteClientRate(
  baseURL: string,
  mix: { path: string; headers: Record<string, string> }[],
  forMs: number,
): Promise<number> {
  // A measurement, not a run: no request budget (a fast machine sends more than a run's 25000).
  const session = new TargetSession({
    politeness: { ...EMBEDDED_POLITENESS, maxRequests: Number.MAX_SAFE_INTEGER },
  });
  const log = new ExchangeLog();
  const http = new HttpClient(session, {
    baseURL,
    token: REFERENCE_TOKEN,
    allowWrites: false,
    record: (ex) => log.append(ex),
  });
  try {
    const started = performance.now();
    let n = 0;
    while (performance.now() - started < forMs) {
      const m = mix[n % mix.length]!;
      await http.send({ method: 'GET', path: m.path, auth: m.headers.Authorization ? 'token' : 'none' });
      n++;
    }
    return n / ((performance.now() - started) / 1000);
  } finally {
    session.close();
  }
}

/** Every probe of the suite once, in this process, against `baseURL`: requests and wall time. */
async function allChecks(baseURL: string): Promise<{ requests: number; ms: number }> {
  const session = new TargetSession({ politeness: EMBEDDED_POLITENESS });
  const target = {
    baseURL,
    token: REFERENCE_TOKEN,
    counterpartyRef: REFERENCE_COUNTERPARTY,
    writableRef: WRITABLE_COUNTERPARTY,
    accountFixture: DEFAULT_ACCOUNT_FIXTURE,
    seed: Number(SEED),
    runs: 100,
  };
  try {
    const started = performance.now();
    const run = new RunContext(session, baseURL);
    for (const probe of PROBES) await runProbe(probe, target, run);
    return { requests: session.ledger.count(), ms: performance.now() - started };
  } finally {
    session.close();
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function mib(bytes: number | undefined): string {
  return bytes === undefined ? 'n/a (no /proc)' : `${Math.round(bytes / (1024 * 1024))} MiB`;
}

function table(rows: [string, string][]): string {
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`).join('\n');
}

/** The latency of the remote case, per request (BENCH_LATENCY_MS). */
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 150);

interface RemoteRun {
  mode: 'write' | 'write, 4 lanes' | 'read-only';
  ms: number;
  code: number;
  requests: number;
  verdict: string;
  peakInFlight: number;
}

const REMOTE_MODES = ['write', 'write, 4 lanes', 'read-only'] as const;

/**
 * The runs of the remote case: all three, or those BENCH_REMOTE_MODES names, comma-separated
 * (`write`, `lanes`, `read-only`), to measure one of them again and again.
 */
function remoteModes(): (typeof REMOTE_MODES)[number][] {
  const asked = process.env.BENCH_REMOTE_MODES;
  if (!asked) return [...REMOTE_MODES];
  const names = asked.split(',').map((s) => s.trim());
  const unknown = names.filter((n) => !['write', 'lanes', 'read-only'].includes(n));
  if (unknown.length > 0) throw new Error(`BENCH_REMOTE_MODES: unknown mode(s) ${unknown.join(', ')}`);
  return REMOTE_MODES.filter((m) => names.includes(m === 'write, 4 lanes' ? 'lanes' : m));
}

/**
 * The remote case: the reference server in its own process behind a proxy that holds each request
 * LATENCY_MS, run through the CLI as a user runs it against a deployment (API_BASE_URL set, so the
 * defaults for a deployment apply: adaptive politeness, no fixed rate), once with a writable
 * counterparty, once with four (lanes: WRITABLE_COUNTERPARTY_REF=a,b,c,d) and once read-only.
 */
async function remoteRuns(): Promise<RemoteRun[]> {
  const server = await startServer();
  const out: RemoteRun[] = [];
  try {
    for (const mode of remoteModes()) {
      const proxy = await startDelayingProxy(server.url, LATENCY_MS);
      const work = mkdtempSync(join(tmpdir(), 'payflow-bench-remote-'));
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        API_BASE_URL: proxy.url,
        API_TOKEN: REFERENCE_TOKEN,
        COUNTERPARTY_REF: REFERENCE_COUNTERPARTY,
        WRITABLE_COUNTERPARTY_REF:
          mode === 'write'
            ? WRITABLE_COUNTERPARTY
            : mode === 'write, 4 lanes'
              ? WRITABLE_COUNTERPARTIES.join(',')
              : '',
        ACCOUNT_FIXTURE: mode === 'read-only' ? '' : JSON.stringify(DEFAULT_ACCOUNT_FIXTURE),
        CONFORMANCE_SEED: SEED,
        CONFORMANCE_REPORTS_DIR: join(work, 'reports'),
        CONFORMANCE_RESULTS_DIR: join(work, 'test-results'),
      };
      for (const name of Object.keys(env)) {
        // Default settings: none of the user's own limits or inputs.
        if (/^CONFORMANCE_(RPS|CONCURRENCY|RUNS|MAX_|TIMEOUT|RETRIES|SETTLE)/.test(name)) delete env[name];
      }
      console.log(`running: npm run conformance, ${mode}, ${LATENCY_MS} ms per request ...`);
      const done = await run([TSX, join(ROOT, 'bin', 'conformance.ts')], env);
      let requests = Number.NaN;
      let verdict = `no report (exit ${done.code})`;
      try {
        const record = JSON.parse(readFileSync(join(work, 'reports', 'conformance.json'), 'utf8')) as {
          requests: number;
          verdict: string;
          probes: { probe: string; requests: number; durationMs: number }[];
          durations?: Durations;
        };
        requests = record.requests;
        verdict = record.verdict;
        const timeline = timelineText(record.durations, done, join(work, 'reports'));
        if (timeline !== undefined) console.log(`  timeline: ${timeline}`);
        // Where the time went: the slowest probes (a lane's probes run one after another).
        const slowest = [...record.probes]
          .sort((a, b) => b.durationMs - a.durationMs)
          .filter((p) => p.durationMs >= 1000);
        console.log(
          `  slowest probes: ${slowest.map((p) => `${p.probe} ${seconds(p.durationMs)} (${p.requests} requests)`).join(', ')}`,
        );
      } catch {
        // No report: the verdict says so.
      }
      if (done.code !== 0) console.log(done.stdout.split('\n').slice(-25).join('\n'));
      out.push({ mode, ms: done.ms, code: done.code, requests, verdict, peakInFlight: proxy.peakInFlight() });
      await proxy.close();
      rmSync(work, { recursive: true, force: true });
    }
  } finally {
    server.child.stdin!.end();
    server.child.kill('SIGTERM');
  }
  return out;
}

/** Rows of the remote case: wall time, requests, their rate, and the floor the latency sets. */
function remoteRows(runs: RemoteRun[]): [string, string][] {
  const cap = REMOTE_POLITENESS.concurrency;
  return runs.map((r) => {
    const floor = (r.requests * LATENCY_MS) / cap;
    return [
      `remote, ${LATENCY_MS} ms per request, ${r.mode} run (defaults)`,
      `${seconds(r.ms)} wall (exit ${r.code}, ${r.verdict}); ${r.requests} requests, ` +
        `${(r.requests / (r.ms / 1000)).toFixed(0)}/s, at most ${r.peakInFlight} in flight; ` +
        `floor ${seconds(floor)} (${r.requests} × ${LATENCY_MS} ms / ${cap} in flight at most)`,
    ];
  });
}

/**
 * The mutation score of the last recorded npm run mutation (mutation/score.json): a
 * whole run takes far longer than this benchmark, so it is read, not measured, here.
 */
function mutationRow(): [string, string] {
  const s = lastScore();
  if (!s) return ['mutation score (npm run mutation)', 'not recorded'];
  const st = s.byStatus;
  const detected = (st.Killed ?? 0) + (st.Timeout ?? 0);
  const valid = detected + (st.Survived ?? 0) + (st.NoCoverage ?? 0);
  return [
    `mutation score over non-equivalent mutants (npm run mutation, ${s.startedAt.slice(0, 10)}, commit ${s.commit.slice(0, 7)}${s.dirty ? '+' : ''})`,
    `${s.score.toFixed(1)} %: ${detected} detected of ${valid - s.equivalentOrSilent} (${valid} mutants; ${s.equivalentOrSilent} equivalent or silent, ${s.missed} missed, ${s.untriaged} untriaged; ${(s.wallMs / 60000).toFixed(0)} min wall)`,
  ];
}

/** Runs the part BENCH_ONLY names alone, if it names one; false when it names none. */
async function onlyPart(): Promise<boolean> {
  const only = process.env.BENCH_ONLY;
  if (only === 'remote') {
    const runs = await remoteRuns();
    console.log(table(remoteRows(runs)));
    if (runs.some((r) => r.code !== 0)) process.exitCode = 1;
  } else if (only === 'embedded') {
    const r = await conformanceRun();
    console.log(
      table([
        ['embedded run, wall (CLI to exit)', `${seconds(r.ms)} (exit ${r.code}; ${r.verdict})`],
        ['  timeline (from the spawn)', r.timeline ?? 'n/a'],
      ]),
    );
  } else if (only === 'floor') console.log(table([floorRow(await playwrightFloor())]));
  else if (only === 'mutation') console.log(table([mutationRow()]));
  else if (only === 'timing') console.log(table(await timingRows()));
  else if (only === 'proxy') {
    const server = await startServer();
    const auth = { Authorization: `Bearer ${REFERENCE_TOKEN}` };
    try {
      const p = await proxyLatency(server.url, proxyMix(auth), PROXY_ROUNDS);
      console.log(table([proxyRow(p)]));
    } finally {
      server.child.stdin!.end();
      server.child.kill('SIGTERM');
    }
  } else return false;
  return true;
}

/** 1. A full conformance run against the embedded server: its process, and what its report says. */
async function conformanceRun() {
  const work = mkdtempSync(join(tmpdir(), 'payflow-bench-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CONFORMANCE_SEED: SEED,
    CONFORMANCE_REPORTS_DIR: join(work, 'reports'),
    CONFORMANCE_RESULTS_DIR: join(work, 'test-results'),
  };
  for (const name of ['API_BASE_URL', 'API_TOKEN', 'COUNTERPARTY_REF', 'CONFORMANCE_RUNS'] as const)
    delete env[name];
  console.log('running: npm run conformance (embedded reference server) ...');
  const conformance = await run([TSX, join(ROOT, 'bin', 'conformance.ts')], env, true);
  let requests = Number(/Requests sent: (\d+)/.exec(conformance.stdout)?.[1] ?? Number.NaN);
  let suiteMs = Number.NaN;
  let verdict = 'unknown';
  let perProbe: { probe: string; requests: number }[] = [];
  let timeline: string | undefined;
  try {
    const record = JSON.parse(readFileSync(join(work, 'reports', 'conformance.json'), 'utf8')) as {
      requests: number;
      durationMs: number;
      verdict: string;
      runs: number;
      probes: { probe: string; requests: number }[];
      durations?: Durations;
    };
    timeline = timelineText(record.durations, conformance, join(work, 'reports'));
    perProbe = record.probes.map(({ probe, requests: n }) => ({ probe, requests: n }));
    if (Number.isNaN(requests)) requests = record.requests;
    suiteMs = record.durationMs;
    verdict = `${record.verdict}, ${record.runs} cases per property`;
  } catch {
    verdict = `no report (exit ${conformance.code})`;
  }
  rmSync(work, { recursive: true, force: true });
  if (conformance.code !== 0) console.log(conformance.stdout.split('\n').slice(-15).join('\n'));
  return { ...conformance, requests, suiteMs, verdict, perProbe, timeline };
}

/**
 * 2 and 3. The reference server alone in a process: its raw rate under a load generator, one
 * request at a time from autocannon and from the suite's client, every check warm, and the
 * validating proxy in front of it.
 */
async function serverRates() {
  console.log(`running: autocannon against the reference server alone (${LOAD_SECONDS} s) ...`);
  const server = await startServer();
  const auth = { Authorization: `Bearer ${REFERENCE_TOKEN}` };
  const mix: { method: string; path: string; headers: Record<string, string> }[] = [
    { method: 'GET', path: `/api/v1/counterparties/${REFERENCE_COUNTERPARTY}`, headers: auth },
    { method: 'GET', path: '/api/v1/counterparties/unknown-reference-0001', headers: auth },
    { method: 'GET', path: '/api/v1/counterparties/a', headers: auth },
    { method: 'GET', path: `/api/v1/counterparties/${REFERENCE_COUNTERPARTY}`, headers: {} },
  ];
  const rate = (result: Result): number =>
    (result.requests.total ?? result.requests.average * result.duration) / result.duration;
  let raw: { rate: number; errors: number } = { rate: Number.NaN, errors: 0 };
  let serialAutocannon = Number.NaN;
  let serialSuite = Number.NaN;
  let warm = { requests: 0, ms: Number.NaN };
  let proxy = { direct: Number.NaN, proxied: Number.NaN, code: -1, judged: 'not run' };
  try {
    const result = await autocannon({
      url: server.url,
      connections: 10,
      duration: LOAD_SECONDS,
      requests: mix,
    });
    raw = { rate: rate(result), errors: result.errors };
    console.log(`running: the same mix one at a time, from autocannon and from the suite's client ...`);
    const serial = await autocannon({
      url: server.url,
      connections: 1,
      duration: LOAD_SECONDS,
      requests: mix,
    });
    serialAutocannon = rate(serial);
    serialSuite = await suiteClientRate(server.url, mix, LOAD_SECONDS * 1000);
    console.log('running: every check in this process against that server (warm) ...');
    await allChecks(server.url);
    warm = await allChecks(server.url);
    console.log(
      `running: the validating proxy in front of that server (${PROXY_ROUNDS} requests each way) ...`,
    );
    proxy = await proxyLatency(server.url, proxyMix(auth), PROXY_ROUNDS);
  } finally {
    server.child.stdin!.end();
    server.child.kill('SIGTERM');
  }
  return { raw, serialAutocannon, serialSuite, warm, proxy };
}

/** 5. The gallery and the hostile gallery, each a Playwright run of its own. */
async function galleries() {
  const self = ['test', '--config', join(ROOT, 'playwright.self.config.ts'), '--reporter=dot'];
  const passed = (r: { stdout: string }): string => /(\d+) passed/.exec(r.stdout)?.[1] ?? '?';
  console.log('running: the gallery (tests/self/gallery.spec.ts) ...');
  const gallery = await run([PLAYWRIGHT, ...self, 'tests/self/gallery.spec.ts'], process.env);
  console.log('running: the hostile gallery (tests/self/hostile.spec.ts) ...');
  const hostile = await run([PLAYWRIGHT, ...self, 'tests/self/hostile.spec.ts'], process.env);
  return {
    gallery: { ...gallery, passed: passed(gallery) },
    hostile: { ...hostile, passed: passed(hostile) },
  };
}

async function main(): Promise<void> {
  const cpu = cpus();
  const started = new Date();
  console.log(
    `payflow-conformance benchmark, ${started.toISOString().slice(0, 10)}: ${cpu.length} core(s) ` +
      `(${cpu[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, ${process.platform}`,
  );
  if (await onlyPart()) return;

  const conformance = await conformanceRun();
  const floor = await playwrightFloor();
  const { raw, serialAutocannon, serialSuite, warm, proxy } = await serverRates();
  // 4. A remote deployment: the same server behind LATENCY_MS per request.
  const remote = await remoteRuns();
  const { gallery, hostile } = await galleries();
  // 6. What the self-tests measure but do not assert.
  const timing = await timingRows();

  const { requests, suiteMs } = conformance;
  const suiteRate = requests / (suiteMs / 1000);
  const wallRate = requests / (conformance.ms / 1000);
  const workers = 2;
  console.log('');
  console.log(
    table([
      [
        'full conformance run, wall (CLI to exit)',
        `${seconds(conformance.ms)} (exit ${conformance.code}; ${conformance.verdict})`,
      ],
      ['  of which the Playwright suite', seconds(suiteMs)],
      ['  timeline (from the spawn)', conformance.timeline ?? 'n/a (no durations in the record)'],
      floorRow(floor),
      ['peak memory (RSS of the whole process tree)', mib(conformance.peakBytes)],
      ['requests sent', String(requests)],
      ...conformance.perProbe.map(({ probe, requests: n }): [string, string] => [`  ${probe}`, String(n)]),
      [
        'requests per second',
        `${suiteRate.toFixed(0)}/s in the suite, ${wallRate.toFixed(0)}/s over the wall time`,
      ],
      [
        'reference server alone, autocannon',
        `${raw.rate.toFixed(0)}/s (10 connections, ${LOAD_SECONDS} s, GET mix 200/404/400/401${raw.errors ? `, ${raw.errors} errors` : ''})`,
      ],
      ['suite rate / raw rate', `${((100 * suiteRate) / raw.rate).toFixed(1)} %`],
      [
        'time per request: suite vs server',
        `${((workers * suiteMs) / requests).toFixed(2)} ms per request per worker (checks, generators, judging, HTTP) vs ${(1000 / raw.rate).toFixed(2)} ms of server time`,
      ],
      [
        'every check, warm, one process',
        `${warm.requests} requests in ${seconds(warm.ms)}: ${(warm.ms / warm.requests).toFixed(3)} ms per request (the server in its own process)`,
      ],
      [
        'one request at a time, same mix',
        `autocannon ${(1000 / serialAutocannon).toFixed(3)} ms, the suite's HTTP client ${(1000 / serialSuite).toFixed(3)} ms: ` +
          `${(1000 / serialSuite - 1000 / serialAutocannon).toFixed(3)} ms added per request`,
      ],
      proxyRow(proxy),
      ...remoteRows(remote),
      ['gallery, wall', `${seconds(gallery.ms)} (${gallery.passed} tests passed, exit ${gallery.code})`],
      [
        'hostile gallery, wall',
        `${seconds(hostile.ms)} (${hostile.passed} tests passed, exit ${hostile.code})`,
      ],
      ...timing,
      mutationRow(),
    ]),
  );
  if (
    conformance.code !== 0 ||
    gallery.code !== 0 ||
    hostile.code !== 0 ||
    proxy.code !== 0 ||
    remote.some((r) => r.code !== 0)
  )
    process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(`bench: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
