/**
 * `npm run conformance` end to end against a hostile target and with the run's limits: a server
 * that never answers, not even the reachability check, still yields a full report and exit 1 in
 * bounded time; the request budget stops the run; the rate and concurrency limits hold across the
 * suite's workers; a target writing to the terminal is shown escaped; and a bad limit is a
 * one-line error (exit 2) before any request is sent.
 *
 * What was traded for time (issue 20), and what proves it instead:
 *   - A server that stops answering mid-run, after answering the reachability check, is checked
 *     in-process: bin/preflight.ts's check (the function the CLI calls) takes its answer, without
 *     a note, and every later request of it hangs, as every request of the silent server does
 *     whose CLI run is below; from the check on, the run is that one. The suite's report against
 *     it, every probe, is hostile.spec.ts's ('hangs-after-first-answer').
 *   - The request budget and the rate and concurrency limits share one run (two workers, a budget
 *     over a hundred requests at 60 requests/s), each test asserting its part of it.
 *   - The target writing to the terminal is run with one probe that receives its body (the
 *     known counterparty), on one worker: the whole suite against it, in-process, is
 *     hostile.spec.ts's ('writes-to-the-terminal'); what the CLI adds is the console and the
 *     files, which that probe's findings reach.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { preflight } from '../../bin/preflight.ts';
import { INPUT_CAPS } from '../../config/input-files.ts';
import type { Har } from '../../exchange/har.ts';
import { RECORD_FILE, REPORT_WRITERS } from '../../reporter/writers.ts';
import type { ConformanceRecord } from '../../reporter/record.ts';
import { HOSTILE_VARIANTS } from '../../servers/gallery/index.ts';
import { hangsAfter } from '../../servers/gallery/hostile.ts';
import { REFERENCE_COUNTERPARTY, REFERENCE_TOKEN, ReferenceServer } from '../../servers/reference.ts';
import {
  nodeTs,
  recordingProxy,
  removeTemporaryDirectories,
  runCli,
  runNode,
  temporaryDirectory,
  type CliRun,
} from './cli-fixtures.ts';

test.afterAll(removeTemporaryDirectories);

/** The CLI with the settings a deployment gets (rate and concurrency limits), 3 cases per property. */
function conformance(env: Record<string, string>, args: string[] = []): Promise<CliRun> {
  return runCli(
    {
      CONFORMANCE_RPS: undefined,
      CONFORMANCE_CONCURRENCY: undefined,
      CONFORMANCE_RUNS: '3',
      ...env,
    },
    { args },
  );
}

const TARGET = { API_TOKEN: REFERENCE_TOKEN, COUNTERPARTY_REF: REFERENCE_COUNTERPARTY };

/**
 * The probe of the run against a target that never answers: invalid-references, over a hundred
 * requests, which the circuit must cut short, on one worker. A probe that cannot complete fails
 * its Playwright test, and Playwright replaces a worker after a failure when it has more tests to
 * run (about 1.4 s of CPU each): a whole read-only run costs 15 s of CPU here and proves no more
 * (every probe reported incomplete with its reason, the unanswered requests as the one finding).
 * That the circuit holds for every process of a run is the run's ledger, shared by its workers:
 * failures and the stop counted across processes in politeness.spec.ts ('a ledger in a directory
 * is shared by the processes of a run'), and the ledger of two workers counting one budget in the
 * run of the limits below. That the whole suite completes through the CLI is cli.spec.ts's.
 */
const STOPPED_RUN_PROBES = ['invalid-references'];
const STOPPED_RUN_ARGS = STOPPED_RUN_PROBES.flatMap((id) => ['--probe', id]);

interface RecordShape {
  verdict: string;
  pace?: { effectiveRps: number; maxInFlight: number };
  incomplete: { test: string; error: string }[];
  requirements: { id: string; status: string; findings: { received: string }[] }[];
}

function record(r: CliRun): RecordShape {
  const path = join(r.reports, 'conformance.json');
  expect(existsSync(path), `no report was written\n${r.stdout}${r.stderr}`).toBe(true);
  return JSON.parse(readFileSync(path, 'utf8')) as RecordShape;
}

/**
 * A server that hangs is the suite's to judge, never a configuration error: the connection opens,
 * so the run goes on and reports the unanswered requests.
 */
