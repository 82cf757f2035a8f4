/**
 * `npm run validate` end to end: HAR files recorded by Playwright itself (recordHar on a Chromium
 * context, the requests sent by the page with fetch) against the reference server pass, against
 * gallery variants whose fault shows in the recorded traffic fail naming the requirement and the
 * HAR entry, against the independent implementation pass; malformed HARs exit 2 with one line;
 * the suite's own reports/exchanges.har gets the same verdicts as the run that wrote it; the
 * validating proxy gates a client's traffic; and the bearer token never reaches a report.
 *
 * The command itself runs where it is the point: the token of a recorded file in no report it
 * writes (exit 1, the files, the console), one malformed HAR and one usage error (exit 2, one
 * line, no report), and the proxy (a process stopped by a signal or its --duration). The other
 * recorded files, malformed files and usage errors are judged in-process by the functions the
 * command calls (cli-fixtures.ts validateInProcess: bin/validate.ts parseValidateFlags,
 * resolveValidateRun, judgeHarFile, and the summary it prints), which give the record it writes
 * and its exit status without a process (some 1.1 s of CPU each). The run against a faulty
 * variant is narrowed to a probe that judges the requirement the variant breaks, and its
 * exchanges.har judged in-process. The suite's whole run against the embedded server and
 * `validate` of the exchanges.har it wrote, as a process (exit 0, the run's verdicts), is in
 * cli.spec.ts ("the suite's own exchanges.har gets the run's verdicts for every requirement an
 * oracle judges"): it shares the whole run of that file's "exits 0 against the embedded reference
 * server" (the same settings), where this file ran the whole suite a second time.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { chromium, expect, test, type Browser } from '@playwright/test';
import { validateCommand, validateUsage } from '../../bin/validate.ts';
import { GALLERY } from '../../servers/gallery/index.ts';
import {
  INDEPENDENT_COUNTERPARTY,
  INDEPENDENT_TOKEN,
  INDEPENDENT_WRITABLE_COUNTERPARTY,
  IndependentServer,
} from '../../servers/independent/server.ts';
import {
  REFERENCE_COUNTERPARTY,
  REFERENCE_TOKEN,
  ReferenceServer,
  WRITABLE_COUNTERPARTY,
} from '../../servers/reference.ts';
import { exchangesOfHar, parseHar } from '../../exchange/har.ts';
import { ORACLES } from '../../oracles/index.ts';
import { recordErrors } from '../../reporter/record-schema.ts';
import type { ConformanceRecord } from '../../reporter/record.ts';
import {
  filesBelow,
  nodeTs,
  removeTemporaryDirectories,
  ROOT,
  runCli,
  runNode,
  SECRET_TOKEN,
  scannableContents,
  targetEnv,
  ShowcaseServer,
  temporaryDirectory,
  TSX_LOADER,
  validateInProcess,
  type ProcessRun,
} from './cli-fixtures.ts';

test.afterAll(() => removeTemporaryDirectories());

const CHROMIUM = '/usr/bin/chromium';

interface HarField {
  name: string;
  value: string;
}

interface Call {
  method: string;
  path: string;
  body?: unknown;
  /** false: no Authorization header. */
  auth?: boolean;
}

/** A client's session: reads, a PATCH between two reads, an invalid reference, no token, a list, a page outside the interface. */
function session(readable: string, writable: string): Call[] {
  return [
    { method: 'GET', path: `/api/v1/counterparties/${readable}` },
    { method: 'GET', path: `/api/v1/counterparties/${writable}` },
    {
      method: 'PATCH',
      path: `/api/v1/counterparties/${writable}`,
      body: { counterpartyDetails: { remarks: 'Checked by the HAR validator' } },
    },
    { method: 'GET', path: `/api/v1/counterparties/${writable}` },
    { method: 'GET', path: `/api/v1/counterparties/${readable}` },
    { method: 'GET', path: '/api/v1/counterparties/x!' },
    { method: 'GET', path: `/api/v1/counterparties/${readable}`, auth: false },
    { method: 'GET', path: '/api/v1/bills' },
    { method: 'GET', path: '/health-check' },
  ];
}

/**
 * This worker's Chromium, launched by the first recording and left to Playwright to end with the
 * worker: each recording gets a context of its own (its own HAR, cookies and cache), and a
 * browser launched per recording cost as much CPU again as the recording.
 */
