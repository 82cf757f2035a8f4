/**
 * The report writers (reporter/writers.ts) are the one list of report files, `--report` chooses
 * among them, and one that fails loses no other (reporter/write-reports.ts):
 *   - every other list of report files derives from the writers' (the paths a command checks and
 *     replaces, the console's default, validate's outputs, the Action's, --help, the docs' table),
 *     and no other source file names a report file;
 *   - `--report` (CONFORMANCE_REPORT) chooses what is written, in process and through the command,
 *     and the set it writes replaces the previous set whole; the exit status is the gate's without
 *     conformance.json; an unknown name is exit 2 naming the known ones, for run, validate, merge;
 *   - a writer that throws is named with why, its partial file and its previous file are gone, the
 *     others are written and moved in, the summary says so and the command exits 2.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from '@playwright/test';
import { actionOutputs } from '../../bin/action.ts';
import { reportsHelp } from '../../bin/args.ts';
import { runUsage } from '../../bin/conformance.ts';
import { mergeUsage } from '../../bin/merge-shards.ts';
import { validateUsage, validationSources } from '../../bin/validate.ts';
import { ConfigError } from '../../config/error.ts';
import { DEFAULT_REPORT_PATHS, formatSummary } from '../../reporter/console.ts';
import { handOnOutcome, OUTCOME_ENV, outcomeIn, outcomeOf } from '../../reporter/outcome.ts';
import { commitFiles, createStaging, ownFiles } from '../../reporter/report-set.ts';
import { unwrittenLine, writeReports } from '../../reporter/write-reports.ts';
import {
  chosenWriters,
  linePieces,
  parseReportNames,
  REPORT_NAMES,
  REPORT_WRITERS,
  reportPaths,
  RUN_SOURCES,
  writerNamed,
  type ReportWriter,
} from '../../reporter/writers.ts';
import { reports as reportRows } from '../../tools/docs/sources.ts';
import {
  nodeTs,
  readJson,
  removeTemporaryDirectories,
  resolveAsCli,
  ROOT,
  runCli,
  runNode,
  SECRET_TOKEN,
  ShowcaseServer,
  targetEnv,
  temporaryDirectory,
  validateInProcess,
  emptyRecord,
} from './cli-fixtures.ts';

test.afterAll(removeTemporaryDirectories);

const EVERY_FILE = REPORT_WRITERS.flatMap((w) => [...w.files]);
const KNOWN = 'known reports: html, json, junit, har, playwright';

/** Writes `files` (relative path to content) below `dir`. */
function put(dir: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, ...rel.split('/').slice(0, -1)), { recursive: true });
    writeFileSync(join(dir, ...rel.split('/')), text);
  }
}

/** A reports directory holding a previous set of the suite's: every report, each saying `previous`. */
function previousSet(): string {
  const dir = join(temporaryDirectory('payflow-writers-'), 'reports');
  const staging = createStaging(dir);
  put(staging, Object.fromEntries(EVERY_FILE.map((f) => [f, 'previous'])));
  commitFiles(staging, dir);
  return dir;
}

/** Every file below `dir` but the manifest, relative, sorted. */
function filesIn(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name !== '.conformance-files.json')
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/** Every source file of the product: what ships and what builds it, not its tests or benchmarks. */
function productSources(dir = ROOT): string[] {
  const skip = new Set(['node_modules', 'dist', 'tests', 'bench', 'reports', 'test-results', '.git']);
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory())
      return skip.has(e.name) || e.name.startsWith('.') ? [] : productSources(join(dir, e.name));
    return /\.(ts|mjs|js|yml)$/.test(e.name) ? [join(dir, e.name)] : [];
  });
}

