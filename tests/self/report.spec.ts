/**
 * The conformance report end to end: `npm run conformance -- --strict` against a faulty
 * server started with a recognisable token, with a waiver file in the working directory. One
 * run (the whole suite: the one whole failing run through the CLI) serves several tests: the
 * record matches its JSON Schema; the waivers are applied, expired, stale and unknown, and strict mode
 * fails the gate on a SHOULD warning; junit.xml has a test case per requirement; no file under
 * reports/ or test-results/ holds the token, which the record shows as $API_TOKEN where the
 * server echoed it; a failure's curl command reproduces it from a shell; the HTML page, opened in
 * a real Chromium, shows the summary and a failure's evidence.
 *
 * Sharding: the probes that fail on this server and one more, run as three shards of which the
 * third is lost, merged, give each requirement they judge that run's verdict and findings, and
 * report the lost shard's probe as not run. The shards run a selection, not the whole suite
 * (two whole shard runs and a second merge cost twice as much, and what a merge could get wrong
 * shows on these probes as on all): a probe's outcome in a shard is that probe's alone.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, expect, test, type Browser } from '@playwright/test';
import { escapeXml } from '../../reporter/junit.ts';
import { quoteText } from '../../reporter/evidence-text.ts';
import { recordErrors } from '../../reporter/record-schema.ts';
import type { ConformanceRecord } from '../../reporter/record.ts';
import {
  filesBelow,
  suiteTest,
  readJson,
  removeTemporaryDirectories,
  RUN_SETTINGS,
  runCli,
  nodeTs,
  runNode,
  scannableContents,
  SECRET_TOKEN,
  ShowcaseServer,
  targetEnv,
  temporaryDirectory,
  type CliRun,
} from './cli-fixtures.ts';

test.describe.configure({ mode: 'default' });

/** The waiver file of the main run: one active, one expired, one stale waiver, and one naming no requirement. */
const WAIVERS = `# Known deviations of the showcase server
waivers:
  - requirement: reference-invalid-400
    reason: the gateway's validator admits two-character references; fix planned in PAY-1234
    expires: 2099-12-31
  - requirement: timestamp-format
    reason: accepted for the 1.2 release only
    expires: 2020-01-31
  - requirement: counterparty-json
    reason: fixed long ago, the waiver was kept by mistake
    expires: 2099-12-31
  - requirement: auth-bearer-case
    reason: an id no requirement of the catalogue has
    expires: 2099-12-31
`;

const CHROMIUM = '/usr/bin/chromium';

let server: ShowcaseServer;
let baseURL: string;
let run: CliRun;
let record: ConformanceRecord;

test.beforeAll(async () => {
  test.setTimeout(90_000);
  // It echoes the Authorization header back in its 404 bodies: the token must not leak even then.
  server = new ShowcaseServer(SECRET_TOKEN, true);
  baseURL = await server.start(0);
  run = await runCli(targetEnv(baseURL, SECRET_TOKEN, false), {
    args: ['--strict'],
    setup: (work) => writeFileSync(join(work, 'conformance-waivers.yaml'), WAIVERS),
  });
  record = readJson(join(run.reports, 'conformance.json')) as ConformanceRecord;
});

test.afterAll(async () => {
  await server.stop();
  removeTemporaryDirectories();
});

const byStatus = (r: ConformanceRecord, status: string): string[] =>
  r.requirements
    .filter((v) => v.status === status)
    .map((v) => v.id)
    .sort();

