/**
 * Never delete what the suite did not write (reporter/report-set.ts): reports and Playwright's
 * results are written to a staging directory and moved in file by file; the suite replaces only
 * the files its manifest lists; a path it needs that holds something it did not write is exit 2
 * before any request; `validate` never writes over, nor removes, the HAR it validates.
 *
 * The rules in-process, then the command: one run into directories holding files of the user's,
 * one refused, and two validations of that run's exchanges.har.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ConfigError } from '../../config/error.ts';
import {
  checkOwnPaths,
  commitFiles,
  createStaging,
  ForeignFilesError,
  MANIFEST,
  ownFiles,
  REPORT_PATHS,
} from '../../reporter/report-set.ts';
import { nodeTs, removeTemporaryDirectories, runCli, runNode, temporaryDirectory } from './cli-fixtures.ts';

test.afterAll(removeTemporaryDirectories);

/** Writes `files` (relative path to content) below `dir`. */
function put(dir: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), content);
  }
}

/** A set the suite writes into `dir`: staged, then moved in. */
function commit(dir: string, files: Record<string, string>, protect: string[] = []): void {
  const staging = createStaging(dir);
  put(staging, files);
  commitFiles(staging, dir, { protect });
}

const read = (dir: string, rel: string): string => readFileSync(join(dir, rel), 'utf8');

test.describe('the suite replaces only its own files', () => {
  test("the user's files beside the reports and inside playwright/ stay; the suite's previous ones are replaced or removed", () => {
    const dir = join(temporaryDirectory('payflow-files-'), 'proj');
    put(dir, { 'playwright/my.spec.ts': 'mine', 'notes.txt': 'mine' });
    commit(dir, {
      'conformance.json': 'run 1',
      'playwright/index.html': 'run 1',
      'playwright/data/a.zip': '1',
    });
    commit(dir, { 'conformance.json': 'run 2', 'playwright/index.html': 'run 2' });
    expect(read(dir, 'conformance.json')).toBe('run 2');
    expect(read(dir, 'playwright/index.html')).toBe('run 2');
    expect(existsSync(join(dir, 'playwright', 'data'))).toBe(false);
    expect(read(dir, 'playwright/my.spec.ts')).toBe('mine');
    expect(read(dir, 'notes.txt')).toBe('mine');
    expect([...ownFiles(dir)].sort()).toEqual(['conformance.json', 'playwright/index.html']);
    expect(readdirSync(dir).filter((n) => n.startsWith('.staging-'))).toEqual([]);
  });

  test('a file of the set where the user has one of their own: refused, and nothing moved', () => {
    const dir = join(temporaryDirectory('payflow-files-'), 'proj');
    put(dir, { 'junit.xml': 'mine' });
    const staging = createStaging(dir);
    put(staging, { 'conformance.json': 'new', 'junit.xml': 'new' });
    let error: unknown;
    try {
      commitFiles(staging, dir);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ForeignFilesError);
    expect((error as Error).message).toContain(`${join(dir, 'junit.xml')} was not written by the suite`);
    expect(read(dir, 'junit.xml')).toBe('mine');
    expect(existsSync(join(dir, 'conformance.json'))).toBe(false);
    // Before a run: the same check, a configuration error (exit 2).
    expect(() => checkOwnPaths(dir, REPORT_PATHS, 'the reports directory')).toThrow(ConfigError);
  });

  test('a playwright/ that is a file or a link, and a manifest naming paths outside: nothing is written through or removed outside', () => {
    const root = temporaryDirectory('payflow-files-');
    const dir = join(root, 'proj');
    const outside = join(root, 'outside');
    put(outside, { 'index.html': 'mine', 'victim.txt': 'mine' });
    mkdirSync(dir);
    symlinkSync(outside, join(dir, 'playwright'));
    expect(() => checkOwnPaths(dir, REPORT_PATHS, 'the reports directory')).toThrow(
      /playwright is not a directory the suite made/,
    );
    // A manifest someone edited: entries leading out of the directory are not the suite's.
    writeFileSync(join(dir, MANIFEST), JSON.stringify({ files: ['../outside/victim.txt', '/etc/hostname'] }));
    commit(dir, { 'conformance.json': 'new' });
    expect(read(outside, 'victim.txt')).toBe('mine');
    expect(read(outside, 'index.html')).toBe('mine');
  });

  test("the input of a validation is neither written over nor removed, though it is the suite's", () => {
    const dir = join(temporaryDirectory('payflow-files-'), 'reports');
    commit(dir, { 'conformance.json': 'run', 'exchanges.har': 'the run', 'playwright/index.html': 'run' });
    const har = join(dir, 'exchanges.har');
    for (let i = 0; i < 3; i++) commit(dir, { 'conformance.json': `validation ${i}` }, [har]);
    expect(read(dir, 'exchanges.har')).toBe('the run');
    expect(read(dir, 'conformance.json')).toBe('validation 2');
    expect(ownFiles(dir).has('exchanges.har')).toBe(true);
    expect(() => checkOwnPaths(dir, ['exchanges.har'], 'the reports directory', [har])).toThrow(
      /is the input being validated/,
    );
  });
});

test('through the command: a run keeps the files of the user in the directories it is given, refuses one it would overwrite, and validating its exchanges.har twice keeps it', async () => {
  test.setTimeout(180_000);
  const work = temporaryDirectory('payflow-files-cli-');
  put(work, { 'proj/playwright/my.spec.ts': 'mine', 'proj/notes.md': 'mine', 'res/notes.txt': 'mine' });
  // Against the embedded server, one probe: what matters is what is written where.
  const args = [
    '--probe',
    'known-counterparty',
    '--runs',
    '3',
    '--reports-dir',
    'proj',
    '--results-dir',
    'res',
  ];
  const run = await runCli({}, { args, cwd: work });
  expect(run.code, run.stdout + run.stderr).toBe(0);
  expect(read(work, 'proj/playwright/my.spec.ts')).toBe('mine');
  expect(read(work, 'proj/notes.md')).toBe('mine');
  // Playwright empties its output directory: the suite's is a staging directory inside res/.
  expect(read(work, 'res/notes.txt')).toBe('mine');
  expect(existsSync(join(work, 'proj', 'playwright', 'index.html'))).toBe(true);
  const har = read(work, 'proj/exchanges.har');

  // Twice, as the README shows it: the HAR stays, and the second validation works as the first.
  for (const round of [1, 2]) {
    const v = await runNode(
      nodeTs('bin/validate.ts', 'proj/exchanges.har', '--reports-dir', 'proj'),
      {},
      work,
    );
    expect(v.code, `validation ${round}: ${v.stdout}${v.stderr}`).toBe(0);
    expect(read(work, 'proj/exchanges.har'), `validation ${round}`).toBe(har);
  }
  expect(read(work, 'proj/playwright/my.spec.ts')).toBe('mine');

  // A junit.xml of the user's where the run would write its own: exit 2, before any request.
  put(work, { 'ci/junit.xml': 'mine' });
  const refused = await runCli({}, { args: [...args, '--reports-dir', 'ci'], cwd: work });
  expect(refused.code, refused.stdout + refused.stderr).toBe(2);
  expect(refused.stderr.trim()).toMatch(
    /^conformance: the reports directory \S+\/ci holds what the suite would have to replace but did not write: \S+\/ci\/junit\.xml was not written by the suite;/,
  );
  expect(read(work, 'ci/junit.xml')).toBe('mine');
  expect(readdirSync(join(work, 'ci'))).toEqual(['junit.xml']);
});