test.describe('the writer list is the only list of report files', () => {
  test('names and files are unique; what a command writes and checks, the console, validate, the Action and the docs derive from it', () => {
    expect(new Set(REPORT_NAMES).size).toBe(REPORT_NAMES.length);
    expect(new Set(EVERY_FILE).size).toBe(EVERY_FILE.length);
    for (const w of REPORT_WRITERS as readonly ReportWriter[])
      expect(w.render === undefined, w.name).toBe(w.source === 'playwright');
    // A run and a merge: every file of every writer, in the list's order.
    expect(reportPaths(chosenWriters(null), RUN_SOURCES)).toEqual(EVERY_FILE);
    expect(DEFAULT_REPORT_PATHS).toEqual(EVERY_FILE.map((f) => `reports/${f}`));
    // validate: the record's reports, and the traffic's with --proxy; Playwright's never.
    const record = REPORT_WRITERS.filter((w) => w.source === 'record').flatMap((w) => [...w.files]);
    expect(reportPaths(chosenWriters(null), validationSources({ proxy: false }))).toEqual(record);
    expect(reportPaths(chosenWriters(null), validationSources({ proxy: true }))).toEqual([
      ...record.slice(0, 3),
      ...writerNamed('har').files,
    ]);
    // The Action reads the record's file and names the page's.
    const dir = temporaryDirectory('payflow-writers-action-');
    const counts = { passed: 1, failed: 0, warned: 0, waived: 0, 'not-exercised': 0, 'not-selected': 0 };
    writeFileSync(
      join(dir, writerNamed('json').files[0]!),
      JSON.stringify({ verdict: 'pass', counts: { MUST: counts, SHOULD: counts } }),
    );
    expect(actionOutputs(0, dir)).toMatchObject({
      verdict: 'pass',
      record: join(dir, writerNamed('json').files[0]!),
      report: join(dir, writerNamed('html').files[0]!),
    });
    // The docs' table (tools/docs/tables.ts) and every command's --help.
    expect(reportRows().map((r) => [r.name, [...r.files]])).toEqual(
      REPORT_WRITERS.map((w) => [w.name, [...w.files]]),
    );
    for (const usage of [runUsage(), validateUsage(), mergeUsage()]) {
      expect(usage).toContain(reportsHelp());
      for (const w of REPORT_WRITERS) expect(usage).toMatch(new RegExp(`^  ${w.name} +${w.files[0]}`, 'm'));
    }
  });

  test('no source file of the product but reporter/writers.ts names a report file', () => {
    const named = new RegExp(
      `['"\`](?:reports/)?(?:${EVERY_FILE.map((f) => f.replaceAll('.', '\\.')).join('|')})['"\`]`,
    );
    const holders = productSources()
      .filter((file) => named.test(readFileSync(file, 'utf8')))
      .map((file) => relative(ROOT, file));
    expect(holders).toEqual(['reporter/writers.ts']);
  });
});