test('a faulty server: exit 1, a record that matches its schema, the waivers judged, strict mode', () => {
  expect(run.code, run.stdout + run.stderr).toBe(1);
  expect(recordErrors(record)).toEqual([]);
  expect(record.verdict).toBe('fail');
  expect(byStatus(record, 'failed')).toEqual(['timestamp-format']);
  expect(byStatus(record, 'waived')).toEqual(['reference-invalid-400']);
  expect(byStatus(record, 'warned')).toEqual(['sunset-document-format']);
  expect(record.strict).toBe(true);
  expect(record.gateReasons).toEqual([
    '1 MUST requirement(s) failed: timestamp-format',
    '1 SHOULD requirement(s) warned in strict mode: sunset-document-format',
    // A stale waiver waives nothing: in strict mode it fails the gate, as a stale allowlist entry does.
    '2 waiver(s) that waive nothing, in strict mode: line 9, counterparty-json (it passed); line 12, auth-bearer-case (no such requirement)',
  ]);
  expect(run.stdout).toMatch(/seed 7 \(given\), 15 case\(s\) per property, strict/);
  // The authentication probe's requests, refused by design, are no sign of a wrong token.
  expect(record.probes.map((c) => c.probe)).toContain('reads-require-authentication');
  expect(record.hints).toEqual([]);
  // Shown as the user named it: relative to the directory the run was started from.
  expect(record.waivers.file).toBe('conformance-waivers.yaml');
  expect(record.waivers.entries.map((w) => [w.requirement, w.line, w.status])).toEqual([
    ['reference-invalid-400', 3, 'applied'],
    ['timestamp-format', 6, 'expired'],
    ['counterparty-json', 9, 'stale'],
    ['auth-bearer-case', 12, 'unknown'],
  ]);
  const skipped = record.requirements.filter((r) => r.status === 'not-exercised');
  expect(skipped.length).toBeGreaterThan(0);
  // A read-only run; what only ITEM_FIXTURES exercises says so instead (none is given here), and
  // what the server does not advertise (validators, HEAD) says what no answer carried.
  const advertised = new Set(
    skipped.filter((r) => /ETag|If-None-Match|If-Match|HEAD|304/.test(r.reasons.join(' '))).map((r) => r.id),
  );
  for (const r of skipped.filter((x) => !advertised.has(x.id)))
    expect(r.reasons.join(' ')).toMatch(/read-only run|ITEM_FIXTURES/);
  expect(
    skipped
      .filter((r) => !advertised.has(r.id) && !r.reasons.join(' ').includes('read-only run'))
      .map((r) => r.id),
  ).toEqual(['item-known-readable']);
  expect(run.stdout).toMatch(/\[WAIV\] MUST reference-invalid-400 .*waived until 2099-12-31/);
  expect(run.stdout).toContain('[expired waiver] line 6, timestamp-format: expired on 2020-01-31');
  expect(run.stdout).toContain(
    '[stale waiver] line 9, counterparty-json: counterparty-json passed in this run',
  );
  expect(run.stdout).toContain(
    'Gate: 2 waiver(s) that waive nothing, in strict mode: line 9, counterparty-json',
  );
  expect(run.stdout).toContain(
    '[unknown waiver] line 12, auth-bearer-case: auth-bearer-case is no requirement',
  );
  expect(run.stdout).toContain('Gate: 1 MUST requirement(s) failed: timestamp-format');
  expect(run.stdout).toContain('Gate: 1 SHOULD requirement(s) warned in strict mode: sunset-document-format');
});

test("the record's timeline: each step of the run after the one before it", () => {
  const d = record.durations!;
  expect(Date.parse(d.processStart)).toBeLessThanOrEqual(Date.parse(record.startedAt));
  // A deployment: the CLI read the configuration, checked the target, then the suite ran.
  const steps = [
    d.configurationRead,
    d.preflightStart,
    d.preflightEnd,
    d.runnerReady,
    d.firstRequest,
    d.lastRequest,
    d.recordBuilt,
  ];
  expect(steps.every((ms) => typeof ms === 'number')).toBe(true);
  // The suite's first request waits for the check; the runner may start beside it.
  const inOrder = [
    d.configurationRead!,
    d.preflightStart!,
    d.preflightEnd!,
    d.firstRequest!,
    d.lastRequest!,
    d.recordBuilt!,
  ];
  expect([...inOrder].sort((a, b) => a - b)).toEqual(inOrder);
  expect(d.runnerReady!).toBeGreaterThanOrEqual(d.configurationRead!);
  expect(d.runnerReady!).toBeLessThanOrEqual(d.firstRequest!);
});