let sharedBrowser: Promise<Browser> | undefined;

/**
 * Records a HAR with Playwright: a Chromium context with recordHar, a page of the server's origin
 * sending `calls` with fetch (bodies read, so they are in the file).
 */
async function recordHar(baseURL: string, token: string, calls: Call[], path: string): Promise<void> {
  sharedBrowser ??= chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const browser = await sharedBrowser;
  const context = await browser.newContext({ recordHar: { path } });
  try {
    const page = await context.newPage();
    await page.goto(`${baseURL}/`);
    await page.evaluate(
      async ({ calls, token }) => {
        for (const c of calls) {
          const headers: Record<string, string> = { Accept: 'application/json' };
          if (c.auth !== false) headers.Authorization = `Bearer ${token}`;
          if (c.body !== undefined) headers['Content-Type'] = 'application/json';
          const r = await fetch(c.path, {
            method: c.method,
            headers,
            ...(c.body !== undefined ? { body: JSON.stringify(c.body) } : {}),
          });
          await r.text();
        }
      },
      { calls, token },
    );
  } finally {
    // Closing the context writes the HAR.
    await context.close();
  }
}

interface Validation extends ProcessRun {
  reports: string;
  record: ConformanceRecord | undefined;
}

/** `npm run validate -- <args>` as a process, in a directory of its own. */
async function validate(args: string[], env: Record<string, string | undefined> = {}): Promise<Validation> {
  const work = temporaryDirectory('payflow-validate-');
  const reports = join(work, 'reports');
  const run = await runNode(
    nodeTs('bin/validate.ts', ...args),
    { CONFORMANCE_REPORTS_DIR: reports, ...env },
    work,
  );
  const json = join(reports, 'conformance.json');
  const record = existsSync(json) ? (JSON.parse(readFileSync(json, 'utf8')) as ConformanceRecord) : undefined;
  return { ...run, reports, record };
}

function status(record: ConformanceRecord | undefined, id: string): string | undefined {
  return record?.requirements.find((r) => r.id === id)?.status;
}

const ORACLE_JUDGED = new Set<string>(ORACLES.flatMap((o) => o.requirements));

function harPath(name: string): string {
  const dir = temporaryDirectory('payflow-har-');
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}

/** Records `session` against a server of `create` with Playwright; resolves the HAR's path. */
async function recorded(
  name: string,
  create: () => { start(port: number): Promise<string>; stop(): Promise<void> },
  token: string,
  calls: Call[],
): Promise<string> {
  const server = create();
  const base = await server.start(0);
  const har = harPath(name);
  try {
    await recordHar(base, token, calls, har);
  } finally {
    await server.stop();
  }
  return har;
}

/**
 * The session against the reference server, recorded once per worker for the tests that read it:
 * its text, kept beyond the temporary directories removed after each test.
 */
let referenceRecording: Promise<string> | undefined;
function referenceHarText(): Promise<string> {
  referenceRecording ??= recorded(
    'reference.har',
    () => new ReferenceServer(),
    REFERENCE_TOKEN,
    session(REFERENCE_COUNTERPARTY, WRITABLE_COUNTERPARTY),
  ).then((path) => readFileSync(path, 'utf8'));
  return referenceRecording;
}