test.describe('--report chooses what is written', () => {
  test('names are comma-separated, in any case, with spaces; unset or empty is every one; an unknown or empty name is a configuration error naming the known ones', async () => {
    expect(parseReportNames(undefined)).toBeNull();
    expect(parseReportNames(' ')).toBeNull();
    expect(parseReportNames('JSON, junit ,json')).toEqual(['json', 'junit']);
    expect(chosenWriters(['junit', 'html']).map((w) => w.name)).toEqual(['html', 'junit']);
    expect(() => parseReportNames('html,,json')).toThrow(ConfigError);
    expect(() => chosenWriters(['html', 'pdf'])).toThrow(
      new ConfigError(`unknown report 'pdf' (--report, CONFORMANCE_REPORT); ${KNOWN}`),
    );
    // The flag and the variable, as the commands resolve them.
    const dir = temporaryDirectory('payflow-writers-resolve-');
    expect((await resolveAsCli(['--report', 'json,HAR'], {}, dir)).reports).toEqual(['json', 'har']);
    expect((await resolveAsCli([], { CONFORMANCE_REPORT: 'junit' }, dir)).reports).toEqual(['junit']);
    expect((await resolveAsCli(['--report', ''], { CONFORMANCE_REPORT: 'junit' }, dir)).reports).toBeNull();
    await expect(resolveAsCli(['--report', 'sarif'], {}, dir)).rejects.toThrow(
      `unknown report 'sarif' (--report, CONFORMANCE_REPORT); ${KNOWN}`,
    );
    const validated = await validateInProcess(['x.har', '--report', 'pdf'], {}, dir);
    expect(validated).toEqual({
      code: 2,
      line: `unknown report 'pdf' (--report, CONFORMANCE_REPORT); ${KNOWN}`,
    });
  });

  test('in process: only the chosen reports are written, and the set replaces the previous one whole', async () => {
    const dir = previousSet();
    const r = await writeReports(
      { record: emptyRecord(), har: '{}\n' },
      {
        outputDir: dir,
        stagingDir: createStaging(dir),
        secrets: [],
        writers: chosenWriters(['junit', 'json']),
        playwright: true,
      },
    );
    expect(r).toEqual({ written: [join(dir, 'conformance.json'), join(dir, 'junit.xml')], unwritten: [] });
    // The previous set's other reports are gone: never a mix of two runs.
    expect(filesIn(dir)).toEqual(['conformance.json', 'junit.xml']);
    expect([...ownFiles(dir)].sort()).toEqual(['conformance.json', 'junit.xml']);
    expect(readJson(join(dir, 'conformance.json'))).toEqual(emptyRecord());
    // What has no content is not written: no traffic, no har.
    const bare = await writeReports(
      { record: emptyRecord() },
      { outputDir: dir, secrets: [], writers: chosenWriters(['har']) },
    );
    expect(bare).toEqual({ written: [], unwritten: [] });
  });

  test('through the command: --report json,junit writes those two, lists them, and leaves no report of the previous run', async () => {
    const r = await runCli(
      {},
      {
        args: ['--embedded', '--probe', 'known-counterparty', '--report', 'json,junit'],
        setup: (work) => {
          const reports = join(work, 'reports');
          const staging = createStaging(reports);
          put(staging, Object.fromEntries(EVERY_FILE.map((f) => [f, 'previous'])));
          commitFiles(staging, reports);
        },
      },
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(filesIn(r.reports)).toEqual(['conformance.json', 'junit.xml']);
    expect(r.stdout).toContain(
      `Reports: ${join('reports', 'conformance.json')}, ${join('reports', 'junit.xml')}\n`,
    );
    expect(readFileSync(join(r.reports, 'junit.xml'), 'utf8')).toContain('<testsuites');
  });

  test('through the command: without json the exit status is still the gate’s, and nothing reads a record back', async () => {
    // A server that admits two-character references: reference-invalid-400 fails, exit 1.
    const server = new ShowcaseServer(SECRET_TOKEN);
    try {
      const baseURL = await server.start(0);
      const r = await runCli(targetEnv(baseURL, SECRET_TOKEN, false), {
        args: ['--probe', 'invalid-references', '--report', 'html'],
      });
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(filesIn(r.reports)).toEqual(['conformance.html']);
      expect(r.stdout).toContain('[FAIL] MUST reference-invalid-400');
      expect(r.stdout).toContain(`Reports: ${join('reports', 'conformance.html')}\n`);
      expect(r.stdout).toMatch(/Verdict: Conformance FAILED\n$/);
    } finally {
      await server.stop();
    }
  });

  test('an unknown name is exit 2 for run, validate and merge, before anything is sent or written, naming the known ones', async () => {
    const work = temporaryDirectory('payflow-writers-unknown-');
    const line = `unknown report 'pdf' (--report, CONFORMANCE_REPORT); ${KNOWN}`;
    const env = { CONFORMANCE_REPORTS_DIR: join(work, 'reports') };
    const runs = await Promise.all([
      runNode(nodeTs('bin/conformance.ts', '--embedded', '--report', 'pdf'), env, work),
      runNode(nodeTs('bin/validate.ts', 'x.har', '--report=pdf'), env, work),
      runNode(nodeTs('bin/merge-shards.ts'), { ...env, CONFORMANCE_REPORT: 'html,pdf' }, work),
    ]);
    for (const [i, r] of runs.entries()) {
      expect(r.code, `${i}: ${r.stdout}${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(
        new RegExp(`^(conformance|validate): ${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n$`),
      );
    }
    expect(existsSync(join(work, 'reports'))).toBe(false);
  });
});

test.describe('one writer that fails loses no other', () => {
  /** A junit writer that writes a piece of its file, then throws: a fault of the suite's. */
  const brokenJunit: ReportWriter = {
    ...writerNamed('junit'),
    render: async () => [
      (function* () {
        yield '<testsuites>';
        throw new TypeError("Cannot read properties of undefined (reading 'groups')");
      })(),
    ],
  };

  test('in process: it is named with why; the others are written and moved in; neither its partial file nor its previous one stays', async () => {
    const dir = previousSet();
    const r = await writeReports(
      { record: emptyRecord(), har: '{}\n' },
      {
        outputDir: dir,
        stagingDir: createStaging(dir),
        secrets: [],
        writers: [writerNamed('html'), writerNamed('json'), brokenJunit, writerNamed('har')],
      },
    );
    expect(r.written).toEqual(
      ['conformance.html', 'conformance.json', 'exchanges.har'].map((f) => join(dir, f)),
    );
    expect(r.unwritten).toEqual([
      {
        name: 'junit',
        files: ['junit.xml'],
        error: "TypeError: Cannot read properties of undefined (reading 'groups')",
      },
    ]);
    // Yesterday's junit.xml does not stand beside today's record, nor does half of today's.
    expect(filesIn(dir)).toEqual(['conformance.html', 'conformance.json', 'exchanges.har']);
    expect(readFileSync(join(dir, 'exchanges.har'), 'utf8')).toBe('{}\n');
    expect(unwrittenLine(r.unwritten)).toBe(
      "the junit report (junit.xml) was not written: TypeError: Cannot read properties of undefined (reading 'groups'); every other report chosen was written",
    );
    // Several: each with its reason, in one line.
    const two = unwrittenLine([
      ...r.unwritten,
      { name: 'html', files: ['conformance.html'], error: 'Error: x' },
    ]);
    expect(two).toBe(
      "2 reports were not written: junit (junit.xml): TypeError: Cannot read properties of undefined (reading 'groups'); html (conformance.html): Error: x; every other report chosen was written",
    );
  });

  test("Playwright's report chosen and missing is a report not written", async () => {
    const dir = join(temporaryDirectory('payflow-writers-'), 'reports');
    const r = await writeReports(
      { record: emptyRecord() },
      {
        outputDir: dir,
        stagingDir: createStaging(dir),
        secrets: [],
        writers: chosenWriters(['playwright', 'json']),
        playwright: true,
      },
    );
    expect(r.written).toEqual([join(dir, 'conformance.json')]);
    expect(r.unwritten).toEqual([
      {
        name: 'playwright',
        files: ['playwright/index.html'],
        error: "Playwright's reporter wrote no playwright/index.html",
      },
    ]);
  });

  test('the summary says it, and the command exits 2 with its line whatever the verdict', async () => {
    const unwritten = [{ name: 'junit', files: ['junit.xml'], error: 'TypeError: boom' }];
    const lines = formatSummary(emptyRecord(), ['reports/conformance.json'], { unwritten }).split('\n');
    expect(lines.at(-2)).toBe('  Not written: the junit report (junit.xml): TypeError: boom');
    expect(lines.at(-3)).toBe('  Reports: reports/conformance.json');
    // The reporter hands the outcome on to the command (reporter/outcome.ts) ...
    const file = join(temporaryDirectory('payflow-writers-outcome-'), 'run.outcome');
    const line = unwrittenLine(unwritten);
    expect(handOnOutcome(outcomeOf(emptyRecord(), line), { [OUTCOME_ENV]: file })).toBe(true);
    expect(outcomeIn(file)).toEqual({ verdict: 'pass-unexercised', unwritten: line });
    // ... exclusively: a file already there is not this run's.
    expect(handOnOutcome(outcomeOf(emptyRecord()), { [OUTCOME_ENV]: file })).toBe(false);
    // ... and not for a command that is gone (killed outright): nobody would remove the file.
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    const orphan = `${file}.orphan`;
    expect(
      handOnOutcome(outcomeOf(emptyRecord()), { [OUTCOME_ENV]: orphan, CONFORMANCE_CLI_PID: String(gone) }),
    ).toBe(false);
    expect(existsSync(orphan)).toBe(false);
    // ... which exits with it (bin/run-support.ts exitWithGate): 2 and the line; else the gate's.
    const exit = (outcome: unknown) =>
      runNode(
        [
          ...nodeTs('bin/run-support.ts').slice(0, 2),
          '--input-type=module',
          '-e',
          `const { exitWithGate } = await import(${JSON.stringify(join(ROOT, 'bin', 'run-support.ts'))});
           exitWithGate(${JSON.stringify(outcome)}, '/nonexistent/conformance.json', 0, 'the suite');`,
        ],
        {},
        ROOT,
      );
    const [failed, passed, gateFailed] = await Promise.all([
      exit({ verdict: 'pass', unwritten: line }),
      exit({ verdict: 'pass-unexercised' }),
      exit({ verdict: 'fail' }),
    ]);
    expect([failed.code, failed.stderr]).toEqual([2, `conformance: ${line}\n`]);
    expect([passed.code, gateFailed.code]).toEqual([0, 1]);
  });

  test('the HAR is redacted a line-cut piece at a time, and the pieces make the text', () => {
    const text = 'a\nbb\nccc\n';
    expect([...linePieces(text, 2)]).toEqual(['a\nbb\n', 'ccc\n']);
    expect([...linePieces(text, 1)].join('')).toBe(text);
    expect([...linePieces('')]).toEqual([]);
  });
});