test('junit.xml has one test case per requirement and fails those that fail the gate', () => {
  const xml = readFileSync(join(run.reports, 'junit.xml'), 'utf8');
  expect(xml.match(/<testcase /g)).toHaveLength(record.requirements.length);
  expect(xml.match(/<failure /g)).toHaveLength(2);
  expect(xml).toContain('name="[MUST] timestamp-format: ');
  expect(xml).toContain('name="[SHOULD] sunset-document-format: ');
  // A failure's message ends with the words of interface.md the requirement rests on.
  const quote = record.requirements.find((r) => r.id === 'timestamp-format')!.quotes[0]!;
  expect(quote.source).toBe('interface.md §2.1');
  // A table row reads cell by cell under its header's names.
  expect(quoteText(quote)).toMatch(
    /^Field: createdAt; Type: string; Required: yes; Constraints: UTC timestamp/,
  );
  expect(xml).toContain(`${escapeXml(` — ${quote.source}: "${quoteText(quote)}"`)}" type="MUST">`);
});

test('no file under reports/ or test-results/, and no console line, holds the token', () => {
  const files = [...filesBelow(run.reports), ...filesBelow(run.results)];
  expect(files.map((f) => f.slice(run.work.length))).toEqual(
    expect.arrayContaining(['/reports/conformance.json', '/reports/conformance.html', '/reports/junit.xml']),
  );
  const leaks = files
    .flatMap(scannableContents)
    .filter((c) => c.bytes.includes(SECRET_TOKEN))
    .map((c) => c.where);
  expect(leaks).toEqual([]);
  expect(run.stdout + run.stderr).not.toContain(SECRET_TOKEN);
  // Where the server echoed it back (the 404 of an invalid reference), the record says $API_TOKEN.
  const echoed = record.requirements.find((r) => r.id === 'reference-invalid-400')!.findings[0]!.received;
  expect(echoed).toContain('(you sent Authorization: Bearer $API_TOKEN)');
  const curls = record.requirements.flatMap((r) => r.findings.map((f) => f.curl ?? ''));
  expect(curls.length).toBeGreaterThan(0);
  // The scheme as sent: the authentication probe also sends the token under "bearer" and "BEARER".
  for (const curl of curls) expect(curl).toMatch(/"Authorization: bearer \$API_TOKEN"/i);
});

/**
 * Runs a command in a POSIX shell with API_TOKEN set, asynchronously: the server it calls runs
 * in this process, so a synchronous child would never get its answer.
 */