test.describe('HAR files recorded by Playwright', () => {
  // Judged in-process as the command judges them (validateInProcess); the command itself writes
  // the reports of a recorded file, and exits 1, in 'the bearer token of the file ...' below,
  // and exits 0 on the suite's own exchanges.har in cli.spec.ts.
  test('against the reference server: exit 0, nothing failed, probe-only requirements not exercised, the page outside counted', async () => {
    const har = harPath('reference.har');
    writeFileSync(har, await referenceHarText());
    const v = await validateInProcess([har]);
    expect(v.code, v.line ?? v.summary).toBe(0);
    expect(v.summary).toContain('Validation PASSED');
    const record = v.record!;
    expect(recordErrors(record)).toEqual([]);
    expect(record.requirements.filter((r) => r.status === 'failed' || r.status === 'warned')).toEqual([]);
    // Judged on the recorded PATCH and the reads around it.
    for (const id of [
      'patch-persisted',
      'patch-sent-fields-applied',
      'immutable-fields-stable',
      'counterparty-schema',
    ])
      expect(status(record, id), id).toBe('passed');
    for (const r of record.requirements) {
      if (!ORACLE_JUDGED.has(r.id)) {
        expect(r.status, r.id).toBe('not-exercised');
        expect(r.reasons.join(' '), r.id).toContain('not exercised in validation');
      } else if (r.status === 'not-exercised') {
        expect(r.judged).toBe(0);
        expect(r.reasons).toContain('the traffic held no exchange it judges');
      }
    }
    // The page load and /health-check are outside the interface: counted, listed, not judged.
    expect(record.traffic?.outside.count).toBe(2);
    expect(record.traffic?.outside.requests.join('\n')).toContain('/health-check');
    const ops = Object.fromEntries(record.coverage!.operations.map((o) => [o.operationId, o.exchanges]));
    expect(ops).toMatchObject({ getCounterparty: 6, patchCounterparty: 1, listBills: 1, getBill: 0 });
    expect(record.coverage!.operations).toHaveLength(14);
    // The page of a validation (its coverage and traffic sections): the command writes it in
    // 'the bearer token of the file ...' below.
  });

  test('base64 bodies, an entry without an answer, a bracketed IPv6 address and --base-url are read as such', async () => {
    const data = JSON.parse(await referenceHarText()) as {
      log: {
        entries: { response: Record<string, unknown> & { content: { text?: string; encoding?: string } } }[];
      };
    };
    for (const e of data.log.entries) {
      // As Chromium's devtools write an IPv6 address.
      (e as Record<string, unknown>).serverIPAddress = '[::1]';
      if (e.response.content.text !== undefined) {
        e.response.content.text = Buffer.from(e.response.content.text).toString('base64');
        e.response.content.encoding = 'base64';
      }
    }
    // A request the browser cancelled: status 0, no body, its _error. Not the deployment's fault.
    const cancelled = structuredClone(data.log.entries[1]!);
    cancelled.response = {
      ...cancelled.response,
      status: 0,
      statusText: '',
      headers: [],
      _error: 'net::ERR_ABORTED',
    };
    cancelled.response.content = { size: 0, mimeType: '' } as never;
    data.log.entries.push(cancelled);
    const encoded = harPath('base64.har');
    writeFileSync(encoded, JSON.stringify(data));
    const v = await validateInProcess([encoded]);
    expect(v.code, v.line ?? v.summary).toBe(0);
    expect(status(v.record, 'counterparty-schema')).toBe('passed');
    expect(status(v.record, 'request-answered')).toBe('passed');
    // Another base URL: nothing of the file is below it.
    const elsewhere = await validateInProcess([encoded, '--base-url', 'http://127.0.0.1:1/prefix']);
    expect(elsewhere.code, elsewhere.line ?? elsewhere.summary).toBe(1);
    expect(elsewhere.record!.gateReasons.join('\n')).toContain('no exchange of the interface');
    expect(elsewhere.record!.traffic!.judged).toBe(0);
    expect(elsewhere.record!.requirements.every((r) => r.status === 'not-exercised')).toBe(true);
  });

  test("header fields, query parameters and answer members named as Object.prototype's are read as such: the same verdicts", async () => {
    const text = await referenceHarText();
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
    // JSON.parse, as the validator reads a file: __proto__ is an own key of what it makes.
    const data = JSON.parse(text) as {
      log: {
        entries: {
          request: { url: string; headers: HarField[]; queryString: HarField[] };
          response: { headers: HarField[]; content: { text?: string } };
        }[];
      };
    };
    for (const e of data.log.entries) {
      e.request.headers.push(...names.map((name) => ({ name, value: `sent ${name}` })));
      e.response.headers.push(...names.map((name) => ({ name, value: `answered ${name}` })));
      if (new URL(e.request.url).pathname === '/api/v1/bills') {
        e.request.url += '?constructor=1&__proto__=2';
        e.request.queryString.push({ name: 'constructor', value: '1' }, { name: '__proto__', value: '2' });
      }
      const body = e.response.content.text;
      if (body?.startsWith('{"counterpartyReference"'))
        e.response.content.text = `{"__proto__":{"counterpartyReference":"OTHER-0001"},"constructor":"x","toString":"y",${body.slice(1)}`;
    }
    // The four reads of a counterparty and the PATCH's answer.
    expect(data.log.entries.filter((e) => e.response.content.text?.startsWith('{"__proto__"')).length).toBe(
      5,
    );
    const modified = JSON.stringify(data);
    const exchanges = exchangesOfHar(parseHar(modified, 'names.har'), 'names.har');
    for (const ex of exchanges) {
      for (const name of names) {
        // An answer's field names are kept in lower case (exchange/har.ts), a request's as sent.
        const lower = name.toLowerCase();
        expect(Object.hasOwn(ex.headers, lower) && ex.headers[lower], name).toBe(`answered ${name}`);
        expect(Object.hasOwn(ex.request.headers, name) && ex.request.headers[name], name).toBe(
          `sent ${name}`,
        );
      }
    }
    const original = harPath('original.har');
    writeFileSync(original, text);
    const named = harPath('names.har');
    writeFileSync(named, modified);
    const [before, after] = [await validateInProcess([original]), await validateInProcess([named])];
    expect(after.code, after.line ?? after.summary).toBe(0);
    const statuses = (v: typeof after): string[] => v.record!.requirements.map((r) => `${r.id} ${r.status}`);
    expect(statuses(after)).toEqual(statuses(before));
    expect(status(after.record, 'counterparty-reference-echo')).toBe('passed');
  });

  const VARIANTS = [
    'fractional-second-timestamps',
    'lower-case-state',
    'deprecation-true',
    'patch-lifecycle-headers-own',
  ];
  for (const id of VARIANTS) {
    test(`against the gallery variant ${id}: exit 1 (strict), its requirement failed on a named HAR entry`, async () => {
      const variant = GALLERY.find((v) => v.id === id)!;
      const har = await recorded(
        `${id}.har`,
        () => variant.create(),
        REFERENCE_TOKEN,
        session(REFERENCE_COUNTERPARTY, WRITABLE_COUNTERPARTY),
      );
      // Strict: a SHOULD requirement broken fails the gate too.
      const v = await validateInProcess([har, '--strict']);
      expect(v.code, v.line ?? v.summary).toBe(1);
      const tripped = variant.trips.filter((t) => ORACLE_JUDGED.has(t));
      expect(tripped.length).toBeGreaterThan(0);
      for (const t of tripped) {
        const r = v.record!.requirements.find((x) => x.id === t)!;
        expect(['failed', 'warned']).toContain(r.status);
        expect(r.findings[0]!.harEntry).toEqual(expect.any(Number));
        expect(v.summary).toContain(`on HAR entry ${r.findings[0]!.harEntry}`);
      }
      expect(recordErrors(v.record)).toEqual([]);
    });
  }

  test('against the independent implementation: exit 0', async () => {
    const har = await recorded(
      'independent.har',
      () => new IndependentServer({ addressRequestId: false }),
      INDEPENDENT_TOKEN,
      session(INDEPENDENT_COUNTERPARTY, INDEPENDENT_WRITABLE_COUNTERPARTY),
    );
    const v = await validateInProcess([har]);
    expect(v.code, v.line ?? v.summary).toBe(0);
    expect(status(v.record, 'patch-persisted')).toBe('passed');
    // The record as the command writes it (conformance.json), the token of the file redacted.
    expect(readFileSync(har, 'utf8')).toContain(INDEPENDENT_TOKEN);
    expect(JSON.stringify(v.record)).not.toContain(INDEPENDENT_TOKEN);
  });

  test('the bearer token of the file, sent and echoed back, is in no report', async () => {
    const har = await recorded('secret.har', () => new ShowcaseServer(SECRET_TOKEN, true), SECRET_TOKEN, [
      ...session(REFERENCE_COUNTERPARTY, WRITABLE_COUNTERPARTY),
      { method: 'GET', path: '/api/v1/counterparties/NOPE-not-there-1' },
    ]);
    expect(readFileSync(har, 'utf8')).toContain(SECRET_TOKEN);
    // No API_TOKEN configured: the tokens are found in the file's Authorization headers.
    const v = await validate([har]);
    expect(v.code, v.stdout + v.stderr).toBe(1);
    expect(v.stdout + v.stderr).not.toContain(SECRET_TOKEN);
    const files = filesBelow(v.reports);
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const file of files)
      for (const { where, bytes } of scannableContents(file))
        expect(bytes.toString('utf8').includes(SECRET_TOKEN), where).toBe(false);
    expect(readFileSync(join(v.reports, 'conformance.json'), 'utf8')).toContain('$API_TOKEN');
    // The page a validation writes has its coverage and traffic sections.
    const html = readFileSync(join(v.reports, 'conformance.html'), 'utf8');
    expect(html).toContain('Interface coverage');
    expect(html).toContain('Traffic judged');
  });
});