test('a server that accepts connections and never answers, not even the reachability check: a full report, exit 1, in bounded time', async () => {
  // A backstop against a run that waits out a timeout per request (well over ten minutes): ten
  // times and more the 10 to 17 s it takes on a quiet machine. The proof that the circuit opened
  // is the count of requests below, which no machine's load moves.
  test.setTimeout(240_000);
  const server = hangsAfter(0);
  const baseURL = await server.start();
  try {
    const r = await conformance(
      {
        ...TARGET,
        API_BASE_URL: baseURL,
        CONFORMANCE_TIMEOUT_MS: '500',
        CONFORMANCE_CONCURRENCY: '1',
      },
      STOPPED_RUN_ARGS,
    );
    expect(r.code, r.stdout + r.stderr).toBe(1);
    // The reachability check waits CONFORMANCE_TIMEOUT_MS, no longer, and says why the run goes on.
    expect(r.stdout).toMatch(
      /Reachability check: the connection to \S+ opened but no answer came within 500 ms/,
    );
    // Three timeouts in a row open the circuit; the rest of the run sends nothing (one request in
    // flight: none other left meanwhile).
    expect(r.stdout).toMatch(/Requests sent: 3 /);
    const rec = record(r);
    expect(rec.verdict).toBe('fail');
    // The probe of the run (a read probe: a read-only run) could not complete.
    expect(rec.incomplete.map((i) => i.test.split(':')[0]).sort()).toEqual([...STOPPED_RUN_PROBES].sort());
    for (const i of rec.incomplete)
      expect(i.error).toMatch(/could not complete: .*(no complete answer|target unreachable)/);
    // The unanswered requests are the finding, listed with their requests; nothing the suite could
    // not judge is reported failed.
    const failed = rec.requirements.filter((q) => q.status === 'failed');
    expect(failed.map((q) => q.id)).toEqual(['request-answered']);
    expect(failed[0]!.findings.length).toBeGreaterThanOrEqual(1);
    for (const f of failed[0]!.findings) expect(f.received).toMatch(/no response \(timeout/);
    expect(r.stdout).not.toContain(REFERENCE_TOKEN);
  } finally {
    await server.stop();
  }
});

test('a server that stops answering mid-run (after the reachability check): the check takes its answer, and the run is the one above', async () => {
  // The CLI's reachability check (bin/preflight.ts), in-process: the server's one answer goes to
  // it, so the CLI prints no note and starts the suite as against any server that answers
  // (every other CLI test). After it, the server hangs on every request, as the silent one above
  // does from its first: the check sent again now connects and waits in vain, the note that
  // server got. So the suite's run, its report and its exit status are the ones the test above
  // proves through the CLI (and hostile.spec.ts, 'hangs-after-first-answer', for every probe).
  const server = hangsAfter(1);
  const baseURL = await server.start();
  try {
    const check = {
      baseURL,
      token: REFERENCE_TOKEN,
      counterpartyRef: REFERENCE_COUNTERPARTY,
      timeoutMs: 500,
    };
    expect(await preflight(check)).toBeUndefined();
    expect(await preflight(check)).toMatch(
      /^Reachability check: the connection to \S+ opened but no answer came within 500 ms/,
    );
  } finally {
    await server.stop();
  }
});

test.describe('the limits of a run: one run, a request budget of 120 at 60 requests/s on two workers', () => {
  test.describe.configure({ mode: 'default' });
  const BUDGET = 120;
  let reference: ReferenceServer;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  let r: CliRun;

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    reference = new ReferenceServer();
    proxy = await recordingProxy(await reference.start(0));
    // Three read probes on two workers, invalid-references alone over a hundred requests: the
    // budget ends the run after some two seconds at the cap.
    r = await conformance(
      {
        ...TARGET,
        API_BASE_URL: proxy.url,
        CONFORMANCE_MAX_REQUESTS: String(BUDGET),
        CONFORMANCE_RPS: '60',
        CONFORMANCE_CONCURRENCY: '2',
      },
      [
        '--probe',
        'known-counterparty',
        '--probe',
        'invalid-references',
        '--probe',
        'reads-require-authentication',
      ],
    );
  });
  test.afterAll(async () => {
    await proxy?.close();
    await reference?.stop();
  });

  test('the request budget stops the run and is reported', () => {
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain(`Requests sent: ${BUDGET} (at most ${BUDGET}, CONFORMANCE_MAX_REQUESTS)`);
    // The suite's requests from both workers, counted against one budget, and the CLI's
    // reachability check: never more. A read sent again on a kept-alive connection the proxy had
    // just closed (transport/session.ts) counts twice and may arrive once, so a loaded machine
    // can see one or two fewer.
    expect(proxy.arrivals.length).toBeLessThanOrEqual(BUDGET + 1);
    expect(proxy.arrivals.length).toBeGreaterThanOrEqual(BUDGET - 2);
    const rec = record(r);
    expect(
      rec.incomplete.some((i) =>
        new RegExp(`request budget of ${BUDGET} \\(CONFORMANCE_MAX_REQUESTS\\)`).test(i.error),
      ),
      JSON.stringify(rec.incomplete),
    ).toBe(true);
    expect(rec.requirements.filter((q) => q.status === 'failed')).toEqual([]);
  });

  test('the rate and concurrency limits hold across the workers of a run', () => {
    expect(r.stdout).toMatch(/Limits: .*; 2 worker processes\n/);
    expect(r.stdout).toMatch(/Limits: at most 60 request\(s\)\/s, 2 in flight/);
    expect(proxy.maxInFlight()).toBeLessThanOrEqual(2);
    expect(proxy.arrivals.length).toBeGreaterThan(100);
    // The workers' paces, summed from the run's ledger: within the cap over the time they were
    // sending (a busy machine only slows it), and never more than 2 in flight between them. When
    // each request went out is a decision of the session, tested exactly on a fake clock
    // (politeness.spec.ts: two processes sharing a cap); arrival times at a proxy in a loaded
    // process bunch up, so they are not compared with the cap here.
    const pace = record(r).pace;
    expect(pace?.effectiveRps).toBeGreaterThan(0);
    // 60 requests/s, and the slack of two processes' first requests going out together.
    expect(pace!.effectiveRps).toBeLessThanOrEqual(63);
    expect(pace!.maxInFlight).toBeLessThanOrEqual(2);
    // A read-only run: nothing but GET reached the target.
    expect([...proxy.methods]).toEqual(['GET']);
  });
});