async function inShell(command: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('sh', ['-c', command], {
    env: { PATH: process.env.PATH ?? '', API_TOKEN: SECRET_TOKEN },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill(), 15_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

test("a failure's curl command reproduces it when pasted into a shell with API_TOKEN set", async () => {
  const finding = record.requirements.find((r) => r.id === 'timestamp-format')!.findings[0]!;
  const shell = await inShell(finding.curl!);
  expect(shell.code, shell.stderr).toBe(0);
  expect(shell.stdout).toMatch(/^HTTP\/1\.1 200/);
  expect(shell.stdout).toMatch(/"createdAt":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"/);
  const shrunk = record.requirements.find((r) => r.id === 'reference-invalid-400')!.findings[0]!;
  const replay = await inShell(shrunk.curl!);
  expect(replay.stdout).toMatch(/^HTTP\/1\.1 404/);
});

test.describe('in a real Chromium', () => {
  let browser: Browser;
  test.beforeAll(async () => {
    test.skip(!existsSync(CHROMIUM), `${CHROMIUM} is missing: .ci/run installs Debian's chromium`);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--headless',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  });
  test.afterAll(async () => {
    await browser?.close();
  });

  test("conformance.html renders the summary and a failure's evidence, and runs no server markup", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 1400 } });
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(`file://${join(run.reports, 'conformance.html')}`);

    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Conformance FAILED');
    const summary = page.locator('#summary');
    await expect(summary).toContainText('1 MUST requirement(s) failed: timestamp-format');
    await expect(summary.getByRole('table')).toContainText('MUST');
    // The run's details come after the findings (the banner names the target and seed).
    const details = page.locator('#run');
    await expect(details).toContainText('strict (SHOULD warnings fail the gate)');
    await expect(details).toContainText(
      `${baseURL} (configured deployment: API_BASE_URL from the environment)`,
    );
    // The line that runs it again, with its settings, its reports beside the run's.
    await expect(details).toContainText(
      /7 \(replay: .*CONFORMANCE_SEED=7 .*CONFORMANCE_REPORTS_DIR=reports\/replay-seed-7 .*node \S+ run\)/,
    );

    // The failed requirement is open in its section, with its level, evidence and curl command.
    const failed = page.locator('#req-timestamp-format');
    await expect(failed).toHaveAttribute('open', '');
    await expect(page.locator('section#sec-2_1 > h2')).toHaveText(/^§2\.1 Counterparty/);
    // Broken, it is shown with the findings first; its section links to it.
    await expect(page.locator('section#findings #req-timestamp-format')).toHaveCount(1);
    await expect(page.locator('section#sec-2_1 a[href="#req-timestamp-format"]')).toHaveCount(1);
    await expect(failed.locator(':scope > summary')).toContainText('FAILED');
    await expect(failed.locator(':scope > summary .level')).toHaveText('MUST');
    // Under the statement, the words of interface.md it rests on, with their source.
    const quote = record.requirements.find((r) => r.id === 'timestamp-format')!.quotes[0]!;
    // A row of a table of interface.md, shown as its table's header and that row.
    await expect(failed.locator('figure.quote table.quoted-row').first()).toBeVisible();
    await expect(failed.locator('figure.quote table.quoted-row th').first()).toHaveText('Field');
    await expect(failed.locator('figure.quote table.quoted-row td').first()).toHaveText(quote.table!.row[0]!);
    await expect(failed.locator('figure.quote figcaption').first()).toHaveText('interface.md §2.1');
    await expect(failed.locator('pre.expected').first()).toBeVisible();
    await expect(failed.locator('pre.received').first()).toContainText('.000Z');
    // The scheme as the request sent it: the reads are also sent with `bearer` (RFC 9110 §11.1).
    await expect(failed.locator('pre.curl').first()).toContainText(/"Authorization: bearer \$API_TOKEN"/i);
    await expect(failed.locator(':scope > summary')).toContainText('its waiver expired on 2020-01-31');
    await expect(failed).toContainText('Waiver (line 6, expired)');

    // A waived failure is collapsed; opened, it shows the shrunk input and the rule it broke.
    const waived = page.locator('#req-reference-invalid-400');
    await expect(waived.locator(':scope > summary')).toContainText('waived until 2099-12-31');
    await expect(waived.locator('pre.input').first()).toBeHidden();
    await waived.locator(':scope > summary').click();
    await expect(waived.locator('pre.input').first()).toBeVisible();
    await expect(waived.locator('p.rule').first()).toContainText('minLength');
    await expect(waived.locator('pre.received').first()).toContainText('<script>document.title=');
    await expect(waived.locator('pre.received').first()).toContainText('<img src=x onerror=');

    // Skipped requirements say why; the waivers table names the expired and stale ones.
    await expect(page.locator('details.req.not-exercised').first()).toContainText('read-only run');
    await expect(page.locator('#waivers tr.expired')).toContainText('timestamp-format');
    await expect(page.locator('#waivers tr.stale')).toContainText('counterparty-json');
    await expect(page.locator('#waivers tr.unknown')).toContainText('auth-bearer-case');
    await expect(page.locator('#summary')).toContainText('Waivers that waive nothing');

    // Server text stayed text: no script ran, no image loaded, nothing was fetched.
    expect(await page.title()).toBe(`Conformance FAILED: ${baseURL}`);
    expect(dialogs).toEqual([]);
    await expect(page.locator('img, script')).toHaveCount(0);
    expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);

    // Attached to the test: from the verdict down to the end of the first failure (the README's
    // picture is made by npm run screenshot).
    await page.evaluate(() => window.scrollTo(0, 0));
    const evidence = await failed.locator('.finding').first().boundingBox();
    expect(evidence).not.toBeNull();
    const clip = {
      x: 0,
      y: 0,
      width: 1200,
      height: Math.min(4000, Math.ceil(evidence!.y + evidence!.height + 16)),
    };
    const shot = test.info().outputPath('conformance-report.png');
    await page.screenshot({ path: shot, fullPage: true, clip });
    await test.info().attach('conformance-report.png', { path: shot, contentType: 'image/png' });
  });

  test('junit.xml is well-formed XML', async () => {
    const page = await browser.newPage();
    const xml = readFileSync(join(run.reports, 'junit.xml'), 'utf8');
    const parsed = await page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'application/xml');
      return {
        error: doc.querySelector('parsererror')?.textContent ?? null,
        cases: doc.querySelectorAll('testsuite > testcase').length,
      };
    }, xml);
    expect(parsed.error).toBeNull();
    expect(parsed.cases).toBe(record.requirements.length);
  });
});