test("a validation ends once what it wrote is written: tsx's cache of the modules it compiled is whole", async () => {
  // tsx (how a clone runs the command) keeps what it compiles below the temporary directory, and
  // writes each file once the event loop turns. On Node 22 and later it compiles in the loading
  // thread, and a validation is synchronous from its first module to its verdict: a command that
  // ended with process.exit then left every file empty, and each later run compiled the modules
  // again. (On Node 20, tsx compiles in a thread of its own: the files were written either way.)
  const tmp = temporaryDirectory('payflow-tsx-cache-');
  const har = harPath('no-entries.har');
  writeFileSync(
    har,
    JSON.stringify({ log: { version: '1.2', creator: { name: 'x', version: '1' }, entries: [] } }),
  );
  const v = await validate([har], { TMPDIR: tmp });
  expect(v.record, v.stdout + v.stderr).toBeDefined();
  const caches = readdirSync(tmp).filter((d) => d.startsWith('tsx-'));
  expect(caches).toHaveLength(1);
  const files = readdirSync(join(tmp, caches[0]!));
  expect(files.length, 'modules compiled').toBeGreaterThan(50);
  expect(files.filter((f) => statSync(join(tmp, caches[0]!, f)).size === 0)).toEqual([]);
});

test.describe('malformed HAR files: exit 2, one line saying where and why, no report', () => {
  /** A GET of the bill list, as a HAR entry's request. */
  const GET_BILLS = {
    method: 'GET',
    url: 'http://h/api/v1/bills',
    httpVersion: 'HTTP/1.1',
    cookies: [],
    headers: [],
    queryString: [],
    headersSize: -1,
    bodySize: 0,
  };
  /** The text of a HAR file holding `entry` alone. */
  const harOf = (entry: Record<string, unknown>): string =>
    JSON.stringify({ log: { version: '1.2', creator: { name: 'x', version: '1' }, entries: [entry] } });
  const WITHOUT_RESPONSE = harOf({
    startedDateTime: '2026-01-01T00:00:00.000Z',
    time: 1,
    request: GET_BILLS,
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
  });

  // The command: exit 2, one line on stderr, no report.
  test('an entry without its response', async () => {
    const har = harPath('an-entry-without-its-response.har');
    writeFileSync(har, WITHOUT_RESPONSE);
    const v = await validate([har]);
    expect(v.code, v.stdout + v.stderr).toBe(2);
    const lines = v.stderr.trim().split('\n');
    expect(lines, v.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^validate: .*at log\.entries\[0\]: must have required property 'response'/);
    expect(existsSync(join(v.reports, 'conformance.json'))).toBe(false);
  });

  // The others in-process: the reading judgeHarFile does throws the error the command turns into
  // exit 2 and its one line, before anything is judged or written (the command writes only once
  // the file is judged).
  const CASES: [string, string, RegExp][] = [
    ['empty', '', /empty/],
    [
      'truncated',
      '{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"entries":[{"startedDateTime":',
      /line 1, column \d+: .*truncated/,
    ],
    ['not JSON', 'GET /api/v1/bills HTTP/1.1', /not JSON/],
    ['no log', '{"entries":[]}', /at the top level: must have required property 'log'/],
  ];
  for (const [name, text, message] of CASES) {
    test(name, async () => {
      const har = harPath(`${name.replace(/\W+/g, '-')}.har`);
      writeFileSync(har, text);
      const v = await validateInProcess([har]);
      expect(v.code, v.summary).toBe(2);
      expect(v.line!.split('\n')).toHaveLength(1);
      expect(v.line).toMatch(message);
    });
  }

  test('a body whose encoding is not base64', async () => {
    const entry = {
      startedDateTime: '2026-01-01T00:00:00.000Z',
      time: 1,
      request: GET_BILLS,
      response: {
        status: 200,
        statusText: 'OK',
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: [],
        content: { size: 2, mimeType: 'application/json', text: '[]', encoding: 'rot13' },
        redirectURL: '',
        headersSize: -1,
        bodySize: 2,
      },
      cache: {},
      timings: { send: 0, wait: 1, receive: 0 },
    };
    const har = harPath('rot13.har');
    writeFileSync(har, harOf(entry));
    const v = await validateInProcess([har]);
    expect(v.code, v.summary).toBe(2);
    expect(v.line!.split('\n')).toHaveLength(1);
    expect(v.line).toMatch(/entry 0 .*unknown encoding 'rot13'/);
  });

  test('usage errors', async () => {
    // The command: --proxy with no target to stand in front of, found once the configuration is
    // resolved: exit 2, one line naming API_BASE_URL, no report.
    const noTarget = await validate(['--proxy']);
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr.trim().split('\n')).toHaveLength(1);
    expect(noTarget.stderr).toContain('API_BASE_URL');
    expect(existsSync(join(noTarget.reports, 'conformance.json'))).toBe(false);
    // The flags the command parses (parseValidateFlags), wrong before anything is read.
    for (const [args, message] of [
      [[], /give a HAR file, or --proxy/],
      [['a.har', 'b.har'], /one HAR file at a time: a\.har and b\.har/],
      [['--proxy', '--port', 'x'], /--port must be a number from 0 to 65535, not 'x'/],
    ] as const) {
      const v = await validateInProcess([...args]);
      expect(v.code, args.join(' ')).toBe(2);
      expect(v.line).toMatch(message);
    }
  });
});