/**
 * The characters a report may never carry raw: controls (C0, DEL, C1) other than the line feed
 * and the tab that lay it out, format characters (bidi controls, zero-width), line and paragraph
 * separators. Each is named with its code point.
 */
function rawControls(text: string): string[] {
  const found = text.match(/(?![\n\t])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu) ?? [];
  const counts = new Map<string, number>();
  for (const c of found) {
    const name = `U+${c.codePointAt(0)!.toString(16).padStart(4, '0')}`;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts].map(([name, n]) => `${n} × ${name}`);
}

/** Every string of a JSON value, keys included. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => [k, ...stringsOf(v)]);
  return [];
}

test('a target that writes to the terminal: its text is shown escaped, never raw, on the console and in every report', async () => {
  test.setTimeout(120_000);
  const server = HOSTILE_VARIANTS.find((v) => v.id === 'writes-to-the-terminal')!.create();
  const baseURL = await server.start();
  try {
    // One probe that receives the body (the known counterparty, read with the valid token), on
    // one worker: its findings quote the body and the Content-Type.
    const r = await conformance(
      { ...TARGET, API_BASE_URL: baseURL, CONFORMANCE_RPS: '0', CONFORMANCE_CONCURRENCY: '1' },
      ['--probe', 'known-counterparty'],
    );
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const files = Object.fromEntries(
      ['junit.xml', 'conformance.json', 'conformance.html'].map((f) => [
        f,
        readFileSync(join(r.reports, f), 'utf8'),
      ]),
    );
    const rec = JSON.parse(files['conformance.json']!) as RecordShape;
    const places: [string, string][] = [
      ['stdout', r.stdout],
      ['stderr', r.stderr],
      ...Object.entries(files),
      ['the strings of conformance.json', stringsOf(rec).join('\n')],
    ];
    for (const [where, text] of places) expect(rawControls(text), where).toEqual([]);
    // The fake verdict stays inside the evidence it came in: no console line starts with it.
    expect(r.stdout).toMatch(/^Conformance FAILED against /m);
    const fake = r.stdout.split('\n').filter((line) => /^\s*Conformance PASSED/.test(line));
    expect(fake, 'fake verdict lines').toEqual([]);
    // Shown, not done: the body and the Content-Type as visible escapes, on the line of the finding.
    const received = rec.requirements.flatMap((q) => q.findings.map((f) => f.received)).join('\n');
    expect(received).toContain(
      '\\x1b[2J\\x1b[H\\x1b]0;pwned\\x07\\x1b]8;;https://evil.example/\\x07click\\x1b]8;;\\x07\\x07\\x07\\r\\nConformance PASSED',
    );
    expect(received).toContain('\\x9b2J\\x85\\x7f\\u202eDESSAP\\u202c\\u2066x\\u2069\\u2028\\u200b');
    expect(received).toContain('profile="\\x9b2J\\x85Conformance PASSED\\x9d0;pwned\\x9c"');
    expect(r.stdout).toContain('\\x1b]0;pwned\\x07');
    expect(files['junit.xml']).toContain('\\x1b[2J');
    // The reason phrase is not recorded at all.
    expect(r.stdout + stringsOf(rec).join('\n')).not.toContain('pwned\\x07\\x1b[2J');
  } finally {
    await server.stop();
  }
});

/**
 * NODE_OPTIONS that make every Node process of a run (the CLI, Playwright's runner, its workers:
 * NODE_OPTIONS reaches them all) append its peak resident set size, in KiB, to `file` as it exits.
 * A data: URL, so that no file of the project is loaded into Playwright's processes beside theirs.
 */