/**
 * The probes the shards run, one a shard (Playwright splits them in the suite's order): the two
 * that fail on the showcase server, which judge every requirement it breaks (timestamp-format
 * under an expired waiver, sunset-document-format, reference-invalid-400 under an applied one)
 * and counterparty-json, whose waiver is stale; and slash-references, the third shard's, which
 * is lost. A failing test costs Playwright a new worker, so a shard of one probe costs one; what
 * sharding and merging could get wrong (a probe lost or run twice, a generated case drawn
 * differently, a waiver judged without another shard's outcomes) shows on these as on all.
 */
const SHARDED = ['known-counterparty', 'invalid-references', 'slash-references'];

test("a write shard (Playwright's blob reporter alone) says its end restore on the console", async () => {
  test.setTimeout(90_000);
  const work = temporaryDirectory('payflow-write-shard-');
  // No target: the embedded server, a write run; one write check that hands its changes on.
  const shard = await runNode(
    suiteTest('--reporter=blob', '--grep', '(?:^|\\s)patch-equivalent-forms: '),
    {
      ...RUN_SETTINGS,
      CONFORMANCE_RESULTS_DIR: join(work, 'results'),
      PLAYWRIGHT_BLOB_OUTPUT_DIR: join(work, 'blob'),
    },
    work,
  );
  expect(shard.code, shard.stdout + shard.stderr).toBe(0);
  expect(shard.stdout).toMatch(
    /Writable counterparty restored: restored the run's original .+ at the end of the run \(changed last by patch-equivalent-forms\)/,
  );
  // A run with the conformance reporter says it once, in its summary (cli.spec.ts).
});