/**
 * The suite's run against a faulty variant, then its reports/exchanges.har validated: every
 * requirement only oracles judge gets the run's verdict; one a probe judges too gets the run's
 * verdict wherever the run's findings are the oracles'; the probe-only ones are not exercised; the
 * exchanges per operation are the run's.
 */
// The same check of the whole suite's run against the embedded reference server, its file read by
// `npm run validate` as a process, moved to cli.spec.ts ("the suite's own exchanges.har gets the
// run's verdicts for every requirement an oracle judges"): it shares the whole run of "exits 0
// against the embedded reference server and writes the report" (the same settings: RUN_SETTINGS,
// no target), where this file ran the whole suite a second time (some 10 s of CPU).
// Here a faulty variant whose fault only a sequence shows. That the validator finds in a run's
// traffic (written as HAR and read back) what the run's oracles found is checked in-process for
// every variant of the gallery (gallery.spec.ts, validateAsHar); this and cli.spec.ts's prove the
// files themselves: the reporter's exchanges.har read by `npm run validate`. The variant's run is
// narrowed to patch-valid-details, one of the two probes that judge patch-updated-at (what
// --requirement patch-updated-at selects): it ends by putting the details back as they were
// created, the undo this variant mishandles; one probe, so its failure ends the run's only worker
// rather than costing a second. Its file is judged in-process as the command judges it
// (validateInProcess); requirements the narrowed run did not select are not compared.
test(`the suite's own exchanges.har (against answers-undo-resets-updated-at) gets the run's verdicts for every requirement an oracle judges`, async () => {
  const variant = GALLERY.find((v) => v.id === 'answers-undo-resets-updated-at')!;
  const server = variant.create();
  const base = await server.start(0);
  let run;
  try {
    run = await runCli(targetEnv(base, REFERENCE_TOKEN), { args: ['--probe', 'patch-valid-details'] });
  } finally {
    await server.stop();
  }
  expect(run.code, run.stdout + run.stderr).toBe(1);
  const har = join(run.reports, 'exchanges.har');
  const suite = JSON.parse(readFileSync(join(run.reports, 'conformance.json'), 'utf8')) as ConformanceRecord;
  expect(recordErrors(suite)).toEqual([]);
  expect(readFileSync(har, 'utf8')).not.toContain(REFERENCE_TOKEN);
  const v = await validateInProcess([har]);
  expect(v.code, v.line ?? v.summary).toBe(run.code);
  expect(v.record!.traffic!.exchanges).toBe(suite.requests);
  for (const r of suite.requirements) {
    // What the narrowed run did not select, it did not judge.
    if (r.status === 'not-selected') continue;
    const got = status(v.record, r.id);
    const byOracles = r.findings.every((f) => r.oracles.includes(f.judgedBy));
    if (!ORACLE_JUDGED.has(r.id)) expect(`${r.id}: ${got}`).toBe(`${r.id}: not-exercised`);
    else if (byOracles) expect(`${r.id}: ${got}`).toBe(`${r.id}: ${r.status}`);
  }
  const tripped = variant.trips.filter((t) => ORACLE_JUDGED.has(t));
  expect(tripped.length).toBeGreaterThan(0);
  for (const id of tripped) expect(['failed', 'warned']).toContain(status(v.record, id));
  // The same exchanges per operation.
  expect(v.record!.coverage!.operations).toEqual(suite.coverage!.operations);
});