function peakMemoryOptions(file: string): string {
  const hook = `import { appendFileSync } from 'node:fs';
process.on('exit', () => appendFileSync(${JSON.stringify(file)}, process.pid + ' ' + process.resourceUsage().maxRSS + ' ' + process.argv.slice(1).join(' ').slice(-60) + '\\n'));`;
  return `--import=data:text/javascript;base64,${Buffer.from(hook).toString('base64')}`;
}

/** The peaks peakMemoryOptions recorded: one line per process, "pid KiB what". */
function peaks(file: string): { kib: number; line: string }[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => ({ kib: Number(line.split(' ')[1]), line }));
}

const GiB_KIB = 1024 * 1024;

test('every answer 4 MB: every report written, each process of the run under 1 GiB, and an exchanges.har its own validate reads', async () => {
  // A backstop: some 30 s on a quiet machine. What is proven is counted: memory, files, verdicts.
  test.setTimeout(300_000);
  const server = HOSTILE_VARIANTS.find((v) => v.id === 'answers-4-mb')!.create();
  const baseURL = await server.start();
  try {
    const file = join(temporaryDirectory('payflow-peaks-'), 'peaks.txt');
    // The probe that reads most at once (a round of over a hundred concurrent reads, each 4 MB):
    // 400 MB of answers, several times the budget of kept bodies.
    const r = await conformance({ ...TARGET, API_BASE_URL: baseURL, NODE_OPTIONS: peakMemoryOptions(file) }, [
      '--probe',
      'invalid-references',
      '--probe',
      'known-counterparty',
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    for (const name of REPORT_WRITERS.flatMap((w) => w.files))
      expect(existsSync(join(r.reports, name)), name).toBe(true);
    const rec = JSON.parse(readFileSync(join(r.reports, RECORD_FILE), 'utf8')) as ConformanceRecord;
    // Conforming, only large: the verdicts of the reference server's.
    expect(rec.requirements.filter((q) => q.status === 'failed' || q.status === 'warned')).toEqual([]);
    expect(rec.incomplete).toEqual([]);
    // Past the budget, bodies are kept as their head, length and SHA-256, and the report says so.
    expect(rec.kept?.cut, 'bodies kept in part').toBeGreaterThan(0);
    expect(r.stdout).toMatch(/Kept in exchanges\.har: \d+ bodies past the 32 MiB kept whole/);
    const processes = peaks(file);
    // The CLI, Playwright's runner and its worker(s).
    expect(processes.length, processes.map((p) => p.line).join('\n')).toBeGreaterThanOrEqual(3);
    for (const p of processes) expect(p.kib, p.line).toBeLessThan(GiB_KIB);
    // Its own exchanges.har: within what validate reads, read and judged by it (exit 0).
    const har = join(r.reports, 'exchanges.har');
    expect(statSync(har).size).toBeLessThan(INPUT_CAPS.har);
    const entries = (JSON.parse(readFileSync(har, 'utf8')) as Har).log.entries;
    expect(entries.length).toBe(rec.requests);
    expect(entries.filter((e) => e.response.content._truncated !== undefined).length).toBeGreaterThan(0);
    const v = await runNode(nodeTs('bin/validate.ts', har), {}, r.work);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    expect(v.stdout).toMatch(/with a body recorded only as its head \(not judged\)/);
  } finally {
    await server.stop();
  }
});

// One bad limit through the CLI: every other is the same ConfigError before any request, tested
// directly (politeness.spec.ts, 'a bad value is a one-line ConfigError'); an unreadable fixture
// through the CLI is cli-config.spec.ts's.
const badLimits: [string, Record<string, string>, RegExp][] = [
  ['a rate that is not a number', { CONFORMANCE_RPS: 'fast' }, /CONFORMANCE_RPS must be a number/],
];
for (const [name, env, message] of badLimits) {
  test(`exits 2 with one line before any request: ${name}`, async () => {
    const target = await recordingProxy('');
    try {
      const r = await conformance({ ...TARGET, API_BASE_URL: target.url, ...env });
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(target.arrivals).toEqual([]);
    } finally {
      await target.close();
    }
  });
}