test('two shards merged give the same requirement verdicts as one run', async () => {
  test.setTimeout(90_000);
  const work = temporaryDirectory('payflow-shards-');
  writeFileSync(join(work, 'conformance-waivers.yaml'), WAIVERS);
  const env = { ...targetEnv(baseURL, SECRET_TOKEN, false), ...RUN_SETTINGS };
  // Each shard as a CI machine runs it: its own results, its own blob report; the probes of
  // SHARDED only (--grep on their titles, "<probe id>: <title>", as --probe selects them). Of
  // three shards, the third never reports (its machine died): two run.
  const grep = `(?:^|\\s)(?:${SHARDED.join('|')}): `;
  const shards = await Promise.all(
    [1, 2].map((i) =>
      runNode(
        suiteTest(`--shard=${i}/3`, '--reporter=blob', '--grep', grep),
        {
          ...env,
          CONFORMANCE_RESULTS_DIR: join(work, `results-${i}`),
          PLAYWRIGHT_BLOB_OUTPUT_DIR: join(work, `blob-${i}`),
        },
        work,
      ),
    ),
  );
  // Collected into one directory, as the workflow's download step does.
  mkdirSync(join(work, 'all-blob-reports'));
  for (const i of [1, 2]) {
    const [zip] = readdirSync(join(work, `blob-${i}`));
    // Named by the shard, after a hash of the filter (--grep) the shards share.
    expect(zip, shards[i - 1]!.stdout + shards[i - 1]!.stderr).toMatch(
      new RegExp(`^report-(\\w+-)?${i}\\.zip$`),
    );
    copyFileSync(join(work, `blob-${i}`, zip!), join(work, 'all-blob-reports', zip!));
  }
  // As `npm run conformance:merge` runs it.
  const merge = await runNode(
    nodeTs('bin/merge-shards.ts', '--strict', 'all-blob-reports'),
    { ...env, CONFORMANCE_REPORTS_DIR: join(work, 'reports') },
    work,
  );
  expect(merge.code, merge.stdout + merge.stderr).toBe(1);
  const merged = readJson(join(work, 'reports', 'conformance.json')) as ConformanceRecord;
  expect(recordErrors(merged)).toEqual([]);
  expect(merged.seed).toBe(7);

  // Each probe of the two shards has the one run's outcome (beforeAll: the whole suite, strict,
  // through the CLI), and so has each of its findings.
  const ran = merged.probes.map((c) => c.probe);
  const lost = SHARDED.filter((p) => !ran.includes(p));
  expect(lost, 'the third shard held one probe').toHaveLength(1);
  const outcome = (r: ConformanceRecord, probe: string) => {
    const p = r.probes.find((c) => c.probe === probe);
    return p && { probe, status: p.status, judged: p.judged, requests: p.requests };
  };
  for (const probe of ran) expect(outcome(merged, probe), probe).toEqual(outcome(record, probe));
  // Every requirement they judged has the one run's verdict, with their findings of it.
  const judged = new Set(merged.probes.flatMap((c) => Object.keys(c.judged)));
  expect([...judged]).toEqual(
    expect.arrayContaining([
      'timestamp-format',
      'sunset-document-format',
      'reference-invalid-400',
      'counterparty-json',
    ]),
  );
  const verdicts = (r: ConformanceRecord) =>
    r.requirements
      .filter((v) => judged.has(v.id))
      .map((v) => ({
        id: v.id,
        status: v.status,
        findings: v.findings.filter((f) => ran.includes(f.probe ?? '')).map((f) => f.message),
      }));
  expect(verdicts(merged)).toEqual(verdicts(record));
  expect(merged.waivers.entries.map((w) => w.status)).toEqual(record.waivers.entries.map((w) => w.status));

  // The lost shard is caught: the merge expects every probe of the suite, reports the lost
  // shard's (and those the filter left out) as not run, and the gate fails for them too.
  expect(merged.verdict).toBe('fail');
  expect(merged.incomplete.map((i) => i.test).sort()).toEqual(
    record.probes
      .map((c) => c.probe)
      .filter((p) => !ran.includes(p))
      .sort(),
  );
  expect(merged.incomplete.find((i) => i.test === lost[0])!.error).toMatch(/a missing shard/);
  expect(merged.gateReasons).toEqual([
    ...record.gateReasons,
    expect.stringMatching(/did not complete: .*\b/),
  ]);
  expect(merged.gateReasons.at(-1)).toContain(lost[0]!);

  // The blobs CI uploads as artifacts, the shards' results and the merged reports hold no token.
  const leaks = ['all-blob-reports', 'reports', 'results-1', 'results-2']
    .filter((dir) => existsSync(join(work, dir)))
    .flatMap((dir) => filesBelow(join(work, dir)))
    .flatMap(scannableContents)
    .filter((c) => c.bytes.includes(SECRET_TOKEN))
    .map((c) => c.where);
  expect(leaks).toEqual([]);
});