/** Starts `npm run validate -- --proxy --port 0` and resolves its URL once it listens. */
async function startProxy(env: Record<string, string | undefined>): Promise<{
  url: string;
  /** What it has printed on stdout so far. */
  printed: () => string;
  stop: () => Promise<Validation>;
}> {
  const work = temporaryDirectory('payflow-proxy-');
  const reports = join(work, 'reports');
  // One process, as `npm run validate` runs it (node --import tsx): a signal reaches the proxy itself.
  const child = spawn(
    process.execPath,
    ['--import', TSX_LOADER, join(ROOT, 'bin', 'validate.ts'), '--proxy', '--port', '0'],
    {
      cwd: work,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? work,
        CONFORMANCE_REPORTS_DIR: reports,
        ...env,
      },
    },
  );
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (m) resolve(m[1]!);
    });
    child.on('close', () => reject(new Error(`the proxy exited: ${stderr}`)));
  });
  const closed = new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  return {
    url,
    printed: () => stdout,
    stop: async () => {
      child.kill('SIGTERM');
      const code = await closed;
      const json = join(reports, 'conformance.json');
      const record = existsSync(json)
        ? (JSON.parse(readFileSync(json, 'utf8')) as ConformanceRecord)
        : undefined;
      return { code, stdout, stderr, reports, record };
    },
  };
}

/** Sends a request; resolves the status, headers and body. */
function send(
  url: string,
  method: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          Accept: 'application/json',
          ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

test.describe('the validating proxy', () => {
  test('in front of the reference server: answers unchanged, exit 0 when stopped, coverage and exchanges.har written', async () => {
    const server = new ReferenceServer({ token: SECRET_TOKEN });
    const base = await server.start(0);
    try {
      const proxy = await startProxy({ API_BASE_URL: base, API_TOKEN: SECRET_TOKEN });
      const path = `/api/v1/counterparties/${REFERENCE_COUNTERPARTY}`;
      const direct = await send(`${base}${path}`, 'GET', SECRET_TOKEN);
      const through = await send(`${proxy.url}${path}`, 'GET', SECRET_TOKEN);
      expect(through.status).toBe(direct.status);
      expect(through.text).toBe(direct.text);
      expect(through.headers['sunset']).toBe(direct.headers['sunset']);
      const w = `${proxy.url}/api/v1/counterparties/${WRITABLE_COUNTERPARTY}`;
      await send(w, 'GET', SECRET_TOKEN);
      expect(
        (await send(w, 'PATCH', SECRET_TOKEN, { counterpartyDetails: { remarks: 'via the proxy' } })).status,
      ).toBe(200);
      await send(w, 'GET', SECRET_TOKEN);
      await send(`${proxy.url}/api/v1/counterparties/x!`, 'GET', SECRET_TOKEN);
      const v = await proxy.stop();
      expect(v.code, v.stdout + v.stderr).toBe(0);
      expect(status(v.record, 'patch-persisted')).toBe('passed');
      expect(status(v.record, 'reference-invalid-400')).toBe('passed');
      expect(v.record!.traffic!.kind).toBe('proxy');
      expect(
        v.record!.coverage!.operations.find((o) => o.operationId === 'patchCounterparty')!.exchanges,
      ).toBe(1);
      expect(existsSync(join(v.reports, 'exchanges.har'))).toBe(true);
      for (const file of filesBelow(v.reports))
        expect(readFileSync(file, 'utf8').includes(SECRET_TOKEN), file).toBe(false);
    } finally {
      await server.stop();
    }
  });

  test('between a client and a faulty variant: each violation printed as it happens, exit 1 with the finding', async () => {
    const variant = GALLERY.find((v) => v.id === 'fractional-second-timestamps')!;
    const server = variant.create();
    const base = await server.start(0);
    try {
      const proxy = await startProxy({ API_BASE_URL: base, API_TOKEN: REFERENCE_TOKEN });
      const path = `/api/v1/counterparties/${REFERENCE_COUNTERPARTY}`;
      await send(`${proxy.url}${path}`, 'GET', REFERENCE_TOKEN);
      // Printed while the proxy still runs, one line per violation: its level and requirement,
      // the method and path, the answer, the exchange. (The poll's bound is a backstop only.)
      const live = new RegExp(
        `^validate: ✗ MUST timestamp-format: GET ${path} -> 200 \\(exchange 1\\): .+$`,
        'm',
      );
      await expect.poll(proxy.printed, { timeout: 30_000 }).toMatch(live);
      // A second violation, a line of its own as it happens.
      await send(`${proxy.url}${path}`, 'GET', REFERENCE_TOKEN);
      await expect
        .poll(() => proxy.printed().match(/^validate: ✗ MUST timestamp-format: /gm)?.length ?? 0, {
          timeout: 30_000,
        })
        .toBeGreaterThanOrEqual(2);
      expect(proxy.printed()).toMatch(/^validate: ✗ MUST timestamp-format: GET \S+ -> 200 \(exchange 2\): /m);
      const v = await proxy.stop();
      expect(v.code, v.stdout + v.stderr).toBe(1);
      expect(status(v.record, 'timestamp-format')).toBe('failed');
      expect(v.stdout).toContain('on proxied exchange 1');
      expect(recordErrors(v.record)).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});

test('the proxy streams a body over the cap through whole, and leaves it unjudged', async () => {
  const server = new ReferenceServer();
  const base = await server.start(0);
  try {
    const proxy = await startProxy({
      API_BASE_URL: base,
      API_TOKEN: REFERENCE_TOKEN,
      CONFORMANCE_MAX_RESPONSE_BYTES: '1024',
    });
    const path = `/api/v1/counterparties/${REFERENCE_COUNTERPARTY}`;
    const direct = await send(`${base}${path}`, 'GET', REFERENCE_TOKEN);
    expect(Buffer.byteLength(direct.text)).toBeGreaterThan(1024);
    const through = await send(`${proxy.url}${path}`, 'GET', REFERENCE_TOKEN);
    expect(through.text).toBe(direct.text);
    await send(`${proxy.url}/api/v1/counterparties/x!`, 'GET', REFERENCE_TOKEN);
    const v = await proxy.stop();
    expect(v.code, v.stdout + v.stderr).toBe(0);
    expect(v.record!.traffic).toMatchObject({ exchanges: 2, judged: 1, overCap: 1 });
    expect(v.stdout).toContain('1 over the body cap (not judged)');
  } finally {
    await server.stop();
  }
});

test('the proxy stops by itself after --duration and reports what it saw: nothing judged fails the gate, exit 1', async () => {
  const server = new ReferenceServer();
  const base = await server.start(0);
  try {
    const work = temporaryDirectory('payflow-proxy-');
    const reports = join(work, 'reports');
    const r = await runNode(
      [
        '--import',
        TSX_LOADER,
        join(ROOT, 'bin', 'validate.ts'),
        '--proxy',
        '--port',
        '0',
        '--duration',
        '0.5',
      ],
      { API_BASE_URL: base, API_TOKEN: REFERENCE_TOKEN, CONFORMANCE_REPORTS_DIR: reports },
      work,
    );
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const record = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as ConformanceRecord;
    expect(record.traffic!.exchanges).toBe(0);
    expect(record.gateReasons.join('\n')).toContain('nothing was judged');
    expect(record.requirements.every((x) => x.status === 'not-exercised')).toBe(true);
  } finally {
    await server.stop();
  }
});

test('the CLI help names the commands', async () => {
  // What the command does with --help (validateCommand prints its usage and returns: exit 0),
  // in-process; the entry point that hands it the arguments runs in every test above that spawns
  // bin/validate.ts.
  const printed: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => void printed.push(args.join(' '));
  try {
    await validateCommand(['--help']);
  } finally {
    console.log = log;
  }
  expect(printed).toEqual([validateUsage()]);
  expect(printed[0]).toContain('--proxy');
});
